/* test_sysfile.c - cpulist_parse and sysfile_read_str (src/util/sysfile.c). */
#include "test_helpers.h"

#include "util/sysfile.h"

/* Parse s and compare with want[0..nwant). */
static void expect_cpus(const char *s, const int *want, int nwant)
{
	int *cpus = NULL;
	int n = -1;
	assert_int_equal(cpulist_parse(s, &cpus, &n), 0);
	assert_int_equal(n, nwant);
	assert_non_null(cpus);
	for (int i = 0; i < nwant; i++)
		assert_int_equal(cpus[i], want[i]);
	free(cpus);
}

static void expect_bad_cpulist(const char *s)
{
	int *cpus = (int *)(uintptr_t)1;
	int n = 99;
	int err = cpulist_parse(s, &cpus, &n);
	if (err != -EINVAL)
		fail_msg("cpulist_parse(\"%s\") returned %d, expected -EINVAL", s, err);
	assert_null(cpus);
	assert_int_equal(n, 0);
}

static void test_cpulist_parse_single_cpu(void **state)
{
	(void)state;
	static const int w[] = { 0 };
	expect_cpus("0", w, 1);
	static const int w7[] = { 7 };
	expect_cpus("7", w7, 1);
}

static void test_cpulist_parse_range_and_list(void **state)
{
	(void)state;
	static const int w[] = { 0, 1, 2, 3, 6 };
	expect_cpus("0-3,6", w, 5);
	static const int w2[] = { 0, 2, 4, 5, 6, 10 };
	expect_cpus("0,2,4-6,10", w2, 6);
}

static void test_cpulist_parse_accepts_trailing_newline_as_sysfs_prints_it(void **state)
{
	(void)state;
	static const int w[] = { 0, 1 };
	expect_cpus("0-1\n", w, 2);
}

static void test_cpulist_parse_sorts_and_drops_duplicates(void **state)
{
	(void)state;
	static const int w[] = { 1, 2, 3, 5 };
	expect_cpus("5,3,1-3,2,1", w, 4);
}

/* Found with fuzz_options: overlapping ranges expanded to hundreds of
 * millions of entries before the duplicates went (12 s for 1 KB). Twice
 * the whole range is still accepted; a third copy is refused at once. */
static void test_cpulist_parse_refuses_lists_expanding_past_twice_the_range(void **state)
{
	(void)state;
	int *cpus = NULL;
	int n = 0;
	assert_int_equal(cpulist_parse("0-1048576,0-1048576", &cpus, &n), 0);
	assert_int_equal(n, 1048577);
	assert_int_equal(cpus[n - 1], 1048576);
	free(cpus);
	expect_bad_cpulist("0-1048576,0-1048576,0");
	expect_bad_cpulist("0-1048576,0-1048576,0-1048576,0-1048576,0-1048576");
}

static void test_cpulist_parse_single_element_range(void **state)
{
	(void)state;
	static const int w[] = { 4 };
	expect_cpus("4-4", w, 1);
}

static void test_cpulist_parse_rejects_malformed_lists(void **state)
{
	(void)state;
	expect_bad_cpulist("");
	expect_bad_cpulist(",");
	expect_bad_cpulist("1,");
	expect_bad_cpulist(",1");
	expect_bad_cpulist("1,,2");
	expect_bad_cpulist("-1");
	expect_bad_cpulist("0-");
	expect_bad_cpulist("3-1");
	expect_bad_cpulist("a");
	expect_bad_cpulist("1a");
	expect_bad_cpulist("1 2");
	expect_bad_cpulist(" 1");
	expect_bad_cpulist("1-2-3");
	expect_bad_cpulist("+1");
	expect_bad_cpulist("99999999999999999999");
	expect_bad_cpulist("0-2000000"); /* beyond the 1<<20 CPU cap */
}

/* Write content to a temp file and read it back with a buffer of len. */
static int read_str(const char *content, size_t clen, char *buf, size_t len)
{
	char path[64];
	th_write_file(path, content, clen);
	int err = sysfile_read_str(path, buf, len);
	unlink(path);
	return err;
}

static void test_sysfile_read_str_strips_trailing_newline(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(read_str("hello\n", 6, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hello");
}

static void test_sysfile_read_str_strips_trailing_spaces_and_newlines(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(read_str("a b  \n\n", 7, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a b");
}

static void test_sysfile_read_str_keeps_inner_newlines(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(read_str("l1\nl2\n", 6, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "l1\nl2");
}

static void test_sysfile_read_str_empty_file_gives_empty_string(void **state)
{
	(void)state;
	char buf[8];
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(read_str("", 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void test_sysfile_read_str_larger_than_buffer_is_efbig(void **state)
{
	(void)state;
	char buf[8];
	assert_int_equal(read_str("0123456789", 10, buf, sizeof(buf)), -EFBIG);
}

static void test_sysfile_read_str_reads_files_bigger_than_one_read_chunk(void **state)
{
	(void)state;
	static char content[100000];
	for (size_t i = 0; i < sizeof(content); i++)
		content[i] = (char)('a' + i % 26);
	static char buf[sizeof(content) + 16];
	assert_int_equal(read_str(content, sizeof(content), buf, sizeof(buf)), 0);
	assert_int_equal(strlen(buf), sizeof(content));
	assert_memory_equal(buf, content, sizeof(content));
}

/*
 * Regression: a file of exactly len-1 bytes fits (with its NUL); -EFBIG is
 * only for files that do not.
 */
static void test_sysfile_read_str_file_of_exactly_len_minus_1_bytes_fits(void **state)
{
	(void)state;
	char buf[4];
	assert_int_equal(read_str("abc", 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "abc");
}

static void test_sysfile_read_str_missing_file_is_enoent(void **state)
{
	(void)state;
	char buf[8];
	assert_int_equal(sysfile_read_str("/tmp/psrec-unit-does-not-exist/x", buf, sizeof(buf)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse_single_cpu),
		cmocka_unit_test(test_cpulist_parse_range_and_list),
		cmocka_unit_test(test_cpulist_parse_accepts_trailing_newline_as_sysfs_prints_it),
		cmocka_unit_test(test_cpulist_parse_sorts_and_drops_duplicates),
		cmocka_unit_test(test_cpulist_parse_refuses_lists_expanding_past_twice_the_range),
		cmocka_unit_test(test_cpulist_parse_single_element_range),
		cmocka_unit_test(test_cpulist_parse_rejects_malformed_lists),
		cmocka_unit_test(test_sysfile_read_str_strips_trailing_newline),
		cmocka_unit_test(test_sysfile_read_str_strips_trailing_spaces_and_newlines),
		cmocka_unit_test(test_sysfile_read_str_keeps_inner_newlines),
		cmocka_unit_test(test_sysfile_read_str_empty_file_gives_empty_string),
		cmocka_unit_test(test_sysfile_read_str_larger_than_buffer_is_efbig),
		cmocka_unit_test(test_sysfile_read_str_reads_files_bigger_than_one_read_chunk),
		cmocka_unit_test(test_sysfile_read_str_file_of_exactly_len_minus_1_bytes_fits),
		cmocka_unit_test(test_sysfile_read_str_missing_file_is_enoent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
