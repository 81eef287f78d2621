/*
 * test_features.c - the feature set of a recording (src/record/features.c):
 * which features, in which order, from a fake sysfs tree.
 */
#include "test_helpers.h"

#include "cli/options.h"

#include "record/features.h"

/* One CPU with one cache, one NUMA node with one memory block, and PMUs
 * software, cpu (with caps, as on a machine with a hardware PMU) and a
 * hybrid cpu_core. */
static void machine(void)
{
	const char *c = "devices/system/cpu/cpu0/cache/index0/";
	const char *f[][2] = { { "level", "1" }, { "coherency_line_size", "64" }, { "number_of_sets", "64" },
			       { "ways_of_associativity", "8" }, { "type", "Data" }, { "size", "32K" },
			       { "shared_cpu_list", "0" } };
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "%s%s", c, f[i][0]);
		th_root_put(rel, f[i][1]);
	}
	th_root_put("devices/system/node/online", "0");
	th_root_put("devices/system/node/node0/cpulist", "0");
	th_root_put("devices/system/node/node0/meminfo", "Node 0 MemTotal: 100 kB\nNode 0 MemFree: 50 kB\n");
	th_mkdirs("%s/devices/system/node/node0/memory0", th_root);
	th_root_put("devices/system/memory/block_size_bytes", "8000000");
	th_root_put("bus/event_source/devices/software/type", "1");
	th_root_put("bus/event_source/devices/cpu/type", "4");
	th_root_put("bus/event_source/devices/cpu/caps/branches", "32");
	th_root_put("bus/event_source/devices/cpu_core/type", "8");
	th_root_put("bus/event_source/devices/cpu_core/caps/max_precise", "3");
}

struct fixture {
	struct hostinfo host;
	struct options o;
	struct record_config opts;
	struct sampler smp;
	struct sampler_event ev;
	uint64_t id;
	char *argv[3];
	struct feature_inputs in;
};

static void fixture_init(struct fixture *x, bool pipe)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->host.hostname, sizeof(x->host.hostname), "host");
	snprintf(x->host.osrelease, sizeof(x->host.osrelease), "6.18");
	snprintf(x->host.arch, sizeof(x->host.arch), "x86_64");
	x->host.nr_cpus_avail = x->host.nr_cpus_online = 1;
	options_init(&x->o);
	x->opts = x->o.cfg;
	x->opts.pipe = pipe;
	x->in.pipe = pipe;
	x->argv[0] = "psrec";
	x->argv[1] = "true";
	x->opts.argv = x->argv;
	x->opts.argc = 2;
	x->id = 7;
	x->ev.name = "cpu-clock";
	x->ev.ids = &x->id;
	x->ev.nr_ids = 1;
	x->smp.ev = &x->ev;
	x->smp.nr_events = 1;
	x->in.host = &x->host;
	x->in.opts = &x->opts;
	x->in.sampler = &x->smp;
	x->in.sysfs = th_root;
}

static const struct writer_feature *find(const struct features *f, uint32_t id)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->f[i].id == id)
			return &f->f[i];
	return NULL;
}

static void test_features_build_ascending_ids_with_every_machine_feature(void **state)
{
	(void)state;
	machine();
	struct fixture x;
	fixture_init(&x, false);
	struct features f;
	assert_int_equal(features_build(&x.in, &f), 0);
	for (size_t i = 1; i < f.nr; i++)
		assert_true(f.f[i - 1].id < f.f[i].id);
	static const uint32_t want[] = {
		PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE, PD_FEAT_VERSION, PD_FEAT_ARCH, PD_FEAT_NRCPUS,
		PD_FEAT_CMDLINE, PD_FEAT_EVENT_DESC, PD_FEAT_NUMA_TOPOLOGY, PD_FEAT_PMU_MAPPINGS,
		PD_FEAT_CACHE, PD_FEAT_SAMPLE_TIME, PD_FEAT_MEM_TOPOLOGY, PD_FEAT_CLOCKID,
		PD_FEAT_BPF_PROG_INFO, PD_FEAT_BPF_BTF, PD_FEAT_CPU_PMU_CAPS, PD_FEAT_CLOCK_DATA,
		PD_FEAT_PMU_CAPS,
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_non_null(find(&f, want[i]));
	assert_null(find(&f, PD_FEAT_COMPRESSED));       /* no -z */
	assert_null(find(&f, PD_FEAT_BUILD_ID));

	/* VERSION leads with the perf format release, for hotspot */
	const struct writer_feature *v = find(&f, PD_FEAT_VERSION);
	assert_memory_equal((const uint8_t *)v->data + 4, "6.1.0 (psrec ", 13);

	/* PMU_CAPS: cpu_core only (cpu has CPU_PMU_CAPS), named after its caps */
	const struct writer_feature *pc = find(&f, PD_FEAT_PMU_CAPS);
	const uint8_t *p = pc->data;
	assert_int_equal(th_u32(p, 0), 1);
	assert_int_equal(th_u32(p, 4), 1);
	assert_string_equal((const char *)p + 8 + 4, "max_precise");
	assert_string_equal((const char *)p + pc->len - 64, "cpu_core");
	const struct writer_feature *cc = find(&f, PD_FEAT_CPU_PMU_CAPS);
	assert_int_equal(th_u32(cc->data, 0), 1);
	assert_string_equal((const char *)cc->data + 8, "branches");
	features_free(&f);
}

static void test_features_build_pipe_leaves_out_cache_as_perf_does(void **state)
{
	(void)state;
	machine();
	struct fixture x;
	fixture_init(&x, true);
	struct features f;
	assert_int_equal(features_build(&x.in, &f), 0);
	assert_null(find(&f, PD_FEAT_CACHE));
	assert_non_null(find(&f, PD_FEAT_NUMA_TOPOLOGY));
	assert_non_null(find(&f, PD_FEAT_MEM_TOPOLOGY));
	features_free(&f);
}

static void test_features_build_machine_without_sysfs_facts_omits_their_features(void **state)
{
	(void)state;
	struct fixture x;
	fixture_init(&x, false);
	struct features f;
	assert_int_equal(features_build(&x.in, &f), 0);
	static const uint32_t absent[] = {
		PD_FEAT_NUMA_TOPOLOGY, PD_FEAT_PMU_MAPPINGS, PD_FEAT_CACHE, PD_FEAT_MEM_TOPOLOGY,
		PD_FEAT_CPU_PMU_CAPS, PD_FEAT_PMU_CAPS, PD_FEAT_CPU_TOPOLOGY,
	};
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		assert_null(find(&f, absent[i]));
	assert_non_null(find(&f, PD_FEAT_BPF_PROG_INFO));
	assert_non_null(find(&f, PD_FEAT_EVENT_DESC));
	features_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_features_build_ascending_ids_with_every_machine_feature),
		TH_FAKE(test_features_build_pipe_leaves_out_cache_as_perf_does),
		TH_FAKE(test_features_build_machine_without_sysfs_facts_omits_their_features),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
