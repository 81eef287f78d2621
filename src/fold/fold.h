/*
 * fold.h - a recording to weighted stacks: what psrec fold prints and
 * psrec flamegraph draws.
 *
 * The recording is read in one pass (session/session.h): the side band
 * is loaded, then every sample of the chosen event is resolved at its own
 * time against the maps its process had then, symbolized (symbol/symbolizer.h) and added to the
 * distinct stacks (stacks.h). Memory grows with the distinct stacks and
 * DSOs, not with the samples. Any perf.data: psrec's or perf's, file or
 * pipe format (a stream is read whole first), compressed or not. Samples
 * with a user stack copy (--call-graph dwarf) are unwound (unwind.h); a
 * chain whose copy ended early starts with a "[truncated]" frame. Record
 * types psrec does not know are skipped and counted, never fatal.
 *
 * Markers (samples of psrec:marker, marker/tp.h) are not CPU samples:
 * the default event is never theirs, only --event psrec:marker folds
 * them (each its caller's frame, weight 1).
 *
 * With fold_config.on_sample set, each kept sample goes to it instead,
 * resolved by the same code (struct fold_sample: its frames with their
 * addresses and DSOs, for psrec pprof), and no stacks are built.
 */
#ifndef PSREC_FOLD_FOLD_H
#define PSREC_FOLD_FOLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fold/events.h"
#include "fold/stacks.h"
#include "session/sideband.h"
#include "symbol/symbolizer.h"
#include "symbol/unwind.h"
#include "util/err.h"

/* Where user frames come from (--call-graph). */
#define FOLD_CHAIN_AUTO  0  /* the stack copy when a sample has one, else the chain */
#define FOLD_CHAIN_FP    1  /* the recorded CALLCHAIN only */
#define FOLD_CHAIN_DWARF 2  /* the stack copy only (kernel frames still from the chain) */

/* One frame of a kept sample, as resolved for the folded stacks. */
struct fold_frame {
	uint64_t ip;                /* the address named (a caller's call, not its return address) */
	const struct maps_entry *map; /* NULL: in no known map */
	const struct dso *dso;      /* map's DSO; NULL with map */
	bool kernel;
	bool caller;                /* ip is a return address: the call is at ip - 1 (as the inlines were found) */
	int kind;                   /* SYM_KIND_*; SYM_KIND_UNKNOWN for "[truncated]" */
	const char *name;           /* the symbolizer's (demangled unless --no-demangle) */
	const char *raw;            /* the symbol as the file has it (== name when not demangled) */
	const char *const *inl;     /* "NAME (inlined)" of the calls inlined at ip, outermost first */
	uint32_t ninl;
};

/* A kept sample: frames innermost first, as its chain is; a chain whose
 * stack copy ended early ends with a "[truncated]" frame (map NULL).
 * Valid during the callback only; names live until fold_free. */
struct fold_sample {
	int32_t pid, tid;
	const char *comm;           /* "[unknown]" when the side band has none */
	uint64_t time, period;
	const struct fold_frame *frames;
	size_t nframes;
};

/* Called per kept sample; a nonzero return (-errno) stops fold_run with it. */
typedef int (*fold_sample_fn)(void *arg, const struct fold_sample *s);

struct fold_config {
	const char *input;          /* a path, "-" for standard input */
	const char *event;          /* NULL: the first sampling event */
	int32_t pid, tid;           /* -1: every one */
	const char *comm;           /* NULL: every thread name */
	bool no_kernel;             /* drop kernel frames */
	bool period;                /* weight by period, not by sample */
	uint64_t time_start, time_end; /* sample times kept, ns: [start, end] */
	/* --between A,B: only samples in a window from a marker whose payload
	 * is A to the next one whose payload is B (marker/list.h), every
	 * such window, every thread's samples; NULL: no windows */
	const char *between_a, *between_b;
	int call_graph;             /* FOLD_CHAIN_* */
	bool unwind_dwfl;           /* every stack through libdwfl (--unwinder=dwfl) */
	struct sym_config sym;
	fold_sample_fn on_sample;   /* NULL: fold into fold_result.stacks */
	void *arg;                  /* on_sample's */
};

struct fold_result {
	struct stacks stacks;       /* frame 0 is the thread name */
	char event[EVENTS_NAME_MAX];
	bool event_chosen;          /* several sampling events: said which */
	uint64_t samples;           /* of the event, before the filters */
	uint64_t kept;              /* after the filters */
	uint64_t unknown_records;   /* record types skipped */
	uint64_t decoded;           /* COMPRESSED records decoded (each once: one pass) */
	char warning[160];          /* the session's (session.h), "": none */
	size_t windows;             /* --between's */
	uint64_t first_time, last_time;
	uint64_t sample_period;     /* the event's attr.sample_period (a frequency with freq) */
	bool freq;                  /* attr.freq: sample_period is in Hz */
	uint32_t event_type;        /* attr.type and config of the event */
	uint64_t event_config;
	/* CLOCK_DATA: one instant on the wall clock and on the samples' clock,
	 * so that a sample time t is wall_ns + (t - clock_ns) */
	bool has_clock_data;
	uint64_t clock_wall_ns, clock_ns;
	struct sym_stats sym;
	struct unwind_stats unwind; /* samples with a stack copy */
	char sym_dsos[512];         /* the DSOs that went unresolved */
	struct symbolizer *symbolizer; /* owns the frame names */
	struct sideband *sideband;  /* owns the thread names */
};

/* Fold c->input into *r (to be freed with fold_free in every case).
 * -errno with *e: one line naming the file (and the offset where its data
 * stops reading). */
int fold_run(const struct fold_config *c, struct fold_result *r, struct err *e);

/* The folded lines, sorted bytewise: "comm;outer;...;inner COUNT\n", a
 * name's ';' as ':' and its control bytes and broken UTF-8 as \xNN
 * (util/textesc.h); stacks that print alike are one line, summed. */
int fold_write(FILE *out, const struct fold_result *r, struct err *e);

void fold_free(struct fold_result *r);

#endif
