/*
 * test_ring.c - ring span logic (src/record/ring.c) on a fake in-memory
 * ring: a calloc'd perf_event_mmap_page and a 256-byte data area.
 */
#include "test_helpers.h"

#include "record/ring.h"

#define RING_SIZE 256

struct fake {
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	struct ring r;
};

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->meta = calloc(1, sizeof(*f->meta));
	f->data = calloc(1, RING_SIZE);
	assert_non_null(f->meta);
	assert_non_null(f->data);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	free(f->meta);
	free(f->data);
	free(f);
	return 0;
}

/* Start the ring with the kernel's tail (and head) at pos. */
static void start_at(struct fake *f, uint64_t pos)
{
	f->meta->data_tail = pos;
	f->meta->data_head = pos;
	ring_init(&f->r, f->meta, f->data, RING_SIZE);
}

/* Write bytes at free-running position pos, wrapping like the kernel. */
static void ring_put(struct fake *f, uint64_t pos, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		f->data[(pos + i) & (RING_SIZE - 1)] = b[i];
}

/* Write a record of type/size at pos (payload bytes = fill, or u64s given
 * in words[] from offset 8). Returns pos + size. */
static uint64_t put_record(struct fake *f, uint64_t pos, uint32_t type, uint16_t size,
			   const uint64_t *words, size_t nwords)
{
	uint8_t rec[512];
	assert_true(size <= sizeof(rec));
	memset(rec, 0x5a, size);
	struct pd_event_header h = { type, 0, size };
	memcpy(rec, &h, sizeof(h));
	for (size_t i = 0; i < nwords; i++)
		th_put_u64(rec, 8 + 8 * i, words[i]);
	ring_put(f, pos, rec, size);
	return pos + size;
}

/* Concatenate the iovecs of a span. */
static size_t gather(const struct iovec *iov, int n, uint8_t *out)
{
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		memcpy(out + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	return len;
}

/* ---- spans ------------------------------------------------------------ */

static void test_ring_init_starts_at_kernel_data_tail(void **state)
{
	struct fake *f = *state;
	f->meta->data_tail = 1040;
	f->meta->data_head = 1080;
	ring_init(&f->r, f->meta, f->data, RING_SIZE);
	assert_int_equal(f->r.tail, 1040);
	assert_int_equal(f->r.head, 1040);
	assert_int_equal(f->r.size, RING_SIZE);
	assert_ptr_equal(f->r.data, f->data);
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(bytes, 40);
	assert_ptr_equal(iov[0].iov_base, f->data + (1040 % RING_SIZE));
}

static void test_ring_empty_span_gives_no_iovecs(void **state)
{
	struct fake *f = *state;
	start_at(f, 96);
	struct iovec iov[2];
	size_t bytes = 123;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 0);
	assert_int_equal(bytes, 0);
	ring_release(&f->r);
	assert_int_equal(f->meta->data_tail, 96);
}

static void test_ring_span_inside_buffer_gives_one_iovec(void **state)
{
	struct fake *f = *state;
	start_at(f, 16);
	f->meta->data_head = 16 + 64;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(bytes, 64);
	assert_ptr_equal(iov[0].iov_base, f->data + 16);
	assert_int_equal(iov[0].iov_len, 64);
}

static void test_ring_span_ending_exactly_at_buffer_end_gives_one_iovec(void **state)
{
	struct fake *f = *state;
	start_at(f, 200);
	f->meta->data_head = RING_SIZE;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(bytes, 56);
	assert_ptr_equal(iov[0].iov_base, f->data + 200);
	assert_int_equal(iov[0].iov_len, 56);

	/* the same after many laps of the free-running counters */
	start_at(f, 7 * RING_SIZE + 200);
	f->meta->data_head = 8 * RING_SIZE;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(iov[0].iov_len, 56);
}

static void test_ring_span_wraps_into_two_iovecs(void **state)
{
	struct fake *f = *state;
	start_at(f, 3 * RING_SIZE + 224);
	f->meta->data_head = 3 * RING_SIZE + 224 + 80;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 2);
	assert_int_equal(bytes, 80);
	assert_ptr_equal(iov[0].iov_base, f->data + 224);
	assert_int_equal(iov[0].iov_len, 32);
	assert_ptr_equal(iov[1].iov_base, f->data);
	assert_int_equal(iov[1].iov_len, 48);
}

