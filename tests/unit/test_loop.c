/*
 * test_loop.c - the drain pass of the recording loop (src/record/loop.c,
 * loop_drain) over fake rings: a struct sampler built by hand whose rings
 * are ring_init()'d over calloc'd perf_event_mmap_pages and power-of-two
 * data areas, and a writer on a temporary file.
 *
 * Checked: one FINISHED_ROUND per pass, after every ring's records and
 * never between rings (loop.c's preamble, perf-data-format.md 5.2); the
 * rings' tails are released even when the write fails; the compressed pass
 * writes COMPRESSED records then one FINISHED_ROUND; the tally counts only
 * the records that reached the file.
 */
#include "test_helpers.h"

#include <signal.h>
#include <sys/resource.h>
#include <zstd.h>

#include "format/compress.h"
#include "format/writer.h"
#include "record/loop.h"
#include "record/ring.h"
#include "record/sampler.h"

#define NR_RINGS  3
#define RING_SIZE 4096
/* TIME in a TH_SAMPLE_TYPE sample: header, IDENTIFIER, IP, TID, then TIME. */
#define TIME_OFF  32
/* what writer_begin puts in the data: the opening FINISHED_ROUND and an
 * end mark (a 16-byte ID_INDEX) */
#define D0        (8 + 16)

struct fx {
	char path[64];
	int fd;
	struct pd_attr attr;
	struct writer w;
	struct perf_event_mmap_page *meta[NR_RINGS];
	uint8_t *data[NR_RINGS];
	struct ring rings[NR_RINGS];
	int cpus[NR_RINGS];
	struct sampler s;
	struct loop_config c;
	struct loop_stats st;
};

static const uint64_t ids[] = { 7 };

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->fd = th_tmpfile(f->path);
	f->attr.type = PD_TYPE_SOFTWARE;
	f->attr.size = PD_ATTR_SIZE;
	f->attr.config = PD_SW_CPU_CLOCK;
	f->attr.sample_period = 4000;
	f->attr.sample_type = TH_SAMPLE_TYPE;
	f->attr.flags = PD_ATTR_FREQ | PD_ATTR_SAMPLE_ID_ALL;
	const struct writer_event ev = { &f->attr, ids, 1, "cpu-clock" };
	assert_int_equal(writer_begin(&f->w, f->fd, &ev, 1), 0);
	for (int i = 0; i < NR_RINGS; i++) {
		f->meta[i] = calloc(1, sizeof(*f->meta[i]));
		f->data[i] = calloc(1, RING_SIZE);
		assert_non_null(f->meta[i]);
		assert_non_null(f->data[i]);
		ring_init(&f->rings[i], f->meta[i], f->data[i], RING_SIZE);
		f->cpus[i] = i;
	}
	/* All loop_drain reads of a sampler: its rings. */
	f->s.nr_cpus = NR_RINGS;
	f->s.cpus = f->cpus;
	f->s.rings = f->rings;
	f->s.sample_type = TH_SAMPLE_TYPE;
	f->c.signal_fd = -1;
	f->c.time_offset = TIME_OFF;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	for (int i = 0; i < NR_RINGS; i++) {
		free(f->meta[i]);
		free(f->data[i]);
	}
	if (f->fd >= 0)
		close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

/* Start ring i with the kernel's tail and head at pos (so a span can be
 * made to wrap the end of the data area). */
static void ring_start_at(struct fx *f, int i, uint64_t pos)
{
	f->meta[i]->data_tail = pos;
	f->meta[i]->data_head = pos;
	ring_init(&f->rings[i], f->meta[i], f->data[i], RING_SIZE);
}

/* The kernel's side: append a record at ring i's data_head, wrapping. */
static void ring_push(struct fx *f, int i, const void *rec, size_t n)
{
	const uint8_t *b = rec;
	uint64_t head = f->meta[i]->data_head;
	for (size_t k = 0; k < n; k++)
		f->data[i][(head + k) & (RING_SIZE - 1)] = b[k];
	f->meta[i]->data_head = head + n;
}

/* A SAMPLE whose ip names its ring and number: 0x1000 * (ring + 1) + k. */
static uint64_t sample_ip(int ring, int k)
{
	return 0x1000 * (uint64_t)(ring + 1) + (uint64_t)k;
}

