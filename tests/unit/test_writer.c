/*
 * test_writer.c - the perf.data writer (src/format/writer.c): header, ids,
 * attrs and feature table bytes at the offsets of perf-data-format.md 1.1,
 * 1.2 and 2.1; checkpoints; append failures; and a writer -> reader round
 * trip.
 */
#include "test_helpers.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include "format/feature.h"
#include "format/reader.h"
#include "format/sample.h"
#include "format/writer.h"

/* ---- fixtures ------------------------------------------------------- */

struct fx {
	char path[64];
	int fd;
	struct pd_attr a0, a1;
	struct writer w;
};

static const uint64_t ids0[] = { 101, 102 };
static const uint64_t ids1[] = { 201, 202, 203 };

static void fill_attr(struct pd_attr *a, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = PD_TYPE_SOFTWARE;
	a->size = PD_ATTR_SIZE;
	a->config = config;
	a->sample_period = 4000;
	a->sample_type = TH_SAMPLE_TYPE;
	a->read_format = PD_FORMAT_ID | PD_FORMAT_LOST;
	a->flags = PD_ATTR_DISABLED | PD_ATTR_FREQ | PD_ATTR_SAMPLE_ID_ALL | PD_ATTR_MMAP | PD_ATTR_COMM;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->fd = th_tmpfile(f->path);
	fill_attr(&f->a0, PD_SW_CPU_CLOCK);
	fill_attr(&f->a1, PD_SW_TASK_CLOCK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f->fd >= 0)
		close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

/* writer_begin with the two attrs (2 and 3 ids). */
static void begin2(struct fx *f)
{
	const struct writer_event ev[] = {
		{ &f->a0, ids0, 2 },
		{ &f->a1, ids1, 3 },
	};
	assert_int_equal(writer_begin(&f->w, f->fd, ev, 2), 0);
}

/* 104 header + 5 ids + 2 attrs */
#define IDS_OFF   104
#define ATTRS_OFF (104 + 5 * 8)
#define DATA_OFF  (ATTRS_OFF + 2 * 144)
/* the FINISHED_ROUND every file's data opens with, all the first
 * header covers */
#define R0 8
/* the end mark that follows it, and every checkpointed end: an ID_INDEX
 * record of 0 entries */
#define MARK 16
/* the data writer_begin writes */
#define D0 (R0 + MARK)

/* The 16 bytes at data.offset + data.size of the on-disk header are an
 * end mark: what hotspot's perfparser reads as the {offset, size} of a
 * feature section in a header without feature bits gives size 0. */
static void assert_mark_at_data_end(const uint8_t *p, size_t len)
{
	uint64_t end = th_u64(p, 40) + th_u64(p, 48);
	assert_true(end + MARK <= len);
	assert_int_equal(th_u32(p, end), PD_RECORD_ID_INDEX);
	assert_int_equal(th_u16(p, end + 6), MARK);
	assert_int_equal(th_u64(p, end + 8), 0);
}

/* The next record is an end mark that a later checkpoint covered. */
static void assert_next_is_mark(struct reader *r, struct err *e)
{
	struct reader_record rec;
	assert_int_equal(reader_next(r, &rec, e), 1);
	assert_int_equal(rec.type, PD_RECORD_ID_INDEX);
	assert_int_equal(rec.size, MARK);
	assert_true(th_all_zero(rec.data + 8, 8));
}

static uint8_t *slurp(struct fx *f, size_t *len)
{
	return th_read_file(f->path, len);
}

/* Append n FINISHED_ROUNDs, one writer_append each. */
static void append_round(struct fx *f, int n)
{
	struct pd_event_header round = { PD_RECORD_FINISHED_ROUND, 0, 8 };
	for (int i = 0; i < n; i++) {
		struct iovec v = { &round, 8 };
		assert_int_equal(writer_append(&f->w, &v, 1), 0);
	}
}

/* ---- header, ids, attrs -------------------------------------------- */

static void test_writer_begin_header_fields_at_documented_offsets(void **state)
{
	struct fx *f = *state;
	begin2(f);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(len, DATA_OFF + D0);
	assert_int_equal(th_u64(p, 0), 0x32454c4946524550ULL); /* magic */
	assert_memory_equal(p, "PERFILE2", 8);
	assert_int_equal(th_u64(p, 8), 104);                    /* size */
	assert_int_equal(th_u64(p, 16), 144);                   /* attr_size */
	assert_int_equal(th_u64(p, 24), ATTRS_OFF);             /* attrs.offset */
	assert_int_equal(th_u64(p, 32), 2 * 144);               /* attrs.size */
	assert_int_equal(th_u64(p, 40), DATA_OFF);              /* data.offset */
	assert_int_equal(th_u64(p, 48), R0);                     /* data.size */
	assert_int_equal(th_u64(p, 56), 0);                     /* event_types */
	assert_int_equal(th_u64(p, 64), 0);
	assert_true(th_all_zero(p + 72, 32));                   /* feature bitmap */
	assert_int_equal(f->w.data_offset, DATA_OFF);
	assert_int_equal(writer_data_size(&f->w), D0);
	assert_int_equal(f->w.error, 0);
	assert_mark_at_data_end(p, len);
	free(p);
}

static void test_writer_begin_puts_all_ids_right_after_header_then_attrs(void **state)
{
	struct fx *f = *state;
	begin2(f);
	size_t len;
	uint8_t *p = slurp(f, &len);
	/* ids of attr0 then ids of attr1 from offset 104 */
	assert_int_equal(th_u64(p, 104), 101);
	assert_int_equal(th_u64(p, 112), 102);
	assert_int_equal(th_u64(p, 120), 201);
	assert_int_equal(th_u64(p, 128), 202);
	assert_int_equal(th_u64(p, 136), 203);
	/* each perf_file_attr = 128-byte attr + {ids.offset, ids.size} */
	size_t fa0 = ATTRS_OFF, fa1 = ATTRS_OFF + 144;
	assert_memory_equal(p + fa0, &f->a0, 128);
	assert_int_equal(th_u64(p, fa0 + 128), 104);
	assert_int_equal(th_u64(p, fa0 + 136), 16);
	assert_memory_equal(p + fa1, &f->a1, 128);
	assert_int_equal(th_u64(p, fa1 + 128), 120);
	assert_int_equal(th_u64(p, fa1 + 136), 24);
	free(p);
}

static void test_writer_attr_fields_at_documented_offsets(void **state)
{
	struct fx *f = *state;
	struct pd_attr a;
	memset(&a, 0xa5, sizeof(a)); /* every byte set: catches holes */
	a.type = 0x11111111;
	a.size = 0;                   /* the writer stores 128 whatever it gets */
	a.config = 0x2222222222222222ULL;
	a.sample_period = 0x3333333333333333ULL;
	a.sample_type = 0x4444444444444444ULL;
	a.read_format = 0x5555555555555555ULL;
	a.flags = 0x6666666666666666ULL;
	a.wakeup_events = 0x77777777;
	a.bp_type = 0x88888888;
	a.clockid = -5;
	a.sig_data = 0x9999999999999999ULL;
	static const uint64_t id = 7;
	const struct writer_event ev[] = { { &a, &id, 1 } };
	assert_int_equal(writer_begin(&f->w, f->fd, ev, 1), 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	size_t at = 104 + 8; /* one id, then the attr */
	assert_int_equal(th_u64(p, 24), at);
	assert_int_equal(th_u32(p, at + 0), 0x11111111);
	assert_int_equal(th_u32(p, at + 4), 128);
	assert_int_equal(th_u64(p, at + 8), 0x2222222222222222ULL);
	assert_int_equal(th_u64(p, at + 16), 0x3333333333333333ULL);
	assert_int_equal(th_u64(p, at + 24), 0x4444444444444444ULL);
	assert_int_equal(th_u64(p, at + 32), 0x5555555555555555ULL);
	assert_int_equal(th_u64(p, at + 40), 0x6666666666666666ULL);
	assert_int_equal(th_u32(p, at + 48), 0x77777777);
	assert_int_equal(th_u32(p, at + 52), 0x88888888);
	assert_int_equal((int32_t)th_u32(p, at + 92), -5);
	assert_int_equal(th_u64(p, at + 120), 0x9999999999999999ULL);
	/* the ids section follows the 128 attr bytes */
	assert_int_equal(th_u64(p, at + 128), 104);
	assert_int_equal(th_u64(p, at + 136), 8);
	assert_int_equal(th_u64(p, 104), 7);
	assert_int_equal(th_u64(p, 40), at + 144);
	assert_int_equal(len, at + 144 + D0);
	free(p);
}

static void test_writer_begin_forces_attr_size_128(void **state)
{
	struct fx *f = *state;
	f->a0.size = 136; /* PERF_ATTR_SIZE_VER8 would make perf 6.1 reject the file */
	static const uint64_t id = 1;
	const struct writer_event ev[] = { { &f->a0, &id, 1 } };
	assert_int_equal(writer_begin(&f->w, f->fd, ev, 1), 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u32(p, 112 + 4), 128);
	free(p);
}

static void test_writer_attr_without_ids_has_empty_ids_section(void **state)
{
	struct fx *f = *state;
	static const uint64_t unused = 0;
	const struct writer_event ev[] = { { &f->a0, &unused, 0 } };
	assert_int_equal(writer_begin(&f->w, f->fd, ev, 1), 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 24), 104);  /* attrs right after the header */
	assert_int_equal(th_u64(p, 104 + 128), 0);
	assert_int_equal(th_u64(p, 104 + 136), 0);
	assert_int_equal(th_u64(p, 40), 104 + 144);
	assert_int_equal(len, 104 + 144 + D0);
	free(p);
}

static void test_writer_begin_without_events_is_einval(void **state)
{
	struct fx *f = *state;
	assert_int_equal(writer_begin(&f->w, f->fd, NULL, 0), -EINVAL);
}

static void test_writer_begin_on_readonly_fd_fails_with_errno(void **state)
{
	struct fx *f = *state;
	int ro = open(f->path, O_RDONLY);
	assert_true(ro >= 0);
	static const uint64_t id = 1;
	const struct writer_event ev[] = { { &f->a0, &id, 1 } };
	assert_int_equal(writer_begin(&f->w, ro, ev, 1), -EBADF);
	close(ro);
}

/* ---- append and checkpoint ----------------------------------------- */

static void test_writer_append_and_checkpoint_cover_exactly_the_appended_bytes(void **state)
{
	struct fx *f = *state;
	begin2(f);
	uint8_t s1[TH_SAMPLE_SIZE], s2[TH_SAMPLE_SIZE];
	th_make_sample(s1, 101, 0x400000, 10, 11, 1000, 0, 1);
	th_make_sample(s2, 202, 0x400100, 10, 12, 2000, 1, 2);
	struct pd_event_header round = { PD_RECORD_FINISHED_ROUND, 0, 8 };
	struct iovec iov[3] = {
		{ s1, sizeof(s1) }, { s2, sizeof(s2) }, { &round, sizeof(round) },
	};
	assert_int_equal(writer_append(&f->w, iov, 3), 0);
	assert_int_equal(writer_data_size(&f->w), D0 + 2 * TH_SAMPLE_SIZE + 8);

	/* not yet checkpointed: the on-disk header covers the opening round,
	 * and the records go after its end mark, which stays */
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), R0);
	assert_true(th_all_zero(p + 72, 32));
	assert_int_equal(len, DATA_OFF + D0 + 2 * TH_SAMPLE_SIZE + 8);
	assert_mark_at_data_end(p, len);
	free(p);

	/* the checkpoint appends a mark and ends the data right before it;
	 * the old mark is covered data now */
	assert_int_equal(writer_checkpoint(&f->w), 0);
	p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + 2 * TH_SAMPLE_SIZE + 8);
	assert_true(th_all_zero(p + 72, 32)); /* checkpoints never set features */
	assert_memory_equal(p + DATA_OFF + D0, s1, sizeof(s1));
	assert_memory_equal(p + DATA_OFF + D0 + TH_SAMPLE_SIZE, s2, sizeof(s2));
	assert_memory_equal(p + DATA_OFF + D0 + 2 * TH_SAMPLE_SIZE, &round, 8);
	assert_int_equal(len, DATA_OFF + D0 + 2 * TH_SAMPLE_SIZE + 8 + MARK);
	assert_mark_at_data_end(p, len);
	assert_int_equal(writer_data_size(&f->w), D0 + 2 * TH_SAMPLE_SIZE + 8 + MARK);
	free(p);

	/* a second append + checkpoint moves data.size again, over the mark */
	struct iovec one = { &round, sizeof(round) };
	assert_int_equal(writer_append(&f->w, &one, 1), 0);
	assert_int_equal(writer_checkpoint(&f->w), 0);
	p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + 2 * TH_SAMPLE_SIZE + 8 + MARK + 8);
	assert_mark_at_data_end(p, len);
	free(p);
}

