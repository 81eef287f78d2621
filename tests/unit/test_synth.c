/*
 * test_synth.c - synthesized records (src/record/synth.c): the kernel map
 * from a kallsyms file, the kernel MMAP record and COMM records
 * (perf-data-format.md 3.3, 4.2).
 */
#include "test_helpers.h"

#include "record/synth.h"

static int find_in(const char *content, struct kernel_map *km)
{
	char path[64];
	th_write_file(path, content, strlen(content));
	int rc = synth_find_kernel_map(path, km);
	unlink(path);
	return rc;
}

/* ---- synth_find_kernel_map -------------------------------------------- */

static void test_synth_find_kernel_map_finds_text_and_etext(void **state)
{
	(void)state;
	const char *ks =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff80ff0000 t _text_decoy\n"
		"ffffffff80fe0000 t __text\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000040 T secondary_startup_64\n"
		"ffffffff8220bb08 T _etext\n"
		"ffffffffc0a00000 t foo\t[somemod]\n";
	struct kernel_map km = { 1, 2 };
	assert_int_equal(find_in(ks, &km), 0);
	assert_int_equal(km.start, 0xffffffff81000000ULL);
	assert_int_equal(km.end, 0xffffffff8220bb08ULL);
}

static void test_synth_find_kernel_map_accepts_etext_before_text(void **state)
{
	(void)state;
	const char *ks =
		"ffffffff82000000 T _etext\n"
		"ffffffff81000000 T _text\n";
	struct kernel_map km;
	assert_int_equal(find_in(ks, &km), 0);
	assert_int_equal(km.start, 0xffffffff81000000ULL);
	assert_int_equal(km.end, 0xffffffff82000000ULL);
}

static void test_synth_find_kernel_map_missing_symbols_is_enoent(void **state)
{
	(void)state;
	struct kernel_map km;
	assert_int_equal(find_in("ffffffff81000000 T _text\n", &km), -ENOENT);
	assert_int_equal(find_in("ffffffff82000000 T _etext\n", &km), -ENOENT);
	assert_int_equal(find_in("", &km), -ENOENT);
	assert_int_equal(find_in("garbage\nmore garbage without spaces\n\n", &km), -ENOENT);
	assert_int_equal(synth_find_kernel_map("/tmp/psrec-unit-no-such-dir/kallsyms", &km), -ENOENT);
}

static void test_synth_find_kernel_map_zero_addresses_are_eperm(void **state)
{
	(void)state;
	/* what kptr_restrict or an unprivileged reader sees */
	const char *ks =
		"0000000000000000 T startup_64\n"
		"0000000000000000 T _text\n"
		"0000000000000000 T _etext\n";
	struct kernel_map km;
	assert_int_equal(find_in(ks, &km), -EPERM);
}

static void test_synth_find_kernel_map_etext_not_above_text_is_eperm(void **state)
{
	(void)state;
	const char *ks =
		"ffffffff82000000 T _text\n"
		"ffffffff81000000 T _etext\n";
	struct kernel_map km;
	assert_int_equal(find_in(ks, &km), -EPERM);
}

/* ---- synth_kernel_mmap -------------------------------------------------- */

static void check_kernel_mmap(size_t trailer)
{
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff8220bb08ULL };
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "prefix!!", 8), 0);
	assert_int_equal(synth_kernel_mmap(&b, &km, trailer), 0);
	const uint8_t *r = b.data + 8;
	size_t size = b.len - 8;
	assert_int_equal(th_u32(r, 0), PD_RECORD_MMAP);     /* type 1 */
	assert_int_equal(th_u16(r, 4), PD_MISC_KERNEL);     /* misc 1 */
	assert_int_equal(th_u16(r, 6), size);
	assert_int_equal(size % 8, 0);
	/* 8 header + 8 pid/tid + 24 addr/len/pgoff + 24 name = 64, then the trailer */
	assert_int_equal(size, 64 + trailer);
	assert_int_equal(th_u32(r, 8), 0xffffffffu);         /* pid -1 */
	assert_int_equal(th_u32(r, 12), 0);                  /* tid */
	assert_int_equal(th_u64(r, 16), km.start);           /* addr */
	assert_int_equal(th_u64(r, 24), km.end - km.start);  /* len */
	assert_int_equal(th_u64(r, 32), km.start);           /* pgoff = _text */
	assert_string_equal((const char *)r + 40, "[kernel.kallsyms]_text");
	assert_int_equal(strlen("[kernel.kallsyms]_text"), 22);
	assert_true(th_all_zero(r + 40 + 23, 1));            /* NUL pad to 8 */
	assert_true(th_all_zero(r + size - trailer, trailer)); /* zero trailer at the end */
	assert_memory_equal(b.data, "prefix!!", 8);
	buf_free(&b);
}

static void test_synth_kernel_mmap_record_layout_without_trailer(void **state)
{
	(void)state;
	check_kernel_mmap(0);
}

