/*
 * options_table.c - the record command line's option rows (see
 * options_table.h).
 */
#include "cli/options_table.h"

#include "cli/options.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The --help headings. */
#define GROUP_TARGETS "targets"
#define GROUP_CALLGRAPHS "call graphs"
#define GROUP_OPTIONS "options"
#define GROUP_BUILDIDS "build-ids"
#define GROUP_CHUNKS "chunks"

static const struct cli_opt rows[] = {
	{ 'p', "pid", CLI_ARG_REQUIRED, "PID[,PID...]", NULL,
	  "running processes, with all their threads and the threads and children they start", GROUP_TARGETS },
	{ 't', "tid", CLI_ARG_REQUIRED, "TID[,TID...]", NULL,
	  "just these threads", GROUP_TARGETS },
	{ 'a', "all-cpus", CLI_ARG_NONE, NULL, NULL,
	  "every process on every CPU", GROUP_TARGETS },
	{ 'C', "cpu", CLI_ARG_REQUIRED, "LIST", NULL,
	  "only these CPUs, e.g. 0-3,6", GROUP_TARGETS },
	{ OPTIONS_KEY_DURATION, "duration", CLI_ARG_REQUIRED, "SECONDS", NULL,
	  "stop after SECONDS (fractions allowed)", GROUP_TARGETS },

	{ 'g', NULL, CLI_ARG_NONE, NULL, NULL,
	  "record call chains (= --call-graph fp)", GROUP_CALLGRAPHS },
	{ OPTIONS_KEY_CALL_GRAPH, "call-graph", CLI_ARG_REQUIRED, "MODE", NULL,
	  "fp (frame pointers), dwarf[,SIZE] (copy SIZE bytes of user stack, default 8192, "
	  "for offline unwinding; works without frame pointers), lbr (Intel LBR)", GROUP_CALLGRAPHS },
	{ OPTIONS_KEY_MAX_STACK, "max-stack", CLI_ARG_REQUIRED, "N",
	  "the kernel's perf_event_max_stack",
	  "at most N frames per chain", GROUP_CALLGRAPHS },

	{ 'B', "no-buildid", CLI_ARG_NONE, NULL, NULL,
	  "no build-ids: none in MMAP2 records, no BUILD_ID feature, no cache", GROUP_BUILDIDS },
	{ 'N', "no-buildid-cache", CLI_ARG_NONE, NULL, NULL,
	  "do not copy the hit binaries into ~/.debug", GROUP_BUILDIDS },
	{ OPTIONS_KEY_BUILDID_ALL, "buildid-all", CLI_ARG_NONE, NULL, NULL,
	  "list (and cache) every mapped binary, not only those samples hit", GROUP_BUILDIDS },

	{ OPTIONS_KEY_SWITCH_OUTPUT, "switch-output", CLI_ARG_OPTIONAL, "signal|SIZE|TIME", "signal",
	  "record in chunks, each a complete FILE.YYYYmmddHHMMSScc: a new one on SIGUSR2, when the file "
	  "reaches SIZE (100M; B K M G) or every TIME (10s; s m h d)", GROUP_CHUNKS },
	{ OPTIONS_KEY_SWITCH_MAX_FILES, "switch-max-files", CLI_ARG_REQUIRED, "N", NULL,
	  "keep only the newest N chunks, deleting older ones", GROUP_CHUNKS },
	{ OPTIONS_KEY_SWITCH_COMMAND, "switch-output-command", CLI_ARG_REQUIRED, "CMD", NULL,
	  "run the shell command CMD with each finished chunk's path as its last argument "
	  "(never waited for while recording)", GROUP_CHUNKS },

	{ 'e', "event", CLI_ARG_REQUIRED, "EVENT[,EVENT...]",
	  "cycles, or cpu-clock without a hardware PMU",
	  "events to sample (repeatable); modifiers :u :k :h", GROUP_OPTIONS },
	{ 'F', "freq", CLI_ARG_REQUIRED, "HZ|max", STR(OPTIONS_DEFAULT_FREQ),
	  "sampling frequency; max = the kernel's perf_event_max_sample_rate", GROUP_OPTIONS },
	{ 'c', "count", CLI_ARG_REQUIRED, "PERIOD", NULL,
	  "sample every PERIOD events instead of a frequency", GROUP_OPTIONS },
	{ 'm', "mmap-pages", CLI_ARG_REQUIRED, "PAGES",
	  STR(OPTIONS_DEFAULT_PAGES) " = 512 KiB; 2 MiB with --call-graph dwarf",
	  "ring buffer data pages per CPU, a power of two, or a size such as 512K or 2M", GROUP_OPTIONS },
	{ 'o', "output", CLI_ARG_REQUIRED, "FILE", OPTIONS_DEFAULT_OUTPUT,
	  "output file (an existing one is renamed to FILE.old); - writes a stream to stdout "
	  "for perf report -i - / perf script -i -", GROUP_OPTIONS },
	{ 'z', "compression-level", CLI_ARG_OPTIONAL, "N", "1",
	  "compress the ring data with zstd level N (1-22, attached: -z5), like perf record -z", GROUP_OPTIONS },
	{ OPTIONS_KEY_MARKERS, "markers", CLI_ARG_NONE, NULL, NULL,
	  "read the markers the program sends with psrec_mark (libpsrec-marker) even when psrec "
	  "cannot tell it uses them (a script, a library loaded later)", GROUP_OPTIONS },
	{ OPTIONS_KEY_NO_MARKERS, "no-markers", CLI_ARG_NONE, NULL, NULL,
	  "do not read them, even from a program that uses them", GROUP_OPTIONS },
	{ 'k', "clockid", CLI_ARG_REQUIRED, "CLOCK", "monotonic",
	  "clock for timestamps: monotonic, monotonic_raw, realtime, boottime, tai", GROUP_OPTIONS },
	{ 'q', "quiet", CLI_ARG_NONE, NULL, NULL,
	  "no summary", GROUP_OPTIONS },
	{ 'v', "verbose", CLI_ARG_NONE, NULL, NULL,
	  "more detail (repeat for more)", GROUP_OPTIONS },
	{ 'h', "help", CLI_ARG_NONE, NULL, NULL,
	  "this help", GROUP_OPTIONS },
	{ 'V', "version", CLI_ARG_NONE, NULL, NULL,
	  "print the version", GROUP_OPTIONS },
};

