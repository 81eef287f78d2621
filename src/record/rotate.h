/*
 * rotate.h - recording in chunks (--switch-output, perf record's option):
 * when a chunk is cut, what the finished one is called, and which of them
 * are kept (--switch-max-files).
 *
 * perf's syntax, checked against perf 6.1: "signal" cuts on SIGUSR2 (the
 * default when the option has no argument); a number with one of the
 * size units B K M G (upper case) cuts when the chunk's file reaches that
 * size; a number with one of the time units s m h d (lower case: "1m" is
 * a minute, "100M" 100 MiB) cuts that often. Whole numbers only, as perf.
 *
 * A finished chunk is named OUTPUT.YYYYmmddHHMMSScc, local time of its
 * end to the hundredth of a second: perf's fetch_current_timestamp()
 * (16 digits; "perf.data.2026120115042865"). Pure functions, no I/O.
 */
#ifndef PSREC_RECORD_ROTATE_H
#define PSREC_RECORD_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/err.h"

#define ROTATE_NONE   0
#define ROTATE_SIGNAL 1   /* SIGUSR2 cuts */
#define ROTATE_SIZE   2   /* the chunk reached bytes */
#define ROTATE_TIME   3   /* ms have passed since the chunk began */

struct rotate_spec {
	int mode;               /* ROTATE_* */
	uint64_t bytes;         /* ROTATE_SIZE */
	uint64_t ms;            /* ROTATE_TIME */
	size_t max_files;       /* --switch-max-files: keep the newest N; 0 = all */
	const char *command;    /* --switch-output-command, or NULL */
};

/* "signal", "100M", "10s"...; NULL (no argument) is "signal". -EINVAL
 * with *e naming the accepted forms. */
int rotate_parse(struct rotate_spec *s, const char *arg, struct err *e);

/* --switch-max-files: a positive count. -EINVAL with *e otherwise. */
int rotate_parse_max_files(struct rotate_spec *s, const char *arg, struct err *e);

/* Length of a chunk's suffix after "OUTPUT.". */
#define ROTATE_STAMP_LEN 16

/* "OUTPUT.YYYYmmddHHMMSScc" for the wall-clock time *now, in the local
 * time zone, as perf names it. -ENAMETOOLONG when it does not fit. */
int rotate_chunk_name(char *out, size_t len, const char *output, const struct timespec *now);

/* The chunks of this recording that are kept, oldest first. */
struct rotate_kept {
	char **names;
	size_t nr;
	size_t max;             /* 0 = no limit (nothing is ever evicted) */
};

void rotate_kept_init(struct rotate_kept *k, size_t max_files);

/*
 * Add a finished chunk (copied). With a limit, the oldest one past it is
 * handed back in *evicted (malloc'd, for the caller to remove and free),
 * else *evicted is NULL. Only chunks of this recording are ever evicted,
 * never other files, as perf does. -ENOMEM.
 */
int rotate_kept_add(struct rotate_kept *k, const char *name, char **evicted);

void rotate_kept_free(struct rotate_kept *k);

#endif
