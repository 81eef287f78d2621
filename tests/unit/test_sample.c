/*
 * test_sample.c - SAMPLE body and sample_id trailer decoding
 * (src/format/sample.c), field order of perf-data-format.md 3.1 and 3.4.
 */
#include "test_helpers.h"

#include "format/sample.h"
#include "psrec/perf_data.h"

static void test_sample_parse_identifier_ip_tid_time_cpu_period(void **state)
{
	(void)state;
	uint8_t rec[TH_SAMPLE_SIZE];
	th_make_sample(rec, 0x1122334455667788ULL, 0xffffffff81234567ULL, 100, 101,
		       123456789012ULL, 3, 250000);
	struct sample s;
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(sample_parse(TH_SAMPLE_TYPE, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.id, 0x1122334455667788ULL);
	assert_int_equal(s.ip, 0xffffffff81234567ULL);
	assert_int_equal(s.pid, 100);
	assert_int_equal(s.tid, 101);
	assert_int_equal(s.time, 123456789012ULL);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.period, 250000);
	/* fields sample_type does not select are zero */
	assert_int_equal(s.addr, 0);
	assert_int_equal(s.stream_id, 0);
	assert_int_equal(s.nr_callchain, 0);
	assert_null(s.callchain);
}

static void test_sample_parse_ignores_cpu_reserved_half(void **state)
{
	(void)state;
	uint8_t rec[TH_SAMPLE_SIZE];
	th_make_sample(rec, 1, 2, 3, 4, 5, 6, 7);
	th_put_u32(rec, 44, 0xdeadbeef); /* {u32 cpu, u32 res} */
	struct sample s;
	assert_int_equal(sample_parse(TH_SAMPLE_TYPE, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.cpu, 6);
	assert_int_equal(s.period, 7);
}

static void test_sample_parse_perf_default_ip_tid_time_period_is_40_bytes(void **state)
{
	(void)state;
	/* perf record's workload sample_type 0x107: 40 bytes (doc 3.4) */
	const uint64_t st = PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_PERIOD;
	assert_int_equal(st, 0x107);
	uint8_t rec[40];
	struct pd_event_header h = { PD_RECORD_SAMPLE, PD_MISC_USER, 40 };
	memcpy(rec, &h, 8);
	th_put_u64(rec, 8, 0x401000);
	th_put_u32(rec, 16, 9);
	th_put_u32(rec, 20, 10);
	th_put_u64(rec, 24, 777);
	th_put_u64(rec, 32, 1000);
	struct sample s;
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.pid, 9);
	assert_int_equal(s.tid, 10);
	assert_int_equal(s.time, 777);
	assert_int_equal(s.period, 1000);
	assert_int_equal(s.id, 0);
	/* 8 bytes short */
	assert_int_equal(sample_parse(st, rec, 32, &s), -EINVAL);
}

static void test_sample_parse_all_fields_before_read_in_order(void **state)
{
	(void)state;
	const uint64_t st = PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ADDR |
			    PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | PD_SAMPLE_PERIOD;
	uint8_t rec[8 + 8 * 8];
	struct pd_event_header h = { PD_RECORD_SAMPLE, 0, sizeof(rec) };
	memcpy(rec, &h, 8);
	th_put_u64(rec, 8, 0xa1);            /* IP */
	th_put_u32(rec, 16, 2);              /* pid */
	th_put_u32(rec, 20, 3);              /* tid */
	th_put_u64(rec, 24, 0xa4);           /* TIME */
	th_put_u64(rec, 32, 0xa5);           /* ADDR */
	th_put_u64(rec, 40, 0xa6);           /* ID */
	th_put_u64(rec, 48, 0xa7);           /* STREAM_ID */
	th_put_u64(rec, 56, 8);              /* CPU + res */
	th_put_u64(rec, 64, 0xa9);           /* PERIOD */
	struct sample s;
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.ip, 0xa1);
	assert_int_equal(s.pid, 2);
	assert_int_equal(s.tid, 3);
	assert_int_equal(s.time, 0xa4);
	assert_int_equal(s.addr, 0xa5);
	assert_int_equal(s.id, 0xa6);
	assert_int_equal(s.stream_id, 0xa7);
	assert_int_equal(s.cpu, 8);
	assert_int_equal(s.period, 0xa9);
}

