/*
 * features.c - the feature sections of a recording (see features.h).
 */
#include "features.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/feature.h"
#include "marker/tp.h"
#include "record/cpucache.h"
#include "record/numa.h"
#include "record/pmu.h"

/* PSREC_VERSION comes from meson (the project version). */

/*
 * VERSION: the perf release whose file format psrec writes, then psrec's
 * own. Readers take the leading number for the writer's perf version, as
 * perf record writes it ("6.1.192"): hotspot's perfparser trusts a file
 * from perf >= 3.17 to be ordered by FINISHED_ROUND and then flushes per
 * round from the start; on a name first it buffers until the first round
 * and says so. docs/readers.md.
 */
#define VERSION_STRING "6.1.0 (psrec " PSREC_VERSION ")"

/* Build payload `expr` (which appends to `b`) as feature `feat`, unless an
 * earlier one failed. */
#define ADD(feat, expr) do {                                            \
		if (!err) {                                             \
			struct buf *b = &out->b[out->nr];               \
			err = out->nr < FEATURES_MAX ? (expr) : -E2BIG; \
			if (!err) {                                     \
				out->f[out->nr].id = (feat);            \
				out->f[out->nr].data = b->data;         \
				out->f[out->nr].len = b->len;           \
				out->nr++;                              \
			}                                               \
		}                                                       \
	} while (0)

/*
 * PMU_CAPS lists every PMU with caps but "cpu", hybrid ones ("cpu_core",
 * "cpu_atom") first (perf 6.1 write_pmu_caps, so that older perfs find
 * them where they look).
 */
static int pmu_caps(struct buf *b, const struct pmu_list *l)
{
	struct feature_pmu ordered[l->nr ? l->nr : 1];
	uint32_t n = 0;
	for (int hybrid = 1; hybrid >= 0; hybrid--)
		for (uint32_t i = 0; i < l->nr; i++) {
			const char *name = l->pmus[i].name;
			bool is_hybrid = strncmp(name, "cpu_", 4) == 0;
			if (strcmp(name, "cpu") != 0 && is_hybrid == (hybrid == 1))
				ordered[n++] = l->pmus[i];
		}
	return feature_pmu_caps(b, ordered, n);
}

/* The recording's events: the sampler's, then psrec:marker if any. */
static int events_of(const struct feature_inputs *in, const struct sampler_event **ev)
{
	const struct sampler *s = in->sampler;
	size_t n = s->nr_events;
	if (n + (in->marker != NULL) > FEATURES_MAX_EVENTS)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		ev[i] = &s->ev[i];
	if (in->marker)
		ev[n++] = in->marker;
	return (int)n;
}

static int feature_events(struct buf *b, const struct feature_inputs *in)
{
	struct feature_event fev[FEATURES_MAX_EVENTS];
	const struct sampler_event *ev[FEATURES_MAX_EVENTS];
	int n = events_of(in, ev);
	for (int i = 0; i < n; i++) {
		fev[i].attr = &ev[i]->attr;
		fev[i].name = ev[i]->name;
		fev[i].ids = ev[i]->ids;
		fev[i].nr_ids = (uint32_t)ev[i]->nr_ids;
	}
	return n < 0 ? n : feature_event_desc(b, fev, (uint32_t)n);
}

static int cmdline(struct buf *b, const struct record_config *o)
{
	char exe[4096];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (el <= 0)
		snprintf(exe, sizeof(exe), "%s", o->argv[0]);
	else
		exe[el] = '\0';
	return feature_cmdline(b, exe, o->argc, o->argv);
}

int features_machine_read(const struct feature_inputs *in, struct features_machine *m)
{
	memset(m, 0, sizeof(*m));
	int err = numa_read(in->sysfs, &m->numa);
	/* A pipe stream gets no CACHE (perf leaves it out too): its
	 * features are built at the start, so skip the sysfs reads. */
	if (!err && !in->pipe)
		err = cpucache_read(in->sysfs, in->host->nr_cpus_avail, &m->caches);
	if (!err)
		err = pmu_list_read(in->sysfs, &m->pmus);
	return err;
}

void features_machine_free(struct features_machine *m)
{
	numa_free(&m->numa);
	cpucache_free(&m->caches);
	pmu_list_free(&m->pmus);
}

