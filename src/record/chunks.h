/*
 * chunks.h - a recording cut into chunks (--switch-output, rotate.h;
 * docs/chunks.md): what a cut does, between the loop (loop.h, which
 * decides when) and the recording's files (recfile.h, which finishes one
 * and begins the next).
 *
 * A cut, through struct loop_switch:
 *   prepare  the next chunk's side band into next_synth: each live
 *            process's COMM and MMAP2 (target_ops.live lists them), kept
 *            between chunks (sidecache.h) and re-read from /proc only for
 *            the processes the rings reported a change of;
 *   (the loop's last pass of the chunk, its side band carried onto
 *   next_synth)
 *   cut      finish the old file (recfile_finish, as at the end of the
 *            recording); name it OUTPUT.<timestamp> (never over another
 *            chunk), drop the oldest beyond --switch-max-files, start
 *            --switch-output-command on it; begin the next
 *            (recfile_next), the kernel map and next_synth after its
 *            header;
 *   tick     at every wake-up: reap the commands that ended.
 * A failed cut is said through say and ends the loop with a write error.
 */
#ifndef PSREC_RECORD_CHUNKS_H
#define PSREC_RECORD_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "record/loop.h"
#include "record/notify.h"
#include "record/recfile.h"
#include "record/rotate.h"
#include "record/sidecache.h"
#include "record/spawn.h"
#include "record/target.h"
#include "util/buf.h"
#include "util/err.h"

struct chunks {
	bool on;                        /* --switch-output */
	const struct record_config *cfg;
	struct notify say;
	struct target *tgt;             /* whose processes each chunk describes */
	const struct target_env *env;
	const struct sampler *smp;
	const struct loop_stats *st;    /* the loop's: the chunk's tally */
	struct recfile *file;
	struct loop_switch sw;
	struct buf kernel_rec;          /* the kernel map record, made once */
	struct buf next_synth;          /* the next chunk's side band */
	struct sidecache cache;         /* each live process's, between chunks */
	struct rotate_kept kept;
	struct spawn_set cmds;
	/* CPU time of the cuts (their last passes excluded), and of
	 * re-reading /proc for the next chunks' side band (record.h). */
	double cut_ms, resynth_ms, resynth_first_ms;
};

/*
 * For the recording of env->cfg (chunks only with --switch-output: else
 * every call below does nothing): env->say says what goes wrong,
 * env->child_mask is the commands' signal mask. The pointers are kept.
 * -ENOMEM with *e: the process cache cannot be set up. Free in any case.
 */
int chunks_init(struct chunks *ch, struct target *tgt, const struct target_env *env, const struct sampler *smp,
		struct recfile *file, struct err *e);
void chunks_free(struct chunks *ch);

/* The first file is begun: its kernel map record (kept for every chunk),
 * then, once the target synthesized into the cache (env->seed), that
 * the cache is seeded. -ENOMEM. */
int chunks_keep_kernel(struct chunks *ch, const void *rec, size_t len);
void chunks_seeded(struct chunks *ch);

/* The loop's switch (NULL: one file); st: the loop's stats. */
const struct loop_switch *chunks_switch(struct chunks *ch, const struct loop_stats *st);

/* The end of the recording, its last file finished: name that chunk too
 * (unless it was never named at the output path, or written in place),
 * counted in st. -errno with *e. */
int chunks_end(struct chunks *ch, struct loop_stats *st, struct err *e);

#endif
