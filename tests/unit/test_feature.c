/*
 * test_feature.c - feature payload byte layouts (src/format/feature.c),
 * checked against perf-data-format.md 2.2 and 2.3.
 */
#include "test_helpers.h"

#include "format/feature.h"

/* Check a perf_header_string at b+off holding s: u32 len = strlen+1 rounded
 * up to 64, then s, then zeros to len. Returns the offset after it. */
static size_t expect_string_at(const uint8_t *b, size_t off, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + 63) / 64 * 64;
	assert_int_equal(th_u32(b, off), padded);
	assert_memory_equal(b + off + 4, s, n);
	assert_true(th_all_zero(b + off + 4 + n, padded - n));
	return off + 4 + padded;
}

static void test_feature_string_short_is_padded_to_64(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(feature_string(&b, "vm"), 0);
	/* Doc example: hostname "vm" -> len=64, section size 68. */
	assert_int_equal(b.len, 68);
	assert_int_equal(th_u32(b.data, 0), 64);
	assert_memory_equal(b.data + 4, "vm\0", 3);
	assert_true(th_all_zero(b.data + 7, 61));
	buf_free(&b);
}

static void test_feature_string_length_rounding_boundaries(void **state)
{
	(void)state;
	char s63[64], s64[65];
	memset(s63, 'a', 63);
	s63[63] = '\0';
	memset(s64, 'b', 64);
	s64[64] = '\0';

	struct buf b = BUF_INIT;
	assert_int_equal(feature_put_string(&b, ""), 0);     /* 1 -> 64 */
	assert_int_equal(feature_put_string(&b, s63), 0);    /* 64 -> 64 */
	assert_int_equal(feature_put_string(&b, s64), 0);    /* 65 -> 128 */
	assert_int_equal(b.len, 68 + 68 + 132);
	assert_int_equal(th_u32(b.data, 0), 64);
	assert_int_equal(th_u32(b.data, 68), 64);
	assert_int_equal(th_u32(b.data, 136), 128);
	size_t off = expect_string_at(b.data, 0, "");
	off = expect_string_at(b.data, off, s63);
	off = expect_string_at(b.data, off, s64);
	assert_int_equal(off, b.len);
	buf_free(&b);
}

static void test_feature_string_appends_after_existing_bytes(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "XYZ", 3), 0);
	assert_int_equal(feature_string(&b, "x86_64"), 0);
	assert_int_equal(b.len, 3 + 68);
	assert_memory_equal(b.data, "XYZ", 3);
	expect_string_at(b.data, 3, "x86_64");
	buf_free(&b);
}

static void test_feature_string_list_is_count_then_strings(void **state)
{
	(void)state;
	static const char *const l[] = { "0-1", "2-3", "4" };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_put_string_list(&b, l, 3), 0);
	assert_int_equal(b.len, 4 + 3 * 68);
	assert_int_equal(th_u32(b.data, 0), 3);
	size_t off = 4;
	for (int i = 0; i < 3; i++)
		off = expect_string_at(b.data, off, l[i]);
	assert_int_equal(off, b.len);
	buf_free(&b);

	struct buf e = BUF_INIT;
	assert_int_equal(feature_put_string_list(&e, NULL, 0), 0);
	assert_int_equal(e.len, 4);
	assert_int_equal(th_u32(e.data, 0), 0);
	buf_free(&e);
}

static void test_feature_nrcpus_is_avail_then_online(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(feature_nrcpus(&b, 4, 2), 0);
	assert_int_equal(b.len, 8);
	assert_int_equal(th_u32(b.data, 0), 4);  /* avail first */
	assert_int_equal(th_u32(b.data, 4), 2);  /* then online */
	buf_free(&b);
}

static void test_feature_total_mem_is_one_u64_in_kb(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(feature_total_mem(&b, 16326532ULL), 0);
	assert_int_equal(b.len, 8);
	assert_int_equal(th_u64(b.data, 0), 16326532ULL);
	buf_free(&b);
}

