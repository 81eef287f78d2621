/*
 * flamegraph.h - one self-contained interactive SVG from weighted stacks:
 * no network, no external script; opens from disk in any browser.
 *
 * Hover shows the frame's name, samples and share; click zooms to a frame
 * (its width becomes the full width), a reset button zooms out; search
 * (a regular expression) highlights matching frames and shows the share
 * of samples under them. Colors tell user, kernel, JIT and unknown frames
 * apart (SYM_KIND_*). Text is escaped for XML (<, &, quotes) and invalid
 * UTF-8 is replaced, so any symbol name is safe.
 */
#ifndef PSREC_FLAME_FLAMEGRAPH_H
#define PSREC_FLAME_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbol/kind.h"
#include "util/err.h"

struct flame_frame {
	const char *name;
	int kind;                   /* SYM_KIND_* (symbol/kind.h) */
};

/* One distinct stack, outermost frame first (the comm is frame 0). */
struct flame_stack {
	const struct flame_frame *frames;
	size_t nr;
	uint64_t count;             /* samples, or the sum of periods */
};

struct flame_config {
	const char *title;          /* NULL: "Flame Graph" */
	const char *subtitle;       /* NULL: none (e.g. "cpu-clock, 12,345 samples") */
	unsigned width;             /* pixels, 0: 1200 */
	bool icicle;                /* roots at the top (--reverse / --icicle) */
	const char *unit;           /* "samples" or "ns" etc., NULL: "samples" */
};

/* Write the SVG. The stacks may come in any order; equal prefixes are
 * merged. -errno (with *e) on a write error. */
int flamegraph_write(FILE *out, const struct flame_stack *stacks, size_t nr, const struct flame_config *c,
		     struct err *e);

/*
 * A differential flamegraph: widths from new, each frame colored by how
 * its share of all samples changed from base to new (red: grew, blue:
 * shrank, white: same; shares normalized by each side's total), as in
 * Brendan Gregg's difffolded. Frames only in base are not drawn.
 */
int flamegraph_write_diff(FILE *out, const struct flame_stack *base, size_t nr_base, const struct flame_stack *cur,
			  size_t nr_cur, const struct flame_config *c, struct err *e);

#endif