int features_build(const struct feature_inputs *in, struct features *out)
{
	const struct hostinfo *h = in->host;
	memset(out, 0, sizeof(*out));
	struct features_machine own;
	int err = in->machine ? 0 : features_machine_read(in, &own);
	const struct features_machine *mp = in->machine ? in->machine : &own;

	if (in->marker)
		ADD(PD_FEAT_TRACING_DATA, marker_tp_tracing_data(b));
	if (in->build_ids && in->build_ids->len)
		ADD(PD_FEAT_BUILD_ID, buf_append(b, in->build_ids->data, in->build_ids->len));
	if (h->hostname[0])
		ADD(PD_FEAT_HOSTNAME, feature_string(b, h->hostname));
	if (h->osrelease[0])
		ADD(PD_FEAT_OSRELEASE, feature_string(b, h->osrelease));
	ADD(PD_FEAT_VERSION, feature_string(b, VERSION_STRING));
	if (h->arch[0])
		ADD(PD_FEAT_ARCH, feature_string(b, h->arch));
	if (h->nr_cpus_online)
		ADD(PD_FEAT_NRCPUS, feature_nrcpus(b, h->nr_cpus_avail, h->nr_cpus_online));
	if (h->cpudesc[0])
		ADD(PD_FEAT_CPUDESC, feature_string(b, h->cpudesc));
	if (h->cpuid[0])
		ADD(PD_FEAT_CPUID, feature_string(b, h->cpuid));
	if (h->mem_total_kb)
		ADD(PD_FEAT_TOTAL_MEM, feature_total_mem(b, h->mem_total_kb));
	ADD(PD_FEAT_CMDLINE, cmdline(b, in->opts));
	ADD(PD_FEAT_EVENT_DESC, feature_events(b, in));
	if (h->topo_ok) {
		struct feature_topology t;
		hostinfo_topology(h, &t);
		ADD(PD_FEAT_CPU_TOPOLOGY, feature_cpu_topology(b, &t));
	}
	if (mp->numa.nr_nodes)
		ADD(PD_FEAT_NUMA_TOPOLOGY, feature_numa_topology(b, mp->numa.nodes, mp->numa.nr_nodes));
	if (mp->pmus.nr)
		ADD(PD_FEAT_PMU_MAPPINGS, feature_pmu_mappings(b, mp->pmus.pmus, mp->pmus.nr));
	if (mp->caches.nr)
		ADD(PD_FEAT_CACHE, feature_cache(b, mp->caches.c, mp->caches.nr));
	ADD(PD_FEAT_SAMPLE_TIME, feature_sample_time(b, in->first_time, in->last_time));
	if (mp->numa.block_size)
		ADD(PD_FEAT_MEM_TOPOLOGY, feature_mem_topology(b, mp->numa.block_size, mp->numa.mem, mp->numa.nr_mem));

	struct timespec res;
	if (clock_getres(in->opts->clockid, &res) == 0) {
		uint64_t ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec;
		ADD(PD_FEAT_CLOCKID, feature_clockid(b, ns ? ns : 1));
	}
	ADD(PD_FEAT_BPF_PROG_INFO, feature_bpf_none(b));
	ADD(PD_FEAT_BPF_BTF, feature_bpf_none(b));
	if (in->compress)
		ADD(PD_FEAT_COMPRESSED, feature_compressed(b, (uint32_t)in->compress->level,
							   compress_ratio(in->compress), in->mmap_len));
	const struct feature_pmu *cpu = pmu_list_find(&mp->pmus, "cpu");
	if (cpu)
		ADD(PD_FEAT_CPU_PMU_CAPS, feature_cpu_pmu_caps(b, cpu));
	ADD(PD_FEAT_CLOCK_DATA, feature_clock_data(b, (uint32_t)in->opts->clockid, in->tod_ns, in->clk_ns));
	if (mp->pmus.nr)
		ADD(PD_FEAT_PMU_CAPS, pmu_caps(b, &mp->pmus));
#undef ADD
	if (!in->machine)
		features_machine_free(&own);
	return err;
}

void features_free(struct features *f)
{
	for (size_t i = 0; i < FEATURES_MAX; i++)
		buf_free(&f->b[i]);
	f->nr = 0;
}

int features_write_header(struct writer *w, int fd, const struct feature_inputs *in)
{
	struct writer_event wev[FEATURES_MAX_EVENTS];
	const struct sampler_event *ev[FEATURES_MAX_EVENTS];
	int n = events_of(in, ev);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		wev[i].attr = &ev[i]->attr;
		wev[i].ids = ev[i]->ids;
		wev[i].nr_ids = ev[i]->nr_ids;
		wev[i].name = ev[i]->name;
	}
	int err;
	if (in->pipe) {
		struct features f;
		err = features_build(in, &f);
		if (!err)
			err = writer_begin_pipe(w, fd, wev, (size_t)n, f.f, f.nr);
		features_free(&f);
		return err;
	}
	err = writer_begin(w, fd, wev, (size_t)n);
	if (err || !in->compress)
		return err;
	/* The decompression parameters as a record at the start of the data,
	 * so that a killed recording is readable too (docs/writer.md, W4). */
	struct buf b = BUF_INIT;
	err = feature_compressed(&b, (uint32_t)in->compress->level, 0, in->mmap_len);
	struct writer_feature comp = { PD_FEAT_COMPRESSED, b.data, b.len };
	if (!err)
		err = writer_append_feature(w, &comp);
	if (!err)
		err = writer_checkpoint(w);
	buf_free(&b);
	return err;
}

int features_finish(struct writer *w, const struct feature_inputs *in, bool *features_failed)
{
	struct features f;
	int err = features_build(in, &f);
	int ferr = 0;
	int herr = writer_finish(w, f.f, err ? 0 : f.nr, &ferr);
	features_free(&f);
	*features_failed = ferr || err;
	return herr;
}

static uint64_t clock_ns(int clockid)
{
	struct timespec ts;
	if (clock_gettime(clockid, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void features_inputs_init(struct feature_inputs *in, const struct hostinfo *host,
			  const struct record_config *cfg, bool pipe, const struct sampler *s,
			  const struct compressor *comp)
{
	*in = (struct feature_inputs){
		.host = host, .opts = cfg, .pipe = pipe, .sampler = s, .sysfs = "/sys",
		.tod_ns = clock_ns(CLOCK_REALTIME), .clk_ns = clock_ns(cfg->clockid),
		.compress = comp,
		.mmap_len = (uint32_t)s->rings[0].size,
	};
}
