/*
 * pprof.h - psrec pprof: a recording to one pprof Profile
 * (profile.proto, gzipped), for go tool pprof and the continuous-profiling
 * backends that ingest pprof.
 *
 * The samples are fold's (fold.h: the same filters, side band, symbols,
 * inlined calls and DWARF unwinding, through fold_config.on_sample), so a
 * pprof and a folded file of one recording count the same samples with
 * the same frames. What pprof adds, per sample: its locations leaf first,
 * each an address in a Mapping (one per mapped range of a DSO: filename,
 * start, limit, file offset, build-id in hex; kernel frames in
 * [kernel.kallsyms]) with its Lines innermost first (the calls inlined
 * there, then the function holding them); the values [samples/count,
 * cpu/nanoseconds] (the period of cpu-clock and task-clock; another
 * event's period in its own unit, "EVENT/count"); the labels pid, tid
 * (numbers), comm and event (strings). Samples equal in all of that are
 * one Sample with summed values.
 */
#ifndef PSREC_PPROF_PPROF_H
#define PSREC_PPROF_PPROF_H

#include <stdio.h>

#include "fold/fold.h"
#include "pprof/profile.h"
#include "util/err.h"

struct pprof_result {
	struct fold_result fold;    /* the event, the counts, what went unresolved */
	struct profile *profile;
	struct profile_counts counts;
	bool wall_time;             /* time_nanos is wall time (CLOCK_DATA), else the recording clock's */
};

/* The Profile of c->input (c->on_sample is pprof's own: leave it NULL).
 * -errno with *e, as fold_run. Free *r with pprof_free in every case. */
int pprof_run(const struct fold_config *c, struct pprof_result *r, struct err *e);

/* r's Profile encoded and gzipped into out (not closed); *bytes: its size
 * before compression. -errno with *e. */
int pprof_write(FILE *out, const struct pprof_result *r, size_t *bytes, struct err *e);

void pprof_free(struct pprof_result *r);

#endif
