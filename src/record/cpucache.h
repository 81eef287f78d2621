/*
 * cpucache.h - the CPU caches (/sys/devices/system/cpu/cpuN/cache/indexM),
 * for the CACHE feature ("perf report --header -I" prints them).
 */
#ifndef PSREC_RECORD_CPUCACHE_H
#define PSREC_RECORD_CPUCACHE_H

#include <stdint.h>

#include "format/feature.h"

struct cpucache_list {
	struct feature_cache *c;    /* by level; CPU order within a level */
	uint32_t nr;
};

/*
 * Read the caches of CPUs 0..nr_cpus-1 under SYSFS/devices/system/cpu,
 * each distinct cache once (a cache shared by several CPUs is one entry
 * whose map lists them), sorted by level the way perf 6.1 writes them. A
 * cache whose level, line size, sets, ways, type, size or sharing list is
 * unreadable is left out, and so is an offline CPU. Only allocation
 * failure is an error (-ENOMEM).
 */
int cpucache_read(const char *sysfs, uint32_t nr_cpus, struct cpucache_list *l);

void cpucache_free(struct cpucache_list *l);

#endif
