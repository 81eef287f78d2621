/*
 * perm.h - the permission and limits doctor: what the kernel allows this
 * user to sample, raising RLIMIT_NOFILE when a recording needs more fds,
 * and turning a refused perf_event_open or mmap into one or two lines that
 * say why and how to fix it.
 */
#ifndef PSREC_RECORD_PERM_H
#define PSREC_RECORD_PERM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record/evspec.h"
#include "util/err.h"

#define PERM_PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define PERM_MLOCK_PATH    "/proc/sys/kernel/perf_event_mlock_kb"

/* perf_event_paranoid (2 when unreadable: the kernel's default). */
int perm_paranoid(void);

/* Root, CAP_PERFMON or CAP_SYS_ADMIN in the effective set. */
bool perm_privileged(void);

/* Kernel-mode samples of a task are allowed (paranoid <= 1 or privileged). */
bool perm_can_sample_kernel(void);

/* System-wide (per-CPU, all tasks) events are allowed (paranoid <= 0 or
 * privileged). */
bool perm_can_sample_cpus(void);

/*
 * Make sure `needed` file descriptors can be open: raise the soft
 * RLIMIT_NOFILE up to the hard limit (and, for root, the hard limit up to
 * fs.nr_open). *raised_to gets the new soft limit (0 if unchanged).
 * -EMFILE with a message naming the count when that is not enough.
 */
int perm_ensure_fds(size_t needed, size_t *raised_to, struct err *e);

/* What failed, for perm_explain(). */
struct perm_failure {
	int code;                   /* errno */
	struct evspec ev;           /* the event that failed (a copy) */
	bool has_ev;
	pid_t pid;                  /* target thread, -1 for all */
	int cpu;
	bool system_wide;
	bool at_mmap;               /* the ring mmap failed, not the open */
	size_t ring_kb;
	size_t fds_needed;
};

/* One line (two at most) saying why and how to fix it. Returns -code. */
int perm_explain(const struct perm_failure *f, struct err *e);

#endif
