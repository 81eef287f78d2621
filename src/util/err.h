/*
 * err.h - carrying an error's words up to the one place that prints them.
 *
 * psrec functions return 0 or -errno. When the code alone would make a poor
 * message ("-ENOENT" for a missing hardware PMU), the failing function also
 * fills a caller-provided struct err with one line naming the thing that
 * failed and the fix. Only main.c prints it. Nothing here allocates.
 */
#ifndef PSREC_UTIL_ERR_H
#define PSREC_UTIL_ERR_H

struct err {
	char msg[512];
};

/*
 * Format the message into e (if e is not NULL) and return code, which
 * should be a negative errno: `return err_set(e, -EINVAL, "bad %s", x);`.
 * A message already set is overwritten.
 */
int err_set(struct err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* True when a message has been set. */
int err_is_set(const struct err *e);

#endif
