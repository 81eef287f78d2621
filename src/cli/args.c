/*
 * args.c - option arguments shared by the offline commands (see args.h).
 */
#include "args.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_id(const char *opt, const char *s, int32_t *out, struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT32_MAX)
		return err_set(e, -EINVAL, "%s '%s': expected a process or thread id", opt, s);
	*out = (int32_t)v;
	return 0;
}

int cli_check_path(const char *opt, const char *s, const char *what, const char *fix, struct err *e)
{
	return *s ? 0 : err_set(e, -EINVAL, "%s: empty %s; %s", opt, what, fix);
}

int cli_complaint(const char *cmd, int ch, char **argv, struct err *e)
{
	if (ch == ':')
		return err_set(e, -EINVAL, "%s: option '%s' needs an argument", cmd, argv[optind - 1]);
	if (optopt)
		return err_set(e, -EINVAL, "%s: unknown option '-%c'; see psrec %s --help", cmd, optopt, cmd);
	return err_set(e, -EINVAL, "%s: unknown option '%s'; see psrec %s --help", cmd, argv[optind - 1], cmd);
}

/* s[0, n) with "\," and "\\" unescaped, malloc'd. */
static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == ',' || s[i + 1] == '\\'))
			i++;
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

int cli_between_parse(const char *arg, char **a, char **b, struct err *e)
{
	*a = *b = NULL;
	size_t n = strlen(arg), comma = n;
	for (size_t i = 0; i < n; i++) {
		if (arg[i] == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		if (arg[i] == ',') {
			comma = i;
			break;
		}
	}
	if (comma == n || comma == 0 || comma == n - 1)
		return err_set(e, -EINVAL, "--between '%s': expected A,B: the texts of two markers, a comma inside "
			       "either written \\,", arg);
	*a = unescape(arg, comma);
	*b = unescape(arg + comma + 1, n - comma - 1);
	if (!*a || !*b) {
		free(*a);
		free(*b);
		*a = *b = NULL;
		return -ENOMEM;
	}
	return 0;
}

