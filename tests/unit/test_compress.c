/*
 * test_compress.c - COMPRESSED records (src/format/compress.c) and reading
 * them back (src/format/reader.c): framing, spans that wrap, records that
 * straddle two COMPRESSED records, live COMPRESSED feature in a file that
 * was never finished, the reader's mmap_len bound, and its memory: a
 * record is decoded a piece at a time, whatever it claims.
 */
#include "test_helpers.h"

#include <sys/resource.h>
#include <zstd.h>

#include "format/compress.h"
#include "format/feature.h"
#include "format/reader.h"
#include "format/writer.h"
#include "util/buf.h"

#include "../tools/zbomb.h"

#define SPAN (256 * 1024)

/* SAMPLE records back to back; noisy ips make the data hard to compress. */
static size_t fill_samples(uint8_t *p, size_t cap, uint64_t seed, bool noisy)
{
	size_t n = 0;
	uint64_t st = seed;
	for (uint64_t i = 0; n + TH_SAMPLE_SIZE <= cap; i++) {
		uint64_t ip = noisy ? th_rand(&st) : 0x400000 + (i % 3) * 0x40;
		th_make_sample(p + n, 0, ip, 42, 42, 1000 + i, (uint32_t)(i & 1), 250000);
		n += TH_SAMPLE_SIZE;
	}
	return n;
}

/* Walk the COMPRESSED records in out[0..len): count them, check framing. */
static size_t check_records(const uint8_t *out, size_t len)
{
	size_t pos = 0, n = 0;
	while (pos < len) {
		assert_true(len - pos >= 8);
		assert_int_equal(th_u32(out, pos), PD_RECORD_COMPRESSED);
		uint16_t size = th_u16(out, pos + 6);
		assert_true(size > 8);
		assert_true(pos + size <= len);
		pos += size;
		n++;
	}
	assert_int_equal(pos, len);
	return n;
}

/* Decompress the payloads of all records with one stream. */
static size_t decompress_all(ZSTD_DStream *ds, const uint8_t *out, size_t len, uint8_t *dst, size_t cap)
{
	size_t pos = 0, got = 0;
	while (pos < len) {
		uint16_t size = th_u16(out, pos + 6);
		ZSTD_inBuffer in = { out + pos + 8, size - 8u, 0 };
		while (in.pos < in.size) {
			ZSTD_outBuffer o = { dst + got, cap - got, 0 };
			size_t r = ZSTD_decompressStream(ds, &o, &in);
			assert_false(ZSTD_isError(r));
			got += o.pos;
		}
		pos += size;
	}
	return got;
}

static void test_compress_span_splits_into_records_below_64k_that_decode(void **state)
{
	(void)state;
	uint8_t *span = malloc(SPAN), *back = malloc(SPAN);
	/* Random bytes do not compress: the output cannot fit one record. */
	uint64_t st = 99;
	for (size_t i = 0; i + 8 <= SPAN; i += 8)
		th_put_u64(span, i, th_rand(&st));
	size_t n = SPAN;
	struct compressor c;
	assert_int_equal(compress_init(&c, 1, SPAN), 0);
	struct iovec iov = { span, n };
	size_t len;
	assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
	/* Noisy data does not fit one record: several, each a u16 size. */
	assert_true(check_records(c.out, len) >= 2);
	ZSTD_DStream *ds = ZSTD_createDStream();
	assert_int_equal(decompress_all(ds, c.out, len, back, SPAN), n);
	assert_memory_equal(back, span, n);

	/* The stream goes on: the next span decodes with the same stream. */
	size_t n2 = fill_samples(span, SPAN / 2, 2, false);
	iov.iov_len = n2;
	assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
	check_records(c.out, len);
	assert_int_equal(decompress_all(ds, c.out, len, back, SPAN), n2);
	assert_memory_equal(back, span, n2);
	assert_true(compress_ratio(&c) >= 1);
	ZSTD_freeDStream(ds);
	compress_free(&c);
	free(span);
	free(back);
}