static void test_feature_cmdline_is_exe_then_argv_from_1_with_nr_argc(void **state)
{
	(void)state;
	char *argv[] = { (char *)"psrec", (char *)"-F", (char *)"999", (char *)"./spin", NULL };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cmdline(&b, "/usr/local/bin/psrec", 4, argv), 0);
	assert_int_equal(th_u32(b.data, 0), 4);
	size_t off = expect_string_at(b.data, 4, "/usr/local/bin/psrec");
	off = expect_string_at(b.data, off, "-F");
	off = expect_string_at(b.data, off, "999");
	off = expect_string_at(b.data, off, "./spin");
	assert_int_equal(off, b.len);
	buf_free(&b);
}

static void test_feature_cmdline_without_arguments_holds_only_exe(void **state)
{
	(void)state;
	char *argv[] = { (char *)"psrec", NULL };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cmdline(&b, "/bin/psrec", 1, argv), 0);
	assert_int_equal(th_u32(b.data, 0), 1);
	assert_int_equal(expect_string_at(b.data, 4, "/bin/psrec"), b.len);
	buf_free(&b);
}

static void test_feature_event_desc_layout(void **state)
{
	(void)state;
	struct pd_attr a0, a1;
	memset(&a0, 0, sizeof(a0));
	memset(&a1, 0, sizeof(a1));
	a0.type = PD_TYPE_SOFTWARE;
	a0.size = PD_ATTR_SIZE;
	a0.config = PD_SW_CPU_CLOCK;
	a0.sample_type = TH_SAMPLE_TYPE;
	a1.type = PD_TYPE_SOFTWARE;
	a1.size = PD_ATTR_SIZE;
	a1.config = PD_SW_TASK_CLOCK;
	a1.sig_data = 0x1234;
	static const uint64_t ids0[] = { 11, 12 };
	static const uint64_t ids1[] = { 21, 22, 23 };
	const struct feature_event ev[] = {
		{ &a0, "cpu-clock", ids0, 2 },
		{ &a1, "task-clock:u", ids1, 3 },
	};
	struct buf b = BUF_INIT;
	assert_int_equal(feature_event_desc(&b, ev, 2), 0);

	assert_int_equal(th_u32(b.data, 0), 2);    /* nr */
	assert_int_equal(th_u32(b.data, 4), 128);  /* attr_size */
	size_t off = 8;
	/* event 0 */
	assert_memory_equal(b.data + off, &a0, 128);
	off += 128;
	assert_int_equal(th_u32(b.data, off), 2);
	off += 4;
	off = expect_string_at(b.data, off, "cpu-clock");
	assert_int_equal(th_u64(b.data, off), 11);
	assert_int_equal(th_u64(b.data, off + 8), 12);
	off += 16;
	/* event 1 */
	assert_memory_equal(b.data + off, &a1, 128);
	off += 128;
	assert_int_equal(th_u32(b.data, off), 3);
	off += 4;
	off = expect_string_at(b.data, off, "task-clock:u");
	for (int i = 0; i < 3; i++)
		assert_int_equal(th_u64(b.data, off + 8 * (size_t)i), ids1[i]);
	off += 24;
	assert_int_equal(off, b.len);
	assert_int_equal(b.len, 8 + (128 + 4 + 68 + 16) + (128 + 4 + 68 + 24));
	buf_free(&b);
}

static void test_feature_event_desc_event_without_ids(void **state)
{
	(void)state;
	struct pd_attr a;
	memset(&a, 0, sizeof(a));
	a.size = PD_ATTR_SIZE;
	const struct feature_event ev[] = { { &a, "cycles", NULL, 0 } };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_event_desc(&b, ev, 1), 0);
	assert_int_equal(b.len, 8 + 128 + 4 + 68);
	assert_int_equal(th_u32(b.data, 136), 0);
	expect_string_at(b.data, 140, "cycles");
	buf_free(&b);
}

