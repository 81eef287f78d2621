/*
 * options_table.c - the option rows and what is generated from them (see
 * options_table.h).
 */
#include "options_table.h"

#include <stdio.h>
#include <string.h>

#include "options.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The --help headings. */
#define GROUP_TARGETS "targets"
#define GROUP_CALLGRAPHS "call graphs"
#define GROUP_OPTIONS "options"
#define GROUP_BUILDIDS "build-ids"
#define GROUP_CHUNKS "chunks"

const struct options_spec options_table[] = {
	{ 'p', "pid", OPTIONS_ARG_REQUIRED, "PID[,PID...]", NULL,
	  "running processes, with all their threads and the threads and children they start", GROUP_TARGETS },
	{ 't', "tid", OPTIONS_ARG_REQUIRED, "TID[,TID...]", NULL,
	  "just these threads", GROUP_TARGETS },
	{ 'a', "all-cpus", OPTIONS_ARG_NONE, NULL, NULL,
	  "every process on every CPU", GROUP_TARGETS },
	{ 'C', "cpu", OPTIONS_ARG_REQUIRED, "LIST", NULL,
	  "only these CPUs, e.g. 0-3,6", GROUP_TARGETS },
	{ OPTIONS_KEY_DURATION, "duration", OPTIONS_ARG_REQUIRED, "SECONDS", NULL,
	  "stop after SECONDS (fractions allowed)", GROUP_TARGETS },

	{ 'g', NULL, OPTIONS_ARG_NONE, NULL, NULL,
	  "record call chains (= --call-graph fp)", GROUP_CALLGRAPHS },
	{ OPTIONS_KEY_CALL_GRAPH, "call-graph", OPTIONS_ARG_REQUIRED, "MODE", NULL,
	  "fp (frame pointers), dwarf[,SIZE] (copy SIZE bytes of user stack, default 8192, "
	  "for offline unwinding; works without frame pointers), lbr (Intel LBR)", GROUP_CALLGRAPHS },
	{ OPTIONS_KEY_MAX_STACK, "max-stack", OPTIONS_ARG_REQUIRED, "N",
	  "the kernel's perf_event_max_stack",
	  "at most N frames per chain", GROUP_CALLGRAPHS },

	{ 'B', "no-buildid", OPTIONS_ARG_NONE, NULL, NULL,
	  "no build-ids: none in MMAP2 records, no BUILD_ID feature, no cache", GROUP_BUILDIDS },
	{ 'N', "no-buildid-cache", OPTIONS_ARG_NONE, NULL, NULL,
	  "do not copy the hit binaries into ~/.debug", GROUP_BUILDIDS },
	{ OPTIONS_KEY_BUILDID_ALL, "buildid-all", OPTIONS_ARG_NONE, NULL, NULL,
	  "list (and cache) every mapped binary, not only those samples hit", GROUP_BUILDIDS },

	{ OPTIONS_KEY_SWITCH_OUTPUT, "switch-output", OPTIONS_ARG_OPTIONAL, "signal|SIZE|TIME", "signal",
	  "record in chunks, each a complete FILE.YYYYmmddHHMMSScc: a new one on SIGUSR2, when the file "
	  "reaches SIZE (100M; B K M G) or every TIME (10s; s m h d)", GROUP_CHUNKS },
	{ OPTIONS_KEY_SWITCH_MAX_FILES, "switch-max-files", OPTIONS_ARG_REQUIRED, "N", NULL,
	  "keep only the newest N chunks, deleting older ones", GROUP_CHUNKS },
	{ OPTIONS_KEY_SWITCH_COMMAND, "switch-output-command", OPTIONS_ARG_REQUIRED, "CMD", NULL,
	  "run the shell command CMD with each finished chunk's path as its last argument "
	  "(never waited for while recording)", GROUP_CHUNKS },

	{ 'e', "event", OPTIONS_ARG_REQUIRED, "EVENT[,EVENT...]",
	  "cycles, or cpu-clock without a hardware PMU",
	  "events to sample (repeatable); modifiers :u :k :h", GROUP_OPTIONS },
	{ 'F', "freq", OPTIONS_ARG_REQUIRED, "HZ|max", STR(OPTIONS_DEFAULT_FREQ),
	  "sampling frequency; max = the kernel's perf_event_max_sample_rate", GROUP_OPTIONS },
	{ 'c', "count", OPTIONS_ARG_REQUIRED, "PERIOD", NULL,
	  "sample every PERIOD events instead of a frequency", GROUP_OPTIONS },
	{ 'm', "mmap-pages", OPTIONS_ARG_REQUIRED, "PAGES",
	  STR(OPTIONS_DEFAULT_PAGES) " = 512 KiB; 2 MiB with --call-graph dwarf",
	  "ring buffer data pages per CPU, a power of two, or a size such as 512K or 2M", GROUP_OPTIONS },
	{ 'o', "output", OPTIONS_ARG_REQUIRED, "FILE", OPTIONS_DEFAULT_OUTPUT,
	  "output file (an existing one is renamed to FILE.old); - writes a stream to stdout "
	  "for perf report -i - / perf script -i -", GROUP_OPTIONS },
	{ 'z', "compression-level", OPTIONS_ARG_OPTIONAL, "N", "1",
	  "compress the ring data with zstd level N (1-22, attached: -z5), like perf record -z", GROUP_OPTIONS },
	{ OPTIONS_KEY_MARKERS, "markers", OPTIONS_ARG_NONE, NULL, NULL,
	  "read the markers the program sends with psrec_mark (libpsrec-marker) even when psrec "
	  "cannot tell it uses them (a script, a library loaded later)", GROUP_OPTIONS },
	{ OPTIONS_KEY_NO_MARKERS, "no-markers", OPTIONS_ARG_NONE, NULL, NULL,
	  "do not read them, even from a program that uses them", GROUP_OPTIONS },
	{ 'k', "clockid", OPTIONS_ARG_REQUIRED, "CLOCK", "monotonic",
	  "clock for timestamps: monotonic, monotonic_raw, realtime, boottime, tai", GROUP_OPTIONS },
	{ 'q', "quiet", OPTIONS_ARG_NONE, NULL, NULL,
	  "no summary", GROUP_OPTIONS },
	{ 'v', "verbose", OPTIONS_ARG_NONE, NULL, NULL,
	  "more detail (repeat for more)", GROUP_OPTIONS },
	{ 'h', "help", OPTIONS_ARG_NONE, NULL, NULL,
	  "this help", GROUP_OPTIONS },
	{ 'V', "version", OPTIONS_ARG_NONE, NULL, NULL,
	  "print the version", GROUP_OPTIONS },
};

