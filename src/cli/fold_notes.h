/*
 * fold_notes.h - what a fold-family command tells its user about the
 * samples it read: the event it chose, the frames it could not name, the
 * stacks it could not unwind, the --between windows, an empty result.
 */
#ifndef PSREC_CLI_FOLD_NOTES_H
#define PSREC_CLI_FOLD_NOTES_H

#include "fold/fold.h"

/* One line each, on standard error (cli/say.h); input names the file. */
void fold_notes_say(const char *input, const struct fold_result *r);

#endif