static void push_samples(struct fx *f, int ring, int from, int n)
{
	for (int k = from; k < from + n; k++) {
		uint8_t s[TH_SAMPLE_SIZE];
		th_make_sample(s, 7, sample_ip(ring, k), 42, 42, 1000 + 10 * (uint64_t)k + (uint64_t)ring,
			       (uint32_t)ring, 250000);
		ring_push(f, ring, s, sizeof(s));
	}
}

/* A non-sample record (a COMM-sized blob of type MMAP2) in ring i. */
static void push_other(struct fx *f, int ring)
{
	uint8_t rec[48];
	memset(rec, 0x33, sizeof(rec));
	struct pd_event_header h = { PD_RECORD_MMAP2, 0, sizeof(rec) };
	memcpy(rec, &h, sizeof(h));
	ring_push(f, ring, rec, sizeof(rec));
}

static void assert_all_released(struct fx *f)
{
	for (int i = 0; i < NR_RINGS; i++) {
		assert_int_equal(f->meta[i]->data_tail, f->meta[i]->data_head);
		assert_int_equal(f->rings[i].tail, f->meta[i]->data_head);
	}
}

/* The file's data section as a record list: types in types[], SAMPLE ips
 * in ips[] (0 for other records). Returns the number of records. */
static size_t file_records(struct fx *f, uint32_t *types, uint64_t *ips, size_t cap)
{
	size_t len;
	uint8_t *p = th_read_file(f->path, &len);
	assert_true(f->w.end <= len);
	size_t n = 0;
	uint64_t pos = f->w.data_offset;
	while (pos < f->w.end) {
		assert_true(f->w.end - pos >= 8);
		uint32_t type = th_u32(p, (size_t)pos);
		uint16_t size = th_u16(p, (size_t)pos + 6);
		assert_true(size >= 8);
		assert_true(pos + size <= f->w.end);
		assert_true(n < cap);
		types[n] = type;
		ips[n] = type == PD_RECORD_SAMPLE ? th_u64(p, (size_t)pos + 16) : 0;
		n++;
		pos += size;
	}
	assert_int_equal(pos, f->w.end);
	free(p);
	return n;
}

static size_t count_type(const uint32_t *types, size_t n, uint32_t type)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += types[i] == type;
	return k;
}

/* ---- raw passes ----------------------------------------------------- */

static void test_loop_drain_writes_all_rings_then_one_finished_round(void **state)
{
	struct fx *f = *state;
	/* ring 2's span wraps the end of its data area: two iovecs */
	ring_start_at(f, 2, RING_SIZE - 2 * TH_SAMPLE_SIZE + 8);
	push_samples(f, 0, 0, 2);
	push_other(f, 0);
	push_samples(f, 1, 0, 1);
	push_samples(f, 2, 0, 4);

	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);

	uint32_t types[32];
	uint64_t ips[32];
	size_t n = file_records(f, types, ips, 32);
	/* opening round, its end mark, ring 0 (2 samples + MMAP2), ring 1,
	 * ring 2, round */
	assert_int_equal(n, 2 + 3 + 1 + 4 + 1);
	assert_int_equal(types[0], PD_RECORD_FINISHED_ROUND);
	assert_int_equal(types[1], PD_RECORD_ID_INDEX);
	assert_int_equal(types[n - 1], PD_RECORD_FINISHED_ROUND);
	assert_int_equal(count_type(types, n, PD_RECORD_FINISHED_ROUND), 2);
	const uint64_t want[] = {
		0, 0, sample_ip(0, 0), sample_ip(0, 1), 0, sample_ip(1, 0),
		sample_ip(2, 0), sample_ip(2, 1), sample_ip(2, 2), sample_ip(2, 3), 0,
	};
	assert_memory_equal(ips, want, sizeof(want));
	assert_int_equal(types[4], PD_RECORD_MMAP2);

	assert_all_released(f);
	assert_int_equal(f->st.passes, 1);
	assert_int_equal(f->st.tally.samples, 7);
	assert_int_equal(f->st.tally.records, 8);
	assert_int_equal(f->st.tally.first_time, 1000);
	assert_int_equal(f->st.tally.last_time, 1000 + 30 + 2);
	assert_int_equal(f->st.bad_spans, 0);
	assert_int_equal(f->w.error, 0);
}

