/*
 * features.h - the feature sections of one recording: what psrec knows
 * about the machine and the run, as the payloads perf record writes.
 *
 * The set is perf 6.1's for a plain recording on the same machine
 * (perf-data-format.md 2.1): HOSTNAME ... CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, CACHE, SAMPLE_TIME, MEM_TOPOLOGY, BPF_PROG_INFO, BPF_BTF,
 * CPU_PMU_CAPS (when there is a "cpu" PMU) and PMU_CAPS, BUILD_ID when
 * the caller made one (record/buildids.h), plus CLOCKID and
 * CLOCK_DATA (psrec always records with a set clock), COMPRESSED with
 * -z, and TRACING_DATA when the recording has psrec:marker (its format,
 * marker/tp.h); that event follows the sampler's in the attrs and
 * EVENT_DESC. A fact the machine does not expose leaves its feature out. Pipe
 * mode leaves out CACHE too, as perf does ("full header only").
 */
#ifndef PSREC_RECORD_FEATURES_H
#define PSREC_RECORD_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/compress.h"
#include "format/writer.h"
#include "record/config.h"
#include "record/cpucache.h"
#include "record/hostinfo.h"
#include "record/numa.h"
#include "record/pmu.h"
#include "record/sampler.h"
#include "util/buf.h"

/* The machine's sysfs facts (NUMA, caches, PMUs): read at each
 * features_build, or once for a recording that finishes many files
 * (--switch-output: ~80 sysfs files, 2 ms of CPU per chunk otherwise). */
struct features_machine {
	struct numa_info numa;
	struct cpucache_list caches;
	struct pmu_list pmus;
};

struct feature_inputs;
/* Read them as features_build would for in. -errno. */
int features_machine_read(const struct feature_inputs *in, struct features_machine *m);
void features_machine_free(struct features_machine *m);

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
	const struct buf *build_ids;        /* BUILD_ID payload (NULL: none) */
	const struct features_machine *machine; /* NULL: read from sysfs */
	const struct sampler_event *marker; /* psrec:marker (then TRACING_DATA), or NULL */
};

/* The inputs known once the events are open; the clocks are read now
 * (CLOCK_DATA pairs the wall clock with the recording's clock). */
void features_inputs_init(struct feature_inputs *in, const struct hostinfo *host,
			  const struct record_config *cfg, bool pipe, const struct sampler *s,
			  const struct compressor *comp);

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

/*
 * Begin the output: in pipe mode the stream header, attrs and every
 * feature (a pipe cannot be rewritten later; the sample times are then 0,
 * as perf writes them); else the file header and attrs, and with -z the
 * COMPRESSED parameters as the data's first record. -errno.
 */
int features_write_header(struct writer *w, int fd, const struct feature_inputs *in);

/* End the file: build the features and let the writer finish it.
 * *features_failed: it ended without them (still valid). -errno only when
 * the header could not be rewritten. */
int features_finish(struct writer *w, const struct feature_inputs *in, bool *features_failed);

#define FEATURES_MAX_EVENTS 64

#endif