static void test_compress_span_of_two_iovecs_is_one_stream_of_bytes(void **state)
{
	(void)state;
	uint8_t *span = malloc(SPAN), *back = malloc(SPAN);
	size_t n = fill_samples(span, SPAN, 3, false);
	struct compressor c;
	assert_int_equal(compress_init(&c, 3, SPAN), 0);
	/* a wrapped ring: the split falls inside a record */
	struct iovec iov[2] = { { span, 1000 }, { span + 1000, n - 1000 } };
	size_t len;
	assert_int_equal(compress_span(&c, iov, 2, &len), 0);
	check_records(c.out, len);
	ZSTD_DStream *ds = ZSTD_createDStream();
	assert_int_equal(decompress_all(ds, c.out, len, back, SPAN), n);
	assert_memory_equal(back, span, n);
	ZSTD_freeDStream(ds);
	compress_free(&c);
	free(span);
	free(back);
}

static void test_compress_span_larger_than_max_is_einval(void **state)
{
	(void)state;
	struct compressor c;
	/* A ring smaller than one record of the largest size still takes
	 * one: the bound is COMPRESS_SPAN_MIN. */
	assert_int_equal(compress_init(&c, 1, 4096), 0);
	assert_int_equal(c.max_span, COMPRESS_SPAN_MIN);
	uint8_t *big = calloc(1, 2 * COMPRESS_SPAN_MIN);
	assert_non_null(big);
	struct iovec iov = { big, COMPRESS_SPAN_MIN + 8 };
	size_t len;
	assert_int_equal(compress_span(&c, &iov, 1, &len), -EINVAL);
	compress_free(&c);
	free(big);
}


/* A record of size bytes with random payload (a dwarf sample's stack). */
static size_t put_noisy_record(uint8_t *p, uint16_t size, uint64_t *st)
{
	struct pd_event_header h = { PD_RECORD_SAMPLE, 0, size };
	memcpy(p, &h, sizeof(h));
	for (size_t i = 8; i + 8 <= size; i += 8)
		th_put_u64(p, i, th_rand(st));
	return size;
}

/*
 * Regression (issue 10.2): incompressible dwarf-sized records used to be
 * cut into COMPRESSED records at 65,527 bytes whatever the zstd blocks; a
 * record holding part of a block decodes to nothing and perf aborts. Now
 * every COMPRESSED record, decoded in turn by one stream as perf does,
 * yields whole records, and a record too big for a chunk goes out raw.
 */
static void test_compress_every_record_decodes_to_whole_records(void **state)
{
	(void)state;
	enum { BIG = 1 << 20 };
	uint8_t *span = malloc(BIG), *back = malloc(BIG);
	uint64_t st = 7;
	size_t n = 0;
	uint16_t sizes[] = { 65528, 40000, 30000, 65000, 65008, 8, 24000 };
	for (size_t i = 0; n + 65535 <= BIG; i++)
		n += put_noisy_record(span + n, sizes[i % 7], &st);
	struct compressor c;
	assert_int_equal(compress_init(&c, 1, BIG), 0);
	/* wrapped inside the first record */
	struct iovec iov[2] = { { span, 777 }, { span + 777, n - 777 } };
	size_t len;
	assert_int_equal(compress_span(&c, iov, 2, &len), 0);
	ZSTD_DStream *ds = ZSTD_createDStream();
	size_t pos = 0, got = 0, raw = 0, comp = 0;
	while (pos < len) {
		uint32_t type = th_u32(c.out, pos);
		uint16_t size = th_u16(c.out, pos + 6);
		assert_true(pos + size <= len);
		if (type == PD_RECORD_SAMPLE) {
			assert_true(size > COMPRESS_CHUNK_MAX);
			memcpy(back + got, c.out + pos, size);
			got += size;
			raw++;
		} else {
			assert_int_equal(type, PD_RECORD_COMPRESSED);
			size_t before = got;
			ZSTD_inBuffer in = { c.out + pos + 8, size - 8u, 0 };
			while (in.pos < in.size) {
				ZSTD_outBuffer o = { back + got, BIG - got, 0 };
				assert_false(ZSTD_isError(ZSTD_decompressStream(ds, &o, &in)));
				got += o.pos;
			}
			/* something, and whole records: the next header is at got */
			assert_true(got > before);
			size_t q = before;
			while (q < got)
				q += th_u16(back, q + 6);
			assert_int_equal(q, got);
			comp++;
		}
		pos += size;
	}
	assert_int_equal(got, n);
	assert_memory_equal(back, span, n);
	assert_true(raw >= 2);
	assert_true(comp >= 2);
	assert_int_equal(c.raw_records, raw);
	ZSTD_freeDStream(ds);
	compress_free(&c);
	free(span);
	free(back);
}

