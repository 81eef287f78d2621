/*
 * sample.h - decoding the fields of a PERF_RECORD_SAMPLE and the
 * sample_id trailer of other records, given the attr's sample_type.
 *
 * Pure functions over bytes; every field is bounds-checked against the
 * record size. Fields that sample_type does not select are left zero.
 */
#ifndef PSREC_FORMAT_SAMPLE_H
#define PSREC_FORMAT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sample {
	uint64_t id;            /* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_callchain;
	const uint8_t *callchain; /* nr_callchain u64s, possibly unaligned */
	size_t end;             /* offset just past the fields decoded */
};

/* The user registers and stack copy of a --call-graph dwarf sample
 * (REGS_USER, STACK_USER). */
struct sample_user {
	uint64_t abi;           /* PERF_SAMPLE_REGS_ABI_*: 0 none (a kernel thread) */
	uint64_t mask;          /* attr.sample_regs_user: one u64 per set bit */
	const uint8_t *regs;    /* possibly unaligned; NULL when abi is 0 */
	const uint8_t *stack;   /* the copy, from the user SP up */
	uint64_t stack_len;     /* bytes valid: the kernel's dyn_size */
	uint64_t stack_size;    /* bytes asked for (attr.sample_stack_user) */
};

/*
 * Decode a SAMPLE record (rec points at the header, size bytes long).
 * Decodes up to and including CALLCHAIN; later fields are not needed yet.
 * Returns 0, or -EINVAL if the record is too short for its sample_type or
 * uses PERF_SAMPLE_READ (whose layout needs read_format: not supported).
 */
int sample_parse(uint64_t sample_type, const uint8_t *rec, size_t size, struct sample *s);

/*
 * Decode REGS_USER and STACK_USER of a SAMPLE already decoded into *s (the
 * RAW and BRANCH_STACK fields between are skipped): branch_sample_type and
 * regs_mask are the attr's. Fields the sample_type lacks are left zero.
 * -EINVAL when the record is too short for them.
 */
int sample_parse_user(uint64_t sample_type, uint64_t branch_sample_type, uint64_t regs_mask,
		      const uint8_t *rec, size_t size, const struct sample *s, struct sample_user *u);

/* Byte offset of TIME inside a SAMPLE record (header included), or -1 when
 * sample_type has no TIME. */
int sample_time_offset(uint64_t sample_type);

/* Size in bytes of the sample_id trailer that sample_id_all appends to
 * non-SAMPLE records. */
size_t sample_id_trailer_size(uint64_t sample_type);

/* Decode the sample_id trailer at the end of a non-SAMPLE record. */
int sample_parse_id_trailer(uint64_t sample_type, const uint8_t *rec, size_t size,
			    struct sample *s);

/*
 * Call-chain context markers (PERF_CONTEXT_*: entries at or above
 * (u64)-4095): true for a marker, with *cpumode set to the mode of the
 * entries that follow it (PD_MISC_KERNEL, _USER, _HYPERVISOR, the guest
 * ones; 0 for a marker of another kind); false for a real address.
 */
bool sample_chain_marker(uint64_t ip, int *cpumode);

#endif