static void test_writer_checkpoint_without_new_data_is_noop(void **state)
{
	struct fx *f = *state;
	begin2(f);
	assert_int_equal(writer_checkpoint(&f->w), 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), R0);
	assert_int_equal(len, DATA_OFF + D0); /* no second mark */
	free(p);
	/* nor right after a checkpoint: its own mark is not new data */
	append_round(f, 1);
	assert_int_equal(writer_checkpoint(&f->w), 0);
	assert_int_equal(writer_checkpoint(&f->w), 0);
	p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + 8);
	assert_int_equal(len, DATA_OFF + D0 + 8 + MARK);
	free(p);
}

static void test_writer_append_of_zero_bytes_is_noop(void **state)
{
	struct fx *f = *state;
	begin2(f);
	struct iovec iov[2] = { { (void *)"", 0 }, { (void *)"", 0 } };
	assert_int_equal(writer_append(&f->w, iov, 2), 0);
	assert_int_equal(writer_append(&f->w, NULL, 0), 0);
	assert_int_equal(writer_data_size(&f->w), D0);
}

static void test_writer_append_more_than_64_iovecs(void **state)
{
	struct fx *f = *state;
	begin2(f);
	enum { N = 200 };
	struct pd_event_header recs[N];
	struct iovec iov[N];
	for (int i = 0; i < N; i++) {
		recs[i].type = PD_RECORD_FINISHED_ROUND;
		recs[i].misc = (uint16_t)i;
		recs[i].size = 8;
		iov[i].iov_base = &recs[i];
		iov[i].iov_len = 8;
	}
	assert_int_equal(writer_append(&f->w, iov, N), 0);
	assert_int_equal(writer_data_size(&f->w), D0 + N * 8);
	/* the caller's iovecs are left intact */
	for (int i = 0; i < N; i++) {
		assert_ptr_equal(iov[i].iov_base, &recs[i]);
		assert_int_equal(iov[i].iov_len, 8);
	}
	assert_int_equal(writer_checkpoint(&f->w), 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(len, DATA_OFF + D0 + N * 8 + MARK);
	assert_memory_equal(p + DATA_OFF + D0, recs, sizeof(recs));
	free(p);
}

static void test_writer_append_many_iovecs_of_mixed_and_zero_lengths(void **state)
{
	struct fx *f = *state;
	begin2(f);
	enum { N = 150 };
	static uint8_t src[N * 24];
	struct iovec iov[N];
	size_t total = 0;
	uint8_t *expect = malloc(sizeof(src));
	assert_non_null(expect);
	for (int i = 0; i < N; i++) {
		size_t l = (size_t)(i % 4) * 8; /* 0, 8, 16, 24: some empty */
		uint8_t *b = src + (size_t)i * 24;
		memset(b, i + 1, l);
		iov[i].iov_base = b;
		iov[i].iov_len = l;
		memcpy(expect + total, b, l);
		total += l;
	}
	assert_int_equal(writer_append(&f->w, iov, N), 0);
	assert_int_equal(writer_data_size(&f->w), D0 + total);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(len, DATA_OFF + D0 + total);
	assert_memory_equal(p + DATA_OFF + D0, expect, total);
	free(p);
	free(expect);
}

/* ---- finish and the feature table ---------------------------------- */

static void test_writer_finish_writes_feature_table_in_ascending_order_after_data(void **state)
{
	struct fx *f = *state;
	begin2(f);
	append_round(f, 3);
	const uint64_t dsize = D0 + 24;
	/* payload sizes chosen odd so offsets are not aligned */
	static const uint8_t p3[5] = "host";
	static const uint8_t p7[8] = { 4, 0, 0, 0, 2, 0, 0, 0 };
	static const uint8_t p10[3] = { 1, 2, 3 };
	static const uint8_t p21[16] = { 9, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 8 };
	static const uint8_t p70[1] = { 0x70 };
	static const uint8_t p255[2] = { 0xff, 0xfe };
	const struct writer_feature feats[] = {
		{ 3, p3, sizeof(p3) }, { 7, p7, sizeof(p7) }, { 10, p10, sizeof(p10) },
		{ 21, p21, sizeof(p21) }, { 70, p70, sizeof(p70) }, { 255, p255, sizeof(p255) },
	};
	const size_t nf = sizeof(feats) / sizeof(feats[0]);
	int ferr = 12345;
	assert_int_equal(writer_finish(&f->w, feats, nf, &ferr), 0);
	assert_int_equal(ferr, 0);

	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), dsize);
	/* bitmap: bit n = bit n%64 of word n/64 */
	assert_int_equal(th_u64(p, 72), (1ULL << 3) | (1ULL << 7) | (1ULL << 10) | (1ULL << 21));
	assert_int_equal(th_u64(p, 80), 1ULL << (70 - 64));
	assert_int_equal(th_u64(p, 88), 0);
	assert_int_equal(th_u64(p, 96), 1ULL << 63);
	/* on little-endian: feature n is byte 72 + n/8, bit n%8 */
	assert_int_equal(p[72 + 21 / 8] & (1 << (21 % 8)), 1 << (21 % 8));

	uint64_t table = DATA_OFF + dsize;
	uint64_t off = table + nf * 16;
	for (size_t i = 0; i < nf; i++) {
		assert_int_equal(th_u64(p, table + i * 16), off);
		assert_int_equal(th_u64(p, table + i * 16 + 8), feats[i].len);
		assert_memory_equal(p + off, feats[i].data, feats[i].len);
		off += feats[i].len;
	}
	assert_int_equal(len, off);
	free(p);
}

