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

#include "record/callgraph.h"
#include "record/evspec.h"
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

struct record_opts {
	struct evspec_list events;
	uint64_t freq;          /* samples per second (when period == 0) */
	uint64_t period;        /* -c: events per sample; 0 = use freq */
	size_t mmap_pages;      /* ring data pages per CPU, a power of two */
	bool mmap_pages_given;  /* -m was given (else a default, maybe per mode) */
	const char *output;     /* "-" = a perf.data stream on stdout */
	bool pipe;
	int compress_level;     /* -z: zstd level 1-22; 0 = off */
	int clockid;
	const char *clock_name;
	int verbose;
	bool quiet;
	bool help, version;
	pid_t *pids;            /* -p: processes to attach to */
	size_t nr_pids;
	pid_t *tids;            /* -t: threads to attach to */
	size_t nr_tids;
	bool system_wide;       /* -a */
	int *cpus;              /* -C: CPUs to sample on (NULL = all online) */
	int nr_cpus;
	const char *cpu_list;
	double duration;        /* --duration seconds, >= OPTIONS_MIN_DURATION; 0 = until the end */
	struct callgraph callgraph; /* -g / --call-graph / --max-stack */
	int cmd_argc;
	char **cmd;             /* the command to run, NULL-terminated */
	int argc;               /* the whole command line, for CMDLINE */
	char **argv;
};

void options_init(struct record_opts *o);
/* 0 on success (check o->help / o->version), -EINVAL for a usage error. */
int options_parse(struct record_opts *o, int argc, char **argv, struct err *e);
void options_free(struct record_opts *o);

/* The --help text. */
const char *options_usage(void);

#endif
