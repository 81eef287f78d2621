/*
 * pmu.h - the PMUs the kernel exposes (/sys/bus/event_source/devices), for
 * the PMU_MAPPINGS, CPU_PMU_CAPS and PMU_CAPS features.
 *
 * perf report prints "pmu mappings: software = 1, tracepoint = 2, ..." from
 * them, and perf 6.1 reads a PMU's caps (branches, max_precise, ...) back
 * from the file when it analyses hardware events recorded elsewhere.
 */
#ifndef PSREC_RECORD_PMU_H
#define PSREC_RECORD_PMU_H

#include <stdint.h>

#include "format/feature.h"

struct pmu_list {
	struct feature_pmu *pmus;   /* in directory order, as perf 6.1 scans them */
	uint32_t nr;
};

/*
 * Read every PMU under SYSFS/bus/event_source/devices: its name, its type
 * (the attr.type of its events) and the name = value pairs of its caps/
 * directory. A PMU without a readable type is left out; no directory gives
 * an empty list. Only allocation failure is an error (-ENOMEM).
 */
int pmu_list_read(const char *sysfs, struct pmu_list *l);

/* The PMU called name, or NULL. */
const struct feature_pmu *pmu_list_find(const struct pmu_list *l, const char *name);

void pmu_list_free(struct pmu_list *l);

#endif