static void test_writer_finish_without_features_ends_file_at_data_end(void **state)
{
	struct fx *f = *state;
	begin2(f);
	append_round(f, 2);
	int ferr = 1;
	assert_int_equal(writer_finish(&f->w, NULL, 0, &ferr), 0);
	assert_int_equal(ferr, 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(len, DATA_OFF + D0 + 16);
	assert_int_equal(th_u64(p, 48), D0 + 16);
	assert_true(th_all_zero(p + 72, 32));
	free(p);
}

/* Finish with bad feature ids: no features, bitmap 0, file still reads. */
static void expect_features_rejected(struct fx *f, const struct writer_feature *feats, size_t nf)
{
	begin2(f);
	append_round(f, 2);
	int ferr = 0;
	assert_int_equal(writer_finish(&f->w, feats, nf, &ferr), 0);
	assert_true(ferr < 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + 16);
	assert_true(th_all_zero(p + 72, 32));
	assert_int_equal(len, DATA_OFF + D0 + 16); /* no table, no payloads */
	free(p);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, f->path, &e), 0);
	struct reader_record rec;
	int n = 0, rc;
	while ((rc = reader_next(&r, &rec, &e)) == 1)
		n++;
	assert_int_equal(rc, 0);
	assert_int_equal(n, 4); /* with the opening round and its mark */
	for (unsigned b = 0; b < PD_FEAT_BITS; b++)
		assert_false(reader_has_feature(&r, b));
	reader_close(&r);
}

