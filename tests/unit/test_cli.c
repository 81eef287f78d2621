/*
 * test_cli.c - every command's option table (src/cli/): its rows, the
 * getopt arguments and --help generated from it, and the documentation
 * that lists its options (README.md and man/psrec.1), which must name
 * every row and nothing the table lacks.
 */
#include "test_helpers.h"

#include <ctype.h>

#include "cli/archive.h"
#include "cli/fold.h"
#include "cli/markers.h"
#include "cli/options_table.h"
#include "cli/table.h"

#ifndef PSREC_SOURCE_ROOT
#error "tests/unit/meson.build defines PSREC_SOURCE_ROOT, where README.md and man/ are"
#endif

static const struct cli_table *const tables[] = {
	&options_table, &fold_cli_tables[FOLD_CLI_FOLD], &fold_cli_tables[FOLD_CLI_FLAMEGRAPH],
	&fold_cli_tables[FOLD_CLI_PPROF], &markers_cli_table, &archive_cli_table, &recover_cli_table,
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static const struct cli_table *table_named(const char *name)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (strcmp(tables[i]->command, name) == 0)
			return tables[i];
	fail_msg("no table for %s", name);
	return NULL;
}

static const char *row_name(const struct cli_opt *s, char buf[64])
{
	if (s->name)
		snprintf(buf, 64, "--%s", s->name);
	else
		snprintf(buf, 64, "-%c", cli_table_letter(s));
	return buf;
}

static void test_cli_rows_are_well_formed(void **state)
{
	(void)state;
	char nm[64];
	for (size_t t = 0; t < NTABLES; t++) {
		const struct cli_table *tb = tables[t];
		assert_true(tb->n > 0 && tb->n <= CLI_TABLE_MAX);
		assert_non_null(strstr(tb->usage, "usage: psrec "));
		for (size_t i = 0; i < tb->n; i++) {
			const struct cli_opt *s = &tb->opts[i];
			int letter = cli_table_letter(s);
			if (!s->name && !letter)
				fail_msg("%s row %zu has neither a long name nor a letter", tb->command, i);
			if (letter && !isalpha(letter))
				fail_msg("%s %s: key %d is neither a letter nor CLI_KEY_LONG + n", tb->command,
					 row_name(s, nm), s->key);
			if ((s->arg == CLI_ARG_NONE) != (s->arg_name == NULL))
				fail_msg("%s %s: an argument name exactly when it takes an argument", tb->command,
					 row_name(s, nm));
			if (s->arg == CLI_ARG_OPTIONAL && !s->name)
				fail_msg("%s %s: an optional argument needs a long form", tb->command, row_name(s, nm));
			if (!s->help || !s->help[0] || !s->group || !s->group[0])
				fail_msg("%s %s: no help line or heading", tb->command, row_name(s, nm));
			for (size_t j = 0; j < i; j++) {
				const struct cli_opt *o = &tb->opts[j];
				if (o->key == s->key)
					fail_msg("%s %s: key used twice", tb->command, row_name(s, nm));
				if (o->name && s->name && strcmp(o->name, s->name) == 0)
					fail_msg("%s %s: long name used twice", tb->command, row_name(s, nm));
			}
		}
		/* Every command answers -h and --help. */
		const struct cli_opt *h = cli_table_find(tb, 'h');
		if (!h || !h->name || strcmp(h->name, "help") != 0)
			fail_msg("%s has no -h, --help", tb->command);
	}
}