_Static_assert(sizeof(rows) / sizeof(rows[0]) <= CLI_TABLE_MAX,
	       "record's options have outgrown struct cli_getopt: raise CLI_TABLE_MAX");

static const char usage[] =
"usage: psrec [record] [options] [--] COMMAND [ARGS...]\n"
"       psrec [record] [options] -p PID[,PID...] | -t TID[,TID...] | -a\n";

static const char about[] =
"Run COMMAND, or attach to running processes or the whole system, and\n"
"sample on every CPU into a perf.data file that perf report and perf\n"
"script read.\n";

static const char tail[] =
"events: cpu-clock, task-clock, page-faults, minor-faults, major-faults,\n"
"        context-switches, cpu-migrations, cycles, instructions, cache-misses,\n"
"        branch-misses, ...\n"
"\n"
"examples:\n"
"  psrec -- ./myprog --flag          record myprog at 4000 Hz into perf.data\n"
"  psrec -F 999 -o run.data ./myprog record at 999 Hz into run.data\n"
"  psrec -e cpu-clock,page-faults -- make -j2\n"
"  psrec -e task-clock:u -c 100000 ./myprog\n"
"  psrec -p 1234 --duration 10      attach to process 1234 for 10 seconds\n"
"  psrec -g -- ./myprog              with call chains, for flame graphs\n"
"  psrec --call-graph dwarf ./myprog call chains without frame pointers\n"
"  psrec -a -C 0-1 --duration 5     the whole system, CPUs 0 and 1\n"
"  perf report -i perf.data          read the recording\n";

const struct cli_table options_table = {
	"record", usage, about, tail, rows, sizeof(rows) / sizeof(rows[0]), true,
};
