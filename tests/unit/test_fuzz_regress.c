/*
 * test_fuzz_regress.c - replay the fuzz targets' seed corpus
 * (tests/fuzz/corpus/<target>/) and every input the fuzzer once broke
 * psrec with (tests/fuzz/regress/<target>/) through the targets' own
 * bodies (tests/fuzz/fuzz_*.c), so the normal build keeps checking them
 * without clang or libFuzzer. A body aborts on a broken invariant; under
 * build-asan this also catches the memory errors the fuzzer saw.
 */
#include "test_helpers.h"

#include <dirent.h>

#include "fuzz.h"
#include "format/reader.h"

#ifndef FUZZ_DIR
#error "FUZZ_DIR: the tests/fuzz directory, set by meson"
#endif

/* Each file is copied into a buffer of exactly its size, as libFuzzer
 * gives it, so ASan sees a read past the end. */
static size_t replay_dir(const char *dir, int (*one)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* no regression inputs for this target (yet) */
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		long len = ftell(f);
		assert_true(len >= 0);
		rewind(f);
		uint8_t *buf = malloc(len ? (size_t)len : 1);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		/* Named before the run: an abort leaves it as the last line. */
		print_message("replay %s\n", path);
		assert_int_equal(one(buf, (size_t)len), 0);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void replay(const char *target, int (*one)(const uint8_t *, size_t))
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/corpus/%s", FUZZ_DIR, target);
	size_t seeds = replay_dir(dir, one);
	assert_true(seeds > 0); /* the corpus is committed: it must be there */
	snprintf(dir, sizeof(dir), "%s/regress/%s", FUZZ_DIR, target);
	replay_dir(dir, one);
}

static void test_reader(void **state)
{
	(void)state;
	replay("reader", fuzz_reader_one);
}

/* fold over the reader's corpus (its seeds are recordings), then its own
 * regression inputs */
static void test_fold(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/corpus/reader", FUZZ_DIR);
	assert_true(replay_dir(dir, fuzz_fold_one) > 0);
	snprintf(dir, sizeof(dir), "%s/regress/fold", FUZZ_DIR);
	replay_dir(dir, fuzz_fold_one);
}

static void test_recover(void **state)
{
	(void)state;
	replay("recover", fuzz_recover_one);
}

static void test_options(void **state)
{
	(void)state;
	replay("options", fuzz_options_one);
}

static void test_markers(void **state)
{
	(void)state;
	replay("markers", fuzz_markers_one);
}

/*
 * Found by fuzz_reader: an 8 KB file whose COMPRESSED feature claims
 * mmap_len 4 GiB (capped to 1 GiB) had the reader allocate, and copy on
 * every COMPRESSED record, a 1 GiB buffer: 13 s and 1.2 GB per input. The
 * buffer must only grow as far as the records decompress.
 */
static void test_reader_huge_mmap_len_costs_only_the_output(void **state)
{
	(void)state;
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, FUZZ_DIR "/regress/reader/huge-mmap_len-realloc", &e), 0);
	assert_true(r.mmap_len == 1u << 30);
	struct reader_record rec;
	int k;
	while ((k = reader_next(&r, &rec, &e)) == 1)
		;
	assert_true(r.nr_compressed > 0);
	assert_true(r.z.cap <= 1u << 20);
	reader_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_reader_huge_mmap_len_costs_only_the_output),
		cmocka_unit_test(test_recover),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_markers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
