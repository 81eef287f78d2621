/*
 * markers.h - the recorder's end of the marker channels (marker/abi.h):
 * it claims them, drains them into psrec:marker samples (marker/tp.h) and
 * counts what the programs dropped.
 *
 * Channels: one psrec creates for a launched command (markers_create:
 * the command and its children inherit the fd), and those the library
 * created in the processes of -p (and the launched command, should it
 * have made its own) that markers_scan finds in /proc/PID/fd, at most
 * every MARKERS_SCAN_MS for each process not yet found. One memfd found
 * twice (by its inode) is one channel.
 *
 * markers_drain converts the committed records of every channel into
 * samples in m->out, in time order, for the loop to write before the
 * pass's FINISHED_ROUND (perf sorts only within rounds).
 *
 * The channel memory is the program's, and psrec may be root: nothing in
 * it may make psrec use more than psrec chose. A ring psrec did not make
 * is mapped only up to MARKERS_FOREIGN_MAX, all rings together only up to
 * MARKERS_MAP_BUDGET (a channel past either is refused: counted, said
 * once). A pass takes what was committed below each ring's head as the
 * pass began (so at most the rings' sizes), handed out in pieces of at
 * most MARKERS_PASS_OUT bytes of samples, all before the pass's
 * FINISHED_ROUND: a marker left for a later pass would come after perf
 * has delivered the samples of its time ("out of order events"). The
 * pages a pass read are unmapped from psrec again (MADV_DONTNEED: the
 * data stays in the memfd). A marker's time is kept between the events
 * of two passes back and now, which only a program that lies about its
 * clock needs, for the same reason. Each
 * record is copied out of the ring once, then converted from the copy,
 * so a program rewriting it meanwhile changes nothing. Every size is
 * checked before use; a record that breaks the protocol, or a channel
 * psrec runs out of memory for, ends that channel (counted, said once),
 * never the recording.
 *
 * A reservation whose writer is gone (abi.h: stamped by a thread that no
 * longer exists, or never stamped and still there after MARKERS_STALL_MS)
 * is skipped, counted as abandoned, so that one dead writer does not stall
 * the channel for the others.
 */
#ifndef PSREC_RECORD_MARKERS_H
#define PSREC_RECORD_MARKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "marker/abi.h"
#include "record/sampler.h"
#include "util/buf.h"

#define MARKERS_SCAN_MS 500
/* The largest ring psrec maps from a channel it did not make (the
 * library makes PSREC_MARKER_DATA_SIZE, 4 MiB). */
#define MARKERS_FOREIGN_MAX (16u << 20)
/* All channels' rings together, the command's own included. */
#define MARKERS_MAP_BUDGET (64u << 20)
/* Sample bytes handed out at a time (a piece of a pass). */
#define MARKERS_PASS_OUT (2u << 20)
/* An uncommitted, unstamped record at tail for this long is abandoned. */
#define MARKERS_STALL_MS 1000

struct marker_chan {
	int fd;
	uint8_t *map;
	size_t map_len;
	struct psrec_marker_ctl *ctl;
	uint8_t *data;
	uint64_t size;          /* of the ring */
	uint64_t dev, ino;      /* the memfd's identity */
	pid_t pid;              /* found in; 0: made for the command */
	uint64_t dropped0, truncated0; /* the program's counters when claimed */
	uint64_t limit;         /* head when this pass began */
	uint64_t taken;         /* bytes of ring this pass took */
	uint64_t stall_tail;    /* tail when an unstamped record stopped the drain */
	uint64_t stall_ms;      /* when (0: not stalled) */
	bool broken;
};

struct markers_stats {
	uint64_t written;       /* marker samples in the file (markers_written) */
	uint64_t dropped;       /* the programs found the channel full */
	uint64_t truncated;     /* payloads cut to PSREC_MARK_MAX */
	uint64_t abandoned;     /* reservations whose writer was gone */
	uint64_t broken;        /* channels ended: a bad record, or no memory */
	uint64_t foreign;       /* channels another live psrec reads */
	uint64_t refused;       /* channels not taken: too big, over budget,
				   unsealed, another version */
	size_t channels;
};