static void test_ring_record_straddling_end_is_intact_when_iovecs_concatenated(void **state)
{
	struct fake *f = *state;
	uint64_t start = RING_SIZE - 24; /* a 56-byte sample: 24 bytes before the end, 32 after */
	start_at(f, start);
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 7, 0x401234, 10, 11, 123456, 1, 4000);
	ring_put(f, start, s, sizeof(s));
	f->meta->data_head = start + sizeof(s);
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 2);
	assert_int_equal(iov[0].iov_len, 24);
	assert_int_equal(iov[1].iov_len, 32);
	uint8_t out[RING_SIZE];
	assert_int_equal(gather(iov, 2, out), sizeof(s));
	assert_memory_equal(out, s, sizeof(s));
}

static void test_ring_full_ring_with_tail_at_zero_gives_one_iovec(void **state)
{
	struct fake *f = *state;
	start_at(f, 4 * RING_SIZE);
	f->meta->data_head = 5 * RING_SIZE;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(bytes, RING_SIZE);
	assert_ptr_equal(iov[0].iov_base, f->data);
	assert_int_equal(iov[0].iov_len, RING_SIZE);
}

static void test_ring_full_ring_with_tail_midway_gives_two_iovecs(void **state)
{
	struct fake *f = *state;
	start_at(f, 136);
	f->meta->data_head = 136 + RING_SIZE;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 2);
	assert_int_equal(bytes, RING_SIZE);
	assert_ptr_equal(iov[0].iov_base, f->data + 136);
	assert_int_equal(iov[0].iov_len, RING_SIZE - 136);
	assert_ptr_equal(iov[1].iov_base, f->data);
	assert_int_equal(iov[1].iov_len, 136);
	assert_int_equal(iov[0].iov_len + iov[1].iov_len, RING_SIZE);
}

static void test_ring_head_behind_tail_is_ebadmsg(void **state)
{
	struct fake *f = *state;
	start_at(f, 512);
	f->meta->data_head = 504;
	struct iovec iov[2];
	size_t bytes = 99;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), -EBADMSG);
	assert_int_equal(bytes, 0);
	/* the bad head is not taken: a release gives back nothing */
	ring_release(&f->r);
	assert_int_equal(f->meta->data_tail, 512);
	assert_int_equal(f->r.tail, 512);
}

static void test_ring_head_more_than_size_ahead_is_ebadmsg(void **state)
{
	struct fake *f = *state;
	start_at(f, 64);
	f->meta->data_head = 64 + RING_SIZE + 8;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), -EBADMSG);
	assert_int_equal(bytes, 0);
	f->meta->data_head = UINT64_MAX;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), -EBADMSG);
}

static void test_ring_release_stores_data_tail_equal_to_head(void **state)
{
	struct fake *f = *state;
	start_at(f, 40);
	f->meta->data_head = 120;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	/* the kernel moves on before we release: only the span we took is given back */
	f->meta->data_head = 200;
	assert_int_equal(f->meta->data_tail, 40);
	ring_release(&f->r);
	assert_int_equal(f->meta->data_tail, 120);
	assert_int_equal(f->r.tail, 120);
	/* the next read starts where the release left off */
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(bytes, 80);
	assert_ptr_equal(iov[0].iov_base, f->data + 120);
	ring_release(&f->r);
	assert_int_equal(f->meta->data_tail, 200);
}

static void test_ring_read_span_twice_without_release_rereads_from_tail(void **state)
{
	struct fake *f = *state;
	start_at(f, 0);
	f->meta->data_head = 48;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	f->meta->data_head = 96;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(bytes, 96);
	assert_ptr_equal(iov[0].iov_base, f->data);
}

/* ---- scan ------------------------------------------------------------- */

