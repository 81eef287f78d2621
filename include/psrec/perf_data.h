/*
 * perf_data.h - the perf.data on-disk format, as psrec reads and writes it.
 *
 * Written from ../shared/design/perf-data-format.md (every layout there was
 * checked against perf 6.1), not copied from the kernel or perf headers.
 * Kernel ABI values (record types, sample_type bits, attr flags, feature ids)
 * are plain integer constants, never closed enums: a newer kernel or perf may
 * use values this file does not list, and psrec must carry them, not choke.
 *
 * All integers are native-endian. Structures here are exact byte layouts
 * (static asserts below pin their sizes).
 */
#ifndef PSREC_PERF_DATA_H
#define PSREC_PERF_DATA_H

#include <stdint.h>

/* "PERFILE2" read as a little-endian u64; the byte-swapped value means the
 * file was written on a machine of the other endianness. */
#define PD_MAGIC          0x32454c4946524550ULL
#define PD_MAGIC_SWAPPED  0x50455246494c4532ULL

struct pd_section {
	uint64_t offset;
	uint64_t size;
};

/* The 104-byte file header (perf_file_header). */
struct pd_file_header {
	uint64_t magic;
	uint64_t size;          /* 104 */
	uint64_t attr_size;     /* attr.size + 16 */
	struct pd_section attrs;
	struct pd_section data;
	struct pd_section event_types; /* always {0, 0} */
	uint64_t features[4];   /* bit n = bit n%64 of word n/64 */
};
#define PD_FILE_HEADER_SIZE  104
#define PD_HEADER_DATA_SIZE_OFFSET 48 /* where data.size lives: checkpoints pwrite here */

/* Feature bit feat (< 256) of a header's bitmap. */
static inline int pd_feature_isset(const uint64_t bits[4], unsigned feat)
{
	return (int)((bits[feat / 64] >> (feat % 64)) & 1);
}

static inline void pd_feature_set(uint64_t bits[4], unsigned feat)
{
	bits[feat / 64] |= 1ULL << (feat % 64);
}

/* The 16-byte pipe header: perf record -o - */
struct pd_pipe_header {
	uint64_t magic;
	uint64_t size;          /* 16 */
};

struct pd_event_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;          /* whole record, header included */
};

/*
 * perf_event_attr at PERF_ATTR_SIZE_VER7 (128 bytes). perf 6.1 rejects files
 * whose attr.size exceeds 128 (perf-data-format.md 1.2), so psrec always uses
 * this size, both for perf_event_open and on disk. Flags are one u64 with the
 * PD_ATTR_* bits below instead of C bitfields, so the layout is explicit.
 */
struct pd_attr {
	uint32_t type;
	uint32_t size;
	uint64_t config;
	uint64_t sample_period;     /* or sample_freq when PD_ATTR_FREQ */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint32_t wakeup_events;     /* or wakeup_watermark when PD_ATTR_WATERMARK */
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t  clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint16_t reserved_2;
	uint32_t aux_sample_size;
	uint32_t reserved_3;
	uint64_t sig_data;
};
#define PD_ATTR_SIZE 128

/* perf_file_attr: the attr followed by the section holding its ids. */
struct pd_file_attr {
	struct pd_attr attr;
	struct pd_section ids;
};
#define PD_FILE_ATTR_SIZE (PD_ATTR_SIZE + 16)

/* attr.type */
#define PD_TYPE_HARDWARE    0
#define PD_TYPE_SOFTWARE    1
#define PD_TYPE_TRACEPOINT  2
#define PD_TYPE_HW_CACHE    3
#define PD_TYPE_RAW         4
#define PD_TYPE_BREAKPOINT  5

/* attr.config for PD_TYPE_HARDWARE */
#define PD_HW_CPU_CYCLES          0
#define PD_HW_INSTRUCTIONS        1
#define PD_HW_CACHE_REFERENCES    2
#define PD_HW_CACHE_MISSES        3
#define PD_HW_BRANCH_INSTRUCTIONS 4
#define PD_HW_BRANCH_MISSES       5
#define PD_HW_BUS_CYCLES          6
#define PD_HW_STALLED_FRONTEND    7
#define PD_HW_STALLED_BACKEND     8
#define PD_HW_REF_CPU_CYCLES      9