static void test_feature_cpu_topology_without_dies_omits_die_part(void **state)
{
	(void)state;
	static const char *const core[] = { "0-3" };
	static const char *const thr[] = { "0-1", "2-3" };
	static const uint32_t core_id[] = { 0, 0, 1, 1 };
	static const uint32_t socket_id[] = { 0, 0, 0, 0 };
	const struct feature_topology t = {
		.nr_cpus_avail = 4,
		.core_sibs = core, .nr_core_sibs = 1,
		.thread_sibs = thr, .nr_thread_sibs = 2,
		.core_id = core_id, .socket_id = socket_id,
		.die_sibs = NULL, .nr_die_sibs = 0, .die_id = NULL,
	};
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cpu_topology(&b, &t), 0);
	size_t off = 0;
	assert_int_equal(th_u32(b.data, off), 1);
	off = expect_string_at(b.data, off + 4, "0-3");
	assert_int_equal(th_u32(b.data, off), 2);
	off = expect_string_at(b.data, off + 4, "0-1");
	off = expect_string_at(b.data, off, "2-3");
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(th_u32(b.data, off), core_id[i]);
		assert_int_equal(th_u32(b.data, off + 4), socket_id[i]);
		off += 8;
	}
	assert_int_equal(off, b.len); /* nothing after: die part omitted */
	assert_int_equal(b.len, 4 + 68 + 4 + 2 * 68 + 4 * 8);
	buf_free(&b);
}

static void test_feature_cpu_topology_with_dies_appends_die_list_and_ids(void **state)
{
	(void)state;
	static const char *const core[] = { "0-1", "2-3" };
	static const char *const thr[] = { "0", "1", "2", "3" };
	static const uint32_t core_id[] = { 0, 1, 0, 1 };
	static const uint32_t socket_id[] = { 0, 0, 1, 1 };
	static const char *const die[] = { "0-1", "2-3" };
	static const uint32_t die_id[] = { 0, 0, 1, 1 };
	const struct feature_topology t = {
		.nr_cpus_avail = 4,
		.core_sibs = core, .nr_core_sibs = 2,
		.thread_sibs = thr, .nr_thread_sibs = 4,
		.core_id = core_id, .socket_id = socket_id,
		.die_sibs = die, .nr_die_sibs = 2, .die_id = die_id,
	};
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cpu_topology(&b, &t), 0);
	size_t off = 0;
	assert_int_equal(th_u32(b.data, off), 2);
	off += 4;
	for (int i = 0; i < 2; i++)
		off = expect_string_at(b.data, off, core[i]);
	assert_int_equal(th_u32(b.data, off), 4);
	off += 4;
	for (int i = 0; i < 4; i++)
		off = expect_string_at(b.data, off, thr[i]);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(th_u32(b.data, off), core_id[i]);
		assert_int_equal(th_u32(b.data, off + 4), socket_id[i]);
		off += 8;
	}
	assert_int_equal(th_u32(b.data, off), 2);
	off += 4;
	for (int i = 0; i < 2; i++)
		off = expect_string_at(b.data, off, die[i]);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(th_u32(b.data, off), die_id[i]);
		off += 4;
	}
	assert_int_equal(off, b.len);
	buf_free(&b);
}

static void test_feature_cpu_topology_unknown_core_id_is_all_ones(void **state)
{
	(void)state;
	static const char *const sibs[] = { "0" };
	static const uint32_t core_id[] = { UINT32_MAX };
	static const uint32_t socket_id[] = { UINT32_MAX };
	const struct feature_topology t = {
		.nr_cpus_avail = 1,
		.core_sibs = sibs, .nr_core_sibs = 1,
		.thread_sibs = sibs, .nr_thread_sibs = 1,
		.core_id = core_id, .socket_id = socket_id,
	};
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cpu_topology(&b, &t), 0);
	assert_int_equal(b.len, 4 + 68 + 4 + 68 + 8);
	assert_int_equal(th_u32(b.data, 144), UINT32_MAX);
	assert_int_equal(th_u32(b.data, 148), UINT32_MAX);
	buf_free(&b);
}