/* What input a partly written output covers: whole chunks only. */
static void test_compress_input_kept_counts_whole_chunks(void **state)
{
	(void)state;
	uint8_t *span = malloc(SPAN);
	uint64_t st = 8;
	size_t n = 0;
	while (n + 40000 <= SPAN)
		n += put_noisy_record(span + n, 40000, &st);
	struct compressor c;
	assert_int_equal(compress_init(&c, 1, SPAN), 0);
	struct iovec iov = { span, n };
	size_t len;
	assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
	assert_int_equal(c.nr_chunks, n / 40000);
	assert_int_equal(compress_input_kept(&c, len), n);
	assert_int_equal(compress_input_kept(&c, len - 1), n - 40000);
	assert_int_equal(compress_input_kept(&c, c.chunk[0].out_end), 40000);
	assert_int_equal(compress_input_kept(&c, c.chunk[0].out_end - 1), 0);
	compress_free(&c);
	free(span);
}

/*
 * A file with COMPRESSED as a HEADER_FEATURE record at the start of the
 * data: readable after every checkpoint even though writer_finish never
 * runs (a killed recording), and after finishing. Samples come back in order, including those split
 * across two COMPRESSED records.
 */
static void test_compressed_file_reads_back_killed_and_finished(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = TH_SAMPLE_TYPE;
	attr.flags = PD_ATTR_SAMPLE_ID_ALL;
	uint64_t ids[1] = { 7 };
	struct writer_event ev = { &attr, ids, 1, "cpu-clock" };
	struct buf fb = BUF_INIT;
	assert_int_equal(feature_compressed(&fb, 1, 0, SPAN), 0);
	struct writer_feature live = { PD_FEAT_COMPRESSED, fb.data, fb.len };
	struct writer w;
	assert_int_equal(writer_begin(&w, fd, &ev, 1), 0);
	assert_int_equal(writer_append_feature(&w, &live), 0);

	struct compressor c;
	assert_int_equal(compress_init(&c, 1, SPAN), 0);
	uint8_t *span = malloc(SPAN);
	size_t total_samples = 0;
	for (int round = 0; round < 3; round++) {
		size_t n = fill_samples(span, SPAN, 10 + (uint64_t)round, round == 1);
		struct iovec iov = { span, n };
		size_t len;
		assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
		struct iovec out = { c.out, len };
		assert_int_equal(writer_append(&w, &out, 1), 0);
		assert_int_equal(writer_round(&w), 0);
		assert_int_equal(writer_checkpoint(&w), 0);
		total_samples += n / TH_SAMPLE_SIZE;

		/* As if killed now: the file must read whole. */
		struct reader r;
		struct err e = { "" };
		assert_int_equal(reader_open_file(&r, path, &e), 0);
		struct reader_record rec;
		size_t seen = 0;
		int k;
		uint64_t last_time = 0;
		while ((k = reader_next(&r, &rec, &e)) == 1) {
			/* rounds, the parameters and the writer's end marks */
			if (rec.type == PD_RECORD_FINISHED_ROUND || rec.type == PD_RECORD_HEADER_FEATURE ||
			    rec.type == PD_RECORD_ID_INDEX) {
				assert_false(rec.compressed);
				continue;
			}
			assert_int_equal(rec.type, PD_RECORD_SAMPLE);
			assert_true(rec.compressed);
			uint64_t t = th_u64(rec.data, 32);
			assert_true(seen == 0 || t > last_time || t == 1000);
			last_time = t;
			seen++;
		}
		if (k < 0)
			fail_msg("round %d: %s", round, e.msg);
		assert_int_equal(seen, total_samples);
		assert_int_equal(r.mmap_len, SPAN);     /* from the record */
		assert_true(r.nr_compressed >= (uint64_t)round + 1);
		reader_close(&r);
	}
	buf_reset(&fb);
	assert_int_equal(feature_compressed(&fb, 1, compress_ratio(&c), SPAN), 0);
	struct writer_feature f = { PD_FEAT_COMPRESSED, fb.data, fb.len };
	int ferr;
	assert_int_equal(writer_finish(&w, &f, 1, &ferr), 0);
	assert_int_equal(ferr, 0);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	struct reader_record rec;
	size_t seen = 0;
	while (reader_next(&r, &rec, &e) == 1)
		seen += rec.type == PD_RECORD_SAMPLE;
	assert_int_equal(seen, total_samples);
	reader_close(&r);

	compress_free(&c);
	buf_free(&fb);
	free(span);
	close(fd);
	unlink(path);
}

