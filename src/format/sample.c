/*
 * sample.c - SAMPLE body and sample_id trailer decoding (see sample.h).
 *
 * Field order (perf-data-format.md 3.4): IDENTIFIER, IP, TID, TIME, ADDR,
 * ID, STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, ...
 */
#include "sample.h"

#include <errno.h>
#include <string.h>

#include "psrec/perf_data.h"

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

int sample_parse(uint64_t st, const uint8_t *rec, size_t size, struct sample *s)
{
	memset(s, 0, sizeof(*s));
	size_t off = sizeof(struct pd_event_header);
#define NEED(n) do { if (size < off || size - off < (n)) return -EINVAL; } while (0)
	if (st & PD_SAMPLE_IDENTIFIER) { NEED(8); s->id = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_IP) { NEED(8); s->ip = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_TID) {
		NEED(8);
		memcpy(&s->pid, rec + off, 4);
		memcpy(&s->tid, rec + off + 4, 4);
		off += 8;
	}
	if (st & PD_SAMPLE_TIME) { NEED(8); s->time = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_ADDR) { NEED(8); s->addr = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_ID) { NEED(8); s->id = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_STREAM_ID) { NEED(8); s->stream_id = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_CPU) { NEED(8); memcpy(&s->cpu, rec + off, 4); off += 8; }
	if (st & PD_SAMPLE_PERIOD) { NEED(8); s->period = get_u64(rec + off); off += 8; }
	if (st & PD_SAMPLE_READ)
		return -EINVAL;
	if (st & PD_SAMPLE_CALLCHAIN) {
		NEED(8);
		uint64_t nr = get_u64(rec + off);
		off += 8;
		if (nr > (size - off) / 8)
			return -EINVAL;
		s->nr_callchain = nr;
		s->callchain = rec + off;
		off += nr * 8;
	}
	s->end = off;
#undef NEED
	return 0;
}

int sample_parse_user(uint64_t st, uint64_t bst, uint64_t mask, const uint8_t *rec, size_t size,
		      const struct sample *s, struct sample_user *u)
{
	memset(u, 0, sizeof(*u));
	size_t off = s->end;
#define NEED(n) do { if (size < off || size - off < (n)) return -EINVAL; } while (0)
	if (st & PD_SAMPLE_RAW) {
		NEED(4);
		uint32_t n;
		memcpy(&n, rec + off, 4);
		off += 4;
		NEED(n);
		off += n;
	}
	if (st & PD_SAMPLE_BRANCH_STACK) {
		NEED(8);
		uint64_t nr = get_u64(rec + off);
		off += 8;
		if (bst & PD_BRANCH_HW_INDEX) {
			NEED(8);
			off += 8;
		}
		if (nr > (size - off) / 24)
			return -EINVAL;
		off += nr * 24;
	}
	if (st & PD_SAMPLE_REGS_USER) {
		NEED(8);
		u->abi = get_u64(rec + off);
		off += 8;
		if (u->abi) {
			size_t n = (size_t)__builtin_popcountll(mask) * 8;
			NEED(n);
			u->mask = mask;
			u->regs = rec + off;
			off += n;
		}
	}
	if (st & PD_SAMPLE_STACK_USER) {
		NEED(8);
		uint64_t n = get_u64(rec + off);
		off += 8;
		if (n) {
			NEED(n);
			u->stack = rec + off;
			off += n;
			NEED(8);
			uint64_t dyn = get_u64(rec + off);
			u->stack_size = n;
			u->stack_len = dyn < n ? dyn : n;
		}
	}
#undef NEED
	return 0;
}

int sample_time_offset(uint64_t st)
{
	if (!(st & PD_SAMPLE_TIME))
		return -1;
	int off = (int)sizeof(struct pd_event_header);
	if (st & PD_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PD_SAMPLE_IP)
		off += 8;
	if (st & PD_SAMPLE_TID)
		off += 8;
	return off;
}

size_t sample_id_trailer_size(uint64_t st)
{
	size_t n = 0;
	if (st & PD_SAMPLE_TID)
		n += 8;
	if (st & PD_SAMPLE_TIME)
		n += 8;
	if (st & PD_SAMPLE_ID)
		n += 8;
	if (st & PD_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PD_SAMPLE_CPU)
		n += 8;
	if (st & PD_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

int sample_parse_id_trailer(uint64_t st, const uint8_t *rec, size_t size, struct sample *s)
{
	memset(s, 0, sizeof(*s));
	size_t n = sample_id_trailer_size(st);
	if (size < sizeof(struct pd_event_header) + n)
		return -EINVAL;
	const uint8_t *p = rec + size - n;
	if (st & PD_SAMPLE_TID) {
		memcpy(&s->pid, p, 4);
		memcpy(&s->tid, p + 4, 4);
		p += 8;
	}
	if (st & PD_SAMPLE_TIME) { s->time = get_u64(p); p += 8; }
	if (st & PD_SAMPLE_ID) { s->id = get_u64(p); p += 8; }
	if (st & PD_SAMPLE_STREAM_ID) { s->stream_id = get_u64(p); p += 8; }
	if (st & PD_SAMPLE_CPU) { memcpy(&s->cpu, p, 4); p += 8; }
	if (st & PD_SAMPLE_IDENTIFIER) s->id = get_u64(p);
	return 0;
}

bool sample_chain_marker(uint64_t ip, int *cpumode)
{
	if (ip < (uint64_t)-4095)
		return false;
	switch ((int64_t)ip) {
	case -32:   *cpumode = PD_MISC_HYPERVISOR; break;   /* PERF_CONTEXT_HV */
	case -128:  *cpumode = PD_MISC_KERNEL; break;       /* PERF_CONTEXT_KERNEL */
	case -512:  *cpumode = PD_MISC_USER; break;         /* PERF_CONTEXT_USER */
	case -2176: *cpumode = PD_MISC_GUEST_KERNEL; break; /* PERF_CONTEXT_GUEST_KERNEL */
	case -2560: *cpumode = PD_MISC_GUEST_USER; break;   /* PERF_CONTEXT_GUEST_USER */
	default:    *cpumode = 0; break;                    /* GUEST (-2048) and others */
	}
	return true;
}