static void test_feature_sample_time_is_first_then_last(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(feature_sample_time(&b, 1000, 2000), 0);
	assert_int_equal(b.len, 16);
	assert_int_equal(th_u64(b.data, 0), 1000);
	assert_int_equal(th_u64(b.data, 8), 2000);
	buf_free(&b);
}

static void test_feature_clockid_is_one_u64(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(feature_clockid(&b, 1), 0);
	assert_int_equal(b.len, 8);
	assert_int_equal(th_u64(b.data, 0), 1);
	buf_free(&b);
}

static void test_feature_clock_data_is_version_clockid_tod_clk_24_bytes(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	/* The doc's observed values: (1, 1, 1796007997228051000, 671771122270) */
	assert_int_equal(feature_clock_data(&b, 1, 1796007997228051000ULL, 671771122270ULL), 0);
	assert_int_equal(b.len, 24);
	assert_int_equal(th_u32(b.data, 0), 1);            /* version */
	assert_int_equal(th_u32(b.data, 4), 1);            /* clockid */
	assert_int_equal(th_u64(b.data, 8), 1796007997228051000ULL);
	assert_int_equal(th_u64(b.data, 16), 671771122270ULL);

	buf_reset(&b);
	assert_int_equal(feature_clock_data(&b, 7, 5, 6), 0);
	assert_int_equal(th_u32(b.data, 0), 1);
	assert_int_equal(th_u32(b.data, 4), 7);
	buf_free(&b);
}

/* ---- machine features: golden bytes from perf 6.1's file on the 2-CPU
 * test VM (perf record -F 999, 2026-12-01), so a layout slip shows. ---- */

static void test_feature_numa_topology_matches_perf_bytes(void **state)
{
	(void)state;
	const struct feature_numa_node n = { 0, 4679892, 3423992, "0-1" };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_numa_topology(&b, &n, 1), 0);
	static const uint8_t want[28] = {
		0x01, 0, 0, 0,                                  /* nr */
		0, 0, 0, 0,                                     /* node */
		0xd4, 0x68, 0x47, 0, 0, 0, 0, 0,                /* total kB */
		0xf8, 0x3e, 0x34, 0, 0, 0, 0, 0,                /* free kB */
		0x40, 0, 0, 0,                                  /* string len 64 */
	};
	assert_int_equal(b.len, 92);
	assert_memory_equal(b.data, want, sizeof(want));
	expect_string_at(b.data, 24, "0-1");
	buf_free(&b);
}

static void test_feature_numa_topology_nodes_back_to_back(void **state)
{
	(void)state;
	const struct feature_numa_node n[2] = { { 0, 10, 5, "0-3" }, { 3, 20, 7, "" } };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_numa_topology(&b, n, 2), 0);
	assert_int_equal(th_u32(b.data, 0), 2);
	assert_int_equal(th_u32(b.data, 92), 3);
	assert_int_equal(th_u64(b.data, 96), 20);
	assert_int_equal(th_u64(b.data, 104), 7);
	assert_int_equal(expect_string_at(b.data, 112, ""), b.len);
	buf_free(&b);
}

