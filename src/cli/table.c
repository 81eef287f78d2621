/*
 * table.c - getopt's arguments and --help, generated from a command's
 * option rows (see table.h).
 */
#include "table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_table_letter(const struct cli_opt *o)
{
	return o->key < CLI_KEY_LONG ? o->key : 0;
}

void cli_table_getopt(const struct cli_table *t, struct cli_getopt *g)
{
	static const int has_arg[] = {
		[CLI_ARG_NONE] = no_argument,
		[CLI_ARG_REQUIRED] = required_argument,
		[CLI_ARG_OPTIONAL] = optional_argument,
	};
	size_t nl = 0;
	char *p = g->shortopts;

	memset(g, 0, sizeof(*g));
	/* A new parse: optind 0, not 1, also resets glibc's state inside an
	 * option group; psrec says every complaint itself. */
	optind = 0;
	opterr = 0;
	if (t->stop_at_word)
		*p++ = '+';
	*p++ = ':';
	for (size_t i = 0; i < t->n && i < CLI_TABLE_MAX; i++) {
		const struct cli_opt *s = &t->opts[i];
		if (s->name)
			g->longopts[nl++] = (struct option){ s->name, has_arg[s->arg], NULL, s->key };
		if (cli_table_letter(s)) {
			*p++ = (char)s->key;
			/* "x::": an optional argument is attached (-z5), as
			 * perf's is. */
			if (s->arg != CLI_ARG_NONE)
				*p++ = ':';
			if (s->arg == CLI_ARG_OPTIONAL)
				*p++ = ':';
		}
	}
}

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
static size_t help_names(struct text *t, const struct cli_opt *s)
{
	size_t start = t->len;
	int letter = cli_table_letter(s);
	char sh[] = { '-', (char)letter, '\0' };

	text_puts(t, "  ");
	text_puts(t, letter ? sh : "  ");
	if (s->name) {
		text_puts(t, letter ? ", --" : "  --");
		text_puts(t, s->name);
		if (s->arg == CLI_ARG_REQUIRED) {
			text_puts(t, "=");
			text_puts(t, s->arg_name);
		} else if (s->arg == CLI_ARG_OPTIONAL) {
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

static void help_row(struct text *t, const struct cli_opt *s)
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

size_t cli_table_help(const struct cli_table *tb, char *out, size_t size)
{
	struct text t = { out, size, 0 };
	const char *group = NULL;

	if (size)
		out[0] = '\0';
	text_puts(&t, tb->usage);
	if (tb->about) {
		text_puts(&t, "\n");
		text_puts(&t, tb->about);
	}
	for (size_t i = 0; i < tb->n; i++) {
		const struct cli_opt *s = &tb->opts[i];
		if (!group || strcmp(group, s->group) != 0) {
			group = s->group;
			text_puts(&t, "\n");
			text_puts(&t, group);
			text_puts(&t, ":\n");
		}
		help_row(&t, s);
	}
	if (tb->tail) {
		text_puts(&t, "\n");
		text_puts(&t, tb->tail);
	}
	return t.len;
}

const struct cli_opt *cli_table_find(const struct cli_table *t, int key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->opts[i].key == key)
			return &t->opts[i];
	return NULL;
}

int cli_table_print(const struct cli_table *t, FILE *f)
{
	size_t n = cli_table_help(t, NULL, 0);
	char *text = malloc(n + 1);
	if (!text)
		return -ENOMEM;
	cli_table_help(t, text, n + 1);
	int err = fputs(text, f) < 0 ? -EIO : 0;
	free(text);
	return err;
}
