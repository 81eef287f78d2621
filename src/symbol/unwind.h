/*
 * unwind.h - the user part of a --call-graph dwarf sample's call chain,
 * offline: its registers and stack copy (REGS_USER, STACK_USER) walked
 * with the CFI of the mapped files (.eh_frame, else .debug_frame) as libdw
 * parses it. x86_64 and aarch64 register sets.
 *
 * A frame costs a map lookup, a rule lookup and a few reads of the stack
 * copy: libdw's answer for an address (how to find the CFA, where each
 * register was saved) is compiled once into a small rule and cached by
 * (DSO, address), so CFI is never evaluated again for an address seen
 * before. A rule that is a DWARF expression (PLT entries, signal frames,
 * stack realignment) sends the sample to libdwfl's own unwinder
 * (dwfl_getthread_frames) instead: one Dwfl per process, each DSO reported
 * to it once, its files opened once (the symbolizer's). Nothing is read
 * but the stack copy and the files: a corrupt sample ends its chain early.
 */
#ifndef PSREC_SYMBOL_UNWIND_H
#define PSREC_SYMBOL_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/sample.h"
#include "session/sideband.h"
#include "symbol/symbolizer.h"

#define UNWIND_DONE      0  /* reached the outermost frame, or one without CFI */
#define UNWIND_TRUNCATED 1  /* the stack copy ended before the outermost frame */
#define UNWIND_FAILED    2  /* no caller of the leaf found (the leaf is kept) */

struct unwind_stats {
	uint64_t samples;           /* unwound (a user stack and registers) */
	uint64_t truncated, failed;
	uint64_t dwfl;              /* sent to libdwfl for a DWARF expression */
	uint64_t rules;             /* CFI rows compiled (cache misses) */
};

struct unwind;

/* An unwinder over sb's address spaces; files come from s. Both must
 * outlive it. dwfl_only: every sample through libdwfl (the slow path, to
 * compare against). 0 or -ENOMEM. */
int unwind_open(struct unwind **u, struct symbolizer *s, const struct sideband *sb, bool dwfl_only);
void unwind_close(struct unwind *u);

/*
 * The user call chain of one sample of pid at time: ips[0] the sampled
 * user pc, then return addresses outward, at most max, their number in
 * *n (0 only without registers). UNWIND_* or -ENOMEM.
 */
int unwind_sample(struct unwind *u, int32_t pid, uint64_t time, const struct sample_user *su, uint64_t *ips,
		  size_t max, size_t *n);

void unwind_stats(const struct unwind *u, struct unwind_stats *st);

#endif
