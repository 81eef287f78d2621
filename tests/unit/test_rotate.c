/* test_rotate.c - --switch-output triggers, chunk names and the kept list
 * (src/record/rotate.c), the side band carried into a chunk (carry.c),
 * the chunk commands (spawn.c), the side band kept between chunks
 * (sidecache.c). */
#include "test_helpers.h"

#include <signal.h>
#include <time.h>

#include "psrec/perf_data.h"
#include "record/carry.h"
#include "record/rotate.h"
#include "record/sidecache.h"
#include "record/spawn.h"

static struct rotate_spec parsed(const char *arg)
{
	struct rotate_spec s = { 0 };
	struct err e = { "" };
	int rc = rotate_parse(&s, arg, &e);
	if (rc)
		fail_msg("rotate_parse(%s) = %d: %s", arg ? arg : "NULL", rc, e.msg);
	return s;
}

static void test_rotate_no_argument_and_signal_cut_on_sigusr2(void **state)
{
	(void)state;
	assert_int_equal(parsed(NULL).mode, ROTATE_SIGNAL);
	assert_int_equal(parsed("signal").mode, ROTATE_SIGNAL);
}

static void test_rotate_sizes_take_upper_case_units(void **state)
{
	(void)state;
	struct rotate_spec s = parsed("100M");
	assert_int_equal(s.mode, ROTATE_SIZE);
	assert_int_equal(s.bytes, 100ULL << 20);
	assert_int_equal(parsed("512B").bytes, 512);
	assert_int_equal(parsed("64K").bytes, 64ULL << 10);
	assert_int_equal(parsed("2G").bytes, 2ULL << 30);
}

static void test_rotate_times_take_lower_case_units(void **state)
{
	(void)state;
	struct rotate_spec s = parsed("10s");
	assert_int_equal(s.mode, ROTATE_TIME);
	assert_int_equal(s.ms, 10000);
	/* perf's tags: m is a minute (M would be MiB). */
	assert_int_equal(parsed("1m").ms, 60000);
	assert_int_equal(parsed("2h").ms, 2 * 3600 * 1000);
	assert_int_equal(parsed("1d").ms, 24 * 3600 * 1000);
}

static void test_rotate_malformed_triggers_are_einval_naming_the_forms(void **state)
{
	(void)state;
	const char *bad[] = { "", "10", "s", "1.5s", "0s", "0M", "10x", "10ss", "-1s", " 1s", "1s ", "sig",
			      "99999999999999999999s", "18446744073709551615G" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rotate_spec s = { 0 };
		struct err e = { "" };
		if (rotate_parse(&s, bad[i], &e) != -EINVAL)
			fail_msg("rotate_parse('%s') accepted it", bad[i]);
		assert_non_null(strstr(e.msg, "--switch-output"));
		assert_non_null(strstr(e.msg, "10s"));
	}
}

static void test_rotate_max_files_is_a_positive_count(void **state)
{
	(void)state;
	struct rotate_spec s = { 0 };
	struct err e = { "" };
	assert_int_equal(rotate_parse_max_files(&s, "2", &e), 0);
	assert_int_equal(s.max_files, 2);
	const char *bad[] = { "0", "", "-1", "2x", "x", "10000001" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rotate_parse_max_files(&s, bad[i], &e) != -EINVAL)
			fail_msg("--switch-max-files '%s' accepted", bad[i]);
}

static void test_rotate_chunk_name_is_perfs_16_digit_local_time(void **state)
{
	(void)state;
	/* As perf record --switch-output names them: perf.data.2026120115042865
	 * for 15:04:28.65 local time (hundredths, not milliseconds). */
	char tz[] = "TZ=UTC";
	putenv(tz);
	tzset();
	struct tm tm = { .tm_year = 2026 - 1900, .tm_mon = 11, .tm_mday = 1, .tm_hour = 15, .tm_min = 4, .tm_sec = 28 };
	struct timespec ts = { timegm(&tm), 659999999 };
	char name[64];
	assert_int_equal(rotate_chunk_name(name, sizeof(name), "perf.data", &ts), 0);
	assert_string_equal(name, "perf.data.2026120115042865");
	assert_int_equal(strlen(name) - strlen("perf.data."), ROTATE_STAMP_LEN);
	ts.tv_nsec = 0;
	assert_int_equal(rotate_chunk_name(name, sizeof(name), "/d/x", &ts), 0);
	assert_string_equal(name, "/d/x.2026120115042800");
	assert_int_equal(rotate_chunk_name(name, 20, "perf.data", &ts), -ENAMETOOLONG);
}

