/*
 * notify.c - one line to whoever listens (see notify.h).
 */
#include "notify.h"

#include <stdarg.h>
#include <stdio.h>

void notify_say(const struct notify *n, int level, const char *fmt, ...)
{
	if (!n || !n->notice)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n->notice(n->ctx, level, msg);
}
