/*
 * options.h - the record command line, parsed and validated.
 *
 * All defaults live in options_init(). Parsing stops at the first
 * non-option word (or "--"): that word and the rest are the command to
 * run. A recording has exactly one kind of target: a command, -p/-t
 * (processes/threads, may be combined), or -a. Errors are usage errors
 * (-EINVAL, exit 2 in main) with a one-line message in *e naming the
 * option and the fix. Whether a pid exists is not checked here.
 */
#ifndef PSREC_OPTIONS_H
#define PSREC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/config.h"
#include "util/err.h"

#define OPTIONS_DEFAULT_FREQ   4000
#define OPTIONS_DEFAULT_PAGES  128
/* DWARF samples are ~8.4 KB: 512 KiB would hold 62 of them (15 ms at
 * 4 kHz) and wake psrec every 31; 2 MiB holds 250 and halves the wake-ups
 * twice over. */
#define OPTIONS_DWARF_PAGES    512
#define OPTIONS_DEFAULT_OUTPUT "perf.data"
#define OPTIONS_MAX_RATE_PATH  "/proc/sys/kernel/perf_event_max_sample_rate"
/* --duration bounds, in seconds: the recording loop counts whole
 * milliseconds, so anything shorter is raised to one. */
#define OPTIONS_MIN_DURATION   0.001
#define OPTIONS_MAX_DURATION   1e9
/* -c: the kernel refuses sample periods with bit 63 set. */
#define OPTIONS_MAX_PERIOD     INT64_MAX

/* The parsed command line: the recording's config, and what only the
 * front end uses. */
struct options {
	struct record_config cfg;
	int verbose;
	bool quiet;
	bool help, version;
};

void options_init(struct options *o);
/* 0 on success (check o->help / o->version), -EINVAL for a usage error. */
int options_parse(struct options *o, int argc, char **argv, struct err *e);
void options_free(struct options *o);

/* The --help text, generated from the option table (options_table.h)
 * into h; returns h->text. */
struct options_help {
	char text[8192];
};
const char *options_usage(struct options_help *h);

#endif