/* attr.config for PD_TYPE_SOFTWARE */
#define PD_SW_CPU_CLOCK        0
#define PD_SW_TASK_CLOCK       1
#define PD_SW_PAGE_FAULTS      2
#define PD_SW_CONTEXT_SWITCHES 3
#define PD_SW_CPU_MIGRATIONS   4
#define PD_SW_PAGE_FAULTS_MIN  5
#define PD_SW_PAGE_FAULTS_MAJ  6
#define PD_SW_ALIGNMENT_FAULTS 7
#define PD_SW_EMULATION_FAULTS 8
#define PD_SW_DUMMY            9
#define PD_SW_BPF_OUTPUT      10

/* attr.sample_type bits, in the order their fields appear in a SAMPLE */
#define PD_SAMPLE_IP           (1ULL << 0)
#define PD_SAMPLE_TID          (1ULL << 1)
#define PD_SAMPLE_TIME         (1ULL << 2)
#define PD_SAMPLE_ADDR         (1ULL << 3)
#define PD_SAMPLE_READ         (1ULL << 4)
#define PD_SAMPLE_CALLCHAIN    (1ULL << 5)
#define PD_SAMPLE_ID           (1ULL << 6)
#define PD_SAMPLE_CPU          (1ULL << 7)
#define PD_SAMPLE_PERIOD       (1ULL << 8)
#define PD_SAMPLE_STREAM_ID    (1ULL << 9)
#define PD_SAMPLE_RAW          (1ULL << 10)
#define PD_SAMPLE_BRANCH_STACK (1ULL << 11)
#define PD_SAMPLE_REGS_USER    (1ULL << 12)
#define PD_SAMPLE_STACK_USER   (1ULL << 13)
#define PD_SAMPLE_WEIGHT       (1ULL << 14)
#define PD_SAMPLE_DATA_SRC     (1ULL << 15)
#define PD_SAMPLE_IDENTIFIER   (1ULL << 16)
#define PD_SAMPLE_TRANSACTION  (1ULL << 17)
#define PD_SAMPLE_REGS_INTR    (1ULL << 18)
#define PD_SAMPLE_PHYS_ADDR    (1ULL << 19)
#define PD_SAMPLE_AUX          (1ULL << 20)
#define PD_SAMPLE_CGROUP       (1ULL << 21)
#define PD_SAMPLE_DATA_PAGE_SIZE (1ULL << 22)
#define PD_SAMPLE_CODE_PAGE_SIZE (1ULL << 23)
#define PD_SAMPLE_WEIGHT_STRUCT  (1ULL << 24)

/* attr.branch_sample_type: a hw_idx u64 precedes the BRANCH_STACK entries */
#define PD_BRANCH_HW_INDEX (1ULL << 17)

/* REGS_USER abi (PERF_SAMPLE_REGS_ABI_*) */
#define PD_REGS_ABI_NONE 0
#define PD_REGS_ABI_32   1
#define PD_REGS_ABI_64   2

/* attr.read_format bits */
#define PD_FORMAT_TOTAL_TIME_ENABLED (1ULL << 0)
#define PD_FORMAT_TOTAL_TIME_RUNNING (1ULL << 1)
#define PD_FORMAT_ID                 (1ULL << 2)
#define PD_FORMAT_GROUP              (1ULL << 3)
#define PD_FORMAT_LOST               (1ULL << 4)