static void test_sample_parse_callchain_points_into_record(void **state)
{
	(void)state;
	const uint64_t st = TH_SAMPLE_TYPE | PD_SAMPLE_CALLCHAIN;
	static const uint64_t ips[] = { 0xfffffffffffffe00ULL, 0x555555555214ULL,
					0x5555555550aaULL, 0x7ffff7dd124aULL };
	uint8_t rec[TH_SAMPLE_SIZE + 8 + sizeof(ips)];
	th_make_sample(rec, 5, 0x555555555214ULL, 1, 2, 3, 0, 1);
	struct pd_event_header h = { PD_RECORD_SAMPLE, PD_MISC_USER, sizeof(rec) };
	memcpy(rec, &h, 8);
	th_put_u64(rec, TH_SAMPLE_SIZE, 4);
	memcpy(rec + TH_SAMPLE_SIZE + 8, ips, sizeof(ips));
	struct sample s;
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.period, 1);
	assert_int_equal(s.nr_callchain, 4);
	assert_ptr_equal(s.callchain, rec + TH_SAMPLE_SIZE + 8);
	for (int i = 0; i < 4; i++)
		assert_int_equal(th_u64(s.callchain, 8 * (size_t)i), ips[i]);
}

static void test_sample_parse_empty_callchain(void **state)
{
	(void)state;
	const uint64_t st = PD_SAMPLE_IP | PD_SAMPLE_CALLCHAIN;
	uint8_t rec[24];
	struct pd_event_header h = { PD_RECORD_SAMPLE, 0, 24 };
	memcpy(rec, &h, 8);
	th_put_u64(rec, 8, 1);
	th_put_u64(rec, 16, 0);
	struct sample s;
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.nr_callchain, 0);
}

static void test_sample_parse_callchain_longer_than_record_is_einval(void **state)
{
	(void)state;
	const uint64_t st = PD_SAMPLE_IP | PD_SAMPLE_CALLCHAIN;
	uint8_t rec[8 + 8 + 8 + 16];
	struct pd_event_header h = { PD_RECORD_SAMPLE, 0, sizeof(rec) };
	memcpy(rec, &h, 8);
	th_put_u64(rec, 8, 1);
	th_put_u64(rec, 16, 3);     /* room for 2 */
	struct sample s;
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), -EINVAL);
	th_put_u64(rec, 16, UINT64_MAX); /* nr * 8 must not overflow */
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), -EINVAL);
	th_put_u64(rec, 16, UINT64_MAX / 8 + 1);
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), -EINVAL);
	th_put_u64(rec, 16, 2);
	assert_int_equal(sample_parse(st, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.nr_callchain, 2);
}

static void test_sample_parse_too_short_record_is_einval(void **state)
{
	(void)state;
	uint8_t rec[TH_SAMPLE_SIZE];
	th_make_sample(rec, 1, 2, 3, 4, 5, 6, 7);
	struct sample s;
	for (size_t size = 0; size < TH_SAMPLE_SIZE; size++) {
		if (sample_parse(TH_SAMPLE_TYPE, rec, size, &s) != -EINVAL)
			fail_msg("a %zu-byte record was accepted for a %d-byte sample_type", size, TH_SAMPLE_SIZE);
	}
	/* sample_type with nothing in it: any record with a header is fine */
	assert_int_equal(sample_parse(0, rec, 8, &s), 0);
	/* a header-only callchain record cannot hold nr */
	assert_int_equal(sample_parse(PD_SAMPLE_CALLCHAIN, rec, 8, &s), -EINVAL);
}

