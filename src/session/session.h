/*
 * session.h - one offline pass over a recording, shared by every command
 * that reads one back (fold, flamegraph, pprof, markers).
 *
 * session_open() opens the file or stream ("-": standard input) once;
 * session_load() reads every record once, so a -z file's COMPRESSED
 * records are each decoded once: the side band goes into a struct
 * sideband as it is met, EVENT_UPDATE names are kept, and every SAMPLE
 * goes to the spool (a reference into the mapped input, or the bytes of
 * one that came out of compressed data). Then session_samples() hands the
 * samples, as often as asked and without decoding again, in time order,
 * each with its attr, its fields and its thread's name at its time.
 *
 * Samples wait for the end of the pass because they are resolved against
 * the whole side band, by time (sideband.h, maps.h): in a file a sample
 * may come before the MMAP or COMM that names it (another CPU's ring
 * drained first), and a thread is named by its first COMM even before it.
 * Time order is perf's: a file is in time order within a ring only, so
 * the samples of a round (the records up to a FINISHED_ROUND) wait until
 * the next round ends and go out sorted up to the last time of the round
 * before (ties in file order); at most 8 MiB of samples wait at once,
 * past which they go out sorted as far as they are (session.c).
 *
 * The spool is memory up to SESSION_SPOOL_MEM, then an unnamed temporary
 * file under $TMPDIR or /tmp (as a piped stream is, format/reader.h), so
 * a long -z recording costs disk, not memory; where no such file can be
 * made it stays in memory and session.warning says so. What it holds is
 * bounded by the input's size (SESSION_SPOOL_RATIO).
 */
#ifndef PSREC_SESSION_SESSION_H
#define PSREC_SESSION_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/reader.h"
#include "format/sample.h"
#include "session/sideband.h"
#include "util/buf.h"
#include "util/err.h"

#define SESSION_NAME_MAX 128
#define SESSION_SPOOL_MEM ((size_t)4 << 20)
/* The most the spool holds in all: SESSION_SPOOL_RATIO times the input,
 * at least SESSION_SPOOL_FLOOR. A recording's samples compress some tens
 * of times; past that the input is a decompression bomb, whose samples
 * cost no disk: they are left out, and session.warning says how many. */
#define SESSION_SPOOL_FLOOR ((uint64_t)4 << 30)
#define SESSION_SPOOL_RATIO 256

/* One SAMPLE of a known attr (samples of none are skipped), valid during
 * the callback only. */
struct session_sample {
	const struct reader_record *rec;
	const struct reader_attr *attr;
	size_t attr_index;
	bool parsed;                /* s holds its fields; false: they do not fit attr's sample_type */
	struct sample s;            /* sample_parse's (up to CALLCHAIN) */
	const char *comm;           /* the thread's name at s.time, else its process's; NULL: none known */
};

/* A nonzero return (-errno) stops session_samples with it. */
typedef int (*session_sample_fn)(void *arg, const struct session_sample *ss);

struct session {
	struct reader rd;
	bool open;
	const struct sideband *sb;  /* session_load's: the caller's, finished */
	/* per attr: the name of the last EVENT_UPDATE NAME record before the
	 * first SAMPLE (where perf and psrec write them); "": none */
	char (*update_name)[SESSION_NAME_MAX];
	bool seen_sample;
	bool since_round;           /* samples spooled since the last FINISHED_ROUND */
	/* per attr, set before session_load: whether its samples are kept
	 * for session_samples; NULL: every attr's */
	const bool *want;
	uint64_t unknown_records;   /* records of types psrec does not know */
	uint64_t nr_samples;        /* in the spool */
	uint64_t spool_max;         /* session_open's bound (a caller may lower it) */
	uint64_t dropped;           /* samples past it, left out */
	/* the spool: entries of a u64 (the record's offset; bit 63: its bytes
	 * follow, padded to 8) in memory, then past spilled bytes in fd,
	 * which is mapped at map once the pass is over */
	struct buf mem;
	int fd;
	uint64_t spilled;
	uint8_t *map;
	size_t map_len;
	uint64_t released;          /* a replay dropped the mapped input below this */
	char warning[160];          /* "": none */
};

/* Open path ("-": standard input). -errno with *e (the reader's message,
 * without the file's name). session_close() in every case. */
int session_open(struct session *s, const char *path, struct err *e);
/* The same over a reader opened by the caller (reader_open_mem_as...),
 * which the session now owns: the caller must not close r. */
int session_take(struct session *s, struct reader *r, struct err *e);

/*
 * The pass: every record of the data, side band into sb (initialized by
 * the caller, who keeps it: the thread names handed out live in it;
 * finished here), the rest as above. -errno with *e when the data does
 * not read (what was read before stays) or memory runs out.
 */
int session_load(struct session *s, struct sideband *sb, struct err *e);

/* Each sample of the spool to fn, in time order (above); fn's error. */
int session_samples(struct session *s, session_sample_fn fn, void *arg);

/* COMPRESSED records decoded so far (each once per session). */
uint64_t session_decoded(const struct session *s);

void session_close(struct session *s);

#endif
