/*
 * procfs_map.c - one /proc/PID/maps line parsed (see procfs_map.h).
 */
#include "procfs_map.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Parse a hex number; advance *p. */
static int hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	if (!isxdigit((unsigned char)*s))
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 16);
	if (errno)
		return -EINVAL;
	*v = x;
	*p = end;
	return 0;
}

int procfs_parse_map_line(const char *line, struct procfs_map *m)
{
	const char *p = line;
	uint64_t maj, min;
	memset(m, 0, sizeof(*m));

	if (hex(&p, &m->start) || *p++ != '-' || hex(&p, &m->end) || *p++ != ' ')
		return -EINVAL;
	if (m->end < m->start)
		return -EINVAL;
	if (strlen(p) < 5 || p[4] != ' ' || !strchr("r-", p[0]) || !strchr("w-", p[1]) ||
	    !strchr("x-", p[2]) || !strchr("ps", p[3]))
		return -EINVAL;
	if (p[0] == 'r')
		m->prot |= PROT_READ;
	if (p[1] == 'w')
		m->prot |= PROT_WRITE;
	if (p[2] == 'x')
		m->prot |= PROT_EXEC;
	m->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p += 5;
	if (hex(&p, &m->pgoff) || *p++ != ' ')
		return -EINVAL;
	if (hex(&p, &maj) || *p++ != ':' || hex(&p, &min) || *p++ != ' ')
		return -EINVAL;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	char *end;
	m->ino = strtoull(p, &end, 10);
	p = end;
	while (*p == ' ')
		p++;
	m->path = p;
	m->path_len = strcspn(p, "\n");
	return 0;
}
