/*
 * commands.c - the command list's lookups and psrec --help (see
 * commands.h).
 */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cli_command *commands_find(const struct commands *c, const char *word)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->list[i]->name, word) == 0)
			return c->list[i];
	return NULL;
}

/* Edits from a to b (optimal string alignment: insert, delete, replace,
 * swap two neighbours), for words of at most WORD_MAX bytes. */
#define WORD_MAX 32
static size_t edits(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	size_t d[WORD_MAX + 1][WORD_MAX + 1];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[na][nb];
}

const struct cli_command *commands_suggest(const struct commands *c, const char *word)
{
	/* A short word is as close to everything as to a command. */
	size_t n = strlen(word);
	if (n < 3 || n > WORD_MAX)
		return NULL;
	const struct cli_command *best = NULL;
	size_t best_d = 3;
	for (size_t i = 0; i < c->n; i++) {
		if (strlen(c->list[i]->name) > WORD_MAX)
			continue;
		size_t d = edits(word, c->list[i]->name);
		if (d < best_d) {
			best = c->list[i];
			best_d = d;
		}
	}
	return best;
}

/* a and b appended to the malloc'd *s; on ENOMEM *s is freed and stays
 * NULL. */
static void append(char **s, const char *a, const char *b)
{
	if (!*s)
		return;
	size_t n = strlen(*s), na = strlen(a), nb = strlen(b);
	char *t = realloc(*s, n + na + nb + 1);
	if (!t) {
		free(*s);
		*s = NULL;
		return;
	}
	memcpy(t + n, a, na);
	memcpy(t + n + na, b, nb + 1);
	*s = t;
}

int commands_print_help(const struct commands *c, FILE *f)
{
	const struct cli_table *rec = c->record->table;
	char *usage = strdup(rec->usage), *about = strdup("commands:\n");
	/* Every command's synopsis, under record's "usage: ". */
	for (size_t i = 0; i < c->n; i++) {
		const char *u = c->list[i]->table ? c->list[i]->table->usage : "";
		if (c->list[i] == c->record || strncmp(u, "usage: ", 7) != 0)
			continue;
		append(&usage, "       ", u + 7);
	}
	for (size_t i = 0; i < c->n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "  %-11s ", c->list[i]->name);
		append(&about, name, c->list[i]->summary);
		append(&about, "\n", "");
	}
	append(&about, "\n", rec->about ? rec->about : "");
	int err = -ENOMEM;
	if (usage && about) {
		struct cli_table t = *rec;
		t.usage = usage;
		t.about = about;
		err = cli_table_print(&t, f);
	}
	free(usage);
	free(about);
	return err;
}
