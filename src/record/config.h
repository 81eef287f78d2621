/*
 * config.h - what one recording is asked to do: filled once (by options.c
 * from the command line), then only read. src/record never sees the
 * command line itself.
 */
#ifndef PSREC_RECORD_CONFIG_H
#define PSREC_RECORD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/callgraph.h"
#include "record/evspec.h"
#include "record/rotate.h"

/* Markers (record/markers.h): read them when the program uses them
 * (AUTO: the command links libpsrec-marker, a -p process has its
 * channel), always, or never. */
#define CONFIG_MARKERS_AUTO 0
#define CONFIG_MARKERS_ON   1
#define CONFIG_MARKERS_OFF  2

struct record_config {
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
	pid_t *pids;            /* -p: processes to attach to */
	size_t nr_pids;
	pid_t *tids;            /* -t: threads to attach to */
	size_t nr_tids;
	bool system_wide;       /* -a */
	int *cpus;              /* -C: CPUs to sample on (NULL = all online) */
	int nr_cpus;
	const char *cpu_list;
	double duration;        /* --duration seconds, >= 1 ms; 0 = until the end */
	struct callgraph callgraph; /* -g / --call-graph / --max-stack */
	/* Build-ids (-B, -N, --buildid-all). */
	bool no_buildid;        /* none in MMAP2, no BUILD_ID feature, no cache */
	bool no_buildid_cache;  /* no copies into ~/.debug */
	int markers;            /* CONFIG_MARKERS_*: --markers, --no-markers */
	bool buildid_all;       /* every mapped DSO, not only those hit */
	/* --switch-output, --switch-max-files, --switch-output-command:
	 * chunks OUTPUT.<timestamp> (mode ROTATE_NONE: one file). */
	struct rotate_spec switch_output;
	int cmd_argc;
	char **cmd;             /* the command to run, NULL-terminated */
	int argc;               /* the whole command line, for CMDLINE */
	char **argv;
};

#endif
