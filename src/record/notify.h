/*
 * notify.h - how the parts of a recording say something while it runs: a
 * warning, or -v detail, one line at a time, to whoever listens (main.c,
 * through record.h's hooks). Nothing in record/ prints.
 *
 * The lowest header of the recorder's parts: targets, chunks and the
 * build-id pass say things through it without knowing record.h.
 */
#ifndef PSREC_RECORD_NOTIFY_H
#define PSREC_RECORD_NOTIFY_H

#define NOTIFY_WARN    0  /* always shown (unless -q) */
#define NOTIFY_VERBOSE 1  /* shown with -v */

struct notify {
	void (*notice)(void *ctx, int level, const char *msg); /* NULL: nobody listens */
	void *ctx;
};

/* Format one line (at most 511 bytes, cut beyond) and pass it on; n NULL
 * or without notice: nothing. */
void notify_say(const struct notify *n, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
