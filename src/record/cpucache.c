/*
 * cpucache.c - CPU caches from sysfs (see cpucache.h).
 */
#include "cpucache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sysfile.h"

/* perf 6.1 reads index0-3 only; newer CPUs have more, and every reader
 * sizes the array by the count in the file, so read them all. */
#define MAX_INDEX 32

struct cache_text {
	char type[64], size[64], map[4096];
};

static int read_u32(const char *dir, const char *name, uint32_t *v)
{
	char path[4096];
	int64_t x;
	int err = sysfile_path(path, sizeof(path), "%s/%s", dir, name);
	if (!err)
		err = sysfile_read_s64(path, &x);
	if (err)
		return err;
	if (x < 0 || x > UINT32_MAX)
		return -ERANGE;
	*v = (uint32_t)x;
	return 0;
}

static int read_text(const char *dir, const char *name, char *out, size_t len)
{
	char path[4096];
	int err = sysfile_path(path, sizeof(path), "%s/%s", dir, name);
	return err ? err : sysfile_read_str(path, out, len);
}

/* -ENOENT when the index does not exist, another -errno when a field is
 * unreadable. */
static int read_one(const char *dir, struct feature_cache *c, struct cache_text *t)
{
	int err = read_u32(dir, "level", &c->level);
	if (!err)
		err = read_u32(dir, "coherency_line_size", &c->line_size);
	if (!err)
		err = read_u32(dir, "number_of_sets", &c->sets);
	if (!err)
		err = read_u32(dir, "ways_of_associativity", &c->ways);
	if (!err)
		err = read_text(dir, "type", t->type, sizeof(t->type));
	if (!err)
		err = read_text(dir, "size", t->size, sizeof(t->size));
	if (!err)
		err = read_text(dir, "shared_cpu_list", t->map, sizeof(t->map));
	return err;
}

static bool same(const struct feature_cache *a, const struct feature_cache *b, const struct cache_text *t)
{
	return a->level == b->level && a->line_size == b->line_size && a->sets == b->sets &&
	       a->ways == b->ways && strcmp(a->type, t->type) == 0 && strcmp(a->size, t->size) == 0 &&
	       strcmp(a->map, t->map) == 0;
}

static int add(struct cpucache_list *l, struct feature_cache *c, const struct cache_text *t)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (same(&l->c[i], c, t))
			return 0;
	struct feature_cache *n = realloc(l->c, (l->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->c = n;
	c->type = strdup(t->type);
	c->size = strdup(t->size);
	c->map = strdup(t->map);
	n[l->nr++] = *c; /* kept even when a copy failed, so that it is freed */
	return c->type && c->size && c->map ? 0 : -ENOMEM;
}

/* Stable by level: insertion sort, the lists are a few entries per CPU. */
static void sort_by_level(struct cpucache_list *l)
{
	for (uint32_t i = 1; i < l->nr; i++) {
		struct feature_cache x = l->c[i];
		uint32_t j = i;
		for (; j > 0 && l->c[j - 1].level > x.level; j--)
			l->c[j] = l->c[j - 1];
		l->c[j] = x;
	}
}

int cpucache_read(const char *sysfs, uint32_t nr_cpus, struct cpucache_list *l)
{
	memset(l, 0, sizeof(*l));
	int err = 0;
	for (uint32_t cpu = 0; cpu < nr_cpus && !err; cpu++) {
		for (int idx = 0; idx < MAX_INDEX && !err; idx++) {
			char dir[4096];
			if (sysfile_path(dir, sizeof(dir), "%s/devices/system/cpu/cpu%u/cache/index%d", sysfs, cpu, idx))
				break;
			struct feature_cache c;
			struct cache_text t;
			memset(&c, 0, sizeof(c));
			int rerr = read_one(dir, &c, &t);
			if (rerr == -ENOENT && access(dir, F_OK) != 0)
				break; /* no more indexes on this CPU */
			if (!rerr)
				err = add(l, &c, &t);
		}
	}
	if (err) {
		cpucache_free(l);
		return err;
	}
	sort_by_level(l);
	return 0;
}

void cpucache_free(struct cpucache_list *l)
{
	for (uint32_t i = 0; i < l->nr; i++) {
		free((char *)l->c[i].type);
		free((char *)l->c[i].size);
		free((char *)l->c[i].map);
	}
	free(l->c);
	memset(l, 0, sizeof(*l));
}
