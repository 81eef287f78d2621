/*
 * hostinfo.h - facts about this machine that the feature sections record
 * (hostname, kernel, CPUs, memory, topology, clocks).
 *
 * Gathered once at the start of a recording. Facts that cannot be read are
 * left empty and their features are omitted, never made up.
 */
#ifndef PSREC_RECORD_HOSTINFO_H
#define PSREC_RECORD_HOSTINFO_H

#include <stdint.h>

#include "format/feature.h"
#include "util/err.h"

struct hostinfo {
	char hostname[65];
	char osrelease[65];
	char arch[65];
	char cpudesc[256];      /* "" when unknown */
	char cpuid[128];        /* "" when unknown */
	uint32_t nr_cpus_avail; /* present CPUs */
	uint32_t nr_cpus_online;
	uint64_t mem_total_kb;  /* 0 when unknown */

	/* CPU topology; topo_ok is 0 when sysfs did not provide it. */
	int topo_ok;
	char **core_sibs, **thread_sibs, **die_sibs;
	uint32_t nr_core_sibs, nr_thread_sibs, nr_die_sibs;
	uint32_t *core_id, *socket_id, *die_id;
};

/* Read the facts. Only allocation failure is an error (-ENOMEM). */
int hostinfo_read(struct hostinfo *h);

/* View the topology in the shape feature_cpu_topology() takes. */
void hostinfo_topology(const struct hostinfo *h, struct feature_topology *t);

void hostinfo_free(struct hostinfo *h);

/* The online CPUs (/sys/devices/system/cpu/online), malloc'd. -errno. */
int hostinfo_online_cpus(int **cpus, int *n);

/* The CPUs to sample on: a copy of given[0..n) (-C), or with given NULL
 * the online ones; malloc'd. -ENOMEM, or -errno with *e. */
int hostinfo_choose_cpus(const int *given, int n, int **cpus, int *ncpus, struct err *e);

#endif