static void test_loop_drain_each_pass_ends_with_its_own_round(void **state)
{
	struct fx *f = *state;
	push_samples(f, 0, 0, 1);
	push_samples(f, 2, 0, 1);
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);
	/* second pass: only ring 1 has data */
	push_samples(f, 1, 0, 2);
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);
	/* third pass: nothing anywhere, so nothing at all is written */
	uint64_t end = f->w.end;
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);
	assert_int_equal(f->w.end, end);

	uint32_t types[32];
	uint64_t ips[32];
	size_t n = file_records(f, types, ips, 32);
	const uint32_t want_types[] = {
		PD_RECORD_FINISHED_ROUND, PD_RECORD_ID_INDEX,
		PD_RECORD_SAMPLE, PD_RECORD_SAMPLE, PD_RECORD_FINISHED_ROUND,
		PD_RECORD_SAMPLE, PD_RECORD_SAMPLE, PD_RECORD_FINISHED_ROUND,
	};
	assert_int_equal(n, sizeof(want_types) / sizeof(want_types[0]));
	assert_memory_equal(types, want_types, sizeof(want_types));
	assert_int_equal(ips[2], sample_ip(0, 0));
	assert_int_equal(ips[3], sample_ip(2, 0));
	assert_int_equal(ips[5], sample_ip(1, 0));
	assert_int_equal(ips[6], sample_ip(1, 1));
	assert_int_equal(f->st.passes, 2);
	assert_int_equal(f->st.tally.samples, 4);
	assert_all_released(f);
}

/* A ring whose head is more than a ring ahead is skipped, the rest kept. */
static void test_loop_drain_skips_a_corrupted_ring_and_keeps_the_others(void **state)
{
	struct fx *f = *state;
	push_samples(f, 0, 0, 1);
	f->meta[1]->data_head = f->meta[1]->data_tail + 2 * RING_SIZE;
	push_samples(f, 2, 0, 1);
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);
	uint32_t types[8];
	uint64_t ips[8];
	size_t n = file_records(f, types, ips, 8);
	assert_int_equal(n, 5);
	assert_int_equal(ips[2], sample_ip(0, 0));
	assert_int_equal(ips[3], sample_ip(2, 0));
	assert_int_equal(types[4], PD_RECORD_FINISHED_ROUND);
	assert_int_equal(f->st.bad_spans, 1);
	assert_int_equal(f->st.tally.samples, 2);
}

/* Swap the writer's fd for one that fails: /dev/full (ENOSPC) or the
 * file opened read-only (EBADF). */
static void break_fd(struct fx *f, bool readonly)
{
	int bad = readonly ? open(f->path, O_RDONLY) : open("/dev/full", O_WRONLY);
	if (bad < 0)
		skip();
	assert_int_equal(dup2(bad, f->fd), f->fd);
	close(bad);
}

static void drain_failing(struct fx *f, bool readonly)
{
	push_samples(f, 0, 0, 3);
	push_samples(f, 1, 0, 1);
	push_samples(f, 2, 0, 2);
	uint64_t end = f->w.end;
	break_fd(f, readonly);
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), readonly ? -EBADF : -ENOSPC);
	/* the data cannot go anywhere else: the rings are given back anyway */
	assert_all_released(f);
	/* and nothing counts that did not reach the file */
	assert_int_equal(f->w.end, end);
	assert_int_equal(f->st.tally.samples, 0);
	assert_int_equal(f->st.tally.records, 0);
	assert_int_equal(f->st.passes, 0);
}

static void test_loop_drain_releases_rings_when_the_disk_is_full(void **state)
{
	drain_failing(*state, false);
}

static void test_loop_drain_releases_rings_when_the_fd_is_read_only(void **state)
{
	drain_failing(*state, true);
}

/*
 * RLIMIT_FSIZE makes the pass's pwritev stop part-way, like a disk filling
 * up mid-record (test_writer.c does the same to the writer alone).
 */
struct fsize_guard {
	struct rlimit old;
	void (*old_handler)(int);
};