/* attr.flags bits */
#define PD_ATTR_DISABLED          (1ULL << 0)
#define PD_ATTR_INHERIT           (1ULL << 1)
#define PD_ATTR_PINNED            (1ULL << 2)
#define PD_ATTR_EXCLUSIVE         (1ULL << 3)
#define PD_ATTR_EXCLUDE_USER      (1ULL << 4)
#define PD_ATTR_EXCLUDE_KERNEL    (1ULL << 5)
#define PD_ATTR_EXCLUDE_HV        (1ULL << 6)
#define PD_ATTR_EXCLUDE_IDLE      (1ULL << 7)
#define PD_ATTR_MMAP              (1ULL << 8)
#define PD_ATTR_COMM              (1ULL << 9)
#define PD_ATTR_FREQ              (1ULL << 10)
#define PD_ATTR_INHERIT_STAT      (1ULL << 11)
#define PD_ATTR_ENABLE_ON_EXEC    (1ULL << 12)
#define PD_ATTR_TASK              (1ULL << 13)
#define PD_ATTR_WATERMARK         (1ULL << 14)
#define PD_ATTR_PRECISE_IP_SHIFT  15 /* 2 bits */
#define PD_ATTR_MMAP_DATA         (1ULL << 17)
#define PD_ATTR_SAMPLE_ID_ALL     (1ULL << 18)
#define PD_ATTR_EXCLUDE_HOST      (1ULL << 19)
#define PD_ATTR_EXCLUDE_GUEST     (1ULL << 20)
#define PD_ATTR_EXCLUDE_CALLCHAIN_KERNEL (1ULL << 21)
#define PD_ATTR_EXCLUDE_CALLCHAIN_USER   (1ULL << 22)
#define PD_ATTR_MMAP2             (1ULL << 23)
#define PD_ATTR_COMM_EXEC         (1ULL << 24)
#define PD_ATTR_USE_CLOCKID       (1ULL << 25)
#define PD_ATTR_CONTEXT_SWITCH    (1ULL << 26)
#define PD_ATTR_WRITE_BACKWARD    (1ULL << 27)
#define PD_ATTR_NAMESPACES        (1ULL << 28)
#define PD_ATTR_KSYMBOL           (1ULL << 29)
#define PD_ATTR_BPF_EVENT         (1ULL << 30)
#define PD_ATTR_AUX_OUTPUT        (1ULL << 31)
#define PD_ATTR_CGROUP            (1ULL << 32)
#define PD_ATTR_TEXT_POKE         (1ULL << 33)
#define PD_ATTR_BUILD_ID          (1ULL << 34)
#define PD_ATTR_INHERIT_THREAD    (1ULL << 35)
#define PD_ATTR_REMOVE_ON_EXEC    (1ULL << 36)
#define PD_ATTR_SIGTRAP           (1ULL << 37)

/* Record types written by the kernel (1..21 known to perf 6.1). */
#define PD_RECORD_MMAP             1
#define PD_RECORD_LOST             2
#define PD_RECORD_COMM             3
#define PD_RECORD_EXIT             4
#define PD_RECORD_THROTTLE         5
#define PD_RECORD_UNTHROTTLE       6
#define PD_RECORD_FORK             7
#define PD_RECORD_READ             8
#define PD_RECORD_SAMPLE           9
#define PD_RECORD_MMAP2           10
#define PD_RECORD_AUX             11
#define PD_RECORD_ITRACE_START    12
#define PD_RECORD_LOST_SAMPLES    13
#define PD_RECORD_SWITCH          14
#define PD_RECORD_SWITCH_CPU_WIDE 15
#define PD_RECORD_NAMESPACES      16
#define PD_RECORD_KSYMBOL         17
#define PD_RECORD_BPF_EVENT       18
#define PD_RECORD_CGROUP          19
#define PD_RECORD_TEXT_POKE       20
#define PD_RECORD_AUX_OUTPUT_HW_ID 21
#define PD_RECORD_KERNEL_MAX      64 /* types below are kernel records */

/* Record types synthesized by tools (64..82 known to perf 6.1). */
#define PD_RECORD_HEADER_ATTR         64
#define PD_RECORD_HEADER_EVENT_TYPE   65
#define PD_RECORD_HEADER_TRACING_DATA 66
#define PD_RECORD_HEADER_BUILD_ID     67
#define PD_RECORD_FINISHED_ROUND      68
#define PD_RECORD_ID_INDEX            69
#define PD_RECORD_THREAD_MAP          73
#define PD_RECORD_CPU_MAP             74
#define PD_RECORD_EVENT_UPDATE        78
#define PD_RECORD_TIME_CONV           79
#define PD_RECORD_HEADER_FEATURE      80
#define PD_RECORD_COMPRESSED          81
#define PD_RECORD_FINISHED_INIT       82
#define PD_RECORD_PERF61_MAX          83 /* perf 6.1 aborts on types >= this */