static void test_sample_parse_read_is_unsupported(void **state)
{
	(void)state;
	uint8_t rec[128];
	memset(rec, 0, sizeof(rec));
	struct sample s;
	assert_int_equal(sample_parse(PD_SAMPLE_IP | PD_SAMPLE_READ, rec, sizeof(rec), &s), -EINVAL);
}

static void test_sample_time_offset_counts_fields_before_time(void **state)
{
	(void)state;
	assert_int_equal(sample_time_offset(0), -1);
	assert_int_equal(sample_time_offset(PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_PERIOD), -1);
	assert_int_equal(sample_time_offset(PD_SAMPLE_TIME), 8);
	assert_int_equal(sample_time_offset(PD_SAMPLE_IP | PD_SAMPLE_TIME), 16);
	assert_int_equal(sample_time_offset(PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME), 24);
	assert_int_equal(sample_time_offset(TH_SAMPLE_TYPE), 32);
	/* fields after TIME do not move it */
	assert_int_equal(sample_time_offset(PD_SAMPLE_TIME | PD_SAMPLE_ADDR | PD_SAMPLE_ID |
					    PD_SAMPLE_CPU | PD_SAMPLE_PERIOD | PD_SAMPLE_CALLCHAIN), 8);
}

static void test_sample_time_offset_agrees_with_sample_parse(void **state)
{
	(void)state;
	uint8_t rec[TH_SAMPLE_SIZE];
	th_make_sample(rec, 1, 2, 3, 4, 0x7777, 6, 7);
	int off = sample_time_offset(TH_SAMPLE_TYPE);
	assert_true(off > 0);
	assert_int_equal(th_u64(rec, (size_t)off), 0x7777);
}

static void test_sample_id_trailer_size_counts_selected_fields(void **state)
{
	(void)state;
	assert_int_equal(sample_id_trailer_size(0), 0);
	/* IP, PERIOD, CALLCHAIN, ADDR are never in the trailer */
	assert_int_equal(sample_id_trailer_size(PD_SAMPLE_IP | PD_SAMPLE_PERIOD |
						PD_SAMPLE_CALLCHAIN | PD_SAMPLE_ADDR), 0);
	assert_int_equal(sample_id_trailer_size(PD_SAMPLE_TID | PD_SAMPLE_TIME), 16);
	assert_int_equal(sample_id_trailer_size(TH_SAMPLE_TYPE), 32);
	assert_int_equal(sample_id_trailer_size(PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |
						PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU |
						PD_SAMPLE_IDENTIFIER), 48);
}

