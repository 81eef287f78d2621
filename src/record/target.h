/*
 * target.h - what a recording samples, behind one interface: a command
 * psrec launches (launch.h) or processes it attaches to (attach.h). The
 * lifecycle in record.c calls these in order and never asks which it is:
 *
 *   check      before anything is created (attach: do the targets exist?)
 *   markers    set up the marker channels (markers.h) as this target has
 *              them: one made for a command, those of -p's processes
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
 *
 * A target says what it has to say through env->say (notify.h) and keeps
 * what it learnt in t->facts, which record.c hands on in its result:
 * nothing here knows record.h.
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
#include "record/markers.h"
#include "record/notify.h"
#include "record/perm.h"
#include "record/sampler.h"
#include "util/buf.h"
#include "util/err.h"

/* What the lifecycle hands every call. */
struct idcache;
struct sidecache;

struct target_env {
	const struct record_config *cfg;
	const sigset_t *child_mask;     /* psrec's own, for the command (and chunks' commands) */
	int sigfd;                      /* psrec's stop signals */
	const struct timespec *t0;      /* when psrec started */
	struct notify say;              /* warnings (kernel threads, a command outliving psrec) */
	struct idcache *ids;            /* build-ids of synthesized maps; NULL: none (-B) */
	struct sidecache *seed;         /* --switch-output: synthesize hands it each process's records */
};

/* What a target learnt, for the recording's result (record.h). */
struct target_facts {
	bool exec_failed;               /* launch: the command could not be executed */
	int exec_errno;
	bool exited;                    /* launch: reaped after the loop (reaped) */
	int status;                     /* its wait status */
	double setup_ms;                /* from t0 until sampling was enabled */
	size_t nr_threads;              /* attach: threads events were opened on */
	size_t nr_processes;            /* attach: processes synthesized from /proc */
	size_t nr_maps;                 /* attach: mappings synthesized */
};

struct target;

struct target_ops {
	bool tty_sigint_to_target;      /* a terminal's Ctrl-C reaches the target */
	int (*check)(struct target *t, const struct target_env *env, struct err *e);
	/*
	 * Markers' channels into m, for cfg->markers AUTO or ON (ON: even
	 * when the program shows no sign of using them): a launched command
	 * gets one made for it to inherit, when it links the library; the
	 * processes of -p are searched for the channels their library made;
	 * -a and -t have none. True: m is set up and its markers are
	 * recorded (markers_free it at the end). False: m is freed or was
	 * never set up, and why was said.
	 * A channel psrec cannot make costs the markers, never the recording.
	 */
	bool (*markers)(struct target *t, const struct target_env *env, struct markers *m);
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
	struct target_facts facts;
	const char *cmd_path;           /* launch: the resolved executable */
	struct launch child;            /* launch */
	int marker_fd;                  /* launch: the channel markers() made for it, or -1 */
	struct markers *markers;        /* launch: what markers() set up, to watch the child */
	struct attach att;              /* attach */
	int *pidfds;                    /* attach: what watch() returns */
};

/* A launched command (cmd_path set: the resolved cfg->cmd[0], kept, not
 * copied) or the -p/-t/-a targets. */
void target_init(struct target *t, const char *cmd_path);

/* COMM and MMAP2 records of process pid and all its threads, as the
 * recording synthesizes them (nothing when it is gone). -ENOMEM. */
int target_synth_process(const struct target_env *env, const struct sampler *s, pid_t pid, struct buf *b);

#endif