static void test_ring_scan_counts_samples_lost_and_lost_samples(void **state)
{
	struct fake *f = *state;
	start_at(f, 0);
	const int toff = 32; /* TIME offset for TH_SAMPLE_TYPE */
	uint64_t pos = 0;
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 1, 2, 3, 4, 5000, 0, 1);
	ring_put(f, pos, s, sizeof(s));
	pos += sizeof(s);
	const uint64_t lost[] = { 77 /* id */, 12 /* lost */ };
	pos = put_record(f, pos, PD_RECORD_LOST, 24 + 16, lost, 2);
	const uint64_t lost_samples[] = { 30 };
	pos = put_record(f, pos, PD_RECORD_LOST_SAMPLES, 16 + 16, lost_samples, 1);
	pos = put_record(f, pos, PD_RECORD_COMM, 32, NULL, 0);
	th_make_sample(s, 1, 2, 3, 4, 4000, 0, 1);
	ring_put(f, pos, s, sizeof(s));
	pos += sizeof(s);
	pos = put_record(f, pos, PD_RECORD_LOST, 24, lost, 2);
	f->meta->data_head = pos;

	struct iovec iov[2];
	size_t bytes;
	assert_true(ring_read_span(&f->r, iov, &bytes) > 0);
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, toff, &t), 0);
	assert_int_equal(t.records, 6);
	assert_int_equal(t.samples, 2);
	assert_int_equal(t.lost, 24);
	assert_int_equal(t.lost_samples, 30);
	assert_int_equal(t.first_time, 4000);
	assert_int_equal(t.last_time, 5000);
}

static void test_ring_scan_first_and_last_time_accumulate_across_spans(void **state)
{
	struct fake *f = *state;
	start_at(f, 0);
	uint8_t s[TH_SAMPLE_SIZE];
	uint64_t pos = 0;
	static const uint64_t times[] = { 300, 100, 900 };
	for (int i = 0; i < 3; i++) {
		th_make_sample(s, 1, 2, 3, 4, times[i], 0, 1);
		ring_put(f, pos, s, sizeof(s));
		pos += sizeof(s);
	}
	f->meta->data_head = pos;
	struct iovec iov[2];
	size_t bytes;
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	assert_int_equal(ring_scan(&f->r, 32, &t), 0);
	ring_release(&f->r);
	assert_int_equal(t.first_time, 100);
	assert_int_equal(t.last_time, 900);

	/* a second span adds to the same tally */
	th_make_sample(s, 1, 2, 3, 4, 50, 0, 1);
	ring_put(f, pos, s, sizeof(s));
	pos += sizeof(s);
	th_make_sample(s, 1, 2, 3, 4, 2000, 0, 1);
	ring_put(f, pos, s, sizeof(s));
	pos += sizeof(s);
	f->meta->data_head = pos;
	assert_true(ring_read_span(&f->r, iov, &bytes) > 0);
	assert_int_equal(ring_scan(&f->r, 32, &t), 0);
	assert_int_equal(t.samples, 5);
	assert_int_equal(t.records, 5);
	assert_int_equal(t.first_time, 50);
	assert_int_equal(t.last_time, 2000);
}

static void test_ring_scan_reads_records_and_times_across_the_wrap(void **state)
{
	struct fake *f = *state;
	/* two samples; the second one's header sits at 248 and its body wraps */
	uint64_t start = 5 * RING_SIZE + 192;
	start_at(f, start);
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 1, 2, 3, 4, 111, 0, 1);
	ring_put(f, start, s, sizeof(s));
	th_make_sample(s, 1, 2, 3, 4, 222, 0, 1);
	ring_put(f, start + 56, s, sizeof(s));
	const uint64_t lost[] = { 1, 9 };
	uint64_t end = put_record(f, start + 112, PD_RECORD_LOST, 24, lost, 2);
	f->meta->data_head = end;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 2);
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, 32, &t), 0);
	assert_int_equal(t.records, 3);
	assert_int_equal(t.samples, 2);
	assert_int_equal(t.first_time, 111);
	assert_int_equal(t.last_time, 222);
	assert_int_equal(t.lost, 9);
}

static void test_ring_scan_without_time_offset_counts_but_keeps_no_time(void **state)
{
	struct fake *f = *state;
	start_at(f, 0);
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 1, 2, 3, 4, 5000, 0, 1);
	ring_put(f, 0, s, sizeof(s));
	f->meta->data_head = sizeof(s);
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, -1, &t), 0);
	assert_int_equal(t.samples, 1);
	assert_int_equal(t.first_time, 0);
	assert_int_equal(t.last_time, 0);
	/* a time offset beyond a short sample is not read */
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, 56, &t), 0);
	assert_int_equal(t.samples, 1);
	assert_int_equal(t.first_time, 0);
}