static void test_sample_parse_id_trailer_reads_from_record_end(void **state)
{
	(void)state;
	const uint64_t st = PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID |
			    PD_SAMPLE_CPU | PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_PERIOD;
	/* EXIT: u32 pid, ppid, tid, ptid; u64 time; + 48-byte trailer */
	uint8_t rec[8 + 24 + 48];
	memset(rec, 0xee, sizeof(rec));
	struct pd_event_header h = { PD_RECORD_EXIT, 0, sizeof(rec) };
	memcpy(rec, &h, 8);
	size_t t = 8 + 24;
	th_put_u32(rec, t, 40);            /* pid */
	th_put_u32(rec, t + 4, 41);        /* tid */
	th_put_u64(rec, t + 8, 9999);      /* time */
	th_put_u64(rec, t + 16, 55);       /* id */
	th_put_u64(rec, t + 24, 66);       /* stream_id */
	th_put_u32(rec, t + 32, 2);        /* cpu */
	th_put_u32(rec, t + 36, 0);        /* res */
	th_put_u64(rec, t + 40, 77);       /* identifier: last u64 */
	struct sample s;
	assert_int_equal(sample_parse_id_trailer(st, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.pid, 40);
	assert_int_equal(s.tid, 41);
	assert_int_equal(s.time, 9999);
	assert_int_equal(s.stream_id, 66);
	assert_int_equal(s.cpu, 2);
	assert_int_equal(s.id, 77); /* IDENTIFIER wins: it is read last */
	assert_int_equal(s.ip, 0);
	assert_int_equal(s.period, 0);
}

static void test_sample_parse_id_trailer_of_synthesized_record_is_zero(void **state)
{
	(void)state;
	uint8_t rec[8 + 16 + 32];
	memset(rec, 0, sizeof(rec));
	struct pd_event_header h = { PD_RECORD_COMM, 0, sizeof(rec) };
	memcpy(rec, &h, 8);
	th_put_u32(rec, 8, 5);
	memcpy(rec + 16, "sh", 3);
	struct sample s;
	assert_int_equal(sample_parse_id_trailer(TH_SAMPLE_TYPE, rec, sizeof(rec), &s), 0);
	assert_int_equal(s.time, 0);
	assert_int_equal(s.id, 0);
	assert_int_equal(s.pid, 0);
}

static void test_sample_parse_id_trailer_too_short_is_einval(void **state)
{
	(void)state;
	uint8_t rec[8 + 32];
	memset(rec, 0, sizeof(rec));
	struct sample s;
	assert_int_equal(sample_parse_id_trailer(TH_SAMPLE_TYPE, rec, sizeof(rec), &s), 0);
	assert_int_equal(sample_parse_id_trailer(TH_SAMPLE_TYPE, rec, sizeof(rec) - 1, &s), -EINVAL);
	assert_int_equal(sample_parse_id_trailer(TH_SAMPLE_TYPE, rec, 8, &s), -EINVAL);
	assert_int_equal(sample_parse_id_trailer(TH_SAMPLE_TYPE, rec, 0, &s), -EINVAL);
	/* an empty trailer fits any record with a header */
	assert_int_equal(sample_parse_id_trailer(0, rec, 8, &s), 0);
	assert_int_equal(sample_parse_id_trailer(0, rec, 4, &s), -EINVAL);
}

/* A dwarf sample: IP, TID, CALLCHAIN, RAW, BRANCH_STACK (with hw_idx),
 * REGS_USER, STACK_USER, in that order; size its bytes. */
static size_t make_dwarf_sample(uint8_t *r, uint64_t abi, uint64_t stack_size, uint64_t dyn)
{
	size_t o = 8;
	th_put_u64(r, o, 0x401000); o += 8;                      /* IP */
	th_put_u32(r, o, 7); th_put_u32(r, o + 4, 8); o += 8;    /* TID */
	th_put_u64(r, o, 1); th_put_u64(r, o + 8, 0xffffffff81000000ULL); o += 16; /* CALLCHAIN */
	th_put_u32(r, o, 4); th_put_u32(r, o + 4, 0xabcd); o += 8; /* RAW: 4 bytes */
	th_put_u64(r, o, 1); th_put_u64(r, o + 8, 0); o += 16;  /* BRANCH_STACK nr, hw_idx */
	memset(r + o, 0xbb, 24); o += 24;                          /* one entry */
	th_put_u64(r, o, abi); o += 8;                             /* REGS_USER */
	if (abi) {
		th_put_u64(r, o, 0x1111); th_put_u64(r, o + 8, 0x2222); th_put_u64(r, o + 16, 0x3333);
		o += 24;                                               /* mask 0b10101: 3 registers */
	}
	th_put_u64(r, o, stack_size); o += 8;                      /* STACK_USER */
	if (stack_size) {
		memset(r + o, 0x5a, stack_size); o += stack_size;
		th_put_u64(r, o, dyn); o += 8;
	}
	th_put_u32(r, 0, PD_RECORD_SAMPLE);
	r[6] = (uint8_t)o; r[7] = (uint8_t)(o >> 8);
	return o;
}

#define DWARF_TYPE (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_CALLCHAIN | PD_SAMPLE_RAW | PD_SAMPLE_BRANCH_STACK | \
		    PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER)