static void test_rotate_kept_evicts_the_oldest_past_the_limit(void **state)
{
	(void)state;
	struct rotate_kept k;
	char *ev;
	rotate_kept_init(&k, 2);
	assert_int_equal(rotate_kept_add(&k, "a", &ev), 0);
	assert_null(ev);
	assert_int_equal(rotate_kept_add(&k, "b", &ev), 0);
	assert_null(ev);
	assert_int_equal(rotate_kept_add(&k, "c", &ev), 0);
	assert_string_equal(ev, "a");
	free(ev);
	assert_int_equal(rotate_kept_add(&k, "d", &ev), 0);
	assert_string_equal(ev, "b");
	free(ev);
	assert_int_equal(k.nr, 2);
	assert_string_equal(k.names[0], "c");
	assert_string_equal(k.names[1], "d");
	rotate_kept_free(&k);

	/* No limit: nothing is ever evicted. */
	rotate_kept_init(&k, 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(rotate_kept_add(&k, "x", &ev), 0);
		assert_null(ev);
	}
	assert_int_equal(k.nr, 100);
	rotate_kept_free(&k);
}

/* A fake ring of 64 bytes holding records of the given types and sizes,
 * starting at offset start (so that one may wrap). */
struct fake_ring {
	struct perf_event_mmap_page meta;
	uint8_t data[64];
	struct ring r;
};

static void fake_put(struct fake_ring *f, uint64_t *pos, uint32_t type, uint16_t size, uint8_t fill)
{
	for (uint16_t i = 0; i < size; i++)
		f->data[(*pos + i) & 63] = fill;
	struct pd_event_header h = { .type = type, .misc = 0, .size = size };
	for (size_t i = 0; i < sizeof(h); i++)
		f->data[(*pos + i) & 63] = ((uint8_t *)&h)[i];
	*pos += size;
}

static void test_carry_copies_side_band_records_only_even_across_the_wrap(void **state)
{
	(void)state;
	struct fake_ring f;
	memset(&f, 0, sizeof(f));
	uint64_t start = 40, pos = start;
	fake_put(&f, &pos, PD_RECORD_SAMPLE, 16, 0xaa);
	fake_put(&f, &pos, PD_RECORD_COMM, 16, 0xbb);   /* 56..72: wraps */
	fake_put(&f, &pos, PD_RECORD_SAMPLE, 8, 0xcc);
	fake_put(&f, &pos, PD_RECORD_MMAP2, 16, 0xdd);
	fake_put(&f, &pos, PD_RECORD_FORK, 8, 0xee);
	f.meta.data_tail = start;
	f.meta.data_head = pos;
	ring_init(&f.r, &f.meta, f.data, 64);
	struct iovec iov[2];
	size_t bytes;
	assert_true(ring_read_span(&f.r, iov, &bytes) > 0);
	struct buf out = BUF_INIT;
	assert_int_equal(carry_sideband(&f.r, bytes, &out), 0);
	assert_int_equal(out.len, 16 + 16 + 8);
	struct pd_event_header h;
	memcpy(&h, out.data, sizeof(h));
	assert_int_equal(h.type, PD_RECORD_COMM);
	assert_int_equal(out.data[15], 0xbb);   /* the part past the wrap */
	memcpy(&h, out.data + 16, sizeof(h));
	assert_int_equal(h.type, PD_RECORD_MMAP2);
	memcpy(&h, out.data + 32, sizeof(h));
	assert_int_equal(h.type, PD_RECORD_FORK);
	/* Only what a short write kept: the first 32 bytes hold the COMM. */
	buf_reset(&out);
	assert_int_equal(carry_sideband(&f.r, 32, &out), 0);
	assert_int_equal(out.len, 16);
	buf_free(&out);
}

/* A fake /proc for sidecache_refresh: processes 10, 20, 30 live; each
 * description is 8 bytes of its pid; calls counts the descriptions. */
struct fake_procs {
	bool alive[64];
	int calls;
};

static int fake_live(void *ctx, pid_t **pids, size_t *n)
{
	struct fake_procs *f = ctx;
	*pids = calloc(64, sizeof(**pids));
	*n = 0;
	for (pid_t p = 0; p < 64; p++)
		if (f->alive[p])
			(*pids)[(*n)++] = p;
	return 0;
}

static int fake_synth(void *ctx, pid_t pid, struct buf *b)
{
	struct fake_procs *f = ctx;
	f->calls++;
	return f->alive[pid] ? buf_append_u64(b, (uint64_t)pid) : 0;
}

static void ring_with(struct fake_ring *f, const uint32_t *types, const uint32_t *pids, size_t n)
{
	memset(f, 0, sizeof(*f));
	uint64_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		fake_put(f, &pos, types[i], 16, 0);
		memcpy(f->data + pos - 16 + 8, &pids[i], 4);
	}
	f->meta.data_head = pos;
	ring_init(&f->r, &f->meta, f->data, 64);
	struct iovec iov[2];
	size_t bytes;
	ring_read_span(&f->r, iov, &bytes);
}

