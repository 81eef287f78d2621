/*
 * numa.c - NUMA nodes and memory blocks from sysfs (see numa.h).
 *
 * The values are what perf 6.1 writes (perf-data-format.md 2.3):
 * MemTotal/MemFree of node/nodeN/meminfo in kB, nodeN/cpulist as text, and
 * for memory a bitmap sized by the highest memoryM index + 1.
 */
#include "numa.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sysfile.h"

/* "Node 0 MemTotal:  4679892 kB" lines: both values, or -ENOENT. */
static int node_meminfo(const char *path, uint64_t *total, uint64_t *free_kb)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char line[256];
	bool have_total = false, have_free = false;
	while ((!have_total || !have_free) && fgets(line, sizeof(line), f)) {
		char field[32];
		uint64_t v;
		if (sscanf(line, "Node %*d %31s %" SCNu64, field, &v) != 2)
			continue;
		if (strcmp(field, "MemTotal:") == 0) {
			*total = v;
			have_total = true;
		} else if (strcmp(field, "MemFree:") == 0) {
			*free_kb = v;
			have_free = true;
		}
	}
	fclose(f);
	return have_total && have_free ? 0 : -ENOENT;
}

static void free_nodes(struct numa_info *n)
{
	for (uint32_t i = 0; i < n->nr_nodes; i++)
		free((char *)n->nodes[i].cpus);
	free(n->nodes);
	n->nodes = NULL;
	n->nr_nodes = 0;
}

static int read_nodes(const char *sysfs, struct numa_info *n)
{
	char path[4096], online[4096];
	snprintf(path, sizeof(path), "%s/devices/system/node/online", sysfs);
	int *ids;
	int nr;
	if (sysfile_read_str(path, online, sizeof(online)) || cpulist_parse(online, &ids, &nr))
		return 0;
	int err = 0;
	n->nodes = calloc(nr ? (size_t)nr : 1, sizeof(*n->nodes));
	if (!n->nodes)
		err = -ENOMEM;
	for (int i = 0; !err && i < nr; i++) {
		struct feature_numa_node *node = &n->nodes[i];
		char cpus[4096];
		node->node = (uint32_t)ids[i];
		snprintf(path, sizeof(path), "%s/devices/system/node/node%d/meminfo", sysfs, ids[i]);
		int rerr = node_meminfo(path, &node->mem_total_kb, &node->mem_free_kb);
		snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist", sysfs, ids[i]);
		if (!rerr)
			rerr = sysfile_read_str(path, cpus, sizeof(cpus));
		if (rerr) {
			free_nodes(n); /* a partial topology would be a false one */
			break;
		}
		node->cpus = strdup(cpus);
		n->nr_nodes++;
		if (!node->cpus)
			err = -ENOMEM;
	}
	free(ids);
	if (err)
		free_nodes(n);
	return err;
}

/* "memory123" -> 123; false for anything else (memory_failure, ...). */
static bool block_index(const char *name, uint64_t *idx)
{
	if (strncmp(name, "memory", 6) != 0 || name[6] < '0' || name[6] > '9')
		return false;
	char *end;
	unsigned long long v = strtoull(name + 6, &end, 10);
	if (*end != '\0' || v > (1ULL << 32))
		return false;
	*idx = v;
	return true;
}

/* The memory blocks of one node directory: two passes, as the bitmap is
 * sized by the highest index. */
static int read_blocks(const char *dir, struct feature_mem_node *m)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	uint64_t max = 0, idx;
	struct dirent *de;
	while ((de = readdir(d)))
		if (block_index(de->d_name, &idx) && idx > max)
			max = idx;
	m->nr_bits = max + 1;
	uint64_t *bits = calloc((m->nr_bits + 63) / 64, sizeof(uint64_t));
	if (!bits) {
		closedir(d);
		return -ENOMEM;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		if (block_index(de->d_name, &idx) && idx < m->nr_bits)
			bits[idx / 64] |= 1ULL << (idx % 64);
	closedir(d);
	m->bits = bits;
	return 0;
}

static int cmp_mem_node(const void *a, const void *b)
{
	uint64_t x = ((const struct feature_mem_node *)a)->node;
	uint64_t y = ((const struct feature_mem_node *)b)->node;
	return (x > y) - (x < y);
}

static void free_mem(struct numa_info *n)
{
	for (uint64_t i = 0; i < n->nr_mem; i++)
		free((uint64_t *)n->mem[i].bits);
	free(n->mem);
	n->mem = NULL;
	n->nr_mem = 0;
	n->block_size = 0;
}

static int read_memory(const char *sysfs, struct numa_info *n)
{
	char path[4096], s[64];
	snprintf(path, sizeof(path), "%s/devices/system/memory/block_size_bytes", sysfs);
	if (sysfile_read_str(path, s, sizeof(s)))
		return 0;
	char *end;
	uint64_t bsize = strtoull(s, &end, 16);
	if (end == s || *end != '\0' || bsize == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/devices/system/node", sysfs);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int err = 0;
	struct dirent *de;
	while (!err && (de = readdir(d))) {
		unsigned node;
		char extra;
		if (sscanf(de->d_name, "node%u%c", &node, &extra) != 1)
			continue;
		struct feature_mem_node *m = realloc(n->mem, (size_t)(n->nr_mem + 1) * sizeof(*m));
		if (!m) {
			err = -ENOMEM;
			break;
		}
		n->mem = m;
		char dir[4096];
		struct feature_mem_node one = { .node = node };
		int rerr = sysfile_path(dir, sizeof(dir), "%s/%s", path, de->d_name);
		if (!rerr)
			rerr = read_blocks(dir, &one);
		if (rerr == -ENOMEM)
			err = rerr;
		else if (!rerr)
			m[n->nr_mem++] = one;
	}
	closedir(d);
	if (err || n->nr_mem == 0) {
		free_mem(n);
		return err;
	}
	qsort(n->mem, (size_t)n->nr_mem, sizeof(*n->mem), cmp_mem_node);
	n->block_size = bsize;
	return 0;
}

int numa_read(const char *sysfs, struct numa_info *n)
{
	memset(n, 0, sizeof(*n));
	int err = read_nodes(sysfs, n);
	if (!err)
		err = read_memory(sysfs, n);
	if (err)
		numa_free(n);
	return err;
}

void numa_free(struct numa_info *n)
{
	free_nodes(n);
	free_mem(n);
}