static void test_sample_parse_user_regs_and_stack(void **state)
{
	(void)state;
	uint8_t r[512];
	size_t n = make_dwarf_sample(r, PD_REGS_ABI_64, 64, 40);
	struct sample s;
	struct sample_user u;
	assert_int_equal(sample_parse(DWARF_TYPE, r, n, &s), 0);
	assert_int_equal(sample_parse_user(DWARF_TYPE, PD_BRANCH_HW_INDEX, 0x15, r, n, &s, &u), 0);
	assert_int_equal(u.abi, PD_REGS_ABI_64);
	assert_int_equal(u.mask, 0x15);
	uint64_t v;
	memcpy(&v, u.regs + 16, 8);
	assert_int_equal(v, 0x3333);
	assert_int_equal(u.stack_size, 64);
	assert_int_equal(u.stack_len, 40); /* dyn_size: what the kernel copied */
	assert_int_equal(u.stack[0], 0x5a);
	/* a dyn_size past the copy is capped at it */
	n = make_dwarf_sample(r, PD_REGS_ABI_64, 64, 1000);
	assert_int_equal(sample_parse_user(DWARF_TYPE, PD_BRANCH_HW_INDEX, 0x15, r, n, &s, &u), 0);
	assert_int_equal(u.stack_len, 64);
	/* a kernel thread: no registers, no stack */
	n = make_dwarf_sample(r, PD_REGS_ABI_NONE, 0, 0);
	assert_int_equal(sample_parse_user(DWARF_TYPE, PD_BRANCH_HW_INDEX, 0x15, r, n, &s, &u), 0);
	assert_null(u.regs);
	assert_null(u.stack);
	assert_int_equal(u.stack_len, 0);
}

static void test_sample_parse_user_truncated_is_einval(void **state)
{
	(void)state;
	uint8_t r[512];
	size_t n = make_dwarf_sample(r, PD_REGS_ABI_64, 64, 64);
	struct sample s;
	struct sample_user u;
	assert_int_equal(sample_parse(DWARF_TYPE, r, n, &s), 0);
	/* every shorter size fails cleanly, never reads past it (ASan) */
	for (size_t k = s.end; k < n; k++) {
		uint8_t *c = malloc(k);
		assert_non_null(c);
		memcpy(c, r, k);
		assert_int_equal(sample_parse_user(DWARF_TYPE, PD_BRANCH_HW_INDEX, 0x15, c, k, &s, &u), -EINVAL);
		free(c);
	}
	/* without hw_idx the branch entries start 8 bytes earlier: the rest misreads, within bounds */
	assert_true(sample_parse_user(DWARF_TYPE, 0, 0x15, r, n, &s, &u) <= 0);
	/* a mask with more registers than the record holds */
	assert_int_equal(sample_parse_user(DWARF_TYPE, PD_BRANCH_HW_INDEX, ~0ULL, r, n, &s, &u), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_parse_identifier_ip_tid_time_cpu_period),
		cmocka_unit_test(test_sample_parse_ignores_cpu_reserved_half),
		cmocka_unit_test(test_sample_parse_perf_default_ip_tid_time_period_is_40_bytes),
		cmocka_unit_test(test_sample_parse_all_fields_before_read_in_order),
		cmocka_unit_test(test_sample_parse_callchain_points_into_record),
		cmocka_unit_test(test_sample_parse_empty_callchain),
		cmocka_unit_test(test_sample_parse_callchain_longer_than_record_is_einval),
		cmocka_unit_test(test_sample_parse_too_short_record_is_einval),
		cmocka_unit_test(test_sample_parse_read_is_unsupported),
		cmocka_unit_test(test_sample_time_offset_counts_fields_before_time),
		cmocka_unit_test(test_sample_time_offset_agrees_with_sample_parse),
		cmocka_unit_test(test_sample_id_trailer_size_counts_selected_fields),
		cmocka_unit_test(test_sample_parse_id_trailer_reads_from_record_end),
		cmocka_unit_test(test_sample_parse_id_trailer_of_synthesized_record_is_zero),
		cmocka_unit_test(test_sample_parse_id_trailer_too_short_is_einval),
		cmocka_unit_test(test_sample_parse_user_regs_and_stack),
		cmocka_unit_test(test_sample_parse_user_truncated_is_einval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
