/*
 * test_sideband.c - thread names over time in the side band
 * (src/session/sideband.c): the name a thread had at a time, each distinct
 * name stored once, and tens of thousands of distinct names.
 */
#include "test_helpers.h"

#include <inttypes.h>

#include "format/reader.h"
#include "session/sideband.h"
#include "util/buf.h"

/* Non-sample records carry pid, tid and time in their trailer. */
#define ST (PD_SAMPLE_TID | PD_SAMPLE_TIME)

/* A COMM record: pid, tid, the name in 16 bytes (no NUL when it takes
 * all 16, as the kernel writes TASK_COMM_LEN names), the trailer. */
static void put_comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name, uint64_t time)
{
	uint8_t r[8 + 8 + 16 + 16] = { 0 };
	struct pd_event_header h = { PD_RECORD_COMM, 0, sizeof(r) };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, tid);
	size_t n = strlen(name);
	assert_true(n <= 16);
	memcpy(r + 16, name, n);
	th_put_u32(r, 32, pid);
	th_put_u32(r, 36, tid);
	th_put_u64(r, 40, time);
	assert_int_equal(buf_append(b, r, sizeof(r)), 0);
}

/* A FORK record: pid, ppid, tid, ptid, time, then the trailer. */
static void put_fork(struct buf *b, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	uint8_t r[8 + 24 + 16] = { 0 };
	struct pd_event_header h = { PD_RECORD_FORK, 0, sizeof(r) };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, ppid);
	th_put_u32(r, 16, tid);
	th_put_u32(r, 20, ptid);
	th_put_u64(r, 24, time);
	th_put_u32(r, 32, pid);
	th_put_u32(r, 36, tid);
	th_put_u64(r, 40, time);
	assert_int_equal(buf_append(b, r, sizeof(r)), 0);
}

/* The records as a perf.data file, loaded into sb. */
static void load(const struct buf *recs, struct sideband *sb)
{
	char path[64];
	int fd = th_tmpfile(path);
	struct writer w;
	th_data_begin(&w, fd, ST, recs->data, recs->len);
	int ferr = 0;
	assert_int_equal(writer_finish(&w, NULL, 0, &ferr), 0);
	close(fd);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	sideband_init(sb);
	if (sideband_load(sb, &r, &e))
		fail_msg("sideband_load: %s", e.msg);
	reader_close(&r);
	unlink(path);
}

/* The last COMM at or before the time, else the first; a 16-byte name
 * without its NUL is whole; equal names are one string. */
static void test_sideband_comm_over_time_and_shared(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	put_comm(&b, 10, 10, "sh", 100);
	put_comm(&b, 10, 10, "make", 300);
	put_comm(&b, 10, 11, "make", 200);
	put_comm(&b, 10, 12, "sixteen-bytes-ab", 50);
	struct sideband sb;
	load(&b, &sb);
	assert_string_equal(sideband_comm(&sb, 10, 50), "sh");
	assert_string_equal(sideband_comm(&sb, 10, 299), "sh");
	assert_string_equal(sideband_comm(&sb, 10, 300), "make");
	assert_string_equal(sideband_comm(&sb, 11, 0), "make");
	assert_ptr_equal(sideband_comm(&sb, 10, 300), sideband_comm(&sb, 11, 200));
	assert_string_equal(sideband_comm(&sb, 12, 60), "sixteen-bytes-ab");
	assert_null(sideband_comm(&sb, 13, 60));
	sideband_free(&sb);
	buf_free(&b);
}

/* A thread or a child has its parent's name from the FORK until its own
 * first COMM, through a chain of forks; a fork cycle (pid reuse in bad
 * input) ends. */
static void test_sideband_comm_inherited_at_fork(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	put_comm(&b, 10, 10, "sh", 100);
	put_comm(&b, 10, 10, "bash", 150);
	put_fork(&b, 20, 10, 20, 10, 200);      /* a child of sh... */
	put_comm(&b, 20, 20, "make", 400);      /* ...that execs make */
	put_fork(&b, 20, 20, 21, 20, 500);      /* a thread of make, never named */
	put_fork(&b, 30, 20, 30, 20, 300);      /* a child of the child before the exec */
	put_fork(&b, 40, 41, 40, 41, 10);       /* 40 and 41 fork each other */
	put_fork(&b, 41, 40, 41, 40, 20);
	struct sideband sb;
	load(&b, &sb);
	assert_string_equal(sideband_comm(&sb, 20, 250), "bash");
	assert_string_equal(sideband_comm(&sb, 20, 400), "make");
	assert_string_equal(sideband_comm(&sb, 21, 600), "make");
	assert_string_equal(sideband_comm(&sb, 30, 350), "bash");
	assert_null(sideband_comm(&sb, 40, 30));
	sideband_free(&sb);
	buf_free(&b);
}

/* A name per thread, 50k of them, each renamed once to one of ten shared
 * names: every lookup right, and a shared name one string however many
 * threads have it. A scan per COMM made this quadratic. */
#define MANY 50000
static void test_sideband_many_distinct_comms(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	char name[17];
	for (uint32_t i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "worker-%" PRIu32, i);
		put_comm(&b, 1, 100 + i, name, 10);
	}
	for (uint32_t i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "pool-%" PRIu32, i % 10);
		put_comm(&b, 1, 100 + i, name, 20);
	}
	struct sideband sb;
	load(&b, &sb);
	assert_int_equal(sb.nr_comms, MANY);
	assert_int_equal(sb.names.n, MANY + 10);
	for (uint32_t i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "worker-%" PRIu32, i);
		assert_string_equal(sideband_comm(&sb, (int32_t)(100 + i), 15), name);
		snprintf(name, sizeof(name), "pool-%" PRIu32, i % 10);
		const char *later = sideband_comm(&sb, (int32_t)(100 + i), 25);
		assert_string_equal(later, name);
		assert_ptr_equal(later, sideband_comm(&sb, (int32_t)(100 + i % 10), 25));
	}
	sideband_free(&sb);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sideband_comm_over_time_and_shared),
		cmocka_unit_test(test_sideband_comm_inherited_at_fork),
		cmocka_unit_test(test_sideband_many_distinct_comms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
