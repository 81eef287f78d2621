/*
 * pprof.c - fold's resolved samples to a pprof Profile (see pprof.h).
 *
 * A sample's frames come with their map entry, address and names; each
 * becomes a Location through two caches in front of the profile's own
 * interning (which alone would be exact, but hashes the strings again):
 * map entry to Mapping id, and (map entry, address, names) to Location
 * id (and whether the lines were looked up at ip or, for a caller, at
 * ip - 1). A map entry is one mapping of one life of one process, and
 * names are the symbolizer's interned pointers, so a hit is exact.
 */
#include "pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/gzip.h"
#include "psrec/perf_data.h"
#include "util/vec.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"
#define INLINED_SUFFIX " (inlined)"

/* Lines a location gets at most: the calls inlined at one address, and the function. */
#define MAX_INLINES 64

#define MAP_CACHE (1 << 12)
#define LOC_CACHE (1 << 16)

struct pprof_ctx {
	struct pprof_result *r;
	uint64_t kernel_mapping;    /* for kernel frames in no map; 0 until needed */
	uint64_t period_sum;
	uint64_t *hits;             /* by mapping id - 1: samples whose innermost program frame is there */
	size_t nhits;
	struct {
		const struct maps_entry *map;
		uint64_t id;
	} maps[MAP_CACHE];
	struct {
		const struct maps_entry *map;
		uint64_t ip;
		const char *name;
		const char *const *inl;
		uint64_t id;
		bool kernel, caller, used;  /* caller: the lines are those of ip - 1 */
	} locs[LOC_CACHE];
	uint64_t loc_ids[1024 + 1];
	/* the labels of the last sample's thread: one thread's samples come
	 * in runs */
	struct {
		int32_t pid, tid;
		const char *comm;       /* interned by the side band: compared by pointer */
		uint64_t ids[4];
		bool valid;
	} labels;
	char buf[1024];
};