/* A COMPRESSED record that decodes to more than mmap_len is an error that
 * names its offset, as perf fails on it too. */
static void test_reader_rejects_compressed_record_bigger_than_mmap_len(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = TH_SAMPLE_TYPE;
	struct writer_event ev = { &attr, NULL, 0, NULL };
	struct buf fb = BUF_INIT;
	assert_int_equal(feature_compressed(&fb, 1, 0, 4096), 0); /* too small */
	struct writer_feature live = { PD_FEAT_COMPRESSED, fb.data, fb.len };
	struct writer w;
	assert_int_equal(writer_begin(&w, fd, &ev, 1), 0);
	assert_int_equal(writer_append_feature(&w, &live), 0);
	struct compressor c;
	assert_int_equal(compress_init(&c, 1, SPAN), 0);
	uint8_t *span = malloc(SPAN);
	size_t n = fill_samples(span, 32 * 1024, 5, false); /* one chunk, one record */
	struct iovec iov = { span, n };
	size_t len;
	assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
	size_t nrec = check_records(c.out, len);
	if (nrec != 1)
		fail_msg("32 KiB of samples gave %zu records, %zu bytes", nrec, len);
	struct iovec out = { c.out, len };
	assert_int_equal(writer_append(&w, &out, 1), 0);
	assert_int_equal(writer_checkpoint(&w), 0);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	struct reader_record rec;
	int k;
	while ((k = reader_next(&r, &rec, &e)) == 1)
		;
	assert_int_equal(k, -EINVAL);
	assert_non_null(strstr(e.msg, "mmap_len"));
	assert_non_null(strstr(e.msg, "offset"));
	reader_close(&r);
	compress_free(&c);
	buf_free(&fb);
	free(span);
	close(fd);
	unlink(path);
}