static void limit_file_size(struct fsize_guard *g, uint64_t limit)
{
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &g->old), 0);
	g->old_handler = signal(SIGXFSZ, SIG_IGN);
	struct rlimit l = { (rlim_t)limit, g->old.rlim_max };
	if (g->old.rlim_max != RLIM_INFINITY && g->old.rlim_max < limit)
		l.rlim_max = g->old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &l), 0);
}

static void unlimit_file_size(struct fsize_guard *g)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &g->old), 0);
	signal(SIGXFSZ, g->old_handler);
}

static void test_loop_drain_short_write_tallies_only_what_reached_the_file(void **state)
{
	struct fx *f = *state;
	push_samples(f, 0, 0, 2);
	push_samples(f, 1, 0, 2);
	push_samples(f, 2, 0, 2);
	uint64_t end0 = f->w.end;
	/* room for ring 0's two samples, ring 1's first and 20 bytes more */
	struct fsize_guard g;
	limit_file_size(&g, end0 + 3 * TH_SAMPLE_SIZE + 20);
	int rc = loop_drain(&f->s, &f->w, &f->c, &f->st);
	unlimit_file_size(&g);

	assert_int_equal(rc, -EFBIG);
	assert_int_equal(f->w.end, end0 + 3 * TH_SAMPLE_SIZE);
	assert_int_equal(f->st.tally.samples, 3);
	assert_int_equal(f->st.tally.records, 3);
	/* ring 1's second sample (time 1011) did not make it */
	assert_int_equal(f->st.tally.last_time, 1010);
	assert_int_equal(f->st.passes, 0);
	assert_all_released(f);
	uint32_t types[8];
	uint64_t ips[8];
	size_t n = file_records(f, types, ips, 8);
	assert_int_equal(n, 5);
	assert_int_equal(ips[2], sample_ip(0, 0));
	assert_int_equal(ips[3], sample_ip(0, 1));
	assert_int_equal(ips[4], sample_ip(1, 0));
}

/* ---- compressed passes ---------------------------------------------- */

/* Decompress every COMPRESSED payload of the data section with one
 * stream, into out; returns the bytes. */
static size_t decompress_file(struct fx *f, uint8_t *out, size_t cap)
{
	size_t len;
	uint8_t *p = th_read_file(f->path, &len);
	ZSTD_DStream *ds = ZSTD_createDStream();
	assert_non_null(ds);
	ZSTD_initDStream(ds);
	size_t got = 0;
	uint64_t pos = f->w.data_offset;
	while (pos < f->w.end) {
		uint32_t type = th_u32(p, (size_t)pos);
		uint16_t size = th_u16(p, (size_t)pos + 6);
		if (type == PD_RECORD_COMPRESSED) {
			ZSTD_inBuffer in = { p + pos + 8, size - 8u, 0 };
			while (in.pos < in.size) {
				ZSTD_outBuffer o = { out + got, cap - got, 0 };
				size_t r = ZSTD_decompressStream(ds, &o, &in);
				assert_false(ZSTD_isError(r));
				got += o.pos;
			}
		}
		pos += size;
	}
	ZSTD_freeDStream(ds);
	free(p);
	return got;
}