static void test_ring_scan_short_lost_records_are_counted_without_reading_past_them(void **state)
{
	struct fake *f = *state;
	start_at(f, 0);
	uint64_t pos = put_record(f, 0, PD_RECORD_LOST, 16, NULL, 0);       /* < 24 */
	pos = put_record(f, pos, PD_RECORD_LOST_SAMPLES, 8, NULL, 0);       /* < 16 */
	f->meta->data_head = pos;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, 32, &t), 0);
	assert_int_equal(t.records, 2);
	assert_int_equal(t.lost, 0);
	assert_int_equal(t.lost_samples, 0);
}

static void test_ring_scan_zero_size_header_is_ebadmsg_without_looping(void **state)
{
	struct fake *f = *state;
	start_at(f, 0);
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 1, 2, 3, 4, 5, 0, 1);
	ring_put(f, 0, s, sizeof(s));
	put_record(f, 56, PD_RECORD_SAMPLE, 8, NULL, 0);
	th_put_u16(f->data, 56 + 6, 0); /* size 0 */
	f->meta->data_head = 128;
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, 32, &t), -EBADMSG);
	/* counts up to the bad header are kept */
	assert_int_equal(t.records, 1);
	assert_int_equal(t.samples, 1);
}

static void test_ring_scan_impossible_sizes_are_ebadmsg(void **state)
{
	struct fake *f = *state;
	struct iovec iov[2];
	size_t bytes;
	struct ring_tally t;

	/* not a multiple of 8 */
	start_at(f, 0);
	put_record(f, 0, PD_RECORD_COMM, 20, NULL, 0);
	f->meta->data_head = 24;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, -1, &t), -EBADMSG);

	/* smaller than a header */
	start_at(f, 0);
	put_record(f, 0, PD_RECORD_COMM, 8, NULL, 0);
	th_put_u16(f->data, 6, 4);
	f->meta->data_head = 8;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, -1, &t), -EBADMSG);

	/* running past head */
	start_at(f, 0);
	put_record(f, 0, PD_RECORD_COMM, 64, NULL, 0);
	f->meta->data_head = 32;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 1);
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, -1, &t), -EBADMSG);
	assert_int_equal(t.records, 0);
}

static void test_ring_scan_of_empty_span_counts_nothing(void **state)
{
	struct fake *f = *state;
	start_at(f, 64);
	struct iovec iov[2];
	size_t bytes;
	assert_int_equal(ring_read_span(&f->r, iov, &bytes), 0);
	struct ring_tally t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ring_scan(&f->r, 32, &t), 0);
	assert_int_equal(t.records, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ring_init_starts_at_kernel_data_tail),
		T(test_ring_empty_span_gives_no_iovecs),
		T(test_ring_span_inside_buffer_gives_one_iovec),
		T(test_ring_span_ending_exactly_at_buffer_end_gives_one_iovec),
		T(test_ring_span_wraps_into_two_iovecs),
		T(test_ring_record_straddling_end_is_intact_when_iovecs_concatenated),
		T(test_ring_full_ring_with_tail_at_zero_gives_one_iovec),
		T(test_ring_full_ring_with_tail_midway_gives_two_iovecs),
		T(test_ring_head_behind_tail_is_ebadmsg),
		T(test_ring_head_more_than_size_ahead_is_ebadmsg),
		T(test_ring_release_stores_data_tail_equal_to_head),
		T(test_ring_read_span_twice_without_release_rereads_from_tail),
		T(test_ring_scan_counts_samples_lost_and_lost_samples),
		T(test_ring_scan_first_and_last_time_accumulate_across_spans),
		T(test_ring_scan_reads_records_and_times_across_the_wrap),
		T(test_ring_scan_without_time_offset_counts_but_keeps_no_time),
		T(test_ring_scan_short_lost_records_are_counted_without_reading_past_them),
		T(test_ring_scan_zero_size_header_is_ebadmsg_without_looping),
		T(test_ring_scan_impossible_sizes_are_ebadmsg),
		T(test_ring_scan_of_empty_span_counts_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