/* Without any COMPRESSED feature the reader says what is missing. */
static void test_reader_compressed_record_without_feature_is_explained(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	struct writer_event ev = { &attr, NULL, 0, NULL };
	struct writer w;
	assert_int_equal(writer_begin(&w, fd, &ev, 1), 0);
	struct compressor c;
	assert_int_equal(compress_init(&c, 1, 4096), 0);
	uint8_t span[1024];
	size_t n = fill_samples(span, sizeof(span), 6, false);
	struct iovec iov = { span, n };
	size_t len;
	assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
	struct iovec out = { c.out, len };
	assert_int_equal(writer_append(&w, &out, 1), 0);
	assert_int_equal(writer_checkpoint(&w), 0);
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	struct reader_record rec;
	assert_int_equal(reader_next(&r, &rec, &e), 1); /* the opening round */
	assert_int_equal(reader_next(&r, &rec, &e), 1); /* the writer's end mark */
	assert_int_equal(rec.type, PD_RECORD_ID_INDEX);
	assert_int_equal(reader_next(&r, &rec, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no usable zstd COMPRESSED feature"));
	reader_close(&r);
	compress_free(&c);
	close(fd);
	unlink(path);
}

/* Pipe mode: header, HEADER_ATTR, EVENT_UPDATE name, HEADER_FEATUREs (ids
 * >= 32 dropped), then data; the reader reads it back. */
static void test_writer_pipe_stream_reads_back(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = TH_SAMPLE_TYPE;
	uint64_t ids[2] = { 21, 22 };
	struct writer_event ev = { &attr, ids, 2, "task-clock" };
	struct buf host = BUF_INIT;
	assert_int_equal(feature_string(&host, "pipehost"), 0);
	struct writer_feature f[2] = {
		{ PD_FEAT_HOSTNAME, host.data, host.len },
		{ 40, host.data, host.len },    /* perf 6.1 would abort: dropped */
	};
	struct writer w;
	assert_int_equal(writer_begin_pipe(&w, fd, &ev, 1, f, 2), 0);
	uint8_t s[TH_SAMPLE_SIZE];
	th_make_sample(s, 22, 0x1234, 3, 4, 99, 1, 250000);
	struct iovec iov = { s, sizeof(s) };
	assert_int_equal(writer_append(&w, &iov, 1), 0);
	assert_int_equal(writer_checkpoint(&w), 0);
	int ferr;
	assert_int_equal(writer_finish(&w, NULL, 0, &ferr), 0);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	assert_true(r.pipe);
	assert_int_equal(r.nr_attrs, 1);
	assert_int_equal(r.attrs[0].ids[1], 22);
	assert_true(reader_has_feature(&r, PD_FEAT_HOSTNAME));
	assert_false(reader_has_feature(&r, 40));
	struct reader_record rec;
	int saw_update = 0, saw_sample = 0;
	while (reader_next(&r, &rec, &e) == 1) {
		if (rec.type == PD_RECORD_EVENT_UPDATE) {
			assert_int_equal(th_u64(rec.data, 8), 2);      /* name */
			assert_int_equal(th_u64(rec.data, 16), 21);    /* an id of the event */
			assert_string_equal((const char *)rec.data + 24, "task-clock");
			assert_int_equal(rec.size % 8, 0);
			saw_update++;
		}
		if (rec.type == PD_RECORD_SAMPLE) {
			assert_ptr_equal(reader_record_attr(&r, &rec), &r.attrs[0]);
			saw_sample++;
		}
		assert_true(rec.type != PD_RECORD_HEADER_FEATURE || th_u64(rec.data, 8) < 32);
	}
	assert_int_equal(saw_update, 1);
	assert_int_equal(saw_sample, 1);
	reader_close(&r);
	buf_free(&host);
	close(fd);
	unlink(path);
}

/* perf's COMPRESSED records hold up to mmap_len of output each (hundreds
 * of KiB), more than the reader decodes at a time: records cut between
 * two pieces come back whole, every one in order. */
static void test_reader_decodes_a_record_larger_than_its_buffer(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = TH_SAMPLE_TYPE;
	struct writer_event ev = { &attr, NULL, 0, NULL };
	size_t cap = 3 * ZDECODE_BUF + 1000;
	struct buf fb = BUF_INIT;
	assert_int_equal(feature_compressed(&fb, 1, 0, (uint32_t)cap), 0);
	struct writer_feature live = { PD_FEAT_COMPRESSED, fb.data, fb.len };
	struct writer w;
	assert_int_equal(writer_begin(&w, fd, &ev, 1), 0);
	assert_int_equal(writer_append_feature(&w, &live), 0);
	uint8_t *span = malloc(cap), *rec = malloc(65535);
	size_t n = fill_samples(span, cap, 3, false);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_inBuffer in = { span, n, 0 };
	ZSTD_outBuffer out = { rec + 8, 65535 - 8, 0 };
	assert_int_equal(ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush), 0);
	struct pd_event_header h = { PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + out.pos) };
	memcpy(rec, &h, sizeof(h));
	struct iovec iov = { rec, h.size };
	assert_int_equal(writer_append(&w, &iov, 1), 0);
	assert_int_equal(writer_checkpoint(&w), 0);

	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	struct reader_record rr;
	size_t seen = 0;
	int k;
	while ((k = reader_next(&r, &rr, &e)) == 1) {
		if (!rr.compressed)
			continue; /* the feature record, the writer's round */
		assert_int_equal(rr.type, PD_RECORD_SAMPLE);
		assert_memory_equal(rr.data, span + seen * TH_SAMPLE_SIZE, TH_SAMPLE_SIZE);
		seen++;
	}
	if (k < 0)
		fail_msg("%s", e.msg);
	assert_int_equal(seen, n / TH_SAMPLE_SIZE);
	assert_int_equal(r.nr_compressed, 1);
	assert_int_equal(r.z.cap, ZDECODE_BUF);
	reader_close(&r);
	ZSTD_freeCCtx(cc);
	free(rec);
	free(span);
	buf_free(&fb);
	close(fd);
	unlink(path);
}

