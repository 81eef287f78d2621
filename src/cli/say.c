/*
 * say.c - messages to the user (see say.h).
 */
#include "say.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/textesc.h"

void cli_say(const char *fmt, ...)
{
	char *msg;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fputs("psrec: ", stderr);
	textesc_put(stderr, msg, (size_t)n, 0);
	putc('\n', stderr);
	free(msg);
}

void cli_size(char *out, size_t len, uint64_t bytes)
{
	if (bytes >= 1000 * 1000)
		snprintf(out, len, "%.1f MB", (double)bytes / 1e6);
	else
		snprintf(out, len, "%.1f KB", (double)bytes / 1e3);
}
