/*
 * feature.h - payloads of the perf.data feature sections.
 *
 * Each builder is a pure function from facts to bytes appended to a buf; the
 * byte layouts are those of perf-data-format.md 2.2-2.3 (checked against
 * perf 6.1). The same payload serves a file-mode section or, later, a
 * pipe-mode HEADER_FEATURE record. Builders return 0 or -ENOMEM.
 */
#ifndef PSREC_FORMAT_FEATURE_H
#define PSREC_FORMAT_FEATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psrec/perf_data.h"
#include "util/buf.h"

/* perf_header_string: u32 len; char str[len], len = strlen+1 rounded up to
 * 64 and zero padded (perf's NAME_ALIGN). */
int feature_put_string(struct buf *b, const char *s);
/* u32 nr; perf_header_string[nr] */
int feature_put_string_list(struct buf *b, const char *const *s, uint32_t nr);

/* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one string. */
int feature_string(struct buf *b, const char *s);
/* NRCPUS: u32 nr_cpus_avail; u32 nr_cpus_online (avail first; the format
 * .txt in the kernel tree has them the other way round and is wrong). */
int feature_nrcpus(struct buf *b, uint32_t avail, uint32_t online);
/* TOTAL_MEM: u64 MemTotal in kB. */
int feature_total_mem(struct buf *b, uint64_t kb);
/* CMDLINE: u32 nr; strings: the recorder's absolute path, then argv[1..]. */
int feature_cmdline(struct buf *b, const char *exe, int argc, char *const argv[]);

struct feature_event {
	const struct pd_attr *attr;
	const char *name;
	const uint64_t *ids;
	uint32_t nr_ids;
};
/* EVENT_DESC: u32 nr; u32 attr_size; per event: attr, u32 nr_ids, string
 * name, u64 ids[nr_ids]. */
int feature_event_desc(struct buf *b, const struct feature_event *ev, uint32_t nr);

struct feature_topology {
	uint32_t nr_cpus_avail;          /* length of the per-CPU arrays */
	const char *const *core_sibs;    /* unique package_cpus lists */
	uint32_t nr_core_sibs;
	const char *const *thread_sibs;  /* unique thread_siblings lists */
	uint32_t nr_thread_sibs;
	const uint32_t *core_id;         /* [nr_cpus_avail], -1 when unknown */
	const uint32_t *socket_id;       /* [nr_cpus_avail] */
	const char *const *die_sibs;     /* optional: nr_die_sibs 0 omits the die part */
	uint32_t nr_die_sibs;
	const uint32_t *die_id;          /* [nr_cpus_avail] when nr_die_sibs > 0 */
};
/* CPU_TOPOLOGY: core siblings, thread siblings, {core_id, socket_id}[avail],
 * then optionally die siblings and die_id[avail]. */
int feature_cpu_topology(struct buf *b, const struct feature_topology *t);

/* SAMPLE_TIME: u64 first; u64 last (recording clock, ns). */
int feature_sample_time(struct buf *b, uint64_t first, uint64_t last);
/* CLOCKID: u64 resolution of the recording clock in ns. */
int feature_clockid(struct buf *b, uint64_t res_ns);
/* COMPRESSED: u32 version 0; u32 type 1 (zstd); u32 level; u32 ratio;
 * u32 mmap_len (the largest decompressed size of one record: perf 6.1
 * sizes its decompression buffer with it). */
int feature_compressed(struct buf *b, uint32_t level, uint32_t ratio, uint32_t mmap_len);
/* Read one back: true for a zstd payload, with its mmap_len (0 possible). */
bool feature_compressed_mmap_len(const uint8_t *p, size_t len, uint32_t *mmap_len);

/* CLOCK_DATA: u32 version 1; u32 clockid; u64 wall-clock ns; u64 clockid ns
 * (one instant read on both clocks). */
int feature_clock_data(struct buf *b, uint32_t clockid, uint64_t tod_ns, uint64_t clk_ns);

