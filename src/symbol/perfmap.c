/*
 * perfmap.c - perf-PID.map parsing (see perfmap.h).
 */
#include "perfmap.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool parse_hex(char **p, uint64_t *v)
{
	char *end;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (end == *p || errno || (*end != ' ' && *end != '\t'))
		return false;
	*p = end + strspn(end, " \t");
	return true;
}

int perfmap_read(FILE *f, struct symtab *t, struct strpool *p, size_t *added)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;
	uint32_t seq = 0;
	*added = 0;
	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		char *s = line;
		uint64_t start, size;
		/* strtoull would take a sign or leading blanks: a line starts with a digit */
		if (!isxdigit((unsigned char)*s) || !parse_hex(&s, &start) ||
		    !isxdigit((unsigned char)*s) || !parse_hex(&s, &size))
			continue;
		size_t len = (size_t)n - (size_t)(s - line);
		while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
			len--;
		if (!len || !size)
			continue;
		const char *pooled = strpool_intern(p, s, len);
		/* the line number as the rank: the later entry wins an address */
		err = pooled ? symtab_add(t, start, size, UINT64_MAX, pooled, seq++) : -ENOMEM;
		if (!err)
			(*added)++;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	return err;
}
