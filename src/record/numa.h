/*
 * numa.h - NUMA nodes and their memory (/sys/devices/system/node and
 * /sys/devices/system/memory), for the NUMA_TOPOLOGY and MEM_TOPOLOGY
 * features.
 *
 * Kernels without NUMA support have no node directory: both features are
 * then left out, as perf 6.1 leaves them out.
 */
#ifndef PSREC_RECORD_NUMA_H
#define PSREC_RECORD_NUMA_H

#include <stdint.h>

#include "format/feature.h"

struct numa_info {
	/* NUMA_TOPOLOGY: the nodes listed in node/online, in that order. */
	struct feature_numa_node *nodes;
	uint32_t nr_nodes;
	/* MEM_TOPOLOGY: every nodeN directory, by node number, with the
	 * memory blocks (memoryM entries) it holds; block_size 0 when
	 * memory/block_size_bytes is unreadable (no MEM_TOPOLOGY then). */
	uint64_t block_size;
	struct feature_mem_node *mem;
	uint64_t nr_mem;
};

/*
 * Read both from SYSFS (normally "/sys"). A node whose meminfo lacks
 * MemTotal or MemFree, or whose cpulist is unreadable, leaves NUMA_TOPOLOGY
 * empty (nr_nodes 0) rather than half true. Only allocation failure is an
 * error (-ENOMEM).
 */
int numa_read(const char *sysfs, struct numa_info *n);

void numa_free(struct numa_info *n);

#endif