static void test_writer_finish_rejects_unsorted_feature_ids(void **state)
{
	static const uint8_t x[8] = { 1 };
	const struct writer_feature feats[] = { { 7, x, 8 }, { 3, x, 8 } };
	expect_features_rejected(*state, feats, 2);
}

static void test_writer_finish_rejects_duplicate_feature_ids(void **state)
{
	static const uint8_t x[8] = { 1 };
	const struct writer_feature feats[] = { { 3, x, 8 }, { 7, x, 8 }, { 7, x, 8 } };
	expect_features_rejected(*state, feats, 3);
}

static void test_writer_finish_rejects_feature_id_256_and_above(void **state)
{
	static const uint8_t x[8] = { 1 };
	const struct writer_feature feats[] = { { 3, x, 8 }, { 256, x, 8 } };
	expect_features_rejected(*state, feats, 2);
}

/* ---- failing appends ----------------------------------------------- */

/* A write error (fd swapped for a read-only one) is sticky and never
 * counted; finish on a working fd then covers the last complete append. */
static void test_writer_failed_append_is_sticky_and_not_counted(void **state)
{
	struct fx *f = *state;
	begin2(f);
	uint8_t s1[TH_SAMPLE_SIZE];
	th_make_sample(s1, 101, 1, 2, 3, 4, 0, 5);
	struct iovec v = { s1, sizeof(s1) };
	assert_int_equal(writer_append(&f->w, &v, 1), 0);
	assert_int_equal(writer_data_size(&f->w), D0 + TH_SAMPLE_SIZE);

	/* the same fd number now refers to the file opened read-only */
	int ro = open(f->path, O_RDONLY);
	assert_true(ro >= 0);
	assert_int_equal(dup2(ro, f->fd), f->fd);
	close(ro);

	struct iovec two[2] = { { s1, sizeof(s1) }, { s1, sizeof(s1) } };
	assert_int_equal(writer_append(&f->w, two, 2), -EBADF);
	assert_int_equal(f->w.error, -EBADF);
	assert_int_equal(writer_data_size(&f->w), D0 + TH_SAMPLE_SIZE);

	/* the fd works again, but the writer refuses: the error is sticky */
	int rw = open(f->path, O_RDWR);
	assert_true(rw >= 0);
	assert_int_equal(dup2(rw, f->fd), f->fd);
	close(rw);
	assert_int_equal(writer_append(&f->w, &v, 1), -EBADF);
	assert_int_equal(writer_data_size(&f->w), D0 + TH_SAMPLE_SIZE);

	int ferr = 1;
	assert_int_equal(writer_finish(&f->w, NULL, 0, &ferr), 0);
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + TH_SAMPLE_SIZE);
	assert_int_equal(len, DATA_OFF + D0 + TH_SAMPLE_SIZE);
	free(p);
}