const size_t options_table_len = sizeof(options_table) / sizeof(options_table[0]);

_Static_assert(sizeof(options_table) / sizeof(options_table[0]) <= OPTIONS_TABLE_MAX,
	       "options_table has outgrown struct options_getopt: raise OPTIONS_TABLE_MAX");

int options_table_letter(const struct options_spec *s)
{
	return s->key < 256 ? s->key : 0;
}

void options_table_getopt(struct options_getopt *g)
{
	static const int has_arg[] = {
		[OPTIONS_ARG_NONE] = no_argument,
		[OPTIONS_ARG_REQUIRED] = required_argument,
		[OPTIONS_ARG_OPTIONAL] = optional_argument,
	};
	size_t nl = 0;
	char *p = g->shortopts;

	memset(g, 0, sizeof(*g));
	*p++ = '+';
	*p++ = ':';
	for (size_t i = 0; i < options_table_len; i++) {
		const struct options_spec *s = &options_table[i];
		if (s->name)
			g->longopts[nl++] = (struct option){ s->name, has_arg[s->arg], NULL, s->key };
		if (options_table_letter(s)) {
			*p++ = (char)s->key;
			/* "x::": an optional argument is attached (-z5), as
			 * perf's is. */
			if (s->arg != OPTIONS_ARG_NONE)
				*p++ = ':';
			if (s->arg == OPTIONS_ARG_OPTIONAL)
				*p++ = ':';
		}
	}
}