static void test_cli_getopt_arguments_come_from_the_table(void **state)
{
	(void)state;
	for (size_t t = 0; t < NTABLES; t++) {
		const struct cli_table *tb = tables[t];
		struct cli_getopt g;
		cli_table_getopt(tb, &g);
		/* record stops at the command to run; the others mix words and options */
		const char *opts = g.shortopts + (tb->stop_at_word ? 2 : 1);
		assert_memory_equal(g.shortopts, tb->stop_at_word ? "+:" : ":", tb->stop_at_word ? 2 : 1);
		size_t nl = 0;
		for (size_t i = 0; i < tb->n; i++) {
			const struct cli_opt *s = &tb->opts[i];
			int letter = cli_table_letter(s);
			if (letter) {
				const char *p = strchr(opts, letter);
				assert_non_null(p);
				/* "x:" takes an argument, "x::" one attached only (-z5) */
				assert_int_equal(p[1] == ':', s->arg != CLI_ARG_NONE);
				assert_int_equal(p[1] == ':' && p[2] == ':', s->arg == CLI_ARG_OPTIONAL);
			}
			if (!s->name)
				continue;
			assert_string_equal(g.longopts[nl].name, s->name);
			assert_int_equal(g.longopts[nl].val, s->key);
			assert_null(g.longopts[nl].flag);
			assert_int_equal(g.longopts[nl].has_arg, s->arg == CLI_ARG_NONE ? no_argument :
					 s->arg == CLI_ARG_REQUIRED ? required_argument : optional_argument);
			nl++;
		}
		assert_null(g.longopts[nl].name);
	}
}

static void test_cli_help_lists_every_row_with_its_default(void **state)
{
	(void)state;
	char nm[64], want[512];
	for (size_t t = 0; t < NTABLES; t++) {
		const struct cli_table *tb = tables[t];
		size_t n = cli_table_help(tb, NULL, 0);
		char *text = malloc(n + 1);
		assert_non_null(text);
		assert_int_equal(cli_table_help(tb, text, n + 1), n);
		assert_int_equal(strlen(text), n);
		assert_true(strncmp(text, tb->usage, strlen(tb->usage)) == 0);
		/* no line wider than a terminal */
		for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
			if (strcspn(l, "\n") > 80)
				fail_msg("psrec %s --help: a line over 80 columns: '%.*s'", tb->command,
					 (int)strcspn(l, "\n"), l);
		th_squeeze(text);
		for (size_t i = 0; i < tb->n; i++) {
			const struct cli_opt *s = &tb->opts[i];
			int letter = cli_table_letter(s);
			const char *arg = s->arg == CLI_ARG_NONE ? " " : s->arg == CLI_ARG_REQUIRED ? "=" : "[=";
			if (letter && s->name)
				snprintf(want, sizeof(want), " -%c, --%s%s", letter, s->name, arg);
			else if (letter)
				snprintf(want, sizeof(want), " -%c ", letter);
			else
				snprintf(want, sizeof(want), " --%s%s", s->name, arg);
			if (!strstr(text, want))
				fail_msg("psrec %s --help does not list %s ('%s')", tb->command, row_name(s, nm), want);
			if (s->def) {
				snprintf(want, sizeof(want), "(default: %s)", s->def);
				th_squeeze(want);
				if (!strstr(text, want))
					fail_msg("psrec %s --help does not give %s's default", tb->command, row_name(s, nm));
			}
		}
		/* A buffer too small is cut, terminated, and told the size. */
		char small[16];
		assert_int_equal(cli_table_help(tb, small, sizeof(small)), n);
		assert_int_equal(strlen(small), sizeof(small) - 1);
		free(text);
	}
}