static uint64_t hash_ptr(const void *p, uint64_t x)
{
	return ((uint64_t)(uintptr_t)p ^ x * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
}

static int mapping_of(struct pprof_ctx *x, const struct fold_frame *f, uint64_t *id)
{
	struct profile *p = x->r->profile;
	if (!f->map) {
		*id = 0;
		if (!f->kernel)
			return 0; /* no mapping: an address in no known map */
		if (!x->kernel_mapping) {
			/* no kernel map in the recording (kptr_restrict):
			 * the frames still belong to the kernel */
			struct profile_mapping m = { 0, 0, 0, KERNEL_MAPPING, NULL, true, false };
			int err = profile_mapping(p, &m, &x->kernel_mapping);
			if (err)
				return err;
		}
		*id = x->kernel_mapping;
		return 0;
	}
	size_t h = (size_t)(hash_ptr(f->map, 0) >> 52);
	if (x->maps[h].map == f->map) {
		*id = x->maps[h].id;
		return 0;
	}
	char hex[BUILD_ID_HEX_MAX];
	build_id_hex(&f->dso->id, hex);
	struct profile_mapping m = { f->map->start, f->map->end, f->map->pgoff, f->dso->name, hex, true,
				     !f->kernel };
	int err = profile_mapping(p, &m, id);
	if (!err) {
		x->maps[h].map = f->map;
		x->maps[h].id = *id;
	}
	return err;
}

/* "NAME (inlined)" without the suffix fold prints. */
static const char *inline_name(struct pprof_ctx *x, const char *n)
{
	size_t len = strlen(n), sl = strlen(INLINED_SUFFIX);
	if (len <= sl || strcmp(n + len - sl, INLINED_SUFFIX) != 0 || len - sl >= sizeof(x->buf))
		return n;
	memcpy(x->buf, n, len - sl);
	x->buf[len - sl] = '\0';
	return x->buf;
}

static int location_of(struct pprof_ctx *x, const struct fold_frame *f, uint64_t *id)
{
	size_t h = (size_t)(hash_ptr(f->map, f->ip ^ hash_ptr(f->name, (uint64_t)(uintptr_t)f->inl)) >> 48);
	if (x->locs[h].used && x->locs[h].map == f->map && x->locs[h].ip == f->ip && x->locs[h].name == f->name &&
	    x->locs[h].inl == f->inl && x->locs[h].kernel == f->kernel && x->locs[h].caller == f->caller) {
		*id = x->locs[h].id;
		return 0;
	}
	struct profile *p = x->r->profile;
	uint64_t mapping, fn[MAX_INLINES + 1];
	int64_t line[MAX_INLINES + 1];
	int err = mapping_of(x, f, &mapping);
	size_t ninl = f->ninl < MAX_INLINES ? f->ninl : MAX_INLINES;
	/* files and lines: the function's, then each inlined call's, as the
	 * names are (outermost first); none unless they line up one to one */
	struct sym_source src[MAX_INLINES + 1];
	size_t nsrc = 0;
	if (!err && f->map && !f->kernel) {
		struct sym_dso d = { f->dso->name, &f->dso->id, f->dso->kernel };
		err = symbolizer_sources(x->r->fold.symbolizer, &d, f->map->start, f->map->pgoff, f->ip - f->caller, src,
					 MAX_INLINES + 1, &nsrc);
		if (nsrc != ninl + 1)
			nsrc = 0;
	}
	/* innermost first: the last call inlined, ..., the first, the function */
	size_t n = 0;
	for (size_t k = ninl; k-- > 0 && !err; n++) {
		line[n] = nsrc ? src[k + 1].line : 0;
		err = profile_function(p, inline_name(x, f->inl[k]), NULL, nsrc ? src[k + 1].file : NULL, &fn[n]);
	}
	if (!err) {
		line[n] = nsrc ? src[0].line : 0;
		err = profile_function(p, f->name, f->raw, nsrc ? src[0].file : NULL, &fn[n++]);
	}
	if (!err)
		err = profile_location(p, mapping, f->ip, fn, line, n, id);
	if (err)
		return err;
	x->locs[h].map = f->map;
	x->locs[h].ip = f->ip;
	x->locs[h].name = f->name;
	x->locs[h].inl = f->inl;
	x->locs[h].id = *id;
	x->locs[h].kernel = f->kernel;
	x->locs[h].caller = f->caller;
	x->locs[h].used = true;
	return 0;
}

/* A shared library ("libc.so.6", "ld-linux-x86-64.so.2"), or no file. */
static bool not_program(const struct dso *d)
{
	const char *base = strrchr(d->name, '/');
	base = base ? base + 1 : d->name;
	return d->kernel || d->name[0] != '/' || strstr(base, ".so") != NULL;
}

/* pprof shows mapping[0] as the main binary: count, per sample, the
 * program (not a library) that holds its innermost frame in one. */
static int count_program(struct pprof_ctx *x, const struct fold_sample *s)
{
	for (size_t i = 0; i < s->nframes; i++) {
		const struct fold_frame *f = &s->frames[i];
		if (!f->map || not_program(f->dso))
			continue;
		uint64_t id;
		int err = mapping_of(x, f, &id);
		if (err)
			return err;
		size_t had = x->nhits;
		/* every hit counted, zero until one is: nhits is the capacity */
		if (id > had) {
			if (VEC_RESERVE(x->hits, x->nhits, 0, id, 16))
				return -ENOMEM;
			memset(x->hits + had, 0, (x->nhits - had) * sizeof(*x->hits));
		}
		x->hits[id - 1]++;
		return 0;
	}
	return 0;
}

static int on_sample(void *arg, const struct fold_sample *s)
{
	struct pprof_ctx *x = arg;
	int cerr = count_program(x, s);
	if (cerr)
		return cerr;
	size_t n = s->nframes < 1024 ? s->nframes : 1024;
	for (size_t i = 0; i < n; i++) {
		int err = location_of(x, &s->frames[i], &x->loc_ids[i]);
		if (err)
			return err;
	}
	x->period_sum += s->period;
	int64_t values[2] = { 1, (int64_t)s->period };
	if (!x->labels.valid || x->labels.pid != s->pid || x->labels.tid != s->tid || x->labels.comm != s->comm) {
		struct profile_label labels[] = {
			{ "pid", NULL, s->pid, NULL },
			{ "tid", NULL, s->tid, NULL },
			{ "comm", s->comm, 0, NULL },
			{ "event", x->r->fold.event, 0, NULL },
		};
		x->labels.valid = false;
		for (size_t i = 0; i < 4; i++) {
			int err = profile_label(x->r->profile, &labels[i], &x->labels.ids[i]);
			if (err)
				return err;
		}
		x->labels.pid = s->pid;
		x->labels.tid = s->tid;
		x->labels.comm = s->comm;
		x->labels.valid = true;
	}
	return profile_sample_labeled(x->r->profile, x->loc_ids, n, values, x->labels.ids, 4);
}

/* What the period counts: cpu-clock and task-clock count nanoseconds. */
static void period_unit(const struct fold_result *f, char *type, size_t len, const char **unit)
{
	if (f->event_type == PD_TYPE_SOFTWARE && (f->event_config == PD_SW_CPU_CLOCK || f->event_config == PD_SW_TASK_CLOCK)) {
		snprintf(type, len, "cpu");
		*unit = "nanoseconds";
		return;
	}
	/* "cycles:u" counts cycles */
	snprintf(type, len, "%.*s", (int)strcspn(f->event, ":"), f->event);
	if (!type[0])
		snprintf(type, len, "events");
	*unit = "count";
}

static int set_info(struct pprof_ctx *x, const struct fold_config *c)
{
	struct pprof_result *r = x->r;
	const struct fold_result *f = &r->fold;
	struct profile *p = r->profile;
	char type[EVENTS_NAME_MAX];
	const char *unit;
	period_unit(f, type, sizeof(type), &unit);
	int err = profile_sample_type(p, 0, "samples", "count");
	if (!err)
		err = profile_sample_type(p, 1, type, unit);
	if (err)
		return err;
	/* with -F the kernel varies the period: the mean is what one sample stood for */
	int64_t period = f->freq ? (f->kept ? (int64_t)(x->period_sum / f->kept) : 0) : (int64_t)f->sample_period;
	int64_t start = (int64_t)f->first_time;
	if (f->has_clock_data) {
		start = (int64_t)(f->clock_wall_ns + (f->first_time - f->clock_ns));
		r->wall_time = true;
	}
	size_t best = 0;
	for (size_t i = 1; i < x->nhits; i++)
		if (x->hits[i] > x->hits[best])
			best = i;
	if (x->nhits && x->hits[best])
		profile_mapping_first(p, best + 1);
	char comment[512];
	snprintf(comment, sizeof(comment), "psrec pprof -i %s: event %s, %" PRIu64 " samples%s", c->input, f->event,
		 f->kept, r->wall_time ? "" : "; time_nanos is the recording clock's, not wall time");
	struct profile_info in = {
		type, unit, period, f->kept ? start : 0,
		f->kept ? (int64_t)(f->last_time - f->first_time) : 0,
		c->period ? type : "samples", comment,
	};
	return profile_info(p, &in);
}

int pprof_run(const struct fold_config *c, struct pprof_result *r, struct err *e)
{
	memset(r, 0, sizeof(*r));
	struct pprof_ctx *x = calloc(1, sizeof(*x));
	if (!x)
		return err_set(e, -ENOMEM, "out of memory converting %s", c->input);
	x->r = r;
	int err = profile_new(&r->profile, 2);
	if (!err) {
		struct fold_config fc = *c;
		fc.on_sample = on_sample;
		fc.arg = x;
		err = fold_run(&fc, &r->fold, e);
	}
	if (!err && (err = set_info(x, c)) != 0)
		err_set(e, err, "out of memory converting %s", c->input);
	if (!err)
		profile_counts(r->profile, &r->counts);
	if (err && !err_is_set(e))
		err_set(e, err, "out of memory converting %s", c->input);
	free(x->hits);
	free(x);
	return err;
}

int pprof_write(FILE *out, const struct pprof_result *r, size_t *bytes, struct err *e)
{
	uint8_t *buf;
	size_t len;
	int err = profile_encode(r->profile, &buf, &len);
	if (err)
		return err_set(e, err, "out of memory encoding the profile");
	*bytes = len;
	errno = 0;
	err = gzip_write(out, buf, len);
	free(buf);
	if (!err && (fflush(out) != 0 || ferror(out)))
		err = -EIO;
	if (err == -EIO) {
		int saved = errno ? errno : EIO;
		return err_set(e, -saved, "cannot write the profile: %s", strerror(saved));
	}
	if (err)
		return err_set(e, err, "out of memory compressing the profile");
	return 0;
}

void pprof_free(struct pprof_result *r)
{
	fold_free(&r->fold);
	profile_free(r->profile);
	r->profile = NULL;
}
