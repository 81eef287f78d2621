/*
 * output.h - the output file's life.
 *
 * Placement is util/outfile.h's: a regular file (or a new name) is created
 * as an unnamed O_TMPFILE in the target directory (a random ".psrec-" name
 * where the filesystem has none), before any event is opened, so an
 * unwritable path fails first, and a failed or killed start leaves nothing
 * behind. A device (/dev/null), a FIFO or a socket at the path, or a name
 * of an inherited descriptor written as such (/dev/stdout, /dev/fd/N), is
 * written in place and never replaced; a link planted there is never
 * followed into /proc or onto a device (util/outfile.h has the rule). Such
 * an output may not be seekable (a FIFO, a pipe): then o->seekable is false
 * and the caller writes the pipe format.
 * A FIFO nobody reads yet is not waited for in the open, which would hold
 * psrec deaf to its stop signals (they are blocked into a signalfd by
 * then): output_create says -ENXIO, and output_wait_reader waits for the
 * reader, as any writer of a FIFO would (a shell's > f), while still
 * heeding the signals. (perf record 6.1 opens a FIFO read-write, which
 * never waits, and then fails to write its file format to it.)
 *
 * What a recording adds: the file gets its name once recording really
 * starts (output_commit), and an existing non-empty file becomes FILE.old,
 * like perf record. Until the start is certain (output_started) the
 * previous FILE.old is only moved aside, so output_abort can put both
 * back. Mode 0600; owned by the invoking user under sudo.
 */
#ifndef PSREC_RECORD_OUTPUT_H
#define PSREC_RECORD_OUTPUT_H

#include <stdbool.h>

#include "util/err.h"
#include "util/outfile.h"

struct output {
	struct outfile file;    /* the fd, its path, written in place or not */
	bool seekable;
	bool committed;
	bool renamed_old;       /* an existing file was moved to FILE.old */
	char *aside;            /* the previous FILE.old, until the start is certain */
	int aside_fd;           /* holds its data, so unlinking it is quick */
};

/* Create the file (see above). chunked (--switch-output): only a name
 * that is replaced will do, and what would be written in place is
 * refused before it is opened. A name util/outfile.h refuses (a link into
 * /proc or onto a device, something someone else put in a sticky or
 * world-writable directory) is refused, its line in *e. -ENXIO with *e
 * untouched: path is a FIFO with no reader yet. */
int output_create(struct output *o, const char *path, bool chunked, struct err *e);

/* A FIFO's open is retried this often while it has no reader (opening it
 * notifies nobody but the reader), so the reader waits at most this long. */
#define OUTPUT_READER_POLL_MS 50

/* output_create() once the FIFO at path has a reader. A signal read from
 * sigfd (a signalfd) ends the wait first: -EINTR, its number in *signo. */
int output_wait_reader(struct output *o, const char *path, int sigfd, int *signo, struct err *e);

/* Give the file its name (existing non-empty path -> path.old). */
int output_commit(struct output *o, struct err *e);

/* The recording has started: the previous FILE.old can go. */
void output_started(struct output *o);

/* Undo a commit when the recording fails before it really started: remove
 * the file and give FILE and FILE.old their contents back. */
void output_abort(struct output *o);

/* Remove the file if it was never committed; close the fds. */
void output_close(struct output *o);

/* One line in *e for a failed write (err) of the output at path, or of
 * standard output (pipe: -o -): EPIPE is its reader gone. Returns err. */
int output_failed(const char *path, bool pipe, int err, struct err *e);

#endif