static void test_feature_mem_topology_matches_perf_bytes(void **state)
{
	(void)state;
	/* blocks 0-23 and 32-199 of 128 MiB on node 0 */
	const uint64_t bits[4] = { 0xffffffff00ffffffULL, ~0ULL, ~0ULL, 0xffULL };
	const struct feature_mem_node n = { 0, 200, bits };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_mem_topology(&b, 0x8000000, &n, 1), 0);
	assert_int_equal(b.len, 80);
	assert_int_equal(th_u64(b.data, 0), 1);          /* version */
	assert_int_equal(th_u64(b.data, 8), 0x8000000);  /* block size */
	assert_int_equal(th_u64(b.data, 16), 1);         /* nodes */
	assert_int_equal(th_u64(b.data, 24), 0);         /* node */
	assert_int_equal(th_u64(b.data, 32), 200);       /* size in blocks */
	assert_int_equal(th_u64(b.data, 40), 200);       /* bitmap bits */
	static const uint8_t words[32] = {
		0xff, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0, 0, 0, 0, 0, 0, 0,
	};
	assert_memory_equal(b.data + 48, words, sizeof(words));
	buf_free(&b);
}

static void test_feature_mem_topology_bitmap_rounds_up_to_whole_words(void **state)
{
	(void)state;
	const uint64_t one = 1, two[2] = { 1, 1 };
	const struct feature_mem_node n[2] = { { 0, 1, &one }, { 1, 65, two } };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_mem_topology(&b, 4096, n, 2), 0);
	/* 24 + (16 + 8 + 8) + (16 + 8 + 16) */
	assert_int_equal(b.len, 24 + 32 + 40);
	assert_int_equal(th_u64(b.data, 56), 1);         /* second node */
	assert_int_equal(th_u64(b.data, 64), 65);
	assert_int_equal(th_u64(b.data, 72), 65);
	buf_free(&b);
}

static void test_feature_cache_matches_perf_layout(void **state)
{
	(void)state;
	const struct feature_cache c[2] = {
		{ 1, 64, 64, 8, "Data", "32K", "0" },
		{ 3, 64, 32768, 16, "Unified", "32768K", "0-1" },
	};
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cache(&b, c, 2), 0);
	assert_int_equal(th_u32(b.data, 0), 1);          /* version */
	assert_int_equal(th_u32(b.data, 4), 2);
	size_t off = 8;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(th_u32(b.data, off), c[i].level);
		assert_int_equal(th_u32(b.data, off + 4), c[i].line_size);
		assert_int_equal(th_u32(b.data, off + 8), c[i].sets);
		assert_int_equal(th_u32(b.data, off + 12), c[i].ways);
		off = expect_string_at(b.data, off + 16, c[i].type);
		off = expect_string_at(b.data, off, c[i].size);
		off = expect_string_at(b.data, off, c[i].map);
	}
	assert_int_equal(off, b.len);
	/* perf's 7 caches on the VM took 1548 bytes: 8 + 7 * 220 */
	assert_int_equal(b.len, 8 + 2 * 220);
	buf_free(&b);
}

static void test_feature_pmu_mappings_is_type_then_name(void **state)
{
	(void)state;
	const struct feature_pmu p[2] = { { .type = 1, .name = "software" }, { .type = 9, .name = "msr" } };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_pmu_mappings(&b, p, 2), 0);
	assert_int_equal(th_u32(b.data, 0), 2);
	assert_int_equal(th_u32(b.data, 4), 1);
	size_t off = expect_string_at(b.data, 8, "software");
	assert_int_equal(th_u32(b.data, off), 9);
	assert_int_equal(expect_string_at(b.data, off + 4, "msr"), b.len);
	/* perf's 5 PMUs on the VM took 364 bytes: 4 + 5 * 72 */
	assert_int_equal(b.len, 4 + 2 * 72);
	buf_free(&b);
}

