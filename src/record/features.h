/*
 * features.h - the feature sections of one recording: what psrec knows
 * about the machine and the run, as the payloads perf record writes.
 *
 * The set is perf 6.1's for a plain recording on the same machine
 * (perf-data-format.md 2.1): HOSTNAME ... CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, CACHE, SAMPLE_TIME, MEM_TOPOLOGY, BPF_PROG_INFO, BPF_BTF,
 * CPU_PMU_CAPS (when there is a "cpu" PMU) and PMU_CAPS, plus CLOCKID and
 * CLOCK_DATA (psrec always records with a set clock) and COMPRESSED with
 * -z. A fact the machine does not expose leaves its feature out. Pipe
 * mode leaves out CACHE too, as perf does ("full header only").
 */
#ifndef PSREC_RECORD_FEATURES_H
#define PSREC_RECORD_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "format/compress.h"
#include "format/writer.h"
#include "record/config.h"
#include "record/hostinfo.h"
#include "record/sampler.h"
#include "util/buf.h"

struct feature_inputs {
	const struct hostinfo *host;
	const struct record_config *opts;
	bool pipe;                          /* pipe format (-o -, a FIFO) */
	const struct sampler *sampler;
	const char *sysfs;                  /* "/sys" */
	uint64_t first_time, last_time;
	uint64_t tod_ns, clk_ns;
	const struct compressor *compress;  /* NULL without -z */
	uint32_t mmap_len;                  /* largest decompressed record */
};

#define FEATURES_MAX 32

struct features {
	struct writer_feature f[FEATURES_MAX];  /* ascending ids */
	struct buf b[FEATURES_MAX];
	size_t nr;
};

/*
 * Build every feature payload. -ENOMEM, or -E2BIG with more than
 * FEATURES_MAX_EVENTS events; *out is to be freed in either case.
 */
int features_build(const struct feature_inputs *in, struct features *out);

void features_free(struct features *f);

#define FEATURES_MAX_EVENTS 64

#endif