/* /dev/full: every write fails with ENOSPC. */
static void test_writer_enospc_append_is_sticky_and_keeps_data_size(void **state)
{
	struct fx *f = *state;
	begin2(f);
	uint8_t s1[TH_SAMPLE_SIZE];
	th_make_sample(s1, 101, 1, 2, 3, 4, 0, 5);
	struct iovec v = { s1, sizeof(s1) };
	assert_int_equal(writer_append(&f->w, &v, 1), 0);
	assert_int_equal(writer_checkpoint(&f->w), 0);

	int full = open("/dev/full", O_WRONLY);
	if (full < 0)
		skip();
	assert_int_equal(dup2(full, f->fd), f->fd);
	close(full);

	assert_int_equal(writer_append(&f->w, &v, 1), -ENOSPC);
	assert_int_equal(f->w.error, -ENOSPC);
	assert_int_equal(writer_data_size(&f->w), D0 + TH_SAMPLE_SIZE + MARK);
	/* sticky, even for an empty append */
	assert_int_equal(writer_append(&f->w, &v, 1), -ENOSPC);
	assert_int_equal(writer_append(&f->w, NULL, 0), -ENOSPC);
	assert_int_equal(writer_data_size(&f->w), D0 + TH_SAMPLE_SIZE + MARK);
	/* nothing new since the checkpoint: no write attempted */
	assert_int_equal(writer_checkpoint(&f->w), 0);
	/* the header cannot be rewritten on /dev/full */
	int ferr = 0;
	assert_true(writer_finish(&f->w, NULL, 0, &ferr) < 0);

	/* the file itself still holds the checkpointed, readable recording */
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + TH_SAMPLE_SIZE);
	free(p);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, f->path, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.type, PD_RECORD_FINISHED_ROUND); /* the opening one */
	assert_next_is_mark(&r, &e);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_memory_equal(rec.data, s1, sizeof(s1));
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	reader_close(&r);
}

static void test_writer_checkpoint_reports_write_error(void **state)
{
	struct fx *f = *state;
	begin2(f);
	append_round(f, 1);
	int full = open("/dev/full", O_WRONLY);
	if (full < 0)
		skip();
	assert_int_equal(dup2(full, f->fd), f->fd);
	close(full);
	assert_int_equal(writer_checkpoint(&f->w), -ENOSPC);
	assert_int_equal(f->w.error, -ENOSPC); /* the mark's append failed */
	/* the file still ends its data before begin's mark */
	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), R0);
	assert_int_equal(len, DATA_OFF + D0 + 8);
	assert_mark_at_data_end(p, len);
	free(p);
}