struct bomb_read {
	int k;
	uint64_t samples, others;
	size_t cap;
	char msg[256];
	long maxrss_kb;
};

static void bomb_read_body(void *out, void *arg)
{
	struct bomb_read *b = out;
	struct reader r;
	struct err e = { "" };
	if (reader_open_file(&r, arg, &e) == 0) {
		struct reader_record rec;
		while ((b->k = reader_next(&r, &rec, &e)) == 1) {
			b->samples += rec.type == PD_RECORD_SAMPLE;
			b->others += rec.type != PD_RECORD_SAMPLE;
		}
		b->cap = r.z.cap;
		reader_close(&r);
	}
	snprintf(b->msg, sizeof(b->msg), "%s", e.msg);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	b->maxrss_kb = ru.ru_maxrss;
}

/*
 * A finished 130 KB -z file whose COMPRESSED feature says mmap_len 1 GiB,
 * and whose last records go on with the zstd frame in RLE blocks of 0x08:
 * records of 2056 bytes that frame well, 2 GiB a COMPRESSED record. The
 * reader held a record's whole output, 1 GiB; now the memory is one
 * piece and zstd's window, and the record fails where its output passes
 * the mmap_len (what fold, markers and pprof read with).
 */
static void test_reader_decompression_bomb_costs_no_memory(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	struct zbomb z = { 8, 2, 0, 100, 1u << 30 };
	assert_int_equal(zbomb_build(&b, &z), 0);
	char path[64];
	th_write_file(path, b.data, b.len);
	struct bomb_read run;
	th_run_in_child(bomb_read_body, path, &run, sizeof(run));
	/* about 4 MB, 60 MB under ASan; the claim was 1 GiB */
	if (run.maxrss_kb > 256 * 1024)
		fail_msg("the reader held %ld KiB", run.maxrss_kb);
	assert_int_equal(run.k, -EINVAL);
	assert_non_null(strstr(run.msg, "COMPRESSED record at offset 805 decompresses to more than 1073741824 bytes"));
	assert_int_equal(run.samples, 100);
	assert_true(run.others > 500000); /* COMM, then what the bomb framed: ~1 GiB of it */
	assert_int_equal(run.cap, ZDECODE_BUF);
	unlink(path);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compress_span_splits_into_records_below_64k_that_decode),
		cmocka_unit_test(test_compress_span_of_two_iovecs_is_one_stream_of_bytes),
		cmocka_unit_test(test_compress_span_larger_than_max_is_einval),
		cmocka_unit_test(test_compress_every_record_decodes_to_whole_records),
		cmocka_unit_test(test_compress_input_kept_counts_whole_chunks),
		cmocka_unit_test(test_compressed_file_reads_back_killed_and_finished),
		cmocka_unit_test(test_reader_rejects_compressed_record_bigger_than_mmap_len),
		cmocka_unit_test(test_reader_decodes_a_record_larger_than_its_buffer),
		cmocka_unit_test(test_reader_decompression_bomb_costs_no_memory),
		cmocka_unit_test(test_reader_compressed_record_without_feature_is_explained),
		cmocka_unit_test(test_writer_pipe_stream_reads_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
