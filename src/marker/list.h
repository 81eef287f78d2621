/*
 * list.h - the markers of a recording, read back: what psrec markers
 * prints and what --between (fold, flamegraph, pprof) cuts windows with.
 *
 * A marker is a PERF_RECORD_SAMPLE of the psrec:marker attr (tp.h:
 * marker_tp_is() finds it by type and config, whatever the event's name
 * says). Any perf.data the reader opens: file or stream, -z or not.
 * Markers are kept in time order (stable: equal times keep file order,
 * which is the order the program sent them in), each with its thread's
 * name from the side band. Spans pair each end with the latest open begin
 * of the same name on the same thread (psrec/marker.h), so spans nest;
 * an end with no open begin is counted, a begin never ended is "open".
 * Samples of the marker attr whose RAW bytes are not a marker's are
 * counted, not fatal.
 */
#ifndef PSREC_MARKER_LIST_H
#define PSREC_MARKER_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/reader.h"
#include "session/session.h"
#include "session/sideband.h"
#include "util/buf.h"
#include "util/err.h"

struct marker_entry {
	uint64_t time;              /* the recording's clock, ns */
	int32_t pid, tid;
	uint32_t kind, type, flags; /* PSREC_MK_*, BYTES' type, PSREC_MKF_* */
	const char *comm;           /* the side band's; NULL: none known */
	size_t msg, msg_len;        /* offsets into marker_list.pool */
	size_t pay, pay_len;        /* the payload as sent (marker_payload) */
};

struct marker_span {
	size_t begin;               /* index in marker_list.v */
	size_t end;                 /* index in marker_list.v; SIZE_MAX: open */
	unsigned depth;             /* spans of the thread open around it */
};

struct marker_list {
	struct marker_entry *v;     /* in time order */
	size_t n, cap;
	struct buf pool;            /* msg and payload bytes */
	struct marker_span *spans;  /* by begin, in time order (marker_list_pair) */
	size_t nspans;
	uint64_t unmatched_ends;
	bool has_event;             /* the recording has a psrec:marker attr */
	uint64_t bad;               /* marker samples that did not decode */
	uint64_t filtered;          /* markers the filter left out */
	uint64_t first_time;        /* of the first sample of any event; 0: none */
	uint64_t last_time;
	struct sideband *sideband;  /* marker_list_read's: owns the thread names */
	uint64_t decoded;           /* marker_list_read's COMPRESSED records decoded (each once) */
	char warning[160];          /* marker_list_read's session's (session.h), "": none */
};

/* Which markers marker_list_collect_session keeps. */
struct marker_filter {
	int32_t pid, tid;           /* -1: every one */
	const char *comm;           /* NULL: every thread name */
};

#define MARKER_FILTER_ALL { -1, -1, NULL }

void marker_list_init(struct marker_list *l);
void marker_list_free(struct marker_list *l);

/* Every marker of the session s (session_load done) that passes f,
 * sorted by time; with comm, named by its thread (which serves f->comm).
 * -ENOMEM with *e. */
int marker_list_collect_session(struct marker_list *l, struct session *s, bool comm,
				const struct marker_filter *f, struct err *e);

/* Open path ("-": standard input), load its side band and collect. The
 * error names the file. */
int marker_list_read(struct marker_list *l, const char *path, const struct marker_filter *f, struct err *e);

/* Pair the begins and ends into l->spans (sorted by start). -ENOMEM. */
int marker_list_pair(struct marker_list *l);

/* The bytes of an entry's msg / payload. */
static inline const char *marker_entry_msg(const struct marker_list *l, const struct marker_entry *m)
{
	return (const char *)l->pool.data + m->msg;
}
static inline const uint8_t *marker_entry_payload(const struct marker_list *l, const struct marker_entry *m)
{
	return l->pool.data + m->pay;
}

/* The listing psrec markers prints: a header line, one line per marker,
 * then the spans. Control bytes are written \xNN so a line stays one.
 * -EIO with *e when out fails. */
int marker_list_write(FILE *out, const struct marker_list *l, const char *input, struct err *e);

/* The same as one JSON object: {"input", "first_sample_ns",
 * "unmatched_ends", "markers": [{"time" (s from the first sample),
 * "time_ns" (the recording's clock), "pid", "tid", "comm" (null: none),
 * "kind" ("mark", "bytes", "begin", "end"; a number for another),
 * "type" (bytes only), "truncated", "text" (msg)}], "spans": [{"start",
 * "duration_ms" (null when open), "open", "pid", "tid", "depth",
 * "name" (escaped as in msg)}]}. -EIO with *e. */
int marker_list_write_json(FILE *out, const struct marker_list *l, const char *input, struct err *e);

/*
 * --between: the windows [A, B] of l, each from a marker whose payload
 * is a exactly to the first later marker whose payload is b; the next
 * window starts at the first a after that b. *win gets 2 * *nwin times
 * (start, end), ascending (free it). -ENOENT with *e naming the marker
 * that is missing, -ENOMEM.
 */
int marker_windows(const struct marker_list *l, const char *a, const char *b, uint64_t **win, size_t *nwin,
		   struct err *e);

/* Whether t is inside one of the nwin windows of win (binary search). */
bool marker_windows_hold(const uint64_t *win, size_t nwin, uint64_t t);

#endif
