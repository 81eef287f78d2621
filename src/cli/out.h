/*
 * out.h - where an offline command's text, drawing or profile goes: a
 * file written under a temporary name and renamed at the end, or
 * standard output ("-"); a device or FIFO is written in place, and a
 * link planted into /proc or onto a device is refused (util/outfile.h).
 * A profile is for sharing, so the file is 0644, as a shell's > leaves it.
 */
#ifndef PSREC_CLI_OUT_H
#define PSREC_CLI_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/outfile.h"

/* Open out as a stream (tag names the temporary). 0, or -errno with the
 * reason said in one line; either way *of is to be closed by
 * cli_out_finish or outfile_close. */
int cli_out_open(const char *out, const char *tag, struct outfile *of, FILE **f);

/* Flush what f holds and, when ok, put the output in place; otherwise
 * the temporary is removed, so a failed run never leaves a partial file.
 * 0 or -errno (not said: the caller names what failed). */
int cli_out_finish(FILE *f, struct outfile *of, bool ok);

#endif