struct marker_slot {
	uint64_t time;
	uint32_t off, len;
};

struct markers {
	struct marker_chan *ch;
	size_t n, cap;
	size_t at;              /* the channel the pass's next piece starts at */
	uint64_t mapped;        /* bytes of rings mapped */
	pid_t self;
	uint64_t sample_type;   /* of the marker attr */
	struct sampler_event ev; /* psrec:marker, for the file (markers_event) */
	uint64_t ev_id;
	int64_t clock_offset;   /* the recording's clock - CLOCK_MONOTONIC */
	struct buf out;         /* the last drain's samples, in time order */
	struct buf tmp;
	struct marker_slot *idx;
	size_t nidx, capidx;
	pid_t *want;            /* processes to look in */
	size_t nr_want;
	uint64_t next_scan_ms;
	bool busy;              /* the last pass took over 1/8 of a ring */
	bool more;              /* the pass has more pieces (markers_drain_on) */
	uint64_t now_ms;        /* the pass's */
	uint64_t ceil, floor;   /* marker times are kept within */
	uint64_t seen;          /* the events' latest time, one pass back */
	uint64_t time_max;      /* the markers' latest time */
	bool stopped;
	struct markers_stats st;
	char warning[256];      /* the first problem met, for the caller to say once */
};

/* clockid: the recording's (-k); markers, stamped with CLOCK_MONOTONIC,
 * are moved onto it by the offset between the two clocks now. */
void markers_init(struct markers *m, uint64_t sample_type, int clockid);

/* A channel for a command to inherit: *fd (close-on-exec; the child
 * clears that) with data_size bytes of ring, claimed. -errno: -EPROTO
 * for a size abi.h does not allow, -ENOSPC past MARKERS_MAP_BUDGET. */
int markers_create(struct markers *m, uint64_t data_size, int *fd);

/* Look for the library's channel in these processes (until found). */
int markers_watch(struct markers *m, const pid_t *pids, size_t n);

/* Scan the watched processes not yet found, if MARKERS_SCAN_MS have
 * passed since the last scan (now_ms: CLOCK_MONOTONIC ms). */
void markers_scan(struct markers *m, uint64_t now_ms);

/*
 * Begin a pass: the first piece of what the channels committed into
 * m->out (reset first), in time order. While m->more, markers_drain_on()
 * replaces it with the next piece; write every piece before the pass's
 * FINISHED_ROUND. now_ms (CLOCK_MONOTONIC) times the stalls; seen: the
 * latest time of the events written so far. Never fails: what goes wrong
 * costs the channel it went wrong in (m->warning says it).
 */
void markers_drain(struct markers *m, uint64_t now_ms, uint64_t seen);
void markers_drain_on(struct markers *m);

/* The first bytes of m->out reached the file: count its whole samples
 * as written. */
void markers_written(struct markers *m, size_t bytes);

/* Bytes of whole samples of m->out from offset at, at most max (at
 * least one sample when a sample is at most max). */
size_t markers_piece(const struct markers *m, size_t at, size_t max);

/* Tell the programs to stop writing (the next drain takes what is left)
 * and bring the drop counts up to date. */
void markers_stop(struct markers *m);

/* The psrec:marker event (m->ev, its sample_type m's), made like the
 * recording's first event (like); final: the tracepoint form, which a
 * stream has from its start and a file only once its TRACING_DATA is
 * written (marker/tp.h), else the bpf-output form. */
void markers_event(struct markers *m, const struct pd_attr *like, bool final);

/* Whether the executable at path links libpsrec-marker or has its
 * functions (a static link): whether a command will send markers. */
bool markers_program_uses(const char *path);

/* Whether a channel was found or made. */
bool markers_found(const struct markers *m);

void markers_free(struct markers *m);

#endif