static void test_loop_drain_compressed_writes_compressed_records_then_one_round(void **state)
{
	struct fx *f = *state;
	struct compressor z;
	assert_int_equal(compress_init(&z, 1, RING_SIZE), 0);
	f->c.compress = &z;
	ring_start_at(f, 1, RING_SIZE - TH_SAMPLE_SIZE - 8); /* wraps */
	push_samples(f, 0, 0, 3);
	push_samples(f, 1, 0, 2);
	push_other(f, 1);
	push_samples(f, 2, 0, 1);

	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);

	uint32_t types[32];
	uint64_t ips[32];
	size_t n = file_records(f, types, ips, 32);
	/* opening round, its end mark, one COMPRESSED record per ring (small
	 * spans: one chunk each), then the pass's round, uncompressed */
	assert_int_equal(n, 2 + NR_RINGS + 1);
	assert_int_equal(types[0], PD_RECORD_FINISHED_ROUND);
	assert_int_equal(types[1], PD_RECORD_ID_INDEX);
	for (size_t i = 2; i < n - 1; i++)
		assert_int_equal(types[i], PD_RECORD_COMPRESSED);
	assert_int_equal(types[n - 1], PD_RECORD_FINISHED_ROUND);

	/* the payloads decode to the rings' records, in ring order */
	uint8_t back[8192];
	size_t got = decompress_file(f, back, sizeof(back));
	assert_int_equal(got, 6 * TH_SAMPLE_SIZE + 48);
	const uint64_t want[] = {
		sample_ip(0, 0), sample_ip(0, 1), sample_ip(0, 2), sample_ip(1, 0), sample_ip(1, 1),
	};
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(th_u64(back, i * TH_SAMPLE_SIZE + 16), want[i]);
	assert_int_equal(th_u32(back, 5 * TH_SAMPLE_SIZE), PD_RECORD_MMAP2);
	assert_int_equal(th_u64(back, 5 * TH_SAMPLE_SIZE + 48 + 16), sample_ip(2, 0));

	assert_all_released(f);
	assert_int_equal(f->st.passes, 1);
	assert_int_equal(f->st.tally.samples, 6);
	assert_int_equal(f->st.tally.records, 7);

	/* an empty pass writes no round */
	uint64_t end = f->w.end;
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);
	assert_int_equal(f->w.end, end);
	assert_int_equal(f->st.passes, 1);
	compress_free(&z);
}

static void test_loop_drain_compressed_releases_rings_on_write_error(void **state)
{
	struct fx *f = *state;
	struct compressor z;
	assert_int_equal(compress_init(&z, 1, RING_SIZE), 0);
	f->c.compress = &z;
	push_samples(f, 0, 0, 2);
	push_samples(f, 1, 0, 2);
	push_samples(f, 2, 0, 2);
	uint64_t end = f->w.end;
	break_fd(f, false);
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), -ENOSPC);
	/* Every ring is given back, the one whose write failed and the
	 * ones after it, as in the raw pass. */
	assert_all_released(f);
	assert_int_equal(f->w.end, end);
	assert_int_equal(f->st.tally.samples, 0);
	assert_int_equal(f->st.passes, 0);
	compress_free(&z);
}

/* The size of ring 0's COMPRESSED record for the given data, from a dry
 * run on a fresh compressor (compression is deterministic). */
static size_t first_record_size(void **state)
{
	struct fx *f = *state;
	struct compressor z;
	assert_int_equal(compress_init(&z, 1, RING_SIZE), 0);
	f->c.compress = &z;
	push_samples(f, 0, 0, 2);
	push_samples(f, 1, 0, 2);
	assert_int_equal(loop_drain(&f->s, &f->w, &f->c, &f->st), 0);
	size_t len;
	uint8_t *p = th_read_file(f->path, &len);
	size_t size = th_u16(p, (size_t)f->w.data_offset + D0 + 6);
	free(p);
	compress_free(&z);
	return size;
}

static void test_loop_drain_compressed_short_write_tallies_only_what_reached_the_file(void **state)
{
	size_t first = first_record_size(state);
	teardown(state);
	setup(state);
	struct fx *f = *state;
	struct compressor z;
	assert_int_equal(compress_init(&z, 1, RING_SIZE), 0);
	f->c.compress = &z;
	push_samples(f, 0, 0, 2);
	push_samples(f, 1, 0, 2);
	uint64_t end0 = f->w.end;
	/* ring 0's record fits, ring 1's does not */
	struct fsize_guard g;
	limit_file_size(&g, end0 + first + 4);
	int rc = loop_drain(&f->s, &f->w, &f->c, &f->st);
	unlimit_file_size(&g);

	assert_int_equal(rc, -EFBIG);
	assert_int_equal(f->w.end, end0 + first);
	assert_int_equal(f->st.tally.samples, 2);
	assert_int_equal(f->st.tally.last_time, 1000 + 10);
	assert_int_equal(f->st.passes, 0);
	assert_all_released(f);
	compress_free(&z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loop_drain_writes_all_rings_then_one_finished_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_each_pass_ends_with_its_own_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_skips_a_corrupted_ring_and_keeps_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_releases_rings_when_the_disk_is_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_releases_rings_when_the_fd_is_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_short_write_tallies_only_what_reached_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_compressed_writes_compressed_records_then_one_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_compressed_releases_rings_on_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_drain_compressed_short_write_tallies_only_what_reached_the_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
