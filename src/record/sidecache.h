/*
 * sidecache.h - each process's synthesized side band (COMM, MMAP2), kept
 * from one chunk to the next (--switch-output), so that a cut re-reads
 * /proc only for the processes that changed.
 *
 * Re-reading every process at every cut cost ~10 ms of CPU for 97
 * processes here (each one's status, threads and maps, formatted by the
 * kernel): two thirds of psrec -a --switch-output=1s's CPU. What a process
 * is can only change through something the kernel reports in the rings:
 * a new thread or process (FORK), an exec or a new name (COMM), a new
 * executable mapping (MMAP, MMAP2), an exit (EXIT). So every drain pass
 * marks the pids of such records (sidecache_mark), and a cut re-reads only
 * the marked ones; the others' records from the last read still describe
 * them (an munmap is not reported, and an extra stale map is harmless:
 * perf keeps unmapped maps too). A LOST record may have hidden such a
 * change: then everything is read again.
 */
#ifndef PSREC_RECORD_SIDECACHE_H
#define PSREC_RECORD_SIDECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/ring.h"
#include "util/buf.h"

struct sidecache_proc {
	pid_t pid;
	struct buf recs;        /* what synth() made of it */
};

struct sidecache {
	struct sidecache_proc *v;       /* ascending pids */
	size_t n, cap;
	uint64_t *dirty;                /* one bit per pid, < nr_pids */
	size_t nr_pids;
	bool all_dirty;                 /* nothing read yet, or a LOST record */
};

/* pid_max: /proc/sys/kernel/pid_max. -ENOMEM. */
int sidecache_init(struct sidecache *c, size_t pid_max);
void sidecache_free(struct sidecache *c);

/* Mark the processes of the side-band records (and all, on a LOST) that
 * lie wholly in the first len bytes of the span r handed out last. No
 * allocation. */
void sidecache_mark(struct sidecache *c, const struct ring *r, size_t len);

/*
 * Take process pid's records as the recording's start synthesized them
 * (copied), so that the first cut need not read every process again;
 * sidecache_seeded() then ends the "read everything" state. -ENOMEM.
 */
int sidecache_seed(struct sidecache *c, pid_t pid, const void *p, size_t len);
void sidecache_seeded(struct sidecache *c);

/* Describe process pid into b (nothing appended: it is gone). */
typedef int (*sidecache_synth_fn)(void *ctx, pid_t pid, struct buf *b);

/*
 * Bring the cache up to date and append every process's records to out:
 * after a LOST (or the first time) from every process of live (live()
 * lists them: all of them with -a, a command's or -p's descendants),
 * otherwise only the marked ones are described again. Clears the marks.
 * -ENOMEM, or live()'s error.
 */
int sidecache_refresh(struct sidecache *c, int (*live)(void *ctx, pid_t **pids, size_t *n),
		      sidecache_synth_fn synth, void *ctx, struct buf *out);

#endif