static void test_sidecache_rereads_only_processes_whose_side_band_changed(void **state)
{
	(void)state;
	struct fake_procs p = { .alive = { [10] = true, [20] = true, [30] = true } };
	struct sidecache c;
	struct buf out = BUF_INIT;
	assert_int_equal(sidecache_init(&c, 64), 0);
	/* The first refresh reads every live process. */
	assert_int_equal(sidecache_refresh(&c, fake_live, fake_synth, &p, &out), 0);
	assert_int_equal(p.calls, 3);
	assert_int_equal(out.len, 24);
	/* Nothing reported: nothing read, the same records. */
	buf_reset(&out);
	p.calls = 0;
	assert_int_equal(sidecache_refresh(&c, fake_live, fake_synth, &p, &out), 0);
	assert_int_equal(p.calls, 0);
	assert_int_equal(out.len, 24);
	/* 20 exits, 40 is forked, 10 maps something; a SAMPLE of 30 changes
	 * nothing. */
	p.alive[20] = false;
	p.alive[40] = true;
	struct fake_ring f;
	const uint32_t types[] = { PD_RECORD_EXIT, PD_RECORD_FORK, PD_RECORD_MMAP2, PD_RECORD_SAMPLE };
	const uint32_t pids[] = { 20, 40, 10, 30 };
	ring_with(&f, types, pids, 4);
	sidecache_mark(&c, &f.r, 64);
	buf_reset(&out);
	p.calls = 0;
	assert_int_equal(sidecache_refresh(&c, fake_live, fake_synth, &p, &out), 0);
	assert_int_equal(p.calls, 3);
	assert_int_equal(out.len, 24);
	uint64_t got[3];
	memcpy(got, out.data, sizeof(got));
	assert_int_equal(got[0], 10);
	assert_int_equal(got[1], 30);
	assert_int_equal(got[2], 40);
	/* A LOST record may hide anything: all are read again. */
	const uint32_t lost[] = { PD_RECORD_LOST };
	const uint32_t none[] = { 0 };
	ring_with(&f, lost, none, 1);
	sidecache_mark(&c, &f.r, 16);
	buf_reset(&out);
	p.calls = 0;
	assert_int_equal(sidecache_refresh(&c, fake_live, fake_synth, &p, &out), 0);
	assert_int_equal(p.calls, 3);
	assert_int_equal(out.len, 24);
	/* A pid past pid_max (or -1, the kernel's) is ignored. */
	const uint32_t odd[] = { PD_RECORD_MMAP, PD_RECORD_MMAP };
	const uint32_t oddpids[] = { 1000, 0xffffffffu };
	ring_with(&f, odd, oddpids, 2);
	sidecache_mark(&c, &f.r, 32);
	buf_reset(&out);
	p.calls = 0;
	assert_int_equal(sidecache_refresh(&c, fake_live, fake_synth, &p, &out), 0);
	assert_int_equal(p.calls, 0);
	buf_free(&out);
	sidecache_free(&c);
}

static void test_spawn_runs_the_command_with_the_path_and_reaps_without_waiting(void **state)
{
	(void)state;
	char dir[] = "/tmp/psrec-test-spawn.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[256], want[256], got[256] = "";
	/* it waits for go, which the test makes only after the reap: that
	 * the reap did not wait is a condition, not a clock reading */
	snprintf(cmd, sizeof(cmd), "while [ ! -e %s/go ]; do sleep 0.01; done; printf '%%s' >%s/out", dir, dir);
	snprintf(want, sizeof(want), "%s/a chunk with spaces", dir);
	sigset_t none;
	sigemptyset(&none);
	struct spawn_set s;
	spawn_init(&s);
	assert_int_equal(spawn_command(&s, cmd, want, &none), 0);
	assert_int_equal(spawn_reap(&s), 1);    /* still waiting for go: not waited for */
	char go[300];
	snprintf(go, sizeof(go), "%s/go", dir);
	FILE *g = fopen(go, "w");
	assert_non_null(g);
	fclose(g);
	assert_int_equal(spawn_command(&s, "exit 3", "x", &none), 0);
	spawn_wait_all(&s);
	assert_int_equal(s.nr, 0);
	assert_int_equal(s.started, 2);
	assert_int_equal(s.failed, 1);
	char out[300];
	snprintf(out, sizeof(out), "%s/out", dir);
	FILE *fp = fopen(out, "r");
	assert_non_null(fp);
	assert_non_null(fgets(got, sizeof(got), fp));
	fclose(fp);
	assert_string_equal(got, want);
	unlink(out);
	unlink(go);
	rmdir(dir);
	spawn_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotate_no_argument_and_signal_cut_on_sigusr2),
		cmocka_unit_test(test_rotate_sizes_take_upper_case_units),
		cmocka_unit_test(test_rotate_times_take_lower_case_units),
		cmocka_unit_test(test_rotate_malformed_triggers_are_einval_naming_the_forms),
		cmocka_unit_test(test_rotate_max_files_is_a_positive_count),
		cmocka_unit_test(test_rotate_chunk_name_is_perfs_16_digit_local_time),
		cmocka_unit_test(test_rotate_kept_evicts_the_oldest_past_the_limit),
		cmocka_unit_test(test_carry_copies_side_band_records_only_even_across_the_wrap),
		cmocka_unit_test(test_sidecache_rereads_only_processes_whose_side_band_changed),
		cmocka_unit_test(test_spawn_runs_the_command_with_the_path_and_reaps_without_waiting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
