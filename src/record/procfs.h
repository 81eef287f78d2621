/*
 * procfs.h - reading processes, threads and mappings from /proc.
 *
 * Processes come and go while we read: every function reports a vanished
 * process or thread as -ESRCH (never as a hard error) so callers can skip
 * it. Parsing of maps lines is a pure function (util/procfs_map.h),
 * unit-tested. The proc root is a parameter so tests can point it at a
 * fake tree.
 */
#ifndef PSREC_RECORD_PROCFS_H
#define PSREC_RECORD_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/procfs_map.h"

#define PROCFS_COMM_MAX 16

struct procfs_status {
	char name[PROCFS_COMM_MAX]; /* "Name:" (the comm) */
	pid_t tgid;
	pid_t ppid;
	uid_t uid;                  /* real uid */
	char state;                 /* 'R', 'S', 'Z', ... */
	bool kthread;               /* a kernel thread (PF_KTHREAD) */
};

/* Status of /proc/PID/task/TID (tid == pid for the process itself). */
int procfs_status(const char *root, pid_t pid, pid_t tid, struct procfs_status *st);

/* Just the name (comm) of /proc/PID/task/TID: one small read, much cheaper
 * than the status file when there are thousands of threads. */
int procfs_comm(const char *root, pid_t pid, pid_t tid, char name[PROCFS_COMM_MAX]);

/* The thread ids of process pid, ascending (caller frees *tids). */
int procfs_threads(const char *root, pid_t pid, pid_t **tids, size_t *n);

/* Every process id in the proc root, ascending (caller frees *pids). */
int procfs_processes(const char *root, pid_t **pids, size_t *n);

/*
 * Every process descending from one of roots[0..nr), the roots included
 * while they exist, ascending (caller frees *pids): what a launched
 * command or -p has become, children and grandchildren, at one moment.
 * Found by the parent ids in /proc/PID/status; one that was reparented
 * (its parent died first) is not found.
 */
int procfs_descendants(const char *root, const pid_t *roots, size_t nr, pid_t **pids, size_t *n);

/*
 * Call fn for each mapping of process pid (stops at fn's first non-zero
 * return, which is returned). -ESRCH when the process is gone.
 */
int procfs_for_each_map(const char *root, pid_t pid,
			int (*fn)(void *ctx, const struct procfs_map *m), void *ctx);

/* The same through thread tid of process pid (/proc/PID/task/TID/maps):
 * every thread shares the process's mappings, and a leader that has exited
 * while other threads run shows none. -ESRCH when the thread is gone. */
int procfs_for_each_task_map(const char *root, pid_t pid, pid_t tid,
			     int (*fn)(void *ctx, const struct procfs_map *m), void *ctx);

#endif