static void test_synth_kernel_mmap_record_layout_with_trailers(void **state)
{
	(void)state;
	check_kernel_mmap(16);  /* TID|TIME: the 80-byte record perf writes */
	check_kernel_mmap(32);
	check_kernel_mmap(48);
}

static void test_synth_kernel_mmap_trailer_too_big_is_e2big_and_appends_nothing(void **state)
{
	(void)state;
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff82000000ULL };
	struct buf b = BUF_INIT;
	assert_int_equal(synth_kernel_mmap(&b, &km, 70000), -E2BIG);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

/* ---- synth_comm ------------------------------------------------------- */

static void check_comm(const char *name, const char *want, size_t trailer)
{
	struct buf b = BUF_INIT;
	assert_int_equal(synth_comm(&b, 1234, 1235, name, trailer), 0);
	const uint8_t *r = b.data;
	size_t size = b.len;
	size_t n = strlen(want) + 1;
	size_t body = (8 + n + 7) / 8 * 8;
	assert_int_equal(th_u32(r, 0), PD_RECORD_COMM);     /* type 3 */
	assert_int_equal(th_u16(r, 4), 0);                  /* misc */
	assert_int_equal(th_u16(r, 6), size);
	assert_int_equal(size % 8, 0);
	assert_int_equal(size, 8 + body + trailer);
	assert_int_equal(th_u32(r, 8), 1234);
	assert_int_equal(th_u32(r, 12), 1235);
	assert_string_equal((const char *)r + 16, want);
	assert_true(th_all_zero(r + 16 + n - 1, body - 8 - n + 1)); /* NUL + pad */
	assert_true(th_all_zero(r + size - trailer, trailer));
	buf_free(&b);
}

static void test_synth_comm_short_name(void **state)
{
	(void)state;
	check_comm("sh", "sh", 0);
	check_comm("sh", "sh", 32);
	check_comm("spin", "spin", 16);
	check_comm("", "", 16);
}

static void test_synth_comm_name_of_7_bytes_fills_one_word_exactly(void **state)
{
	(void)state;
	/* 7 chars + NUL = 8: no extra padding word */
	check_comm("abcdefg", "abcdefg", 0);
	struct buf b = BUF_INIT;
	assert_int_equal(synth_comm(&b, 1, 1, "abcdefg", 0), 0);
	assert_int_equal(b.len, 24);
	buf_free(&b);
}

static void test_synth_comm_truncates_name_to_15_chars(void **state)
{
	(void)state;
	check_comm("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmno", 0);
	check_comm("abcdefghijklmnop", "abcdefghijklmno", 32); /* 16 chars */
	check_comm("abcdefghijklmno", "abcdefghijklmno", 24);  /* 15 chars: kept */
	struct buf b = BUF_INIT;
	assert_int_equal(synth_comm(&b, 1, 1, "abcdefghijklmnopqrstuvwxyz", 32), 0);
	assert_int_equal(b.len, 8 + 24 + 32);
	buf_free(&b);
}

static void test_synth_records_append_back_to_back(void **state)
{
	(void)state;
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff82000000ULL };
	struct buf b = BUF_INIT;
	assert_int_equal(synth_kernel_mmap(&b, &km, 32), 0);
	assert_int_equal(synth_comm(&b, 5, 5, "spin", 32), 0);
	assert_int_equal(synth_comm(&b, 5, 6, "worker", 32), 0);
	size_t off = 0;
	int n = 0;
	static const uint32_t types[] = { PD_RECORD_MMAP, PD_RECORD_COMM, PD_RECORD_COMM };
	while (off < b.len) {
		assert_int_equal(th_u32(b.data, off), types[n]);
		uint16_t size = th_u16(b.data, off + 6);
		assert_true(size >= 8);
		off += size;
		n++;
	}
	assert_int_equal(off, b.len);
	assert_int_equal(n, 3);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synth_find_kernel_map_finds_text_and_etext),
		cmocka_unit_test(test_synth_find_kernel_map_accepts_etext_before_text),
		cmocka_unit_test(test_synth_find_kernel_map_missing_symbols_is_enoent),
		cmocka_unit_test(test_synth_find_kernel_map_zero_addresses_are_eperm),
		cmocka_unit_test(test_synth_find_kernel_map_etext_not_above_text_is_eperm),
		cmocka_unit_test(test_synth_kernel_mmap_record_layout_without_trailer),
		cmocka_unit_test(test_synth_kernel_mmap_record_layout_with_trailers),
		cmocka_unit_test(test_synth_kernel_mmap_trailer_too_big_is_e2big_and_appends_nothing),
		cmocka_unit_test(test_synth_comm_short_name),
		cmocka_unit_test(test_synth_comm_name_of_7_bytes_fills_one_word_exactly),
		cmocka_unit_test(test_synth_comm_truncates_name_to_15_chars),
		cmocka_unit_test(test_synth_records_append_back_to_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
