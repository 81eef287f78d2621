/*
 * rotate.c - chunk triggers, names and the kept list (see rotate.h).
 */
#include "rotate.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	char tag;
	uint64_t mult;
};

/* perf's tags_size and tags_time (builtin-record.c). */
static const struct unit size_units[] = {
	{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 }, { 0, 0 },
};
static const struct unit time_units[] = {
	{ 's', 1000 }, { 'm', 60 * 1000 }, { 'h', 3600 * 1000 }, { 'd', 24 * 3600 * 1000 }, { 0, 0 },
};

/* "<digits><tag>" with a tag of units: the value times its multiplier,
 * or 0 when arg is not of that form (or overflows). */
static uint64_t tagged(const char *arg, const struct unit *units)
{
	const char *p = arg;
	uint64_t v = 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p[0] == '\0' || p[1] != '\0')
		return 0;
	for (const struct unit *u = units; u->tag; u++)
		if (*p == u->tag)
			return v <= UINT64_MAX / u->mult ? v * u->mult : 0;
	return 0;
}

int rotate_parse(struct rotate_spec *s, const char *arg, struct err *e)
{
	uint64_t v;
	if (!arg || strcmp(arg, "signal") == 0) {
		s->mode = ROTATE_SIGNAL;
	} else if ((v = tagged(arg, size_units))) {
		s->mode = ROTATE_SIZE;
		s->bytes = v;
	} else if ((v = tagged(arg, time_units))) {
		s->mode = ROTATE_TIME;
		s->ms = v;
	} else {
		return err_set(e, -EINVAL, "--switch-output '%s': expected signal, a size (100M; units B K M G) "
			       "or a time (10s; units s m h d), a whole number above 0", arg);
	}
	return 0;
}

int rotate_parse_max_files(struct rotate_spec *s, const char *arg, struct err *e)
{
	char *end;
	errno = 0;
	unsigned long long v = isdigit((unsigned char)arg[0]) ? strtoull(arg, &end, 10) : 0;
	if (v == 0 || errno || *end || v > 1000000)
		return err_set(e, -EINVAL, "--switch-max-files '%s': expected a number of files from 1 to 1000000", arg);
	s->max_files = (size_t)v;
	return 0;
}

int rotate_chunk_name(char *out, size_t len, const char *output, const struct timespec *now)
{
	struct tm tm;
	time_t t = now->tv_sec;
	if (!localtime_r(&t, &tm))
		return -EINVAL;
	int n = snprintf(out, len, "%s.%04d%02d%02d%02d%02d%02d%02d", output, tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(now->tv_nsec / 10000000));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void rotate_kept_init(struct rotate_kept *k, size_t max_files)
{
	*k = (struct rotate_kept){ .max = max_files };
}

int rotate_kept_add(struct rotate_kept *k, const char *name, char **evicted)
{
	*evicted = NULL;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	if (k->max && k->nr == k->max) {
		*evicted = k->names[0];
		memmove(k->names, k->names + 1, (k->nr - 1) * sizeof(*k->names));
		k->names[k->nr - 1] = copy;
		return 0;
	}
	char **nn = realloc(k->names, (k->nr + 1) * sizeof(*nn));
	if (!nn) {
		free(copy);
		return -ENOMEM;
	}
	k->names = nn;
	k->names[k->nr++] = copy;
	return 0;
}

void rotate_kept_free(struct rotate_kept *k)
{
	for (size_t i = 0; i < k->nr; i++)
		free(k->names[i]);
	free(k->names);
	k->names = NULL;
	k->nr = 0;
}