/*
 * RLIMIT_FSIZE makes pwritev write part of an append and then fail with
 * EFBIG, like a disk filling up mid-record. The partial tail must not be
 * counted, and writer_finish must cut it off before writing the features.
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

static void test_writer_partial_append_is_dropped_and_features_fit_after_it(void **state)
{
	struct fx *f = *state;
	begin2(f);
	uint8_t s1[TH_SAMPLE_SIZE];
	th_make_sample(s1, 101, 1, 2, 3, 4, 0, 5);
	struct iovec v = { s1, sizeof(s1) };
	assert_int_equal(writer_append(&f->w, &v, 1), 0);
	uint64_t end0 = f->w.end;

	struct fsize_guard g;
	limit_file_size(&g, end0 + 40);
	struct iovec two[2] = { { s1, sizeof(s1) }, { s1, sizeof(s1) } };
	int rc = writer_append(&f->w, two, 2); /* 40 of 112 bytes get written */
	int err_after = f->w.error;
	uint64_t size_after = writer_data_size(&f->w);
	/* 16-byte table + 8-byte payload = 24 <= 40: fits under the limit */
	static const uint8_t st[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const struct writer_feature feats[] = { { PD_FEAT_CLOCKID, st, 8 } };
	int ferr = 1;
	int frc = writer_finish(&f->w, feats, 1, &ferr);
	unlimit_file_size(&g);

	assert_int_equal(rc, -EFBIG);
	assert_int_equal(err_after, -EFBIG);
	assert_int_equal(size_after, D0 + TH_SAMPLE_SIZE);
	assert_int_equal(frc, 0);
	assert_int_equal(ferr, 0);

	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + TH_SAMPLE_SIZE);
	assert_int_equal(th_u64(p, 72), 1ULL << PD_FEAT_CLOCKID);
	assert_int_equal(len, end0 + 24); /* the partial tail is gone */
	assert_int_equal(th_u64(p, end0), end0 + 16);
	assert_int_equal(th_u64(p, end0 + 8), 8);
	assert_memory_equal(p + end0 + 16, st, 8);
	free(p);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, f->path, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.type, PD_RECORD_FINISHED_ROUND); /* the opening one */
	assert_next_is_mark(&r, &e);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_memory_equal(rec.data, s1, sizeof(s1));
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	const uint8_t *fp;
	size_t fl;
	assert_int_equal(reader_feature(&r, PD_FEAT_CLOCKID, &fp, &fl, &e), 0);
	assert_int_equal(fl, 8);
	assert_memory_equal(fp, st, 8);
	reader_close(&r);
}

static void test_writer_features_that_do_not_fit_are_dropped_file_stays_valid(void **state)
{
	struct fx *f = *state;
	begin2(f);
	uint8_t s1[TH_SAMPLE_SIZE];
	th_make_sample(s1, 101, 1, 2, 3, 4, 0, 5);
	struct iovec v = { s1, sizeof(s1) };
	assert_int_equal(writer_append(&f->w, &v, 1), 0);
	uint64_t end0 = f->w.end;

	struct fsize_guard g;
	limit_file_size(&g, end0 + 20);
	int rc = writer_append(&f->w, &v, 1);
	static const uint8_t st[16] = { 1 };
	const struct writer_feature feats[] = { { PD_FEAT_SAMPLE_TIME, st, 16 } };
	int ferr = 0;
	int frc = writer_finish(&f->w, feats, 1, &ferr);
	unlimit_file_size(&g);

	assert_int_equal(rc, -EFBIG);
	assert_int_equal(frc, 0);
	assert_int_equal(ferr, -EFBIG);

	size_t len;
	uint8_t *p = slurp(f, &len);
	assert_int_equal(th_u64(p, 48), D0 + TH_SAMPLE_SIZE);
	assert_true(th_all_zero(p + 72, 32));
	assert_int_equal(len, end0);
	free(p);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, f->path, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_next_is_mark(&r, &e);
	assert_int_equal(reader_next(&r, &rec, &e), 1); /* after the opening round */
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	assert_false(reader_has_feature(&r, PD_FEAT_SAMPLE_TIME));
	reader_close(&r);
}

/* ---- writer -> reader round trip ----------------------------------- */

/* trailer for TH_SAMPLE_TYPE: TID, TIME, CPU, IDENTIFIER */
#define TRAILER 32