/* EVENT_UPDATE (78): u64 type, u64 id (any id of the event), then what
 * the type says (perf's PERF_EVENT_UPDATE__*). */
#define PD_EVENT_UPDATE_UNIT  0 /* a string: "msec" */
#define PD_EVENT_UPDATE_SCALE 1 /* a double: 1e-6 */
#define PD_EVENT_UPDATE_NAME  2 /* a string: "cpu-clock" */
#define PD_EVENT_UPDATE_CPUS  3 /* a cpu map */

/* header.misc */
#define PD_MISC_CPUMODE_MASK  7
#define PD_MISC_KERNEL        1
#define PD_MISC_USER          2
#define PD_MISC_HYPERVISOR    3
#define PD_MISC_GUEST_KERNEL  4
#define PD_MISC_GUEST_USER    5
#define PD_MISC_PROC_MAP_PARSE_TIMEOUT (1 << 12)
#define PD_MISC_MMAP_DATA     (1 << 13)
#define PD_MISC_COMM_EXEC     (1 << 13)
#define PD_MISC_FORK_EXEC     (1 << 13)
#define PD_MISC_EXACT_IP      (1 << 14)
#define PD_MISC_MMAP_BUILD_ID (1 << 14)
#define PD_MISC_BUILD_ID_SIZE (1 << 15)

/* Feature bits (perf 6.1 knows 1..31; 32 is its HEADER_LAST_FEATURE). */
#define PD_FEAT_TRACING_DATA     1
#define PD_FEAT_BUILD_ID         2
#define PD_FEAT_HOSTNAME         3
#define PD_FEAT_OSRELEASE        4
#define PD_FEAT_VERSION          5
#define PD_FEAT_ARCH             6
#define PD_FEAT_NRCPUS           7
#define PD_FEAT_CPUDESC          8
#define PD_FEAT_CPUID            9
#define PD_FEAT_TOTAL_MEM       10
#define PD_FEAT_CMDLINE         11
#define PD_FEAT_EVENT_DESC      12
#define PD_FEAT_CPU_TOPOLOGY    13
#define PD_FEAT_NUMA_TOPOLOGY   14
#define PD_FEAT_BRANCH_STACK    15
#define PD_FEAT_PMU_MAPPINGS    16
#define PD_FEAT_GROUP_DESC      17
#define PD_FEAT_AUXTRACE        18
#define PD_FEAT_STAT            19
#define PD_FEAT_CACHE           20
#define PD_FEAT_SAMPLE_TIME     21
#define PD_FEAT_MEM_TOPOLOGY    22
#define PD_FEAT_CLOCKID         23
#define PD_FEAT_DIR_FORMAT      24
#define PD_FEAT_BPF_PROG_INFO   25
#define PD_FEAT_BPF_BTF         26
#define PD_FEAT_COMPRESSED      27
#define PD_FEAT_CPU_PMU_CAPS    28
#define PD_FEAT_CLOCK_DATA      29
#define PD_FEAT_HYBRID_TOPOLOGY 30
#define PD_FEAT_PMU_CAPS        31
#define PD_FEAT_PERF61_LAST     32 /* perf 6.1 skips bits >= this */
#define PD_FEAT_BITS           256

/* perf_header_string payloads are padded to this (perf's NAME_ALIGN). */
#define PD_NAME_ALIGN 64

_Static_assert(sizeof(struct pd_file_header) == PD_FILE_HEADER_SIZE, "file header is 104 bytes");
_Static_assert(sizeof(struct pd_attr) == PD_ATTR_SIZE, "attr is 128 bytes");
_Static_assert(sizeof(struct pd_file_attr) == PD_FILE_ATTR_SIZE, "file attr is 144 bytes");
_Static_assert(sizeof(struct pd_event_header) == 8, "event header is 8 bytes");

#endif
