/*
 * attach.h - the running processes (-p), threads (-t) or everything (-a)
 * psrec attaches to.
 */
#ifndef PSREC_RECORD_ATTACH_H
#define PSREC_RECORD_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record/procfs.h"
#include "util/err.h"

/*
 * Processes are checked before anything is opened: one that does not
 * exist, a zombie, a thread id given to -p, or a kernel thread while
 * kernel samples are not allowed is an error naming it (otherwise a kernel
 * thread is marked, for the caller to say what it will get). A -p process
 * whose leader alone has exited (pthread_exit) is no zombie: its live
 * threads are the target. Nothing is stopped or traced.
 */
struct attach_proc {
	pid_t pid;
	int pidfd;          /* readable when the process has exited */
	bool whole;         /* every thread (-p), not only some (-t) */
	bool kthread;       /* a kernel thread: no user space, kernel samples only */
	char name[PROCFS_COMM_MAX]; /* its comm (-t: the first thread given's) */
	pid_t *tids;        /* threads being sampled (for -t: the ones given) */
	size_t nr_tids;
};

struct attach {
	struct attach_proc *procs;
	size_t nr_procs;
	bool system_wide;
};

int attach_resolve(struct attach *t, const pid_t *pids, size_t nr_pids,
			  const pid_t *tids, size_t nr_tids, bool system_wide,
			  bool kernel_allowed, struct err *e);

/* All thread ids to open events on, in one array (caller frees); {-1}
 * system-wide. */
int attach_threads(const struct attach *t, pid_t **tids, size_t *n);

/*
 * Threads of the -p processes that appeared since the last look (created
 * before their creator's events were opened, so inherit did not cover
 * them). They are added to the process lists; *fresh (caller frees) gets
 * just the new ones.
 */
int attach_rescan(struct attach *t, pid_t **fresh, size_t *n);

void attach_free(struct attach *t);

#endif