static void test_feature_pmu_caps_lists_only_pmus_with_caps_and_names_them(void **state)
{
	(void)state;
	static const char *const names[] = { "branches", "max_precise" };
	static const char *const values[] = { "32", "3" };
	const struct feature_pmu p[3] = {
		{ .type = 1, .name = "software" },
		{ .type = 4, .name = "cpu_core", .cap_names = names, .cap_values = values, .nr_caps = 2 },
		{ .type = 8, .name = "uprobe" },
	};
	struct buf b = BUF_INIT;
	assert_int_equal(feature_pmu_caps(&b, p, 3), 0);
	assert_int_equal(th_u32(b.data, 0), 1);          /* PMUs with caps */
	assert_int_equal(th_u32(b.data, 4), 2);          /* its caps */
	size_t off = expect_string_at(b.data, 8, "branches");
	off = expect_string_at(b.data, off, "32");
	off = expect_string_at(b.data, off, "max_precise");
	off = expect_string_at(b.data, off, "3");
	assert_int_equal(expect_string_at(b.data, off, "cpu_core"), b.len);
	buf_free(&b);

	/* none with caps: the 4 zero bytes perf writes on the VM */
	struct buf e = BUF_INIT;
	assert_int_equal(feature_pmu_caps(&e, p, 1), 0);
	assert_int_equal(e.len, 4);
	assert_int_equal(th_u32(e.data, 0), 0);
	buf_free(&e);
}

static void test_feature_cpu_pmu_caps_is_pairs_without_pmu_name(void **state)
{
	(void)state;
	static const char *const names[] = { "branches" };
	static const char *const values[] = { "16" };
	const struct feature_pmu cpu = { .type = 4, .name = "cpu", .cap_names = names, .cap_values = values, .nr_caps = 1 };
	struct buf b = BUF_INIT;
	assert_int_equal(feature_cpu_pmu_caps(&b, &cpu), 0);
	assert_int_equal(th_u32(b.data, 0), 1);
	size_t off = expect_string_at(b.data, 4, "branches");
	assert_int_equal(expect_string_at(b.data, off, "16"), b.len);
	buf_free(&b);
}

static void test_feature_bpf_none_is_a_zero_count(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(feature_bpf_none(&b), 0);
	assert_int_equal(b.len, 4);
	assert_int_equal(th_u32(b.data, 0), 0);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feature_string_short_is_padded_to_64),
		cmocka_unit_test(test_feature_string_length_rounding_boundaries),
		cmocka_unit_test(test_feature_string_appends_after_existing_bytes),
		cmocka_unit_test(test_feature_string_list_is_count_then_strings),
		cmocka_unit_test(test_feature_nrcpus_is_avail_then_online),
		cmocka_unit_test(test_feature_total_mem_is_one_u64_in_kb),
		cmocka_unit_test(test_feature_cmdline_is_exe_then_argv_from_1_with_nr_argc),
		cmocka_unit_test(test_feature_cmdline_without_arguments_holds_only_exe),
		cmocka_unit_test(test_feature_event_desc_layout),
		cmocka_unit_test(test_feature_event_desc_event_without_ids),
		cmocka_unit_test(test_feature_cpu_topology_without_dies_omits_die_part),
		cmocka_unit_test(test_feature_cpu_topology_with_dies_appends_die_list_and_ids),
		cmocka_unit_test(test_feature_cpu_topology_unknown_core_id_is_all_ones),
		cmocka_unit_test(test_feature_sample_time_is_first_then_last),
		cmocka_unit_test(test_feature_clockid_is_one_u64),
		cmocka_unit_test(test_feature_clock_data_is_version_clockid_tod_clk_24_bytes),
		cmocka_unit_test(test_feature_numa_topology_matches_perf_bytes),
		cmocka_unit_test(test_feature_numa_topology_nodes_back_to_back),
		cmocka_unit_test(test_feature_mem_topology_matches_perf_bytes),
		cmocka_unit_test(test_feature_mem_topology_bitmap_rounds_up_to_whole_words),
		cmocka_unit_test(test_feature_cache_matches_perf_layout),
		cmocka_unit_test(test_feature_pmu_mappings_is_type_then_name),
		cmocka_unit_test(test_feature_pmu_caps_lists_only_pmus_with_caps_and_names_them),
		cmocka_unit_test(test_feature_cpu_pmu_caps_is_pairs_without_pmu_name),
		cmocka_unit_test(test_feature_bpf_none_is_a_zero_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