/* NUMA_TOPOLOGY: u32 nr; per node: u32 node; u64 mem_total_kB;
 * u64 mem_free_kB; string cpu list ("0-1"). */
struct feature_numa_node {
	uint32_t node;
	uint64_t mem_total_kb, mem_free_kb;
	const char *cpus;
};
int feature_numa_topology(struct buf *b, const struct feature_numa_node *n, uint32_t nr);

/* MEM_TOPOLOGY: u64 version 1; u64 block_size; u64 nr; per node: u64 node;
 * u64 nr_bits; then the bitmap of the node's memory blocks as u64 nr_bits
 * and (nr_bits + 63) / 64 u64 words (perf's do_write_bitmap). */
struct feature_mem_node {
	uint64_t node;
	uint64_t nr_bits;           /* highest block index + 1 */
	const uint64_t *bits;       /* (nr_bits + 63) / 64 words */
};
int feature_mem_topology(struct buf *b, uint64_t block_size, const struct feature_mem_node *n,
			 uint64_t nr);

/* CACHE: u32 version 1; u32 nr; per cache: u32 level, line_size, sets,
 * ways; strings type ("Data"), size ("32K"), map (the sharing CPUs). */
struct feature_cache {
	uint32_t level, line_size, sets, ways;
	const char *type, *size, *map;
};
int feature_cache(struct buf *b, const struct feature_cache *c, uint32_t nr);

/* One PMU of /sys/bus/event_source/devices and its caps/ files. */
struct feature_pmu {
	uint32_t type;
	const char *name;
	const char *const *cap_names;
	const char *const *cap_values;
	uint32_t nr_caps;
};
/* PMU_MAPPINGS: u32 nr; {u32 type; string name}[nr]. */
int feature_pmu_mappings(struct buf *b, const struct feature_pmu *p, uint32_t nr);
/* CPU_PMU_CAPS: the caps of the "cpu" PMU: u32 nr_caps; {string name;
 * string value}[nr_caps]. */
int feature_cpu_pmu_caps(struct buf *b, const struct feature_pmu *cpu);
/* PMU_CAPS: u32 nr_pmus; per PMU: u32 nr_caps; {string name; string
 * value}[nr_caps]; string pmu name. perf 6.1 lists every PMU with caps but
 * "cpu" (which has its own feature), hybrid ones ("cpu_*") first; the
 * caller passes them in that order, PMUs without caps are skipped here. */
int feature_pmu_caps(struct buf *b, const struct feature_pmu *p, uint32_t nr);

/*
 * BUILD_ID: a sequence of build_id records, one per DSO: header {type 0,
 * misc, size}; s32 pid (-1 for the host's kernel and user DSOs); u8 id[20];
 * u8 id_size; u8 pad[3]; filename, NUL-terminated and zero-padded to a
 * multiple of 64. misc is the cpumode (PD_MISC_KERNEL for the kernel and
 * its modules, PD_MISC_USER otherwise) | PD_MISC_BUILD_ID_SIZE. The name
 * is the DSO's name in the MMAP records ("[kernel.kallsyms]" without
 * "_text"). -E2BIG for a name that does not fit a record.
 */
#define FEATURE_BUILD_ID_HEADER 36
int feature_build_id(struct buf *b, int32_t pid, uint16_t misc, const uint8_t *id, uint8_t id_size,
		     const char *name);
struct feature_build_id_entry {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint8_t id_size;            /* 20 when the record has no BUILD_ID_SIZE */
	const char *name;           /* points into the payload, NUL-terminated */
};
/* The entry at *off of a BUILD_ID payload: 1 and *off advanced, 0 at the
 * end, -EINVAL for a record whose size or name does not fit. */
int feature_build_id_next(const uint8_t *p, size_t len, size_t *off, struct feature_build_id_entry *ent);

/* BPF_PROG_INFO, BPF_BTF: u32 count 0. psrec records no BPF events, and
 * writes what perf record --no-bpf-event writes. */
int feature_bpf_none(struct buf *b);

#endif
