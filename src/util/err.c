/* err.c - error messages carried up to main (see err.h). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

int err_set(struct err *e, int code, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

int err_is_set(const struct err *e)
{
	return e && e->msg[0] != '\0';
}