static const char help_head[] =
"usage: psrec [options] [--] COMMAND [ARGS...]\n"
"       psrec [options] -p PID[,PID...] | -t TID[,TID...] | -a\n"
"       psrec recover FILE   (repair a recording whose recorder was killed)\n"
"\n"
"Run COMMAND, or attach to running processes or the whole system, and\n"
"sample on every CPU into a perf.data file that perf report and perf\n"
"script read.\n";

static const char help_tail[] =
"\n"
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

/* The help column and the line width of --help. */
#define HELP_COLUMN 32
#define HELP_WIDTH  80

/* Text appended to a caller's fixed buffer; len keeps counting past the
 * end, so that the caller learns how much room the whole text needs. */
struct text {
	char *p;
	size_t size, len;
};

static void text_put(struct text *t, const char *s, size_t n)
{
	if (t->len + 1 < t->size) {
		size_t room = t->size - 1 - t->len;
		memcpy(t->p + t->len, s, n < room ? n : room);
	}
	t->len += n;
	if (t->size)
		t->p[t->len < t->size ? t->len : t->size - 1] = '\0';
}

static void text_puts(struct text *t, const char *s)
{
	text_put(t, s, strlen(s));
}

static void text_pad(struct text *t, size_t n)
{
	while (n--)
		text_put(t, " ", 1);
}

/* "  -p, --pid=PID[,PID...]", returning its width. */
static size_t help_names(struct text *t, const struct options_spec *s)
{
	size_t start = t->len;
	int letter = options_table_letter(s);
	char sh[] = { '-', (char)letter, '\0' };

	text_puts(t, "  ");
	text_puts(t, letter ? sh : "  ");
	if (s->name) {
		text_puts(t, letter ? ", --" : "  --");
		text_puts(t, s->name);
		if (s->arg == OPTIONS_ARG_REQUIRED) {
			text_puts(t, "=");
			text_puts(t, s->arg_name);
		} else if (s->arg == OPTIONS_ARG_OPTIONAL) {
			text_puts(t, "[=");
			text_puts(t, s->arg_name);
			text_puts(t, "]");
		}
	}
	return t->len - start;
}

/* Word-wrap s, which starts at HELP_COLUMN, to HELP_WIDTH. */
static void help_wrap(struct text *t, const char *s)
{
	size_t col = HELP_COLUMN;

	while (*s) {
		size_t n = strcspn(s, " ");
		if (col > HELP_COLUMN && col + 1 + n > HELP_WIDTH) {
			text_puts(t, "\n");
			text_pad(t, HELP_COLUMN);
			col = HELP_COLUMN;
		} else if (col > HELP_COLUMN) {
			text_puts(t, " ");
			col++;
		}
		text_put(t, s, n);
		col += n;
		s += n;
		s += strspn(s, " ");
	}
}

static void help_row(struct text *t, const struct options_spec *s)
{
	size_t w = help_names(t, s);
	if (w + 2 > HELP_COLUMN) {
		text_puts(t, "\n");
		w = 0;
	}
	text_pad(t, HELP_COLUMN - w);
	/* One string, so that the default wraps with the words before it.
	 * The rows are short; the unit test would see one cut here. */
	char body[512];
	if (s->def)
		snprintf(body, sizeof(body), "%s (default: %s)", s->help, s->def);
	else
		snprintf(body, sizeof(body), "%s", s->help);
	help_wrap(t, body);
	text_puts(t, "\n");
}

size_t options_table_help(char *out, size_t size)
{
	struct text t = { out, size, 0 };
	const char *group = NULL;

	if (size)
		out[0] = '\0';
	text_puts(&t, help_head);
	for (size_t i = 0; i < options_table_len; i++) {
		const struct options_spec *s = &options_table[i];
		if (!group || strcmp(group, s->group) != 0) {
			group = s->group;
			text_puts(&t, "\n");
			text_puts(&t, group);
			text_puts(&t, ":\n");
		}
		help_row(&t, s);
	}
	text_puts(&t, help_tail);
	return t.len;
}
