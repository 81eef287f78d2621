/*
 * loop.h - the recording loop: one epoll over every ring, a signalfd and
 * a pidfd per target process.
 *
 * Each pass reads every ring's head once and appends all unread spans plus
 * the markers drained from the programs' channels (record/markers.h, the
 * one copy: they become samples; a pass with more than one piece of them
 * appends the others after) plus
 * one FINISHED_ROUND with one writer_append (no per-record copying): the
 * iovecs go to pwritev in calls of at most 64 (io_writev_all), so a pass
 * over up to 31 rings is one system call. Then it releases the tails.
 * With compression, each ring's span is compressed straight from the mmap
 * and appended on its own; the FINISHED_ROUND (never compressed) still
 * closes the pass. Passes run when a ring's fd wakes epoll_wait (the ring
 * is half full: the kernel's default watermark), when LOOP_DRAIN_MS have
 * passed since the last pass (the epoll_wait timeout), and once more as
 * the loop ends, so little is lost if psrec is killed. data.size in the
 * header is checkpointed right after the first pass that wrote samples,
 * then whenever LOOP_CHECKPOINT_MS have passed since the last checkpoint.
 * The loop ends when every watched target process has exited (-a watches
 * none), on a stop signal, at the deadline, or when the output fails.
 */
#ifndef PSREC_RECORD_LOOP_H
#define PSREC_RECORD_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "format/compress.h"
#include "format/writer.h"
#include "record/markers.h"
#include "record/ring.h"
#include "record/sampler.h"
#include "record/sidecache.h"
#include "util/buf.h"

#define LOOP_DRAIN_MS      250
#define LOOP_CHECKPOINT_MS 500
#define LOOP_STATUS_MS     500
/* Between passes while markers pour in (a pass took 1/8 of a channel). */
#define LOOP_MARKERS_BUSY_MS 20

/* Why the loop ended. */
#define LOOP_END_TARGET_EXIT 1
#define LOOP_END_SIGNAL      2
#define LOOP_END_WRITE_ERROR 3
#define LOOP_END_DURATION    4

struct loop_stats;

/*
 * Chunks (--switch-output, rotate.h). When one is due (the SIGUSR2 of
 * on_signal, ms since the chunk began, the file reaching bytes) the loop
 * calls prepare() (the /proc scan for the next chunk, made before the
 * last pass so that nothing falls between them), runs the pass that
 * closes the chunk with its side band copied to carry (carry.h), then
 * cut(): finish the file and begin the next on the same writer. Records
 * drained before the cut are in the old chunk, the rest in the new one.
 * tick() runs at every wake-up (reaping the chunk commands). Every pass
 * marks in marks the processes whose side band changed (sidecache.h).
 */
struct loop_switch {
	bool on_signal;
	uint64_t ms;            /* 0: not by time */
	uint64_t bytes;         /* 0: not by size */
	struct buf *carry;
	struct sidecache *marks;
	int (*prepare)(void *ctx);
	int (*cut)(void *ctx);
	void (*tick)(void *ctx);
	void *ctx;
};

struct loop_config {
	int signal_fd;          /* signalfd for SIGINT/SIGTERM/SIGHUP, or -1 */
	const int *target_fds;  /* pidfds; the loop ends when all have exited */
	size_t nr_target_fds;
	bool ignore_tty_sigint; /* a terminal's Ctrl-C also reached the target:
				   keep recording until it exits */
	uint64_t duration_ms;   /* 0: no deadline */
	int time_offset;        /* of TIME in a SAMPLE, for the tally */
	struct compressor *compress; /* -z: ring data goes out as COMPRESSED
					records, one ring at a time; NULL = raw */
	/* Called about every LOOP_STATUS_MS with the elapsed time, if set. */
	void (*status)(void *ctx, const struct loop_stats *st, double elapsed_s, uint64_t bytes);
	void *status_ctx;
	const struct loop_switch *sw; /* NULL: one file */
	struct markers *markers; /* drained at every pass, or NULL */
};

struct loop_stats {
	struct ring_tally tally;        /* complete records written */
	struct ring_tally chunk;        /* the same, in the current chunk */
	uint64_t chunks;        /* chunks cut (--switch-output) */
	uint64_t passes;        /* passes that wrote something */
	uint64_t wakeups;       /* epoll_wait() returns, timeouts included */
	uint64_t bad_spans;     /* spans whose headers did not parse */
	int end_reason;         /* LOOP_END_* */
	int end_signal;         /* the signal that stopped it */
	int write_error;        /* -errno of the failed write */
};

/*
 * Run until the targets exit, a stop signal arrives, the deadline passes
 * or a write fails. Returns 0 (see stats->end_reason; after a write error
 * the file stays valid up to the last complete pass) or -errno when
 * epoll itself fails.
 */
int loop_run(struct sampler *s, struct writer *w, const struct loop_config *c,
	     struct loop_stats *stats);

/*
 * Block SIGINT, SIGTERM and SIGHUP (so none is lost, or kills psrec half
 * way), and SIGUSR2 when usr2 (--switch-output: it cuts a chunk, or is
 * ignored, as in perf record), and return a signalfd for them (-errno on
 * failure); *old gets the mask to restore, *blocked whether it was
 * changed.
 */
int loop_signals_block(sigset_t *old, bool *blocked, bool usr2);

/* Close the signalfd (fd < 0: none) after consuming a stop signal still
 * pending, so that restoring the mask does not deliver it now; restore
 * old unless NULL. */
void loop_signals_restore(int fd, const sigset_t *old);

/* Samples lost: the larger of the LOST and LOST_SAMPLES counts (the
 * kernel writes both for the same losses). */
uint64_t loop_lost(const struct ring_tally *t);

/* Drain every ring once more, at the end (a launched command's events
 * are disabled by then; attached ones still run). */
int loop_drain(struct sampler *s, struct writer *w, const struct loop_config *c,
	       struct loop_stats *stats);

#endif