static void test_writer_reader_round_trip(void **state)
{
	struct fx *f = *state;
	begin2(f);
	assert_int_equal(sample_id_trailer_size(TH_SAMPLE_TYPE), TRAILER);

	/* COMM pid 10 tid 11 "spin", trailer carrying id 203 (attr1) */
	uint8_t comm[8 + 16 + TRAILER];
	memset(comm, 0, sizeof(comm));
	struct pd_event_header ch = { PD_RECORD_COMM, 0, sizeof(comm) };
	memcpy(comm, &ch, 8);
	th_put_u32(comm, 8, 10);
	th_put_u32(comm, 12, 11);
	memcpy(comm + 16, "spin", 5);
	th_put_u32(comm, 24, 10);          /* trailer pid */
	th_put_u32(comm, 28, 11);          /* trailer tid */
	th_put_u64(comm, 32, 500);         /* trailer time */
	th_put_u32(comm, 40, 1);           /* trailer cpu */
	th_put_u64(comm, 48, 203);         /* trailer identifier */

	uint8_t s_a0[TH_SAMPLE_SIZE], s_a1[TH_SAMPLE_SIZE], s_zero[TH_SAMPLE_SIZE], s_bad[TH_SAMPLE_SIZE];
	th_make_sample(s_a0, 102, 0xffffffff81000010ULL, 10, 11, 1000, 0, 250000);
	th_make_sample(s_a1, 201, 0x401234, 10, 12, 2000, 1, 4000);
	th_make_sample(s_zero, 0, 0x401000, 10, 11, 3000, 1, 1);
	th_make_sample(s_bad, 999, 0x401000, 10, 11, 4000, 0, 1);
	struct pd_event_header round = { PD_RECORD_FINISHED_ROUND, 0, 8 };
	static const uint8_t mark[MARK] = { PD_RECORD_ID_INDEX, 0, 0, 0, 0, 0, MARK, 0 };
	uint8_t unknown[24];
	memset(unknown, 0xcc, sizeof(unknown));
	struct pd_event_header uh = { 200, 0x1234, sizeof(unknown) };
	memcpy(unknown, &uh, 8);

	struct iovec pass1[4] = {
		{ comm, sizeof(comm) }, { s_a0, sizeof(s_a0) }, { s_a1, sizeof(s_a1) },
		{ &round, sizeof(round) },
	};
	struct iovec pass2[4] = {
		{ unknown, sizeof(unknown) }, { s_zero, sizeof(s_zero) }, { s_bad, sizeof(s_bad) },
		{ &round, sizeof(round) },
	};
	assert_int_equal(writer_append(&f->w, pass1, 4), 0);
	assert_int_equal(writer_checkpoint(&f->w), 0);
	assert_int_equal(writer_append(&f->w, pass2, 4), 0);

	/* features built with the real builders */
	struct buf host = BUF_INIT, nrcpus = BUF_INIT, cmd = BUF_INIT, desc = BUF_INIT,
		   stime = BUF_INIT, cdata = BUF_INIT;
	assert_int_equal(feature_string(&host, "testhost"), 0);
	assert_int_equal(feature_nrcpus(&nrcpus, 4, 2), 0);
	char *argv[] = { (char *)"psrec", (char *)"-e", (char *)"cpu-clock,task-clock", (char *)"./spin", NULL };
	assert_int_equal(feature_cmdline(&cmd, "/usr/bin/psrec", 4, argv), 0);
	const struct feature_event fev[] = {
		{ &f->a0, "cpu-clock", ids0, 2 }, { &f->a1, "task-clock", ids1, 3 },
	};
	assert_int_equal(feature_event_desc(&desc, fev, 2), 0);
	assert_int_equal(feature_sample_time(&stime, 1000, 4000), 0);
	assert_int_equal(feature_clock_data(&cdata, 1, 1796007997228051000ULL, 671771122270ULL), 0);
	const struct writer_feature feats[] = {
		{ PD_FEAT_HOSTNAME, host.data, host.len },
		{ PD_FEAT_NRCPUS, nrcpus.data, nrcpus.len },
		{ PD_FEAT_CMDLINE, cmd.data, cmd.len },
		{ PD_FEAT_EVENT_DESC, desc.data, desc.len },
		{ PD_FEAT_SAMPLE_TIME, stime.data, stime.len },
		{ PD_FEAT_CLOCK_DATA, cdata.data, cdata.len },
	};
	const size_t nf = sizeof(feats) / sizeof(feats[0]);
	int ferr = 1;
	assert_int_equal(writer_finish(&f->w, feats, nf, &ferr), 0);
	assert_int_equal(ferr, 0);

	/* ---- read it back ---- */
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, f->path, &e), 0);
	assert_int_equal(r.hdr.data.offset, DATA_OFF);
	assert_int_equal(r.nr_attrs, 2);
	assert_memory_equal(&r.attrs[0].attr, &f->a0, sizeof(f->a0));
	assert_memory_equal(&r.attrs[1].attr, &f->a1, sizeof(f->a1));
	assert_int_equal(r.attrs[0].nr_ids, 2);
	assert_int_equal(r.attrs[1].nr_ids, 3);
	assert_memory_equal(r.attrs[0].ids, ids0, sizeof(ids0));
	assert_memory_equal(r.attrs[1].ids, ids1, sizeof(ids1));

	struct {
		const void *bytes;
		uint32_t type;
		uint16_t size;
		int attr; /* expected reader_record_attr: 0, 1, or -1 for NULL */
	} want[] = {
		{ &round, PD_RECORD_FINISHED_ROUND, 8, 0 },     /* the opening one */
		{ mark, PD_RECORD_ID_INDEX, MARK, 0 },          /* begin's end mark */
		{ comm, PD_RECORD_COMM, sizeof(comm), 1 },
		{ s_a0, PD_RECORD_SAMPLE, TH_SAMPLE_SIZE, 0 },
		{ s_a1, PD_RECORD_SAMPLE, TH_SAMPLE_SIZE, 1 },
		{ &round, PD_RECORD_FINISHED_ROUND, 8, 0 },
		{ mark, PD_RECORD_ID_INDEX, MARK, 0 },          /* the checkpoint's */
		{ unknown, 200, sizeof(unknown), 0 },
		{ s_zero, PD_RECORD_SAMPLE, TH_SAMPLE_SIZE, 0 },
		{ s_bad, PD_RECORD_SAMPLE, TH_SAMPLE_SIZE, -1 },
		{ &round, PD_RECORD_FINISHED_ROUND, 8, 0 },
	};
	const size_t nw = sizeof(want) / sizeof(want[0]);
	uint64_t off = DATA_OFF;
	struct reader_record rec;
	for (size_t i = 0; i < nw; i++) {
		assert_int_equal(reader_next(&r, &rec, &e), 1);
		assert_int_equal(rec.offset, off);
		assert_int_equal(rec.type, want[i].type);
		assert_int_equal(rec.size, want[i].size);
		assert_memory_equal(rec.data, want[i].bytes, want[i].size);
		const struct reader_attr *ra = reader_record_attr(&r, &rec);
		if (want[i].attr < 0)
			assert_null(ra);
		else
			assert_ptr_equal(ra, &r.attrs[want[i].attr]);
		off += want[i].size;
	}
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	assert_int_equal(off, DATA_OFF + r.hdr.data.size);
	assert_int_equal(reader_next(&r, &rec, &e), 0); /* stays at the end */

	/* sample fields through sample_parse */
	reader_rewind(&r);
	assert_int_equal(reader_next(&r, &rec, &e), 1); /* the opening round */
	assert_next_is_mark(&r, &e);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.type, PD_RECORD_COMM);
	struct sample s;
	assert_int_equal(sample_parse_id_trailer(TH_SAMPLE_TYPE, rec.data, rec.size, &s), 0);
	assert_int_equal(s.pid, 10);
	assert_int_equal(s.tid, 11);
	assert_int_equal(s.time, 500);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.id, 203);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(sample_parse(r.attrs[0].attr.sample_type, rec.data, rec.size, &s), 0);
	assert_int_equal(s.id, 102);
	assert_int_equal(s.ip, 0xffffffff81000010ULL);
	assert_int_equal(s.pid, 10);
	assert_int_equal(s.tid, 11);
	assert_int_equal(s.time, 1000);
	assert_int_equal(s.cpu, 0);
	assert_int_equal(s.period, 250000);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(sample_parse(r.attrs[1].attr.sample_type, rec.data, rec.size, &s), 0);
	assert_int_equal(s.id, 201);
	assert_int_equal(s.ip, 0x401234);
	assert_int_equal(s.tid, 12);
	assert_int_equal(s.time, 2000);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.period, 4000);

	/* features: payload bytes equal to what was written */
	for (size_t i = 0; i < nf; i++) {
		assert_true(reader_has_feature(&r, feats[i].id));
		const uint8_t *fp = NULL;
		size_t fl = 0;
		assert_int_equal(reader_feature(&r, feats[i].id, &fp, &fl, &e), 0);
		assert_int_equal(fl, feats[i].len);
		assert_memory_equal(fp, feats[i].data, fl);
	}
	for (unsigned b = 0; b < PD_FEAT_BITS; b++) {
		int expected = 0;
		for (size_t i = 0; i < nf; i++)
			expected |= feats[i].id == b;
		assert_int_equal(reader_has_feature(&r, b), expected);
	}
	const uint8_t *fp;
	size_t fl;
	assert_int_equal(reader_feature(&r, PD_FEAT_BUILD_ID, &fp, &fl, &e), -ENOENT);
	/* the hostname decodes through reader_string */
	assert_int_equal(reader_feature(&r, PD_FEAT_HOSTNAME, &fp, &fl, &e), 0);
	const char *str;
	size_t slen, used;
	assert_int_equal(reader_string(fp, fl, &str, &slen, &used), 0);
	assert_int_equal(slen, 8);
	assert_memory_equal(str, "testhost", 8);
	assert_int_equal(used, fl);
	reader_close(&r);

	buf_free(&host);
	buf_free(&nrcpus);
	buf_free(&cmd);
	buf_free(&desc);
	buf_free(&stime);
	buf_free(&cdata);
}

