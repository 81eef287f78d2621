/*
 * fold_notes.c - the notes of a fold (see fold_notes.h).
 */
#include "fold_notes.h"

#include <inttypes.h>

#include "cli/say.h"

/* One warning for what could not be named, one notice for the event. */
void fold_notes_say(const char *input, const struct fold_result *r)
{
	if (r->warning[0])
		cli_say("%s: %s", input, r->warning);
	if (r->event_chosen)
		cli_say("%s: folding event %s (the first sampling event; --event picks another)",
			input, r->event);
	if (r->sym.unresolved && r->sym_dsos[0])
		cli_say("%s: %" PRIu64 " of %" PRIu64 " frames not symbolized: %s", input,
			r->sym.unresolved, r->sym.frames, r->sym_dsos);
	if (r->unwind.failed)
		cli_say("%s: %" PRIu64 " of %" PRIu64 " samples could not be unwound (their leaf frame "
			"alone is kept): their code has no CFI psrec found; see --buildid-dir, --symfs",
			input, r->unwind.failed, r->unwind.samples);
	if (r->windows)
		cli_say("%s: samples of %zu --between window%s", input, r->windows,
			r->windows == 1 ? "" : "s");
	if (r->kept == 0)
		cli_say("%s: no samples of %s%s", input, r->event,
			r->samples ? " passed the filters" : "");
}
