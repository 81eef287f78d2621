/*
 * events.h - the names of a recording's events, for --event and for
 * saying which event a fold used.
 *
 * From EVENT_DESC (file and pipe format, perf's and psrec's), else from
 * the EVENT_UPDATE name records of a stream, else from the attr's type
 * and config for the built-in events ("cpu-clock", "cycles"), else
 * "event N".
 */
#ifndef PSREC_FOLD_EVENTS_H
#define PSREC_FOLD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "format/reader.h"
#include "session/session.h"

#define EVENTS_NAME_MAX SESSION_NAME_MAX

struct events {
	char (*name)[EVENTS_NAME_MAX];  /* one per reader attr */
	size_t nr;
};

/* Names for every attr of r (a pass of its own over a stream's first
 * records for their EVENT_UPDATEs, then r rewound). -ENOMEM only. */
int events_read(struct events *ev, struct reader *r);
/* The same from a session, with no pass of its own: a stream without
 * EVENT_DESC is named by the EVENT_UPDATEs session_load met, so call it
 * after that there. */
int events_read_session(struct events *ev, struct session *s);
void events_free(struct events *ev);

/* The index of the attr named name (exact, or with a ":u"-style suffix
 * ignored), -1 if none. */
int events_find(const struct events *ev, const char *name);

/* The first attr that samples (a period or frequency), else the first
 * attr; never the psrec:marker one (its samples are markers, not CPU
 * samples). -1 if none. */
int events_first_sampling(const struct reader *r);

/* Every name, comma separated, into out (for an error message). */
void events_list(const struct events *ev, char *out, size_t len);

#endif
