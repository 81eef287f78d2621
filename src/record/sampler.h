/*
 * sampler.h - the per-CPU sampler set: every event on every CPU (for every
 * target thread), one ring buffer per CPU.
 *
 * For each CPU the first fd opened owns the ring (an mmap of 1 + 2^n
 * pages); every other fd on that CPU is redirected into it with
 * PERF_EVENT_IOC_SET_OUTPUT, so there are as many rings as CPUs however
 * many events and threads are recorded. (A dummy event on psrec itself as
 * the owner was tried, to be spared the owner's EPOLLHUP when its thread
 * exits: it made every context switch of psrec dearer, measurably at high
 * rates, for a case the loop already handles.) The sample ids
 * (PERF_EVENT_IOC_ID) go under their event, for the file's ids sections; a
 * lone event needs only one.
 *
 * Attrs: sample_type IP|TID|TIME|PERIOD (+IDENTIFIER, +CPU, see below), sample_id_all,
 * use_clockid, disabled unless open_enabled (attach opens them enabled),
 * + inherit for a command or -p, + enable_on_exec for a launched command;
 * the first event also tracks
 * mmap/mmap2/comm/comm_exec/task, so side-band records are not duplicated
 * per event. attr.size is 128 (perf 6.1 rejects larger,
 * perf-data-format.md 1.2).
 *
 * Fallbacks, reported through flags (sampler_announce says them):
 * - kernel samples refused (perf_event_paranoid): events without an
 *   explicit modifier are retried with exclude_kernel (kernel_excluded);
 * - the default "cycles" event on a machine without a hardware PMU becomes
 *   cpu-clock (default_fell_back);
 * - a ring the locked-memory limit refuses is halved until it maps
 *   (ring_shrunk);
 * - attr.build_id refused (EINVAL, a kernel before 5.12): classic MMAP2
 *   records (build_id_refused).
 */
#ifndef PSREC_RECORD_SAMPLER_H
#define PSREC_RECORD_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "psrec/perf_data.h"
#include "record/callgraph.h"
#include "record/evspec.h"
#include "record/notify.h"
#include "record/perm.h"
#include "record/ring.h"

/*
 * What every sample carries: the fields perf record uses, so a sample is
 * no bigger than perf's (40 bytes without call chains). PERIOD because
 * in frequency mode the period varies; IDENTIFIER only when several
 * events share the rings (it tells them apart from any record); CPU only
 * for CPU-wide recordings (-a, -C), as perf does.
 */
#define SAMPLER_SAMPLE_BASE (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_PERIOD)

struct sampler_config {
	const struct evspec *events; /* as asked; the sampler applies the
					fallbacks to its own copy (spec) */
	size_t nr_events;
	const pid_t *pids;          /* target threads; {-1} = every task */
	size_t nr_pids;
	const int *cpus;
	size_t nr_cpus;
	uint64_t freq;              /* used when period == 0 */
	uint64_t period;
	int clockid;
	size_t mmap_pages;          /* data pages per ring, a power of two */
	bool enable_on_exec;        /* a launched command: start at its exec */
	bool inherit;               /* follow new threads and children */
	bool skip_vanished;         /* a thread that exited is skipped (attach) */
	bool sample_cpu;            /* samples carry the CPU (CPU-wide recording) */
	bool open_enabled;          /* sample from each open on (attach) */
	bool build_id;              /* MMAP2 records carry build-ids (attr.build_id) */
	bool identifier;            /* IDENTIFIER and every id, as with several
				       events: another attr (psrec:marker) shares the file */
	struct callgraph callgraph; /* call chains, if any */
};

struct sampler_event {
	struct pd_attr attr;
	const char *name;           /* points into the sampler's spec */
	uint64_t *ids;
	size_t nr_ids;
};

struct sampler {
	struct evspec *spec;        /* the events as opened (fallbacks applied) */
	struct sampler_event *ev;
	size_t nr_events;
	size_t nr_cpus;
	const int *cpus;
	int *fds;                   /* every fd opened */
	size_t *fd_cpu;             /* index into cpus of each fd */
	size_t nr_fds, cap_fds;
	struct ring *rings;         /* one per CPU */
	int *ring_fds;              /* the fd owning each ring (polled) */
	void **maps;
	size_t map_len;
	size_t ring_pages;          /* data pages per ring actually mapped */
	size_t nr_skipped;          /* threads that vanished while opening */
	bool kernel_excluded;       /* fell back to user-space samples only */
	bool default_fell_back;     /* default cycles became cpu-clock */
	bool ring_shrunk;           /* locked-memory limit forced a smaller -m */
	bool kernel_samples;        /* some event samples kernel mode */
	bool build_id_mmap;         /* the kernel writes build-ids into MMAP2 */
	bool build_id_refused;      /* asked for, but the kernel predates 5.12 */
	uint64_t sample_type;       /* the base sample_type of every event */
};

/* Open, map and redirect everything; on failure nothing stays open and *f
 * says what failed (for perm_explain). Returns 0 or -errno. */
int sampler_open(struct sampler *s, const struct sampler_config *c, struct perm_failure *f);

/*
 * Open every event on every CPU for more threads (found after the first
 * open), into the existing rings. Vanished threads are skipped when the
 * config says so. *added counts threads opened. 0 or -errno with *f.
 */
int sampler_add(struct sampler *s, const struct sampler_config *c, const pid_t *pids,
		size_t n, size_t *added, struct perm_failure *f);

/* Enable / disable every event (a launched command uses enable_on_exec). */
int sampler_enable(struct sampler *s);
int sampler_disable(struct sampler *s);

void sampler_close(struct sampler *s);

/* Say the fallbacks the open took: a warning for user space only, -v
 * detail for cpu-clock and for attr.build_id refused; a smaller ring than
 * pages_asked is a warning when -m gave it (pages_given), else detail. */
void sampler_announce(const struct sampler *s, size_t pages_asked, bool pages_given, const struct notify *n);

#endif
