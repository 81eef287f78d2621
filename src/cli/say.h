/*
 * say.h - the one way psrec talks to its user: a line on standard error.
 */
#ifndef PSREC_CLI_SAY_H
#define PSREC_CLI_SAY_H

#include <stddef.h>
#include <stdint.h>

/* "psrec: " and the line. What it names may be a file's or a profiled
 * program's (a thread name, a DSO path, an event name, a file name from
 * a directory listing), so its control characters and broken UTF-8 are
 * written \xNN (util/textesc.h): no message drives the terminal it is
 * printed on. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "1.2 MB" or "3.4 KB" into out. */
void cli_size(char *out, size_t len, uint64_t bytes);

#endif
