/*
 * target.h - what a recording samples, behind one interface: a command
 * psrec launches (launch.h) or processes it attaches to (attach.h). The
 * lifecycle in record.c calls these in order and never asks which it is:
 *
 *   check      before anything is created (attach: do the targets exist?)
 *   open       open the events on the target's threads
 *   synthesize what existed before the recording (COMM, MMAP2 records)
 *   live       the processes that live now, for the start of each further
 *              chunk (--switch-output): every one with -a, a command or
 *              -p with the children they started, -t's processes
 *   start      let it run (a command execs; attached ones already run)
 *   describe   the start line for -v
 *   watch      the pidfds whose exit ends the recording
 *   stop       before the last drain (a command's events are disabled)
 *   reaped     after the loop ended because the targets exited
 *   end        after the file is finished (or the start failed)
 */
#ifndef PSREC_RECORD_TARGET_H
#define PSREC_RECORD_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "record/attach.h"
#include "record/config.h"
#include "record/launch.h"
#include "record/perm.h"
#include "record/sampler.h"
#include "util/buf.h"
#include "util/err.h"

struct record_result;
struct record_hooks;

/* What the lifecycle hands every call. */
struct idcache;
struct sidecache;

struct target_env {
	const struct record_config *cfg;
	const char *cmd_path;           /* launch: the resolved executable */
	const sigset_t *child_mask;     /* launch: the command's signal mask */
	int sigfd;                      /* psrec's stop signals */
	const struct timespec *t0;      /* when psrec started */
	const struct record_hooks *hooks;
	struct record_result *res;
	struct idcache *ids;            /* build-ids of synthesized maps; NULL: none (-B) */
	struct sidecache *seed;         /* --switch-output: synthesize hands it each process's records */
	int marker_fd;                  /* launch: the marker channel to hand on, or -1 */
};

struct target;

struct target_ops {
	bool tty_sigint_to_target;      /* a terminal's Ctrl-C reaches the target */
	int (*check)(struct target *t, const struct target_env *env, struct err *e);
	int (*open)(struct target *t, const struct target_env *env, struct sampler *s,
		    struct sampler_config *sc, struct err *e);
	int (*synthesize)(struct target *t, const struct target_env *env, const struct sampler *s,
			  struct buf *b);
	int (*live)(struct target *t, const struct target_env *env, pid_t **pids, size_t *n);
	int (*start)(struct target *t, const struct target_env *env, struct err *e);
	/* The start line for -v. */
	void (*describe)(struct target *t, const struct target_env *env, const struct sampler *s,
			 char *buf, size_t len);
	size_t (*watch)(struct target *t, const int **fds);
	void (*stop)(struct target *t, struct sampler *s);
	void (*reaped)(struct target *t, const struct target_env *env);
	void (*end)(struct target *t, const struct target_env *env, bool started);
};

struct target {
	const struct target_ops *ops;
	struct launch child;            /* launch */
	struct attach att;              /* attach */
	int *pidfds;                    /* attach: what watch() returns */
};

/* A launched command (cmd_path set: the resolved cfg->cmd[0]) or the
 * -p/-t/-a targets. */
void target_init(struct target *t, const char *cmd_path);

/* COMM and MMAP2 records of process pid and all its threads, as the
 * recording synthesizes them (nothing when it is gone). -ENOMEM. */
int target_synth_process(const struct target_env *env, const struct sampler *s, pid_t pid, struct buf *b);

#endif
