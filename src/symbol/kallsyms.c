/*
 * kallsyms.c - kernel symbols from kallsyms text (see kallsyms.h).
 */
#include "kallsyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Global over local over weak, as for ELF symbols. */
/* One line: the address, the type and the name (up to a tab or blank). */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *len)
{
	/* by hand: strtoull was a tenth of reading 120k lines */
	uint64_t a = 0;
	char *p = line;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		else
			break;
		if (p - line >= 16)
			return false;
		a = a << 4 | d;
	}
	if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
		return false;
	*addr = a;
	*type = p[1];
	*name = p + 3;
	*len = strcspn(*name, " \t\r\n");
	return *len > 0;
}

int kallsyms_read(FILE *f, struct symtab *t, struct strpool *p, uint64_t *text, size_t *added)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t stext = 0;
	int err = 0;
	uint32_t nth = 0;
	*text = 0;
	*added = 0;
	while (!err && getline(&line, &cap, f) >= 0) {
		nth++;
		uint64_t addr;
		char type, *name;
		size_t len;
		if (!parse_line(line, &addr, &type, &name, &len) || !addr || !is_text(type))
			continue;
		if (len == 5 && memcmp(name, "_text", 5) == 0)
			*text = addr;
		if (len == 6 && memcmp(name, "_stext", 6) == 0)
			stext = addr;
		/* stored, not interned: the symbolizer interns a name when a
		 * frame first uses it */
		const char *pooled = strpool_store(p, name, len);
		/* Of the names at one address perf report shows the last in the
		 * file (it sizes each symbol up to the next address first, so the
		 * earlier ones are empty): the line number ranks them alike. */
		err = pooled ? symtab_add(t, addr, 0, UINT64_MAX, pooled, nth) : -ENOMEM;
		if (!err)
			(*added)++;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (!*text)
		*text = stext;
	return err;
}
