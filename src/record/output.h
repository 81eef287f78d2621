/*
 * output.h - the output file's life: created under a temporary name before
 * any event is opened (so an unwritable path fails first and a failed start
 * leaves nothing behind), moved into place once recording really starts
 * (an existing file becomes FILE.old, like perf record), removed if the
 * start fails. Mode 0600; owned by the invoking user under sudo.
 */
#ifndef PSREC_RECORD_OUTPUT_H
#define PSREC_RECORD_OUTPUT_H

#include <stdbool.h>

#include "util/err.h"

struct output {
	const char *path;       /* final name */
	char *tmp_path;         /* name while starting */
	int fd;
	bool committed;
	bool renamed_old;       /* an existing file was moved to FILE.old */
};

/* Create the temporary file next to path. */
int output_create(struct output *o, const char *path, struct err *e);

/* Move the file into place (existing non-empty path -> path.old). */
int output_commit(struct output *o, struct err *e);

/* Undo a commit when the recording fails before it really started: remove
 * the file and give FILE.old its name back. */
void output_abort(struct output *o);

/* Remove the file if it was never committed; close the fd. */
void output_close(struct output *o);

#endif
