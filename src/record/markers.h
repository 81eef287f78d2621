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
 * markers_drain converts every committed record of every channel into a
 * sample in m->out, in time order, for the loop to write before the
 * pass's FINISHED_ROUND (perf sorts only within rounds). The channel
 * memory is the program's: every size is checked before use, a record
 * that breaks the protocol ends that channel (counted, said once).
 */
#ifndef PSREC_RECORD_MARKERS_H
#define PSREC_RECORD_MARKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "marker/abi.h"
#include "util/buf.h"

#define MARKERS_SCAN_MS 500

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
	bool broken;
};

struct markers_stats {
	uint64_t written;       /* marker samples produced */
	uint64_t dropped;       /* the programs found the channel full */
	uint64_t truncated;     /* payloads cut to PSREC_MARK_MAX */
	uint64_t broken;        /* channels ended by a bad record */
	uint64_t foreign;       /* channels another live psrec reads */
	size_t channels;
};

struct marker_slot {
	uint64_t time;
	uint32_t off, len;
};

struct markers {
	struct marker_chan *ch;
	size_t n, cap;
	pid_t self;
	uint64_t sample_type;   /* of the marker attr */
	int64_t clock_offset;   /* the recording's clock - CLOCK_MONOTONIC */
	struct buf out;         /* the last drain's samples, in time order */
	struct buf tmp;
	struct marker_slot *idx;
	size_t nidx, capidx;
	pid_t *want;            /* processes to look in */
	size_t nr_want;
	uint64_t next_scan_ms;
	bool busy;              /* the last drain took over 1/8 of a ring */
	bool stopped;
	struct markers_stats st;
	char warning[256];      /* the first problem met, for the caller to say once */
};

/* clockid: the recording's (-k); markers, stamped with CLOCK_MONOTONIC,
 * are moved onto it by the offset between the two clocks now. */
void markers_init(struct markers *m, uint64_t sample_type, int clockid);

/* A channel for a command to inherit: *fd (close-on-exec; the child
 * clears that) with data_size bytes of ring, claimed. -errno. */
int markers_create(struct markers *m, uint64_t data_size, int *fd);

/* Look for the library's channel in these processes (until found). */
int markers_watch(struct markers *m, const pid_t *pids, size_t n);

/* Scan the watched processes not yet found, if MARKERS_SCAN_MS have
 * passed since the last scan (now_ms: CLOCK_MONOTONIC ms). */
void markers_scan(struct markers *m, uint64_t now_ms);

/* Drain every channel into m->out (reset first). -ENOMEM only. */
int markers_drain(struct markers *m);

/* Tell the programs to stop writing (the next drain takes what is left)
 * and bring the drop counts up to date. */
void markers_stop(struct markers *m);

/* Whether the executable at path links libpsrec-marker or has its
 * functions (a static link): whether a command will send markers. */
bool markers_program_uses(const char *path);

/* Whether a channel was found or made. */
bool markers_found(const struct markers *m);

void markers_free(struct markers *m);

#endif