static void test_writer_reader_round_trip_single_attr_without_ids(void **state)
{
	struct fx *f = *state;
	static const uint64_t none = 0;
	const struct writer_event ev[] = { { &f->a0, &none, 0 } };
	assert_int_equal(writer_begin(&f->w, f->fd, ev, 1), 0);
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 777, 1, 2, 3, 4, 5, 6);
	struct iovec v = { s, sizeof(s) };
	assert_int_equal(writer_append(&f->w, &v, 1), 0);
	int ferr = 1;
	assert_int_equal(writer_finish(&f->w, NULL, 0, &ferr), 0);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, f->path, &e), 0);
	assert_int_equal(r.nr_attrs, 1);
	assert_int_equal(r.attrs[0].nr_ids, 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	assert_int_equal(rec.type, PD_RECORD_FINISHED_ROUND);  /* the opening one */
	assert_next_is_mark(&r, &e);
	assert_int_equal(reader_next(&r, &rec, &e), 1);
	/* one attr: every record maps to it, whatever its id */
	assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[0]);
	assert_int_equal(reader_next(&r, &rec, &e), 0);
	reader_close(&r);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_writer_begin_header_fields_at_documented_offsets),
		T(test_writer_begin_puts_all_ids_right_after_header_then_attrs),
		T(test_writer_attr_fields_at_documented_offsets),
		T(test_writer_begin_forces_attr_size_128),
		T(test_writer_attr_without_ids_has_empty_ids_section),
		T(test_writer_begin_without_events_is_einval),
		T(test_writer_begin_on_readonly_fd_fails_with_errno),
		T(test_writer_append_and_checkpoint_cover_exactly_the_appended_bytes),
		T(test_writer_checkpoint_without_new_data_is_noop),
		T(test_writer_append_of_zero_bytes_is_noop),
		T(test_writer_append_more_than_64_iovecs),
		T(test_writer_append_many_iovecs_of_mixed_and_zero_lengths),
		T(test_writer_finish_writes_feature_table_in_ascending_order_after_data),
		T(test_writer_finish_without_features_ends_file_at_data_end),
		T(test_writer_finish_rejects_unsorted_feature_ids),
		T(test_writer_finish_rejects_duplicate_feature_ids),
		T(test_writer_finish_rejects_feature_id_256_and_above),
		T(test_writer_failed_append_is_sticky_and_not_counted),
		T(test_writer_enospc_append_is_sticky_and_keeps_data_size),
		T(test_writer_checkpoint_reports_write_error),
		T(test_writer_partial_append_is_dropped_and_features_fit_after_it),
		T(test_writer_features_that_do_not_fit_are_dropped_file_stays_valid),
		T(test_writer_reader_round_trip),
		T(test_writer_reader_round_trip_single_attr_without_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