static char *read_source_file(const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", PSREC_SOURCE_ROOT, rel);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	char *text = NULL;
	size_t cap = 0, len = 0, n;
	do {
		if (len + 4096 + 1 > cap) {
			cap = (len + 4096 + 1) * 2;
			text = realloc(text, cap);
			assert_non_null(text);
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	text[len] = '\0';
	return text;
}

/* The rows of the tables tbs that the lines name (by letter: seen_short;
 * by long name: seen_long, both [table][row]); a name none of them has
 * fails the test. */
struct seen {
	bool s[NTABLES][CLI_TABLE_MAX], l[NTABLES][CLI_TABLE_MAX];
};

static bool mark_long(const struct cli_table *const *tbs, size_t ntb, const char *p, size_t n, struct seen *sn)
{
	bool found = false;
	for (size_t t = 0; t < ntb; t++)
		for (size_t i = 0; i < tbs[t]->n; i++) {
			const char *name = tbs[t]->opts[i].name;
			if (name && strlen(name) == n && strncmp(name, p, n) == 0)
				found = sn->l[t][i] = true;
		}
	return found;
}

static bool mark_short(const struct cli_table *const *tbs, size_t ntb, int letter, struct seen *sn)
{
	bool found = false;
	for (size_t t = 0; t < ntb; t++)
		for (size_t i = 0; i < tbs[t]->n; i++)
			if (cli_table_letter(&tbs[t]->opts[i]) == letter)
				found = sn->s[t][i] = true;
	return found;
}

static void mark_names(const char *line, const char *where, const struct cli_table *const *tbs, size_t ntb,
		       struct seen *sn)
{
	for (const char *p = line; *p; p++) {
		if (*p != '-' || (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '-')))
			continue;
		if (p[1] == '-' && isalpha((unsigned char)p[2])) {
			size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			if (!mark_long(tbs, ntb, p + 2, n, sn))
				fail_msg("%s names --%.*s, which no option table of it has: '%s'", where, (int)n, p + 2,
					 line);
			p += 1 + n;
		} else if (isalpha((unsigned char)p[1]) && !isalnum((unsigned char)p[2])) {
			if (!mark_short(tbs, ntb, p[1], sn))
				fail_msg("%s names -%c, which no option table of it has: '%s'", where, p[1], line);
			p++;
		}
	}
}

/* Every row of every table in tbs is named by the lines (-h, --help
 * too when with_help), and the lines name no option the tables lack. */
static void expect_lines_name_every_row(char **lines, size_t nr, const char *where,
					const struct cli_table *const *tbs, size_t ntb, bool with_help)
{
	struct seen sn;
	memset(&sn, 0, sizeof(sn));
	assert_true(nr > 0);
	for (size_t l = 0; l < nr; l++)
		mark_names(lines[l], where, tbs, ntb, &sn);
	for (size_t t = 0; t < ntb; t++)
		for (size_t i = 0; i < tbs[t]->n; i++) {
			const struct cli_opt *s = &tbs[t]->opts[i];
			if (s->key == 'h' && !with_help)
				continue;
			int letter = cli_table_letter(s);
			if (letter && !sn.s[t][i])
				fail_msg("%s does not describe %s's -%c", where, tbs[t]->command, letter);
			if (s->name && !sn.l[t][i])
				fail_msg("%s does not describe %s's --%s", where, tbs[t]->command, s->name);
		}
}

/* The first cells of the rows of README's table that starts with head;
 * cell picks which cell (0 first). The text is cut up in place. */
static size_t readme_cells(char *text, const char *head, size_t cell, char **lines, size_t max)
{
	char *start = strstr(text, head);
	if (!start)
		fail_msg("README.md has no '%s' table", head);
	size_t nr = 0;
	char *save = NULL;
	strtok_r(start, "\n", &save);
	strtok_r(NULL, "\n", &save); /* |---| */
	for (char *row = strtok_r(NULL, "\n", &save); row && row[0] == '|'; row = strtok_r(NULL, "\n", &save)) {
		assert_true(nr < max);
		char *p = row + 1;
		for (size_t c = 0; c < cell; c++) {
			while (*p && !(*p == '|' && p[-1] != '\\'))
				p++;
			if (*p)
				p++;
		}
		char *end = p;
		while (*end && !(*end == '|' && end[-1] != '\\'))
			end++;
		*end = '\0';
		lines[nr++] = p;
	}
	return nr;
}

static void test_cli_readme_lists_every_option_of_every_command(void **state)
{
	(void)state;
	char *text = read_source_file("README.md");
	char *copy = strdup(text);
	char *lines[64];
	size_t nr = readme_cells(text, "\n| option | meaning |\n", 0, lines, 64);
	expect_lines_name_every_row(lines, nr, "README.md's option table", tables, 1, true);

	char *names[16], *opts[16];
	char *copy2 = strdup(copy);
	size_t nn = readme_cells(copy, "\n| command | what it does | options |\n", 0, names, 16);
	size_t no = readme_cells(copy2, "\n| command | what it does | options |\n", 2, opts, 16);
	assert_int_equal(nn, no);
	for (size_t t = 1; t < NTABLES; t++) {
		char want[64], where[128];
		char want2[64];
		snprintf(want, sizeof(want), "`psrec %s`", tables[t]->command);
		snprintf(want2, sizeof(want2), "`psrec %s ", tables[t]->command);
		size_t r = 0;
		while (r < nn && !strstr(names[r], want) && !strstr(names[r], want2))
			r++;
		if (r == nn)
			fail_msg("README.md's command table has no row for %s", want);
		snprintf(where, sizeof(where), "README.md's command table, %s", want);
		expect_lines_name_every_row(&opts[r], 1, where, &tables[t], 1, false);
	}
	free(text);
	free(copy);
	free(copy2);
}

/* The man page's escapes for '-' and font changes taken out. */
static void man_unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r;) {
		if (r[0] == '\\' && r[1] == '-') {
			*w++ = '-';
			r += 2;
		} else if (r[0] == '\\' && r[1] == 'f' && r[2]) {
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* The tag lines of the .TP items from .SH from to the next .SH after
 * the one named to (the same one when to is NULL). */
static size_t man_tags(const char *text, const char *from, const char *to, char **lines, size_t max)
{
	char head[64];
	snprintf(head, sizeof(head), "\n.SH %s\n", from);
	const char *p = strstr(text, head);
	if (!p)
		fail_msg("man/psrec.1 has no section %s", from);
	const char *last = p;
	if (to) {
		snprintf(head, sizeof(head), "\n.SH %s\n", to);
		last = strstr(p, head);
		assert_non_null(last);
	}
	const char *end = strstr(last + 1, "\n.SH ");
	size_t nr = 0;
	while ((p = strstr(p, "\n.TP\n")) && (!end || p < end)) {
		assert_true(nr < max);
		const char *tag = p + 5;
		size_t n = strcspn(tag, "\n");
		lines[nr] = strndup(tag, n);
		assert_non_null(lines[nr]);
		man_unescape(lines[nr++]);
		p = tag + n;
	}
	return nr;
}

static void expect_man_section(const char *text, const char *from, const char *to, const char *const *cmds,
			       size_t ncmds, bool with_help)
{
	const struct cli_table *tbs[4];
	char *lines[64], where[128];
	assert_true(ncmds <= 4);
	for (size_t i = 0; i < ncmds; i++)
		tbs[i] = table_named(cmds[i]);
	size_t nr = man_tags(text, from, to, lines, 64);
	snprintf(where, sizeof(where), "man/psrec.1 (%s%s%s)", from, to ? " to " : "", to ? to : "");
	expect_lines_name_every_row(lines, nr, where, tbs, ncmds, with_help);
	for (size_t i = 0; i < nr; i++)
		free(lines[i]);
}

static void test_cli_man_page_describes_every_option_of_every_command(void **state)
{
	(void)state;
	char *text = read_source_file("man/psrec.1");
	expect_man_section(text, "TARGETS", "OPTIONS", (const char *const[]){ "record" }, 1, true);
	/* pprof's section names only what differs; the rest is fold's */
	expect_man_section(text, "FOLD AND FLAMEGRAPH", NULL, (const char *const[]){ "fold", "flamegraph" }, 2, false);
	char *lines[8];
	size_t nr = man_tags(text, "PPROF", NULL, lines, 8);
	const struct cli_table *pprof = table_named("pprof");
	struct seen sn;
	memset(&sn, 0, sizeof(sn));
	for (size_t i = 0; i < nr; i++) {
		mark_names(lines[i], "man/psrec.1 (PPROF)", &pprof, 1, &sn);
		free(lines[i]);
	}
	const struct cli_table *fold = table_named("fold");
	for (size_t i = 0; i < pprof->n; i++)
		if (!cli_table_find(fold, pprof->opts[i].key))
			fail_msg("pprof's --%s is not fold's: man/psrec.1's PPROF must describe it", pprof->opts[i].name);
	expect_man_section(text, "MARKERS", NULL, (const char *const[]){ "markers" }, 1, false);
	expect_man_section(text, "ARCHIVE", NULL, (const char *const[]){ "archive" }, 1, false);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_rows_are_well_formed),
		cmocka_unit_test(test_cli_getopt_arguments_come_from_the_table),
		cmocka_unit_test(test_cli_help_lists_every_row_with_its_default),
		cmocka_unit_test(test_cli_readme_lists_every_option_of_every_command),
		cmocka_unit_test(test_cli_man_page_describes_every_option_of_every_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
