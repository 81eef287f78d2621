/*
 * test_recover.c - repairing killed recordings (src/format/recover.c):
 * files cut inside a record, compressed streams cut inside a record, and
 * input that is not perf.data. Each repaired file must read to its end
 * with psrec's reader, and never change size.
 */
#include "test_helpers.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <zstd.h>

#include "format/compress.h"
#include "format/feature.h"
#include "format/reader.h"
#include "format/recover.h"
#include "format/writer.h"
#include "util/buf.h"

#include "../tools/zbomb.h"

#define SPAN (1024 * 1024)

static void begin_file(struct writer *w, int fd, struct pd_attr *attr, uint64_t *id)
{
	memset(attr, 0, sizeof(*attr));
	attr->sample_type = TH_SAMPLE_TYPE;
	attr->flags = PD_ATTR_SAMPLE_ID_ALL;
	*id = 7;
	struct writer_event ev = { attr, id, 1, "cpu-clock" };
	assert_int_equal(writer_begin(w, fd, &ev, 1), 0);
}

static off_t file_size(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* Leave the file as a recorder killed with -9 would: cut at cut_at, with
 * data.size never written. Then repair it, which must succeed, change the
 * header, and keep the file's size. */
static void kill_and_recover(int fd, const char *path, uint64_t cut_at, struct recover_result *res)
{
	assert_int_equal(ftruncate(fd, (off_t)cut_at), 0);
	uint64_t zero = 0;
	assert_int_equal(pwrite(fd, &zero, sizeof(zero), PD_HEADER_DATA_SIZE_OFFSET), (ssize_t)sizeof(zero));
	off_t before = file_size(path);
	struct err e = { "" };
	if (recover_file(path, res, &e) < 0)
		fail_msg("recover: %s", e.msg);
	assert_true(res->changed);
	assert_int_equal(file_size(path), before);
}

/* Read every record; returns how many, failing the test on an error. */
static size_t read_all(const char *path)
{
	struct reader r;
	struct err e = { "" };
	if (reader_open_file(&r, path, &e) < 0)
		fail_msg("open: %s", e.msg);
	struct reader_record rec;
	size_t n = 0;
	int k;
	while ((k = reader_next(&r, &rec, &e)) == 1)
		n++;
	if (k < 0)
		fail_msg("read: %s", e.msg);
	reader_close(&r);
	return n;
}

static void test_plain_file_cut_inside_a_record_keeps_the_complete_ones(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct pd_attr attr;
	uint64_t id;
	struct writer w;
	begin_file(&w, fd, &attr, &id);
	uint8_t rec[TH_SAMPLE_SIZE];
	for (int i = 0; i < 100; i++) {
		th_make_sample(rec, 7, 0x400000 + (uint64_t)i, 1, 1, 1000 + (uint64_t)i, 0, 1);
		struct iovec iov = { rec, sizeof(rec) };
		assert_int_equal(writer_append(&w, &iov, 1), 0);
	}
	struct recover_result res;
	kill_and_recover(fd, path, w.end - TH_SAMPLE_SIZE / 2, &res);
	assert_int_equal(res.records, 101);     /* the opening round and its end mark too */
	assert_int_equal(res.samples, 99);
	assert_int_equal(res.compressed, 0);
	assert_int_equal(read_all(path), 101);
	close(fd);
	unlink(path);
}

/*
 * perf record -z's framing: the whole span flushed into one stream and the
 * output cut every 65,527 bytes whatever the blocks, so records inside the
 * stream straddle COMPRESSED records (psrec's own compressor never does
 * that; these files come from perf). Returns the bytes in out.
 */
static size_t perf_style_compress(ZSTD_CCtx *cctx, const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t pos = 0;
	for (;;) {
		assert_true(cap - pos > 8);
		size_t room = cap - pos - 8 < 65527 ? cap - pos - 8 : 65527;
		ZSTD_outBuffer o = { out + pos + 8, room, 0 };
		size_t r = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_flush);
		assert_false(ZSTD_isError(r));
		if (o.pos) {
			struct pd_event_header h = { PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + o.pos) };
			memcpy(out + pos, &h, 8);
			pos += 8 + o.pos;
		}
		if (r == 0)
			return pos;
	}
}

/* Two spans of noisy samples compressed into one stream, as perf record -z
 * writes them; *first_span_end is where the second span starts. */
struct zfile {
	char path[64];
	int fd;
	struct writer w;        /* to finish it, if a test wants */
	uint64_t first_span_end, end;
	size_t nr_comp;         /* COMPRESSED records written */
	size_t span_samples;
};

static void zfile_make(struct zfile *z)
{
	z->fd = th_tmpfile(z->path);
	struct pd_attr attr;
	uint64_t id;
	struct writer w;
	begin_file(&w, z->fd, &attr, &id);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)));
	uint8_t *span = malloc(SPAN), *out = malloc(2 * SPAN);
	assert_non_null(span);
	assert_non_null(out);
	uint64_t st = 99;
	size_t n = 0;
	/* zstd decodes whole 128 KiB blocks: 5 of them plus a part make the
	 * stream's cut points fall inside 56-byte records (7 blocks would not). */
	for (uint64_t i = 0; n + TH_SAMPLE_SIZE <= 700000; i++, n += TH_SAMPLE_SIZE)
		th_make_sample(span + n, 7, th_rand(&st), 1, 1, 1000 + i, 0, th_rand(&st));
	z->span_samples = n / TH_SAMPLE_SIZE;
	z->nr_comp = 0;
	for (int round = 0; round < 2; round++) {
		size_t len = perf_style_compress(cctx, span, n, out, 2 * SPAN);
		struct iovec iov = { out, len };
		assert_int_equal(writer_append(&w, &iov, 1), 0);
		for (size_t p = 0; p < len; p += th_u16(out, p + 6))
			z->nr_comp++;
		if (round == 0)
			z->first_span_end = w.end;
	}
	z->end = w.end;
	z->w = w;
	assert_true(z->nr_comp / 2 >= 3);       /* several records per span */
	ZSTD_freeCCtx(cctx);
	free(span);
	free(out);
}

static void zfile_free(struct zfile *z)
{
	close(z->fd);
	unlink(z->path);
}

/* Where the last COMPRESSED record starts. */
static uint64_t zfile_last_record(const struct zfile *z)
{
	uint64_t pos = z->first_span_end, last = 0;
	while (pos < z->end) {
		uint8_t h[8];
		assert_int_equal(pread(z->fd, h, 8, (off_t)pos), 8);
		last = pos;
		pos += th_u16(h, 6);
	}
	return last;
}

/*
 * Records inside the stream straddle COMPRESSED records. Cutting the file
 * inside the last one leaves a stream that ends inside a SAMPLE; the repair
 * must end the data at an earlier COMPRESSED record after which the stream
 * is at a boundary.
 */
static void test_compressed_stream_cut_inside_a_record_ends_at_a_whole_one(void **state)
{
	(void)state;
	struct zfile z;
	zfile_make(&z);
	struct recover_result res;
	kill_and_recover(z.fd, z.path, zfile_last_record(&z) + 100, &res);
	assert_true(res.mmap_len > 0);
	assert_true(res.compressed >= z.nr_comp / 2);
	assert_true(res.compressed < z.nr_comp - 1);    /* more than the cut record went */

	/* Whole samples only, and at least the first span's. */
	size_t got = read_all(z.path);
	assert_true(got >= z.span_samples);
	assert_true(got < 2 * z.span_samples);

	/* Nothing left to do on a second run. */
	struct err e = { "" };
	assert_int_equal(recover_file(z.path, &res, &e), 0);
	assert_false(res.changed);
	zfile_free(&z);
}

/* Killed right after a whole record: no junk after the data to hold the
 * feature table, so records go, back to a point where the stream is
 * whole again. */
static void test_compressed_file_without_room_drops_back_to_a_whole_point(void **state)
{
	(void)state;
	struct zfile z;
	zfile_make(&z);
	struct recover_result res;
	kill_and_recover(z.fd, z.path, z.end, &res);
	uint64_t data_offset;
	assert_int_equal(pread(z.fd, &data_offset, 8, 40), 8);        /* data.offset */
	assert_true(data_offset + res.data_size + 36 <= z.end);       /* table + payload fit */
	assert_true(res.compressed < z.nr_comp);
	size_t got = read_all(z.path);
	assert_true(got >= z.span_samples);
	zfile_free(&z);
}


/* Every sample of the file, read with psrec's reader (inside COMPRESSED
 * records too). */
static size_t read_samples(const char *path)
{
	struct reader r;
	struct err e = { "" };
	if (reader_open_file(&r, path, &e) < 0)
		fail_msg("open: %s", e.msg);
	struct reader_record rec;
	size_t n = 0;
	int k;
	while ((k = reader_next(&r, &rec, &e)) == 1)
		n += rec.type == PD_RECORD_SAMPLE;
	if (k < 0)
		fail_msg("read: %s", e.msg);
	reader_close(&r);
	return n;
}

static void put_u64(int fd, uint64_t v, uint64_t off)
{
	assert_int_equal(pwrite(fd, &v, 8, (off_t)off), 8);
}

static void set_features(int fd, uint64_t w0)
{
	uint64_t bits[4] = { w0, 0, 0, 0 };
	assert_int_equal(pwrite(fd, bits, sizeof(bits), 72), (ssize_t)sizeof(bits));
}

/*
 * Regression (issue 10.4): psrec 0.1 killed in writer_finish, after the
 * final feature table overwrote its live COMPRESSED entry and before the
 * header was rewritten: data.size is right, the bitmap says COMPRESSED,
 * and the entry the reader takes for it points at the hostname. recover
 * said "needs no repair"; now the data gets a usable COMPRESSED feature.
 */
static void test_finish_window_file_gets_a_usable_compressed_feature(void **state)
{
	(void)state;
	struct zfile z;
	zfile_make(&z);
	uint64_t data_offset;
	assert_int_equal(pread(z.fd, &data_offset, 8, 40), 8);
	put_u64(z.fd, z.end - data_offset, PD_HEADER_DATA_SIZE_OFFSET);
	set_features(z.fd, 1ULL << PD_FEAT_COMPRESSED);
	/* the final table: HOSTNAME first, then its payload */
	struct pd_section t[2] = { { z.end + 32, 16 }, { z.end + 48, 20 } };
	assert_int_equal(pwrite(z.fd, t, sizeof(t), (off_t)z.end), (ssize_t)sizeof(t));
	assert_int_equal(pwrite(z.fd, "\x0b\0\0\0myhostname\0\0", 16, (off_t)(z.end + 32)), 16);
	uint32_t comp[5] = { 0, 1, 1, 3, 1 << 20 };
	assert_int_equal(pwrite(z.fd, comp, sizeof(comp), (off_t)(z.end + 48)), (ssize_t)sizeof(comp));

	struct recover_result res;
	struct err e = { "" };
	if (recover_file(z.path, &res, &e) < 0)
		fail_msg("recover: %s", e.msg);
	assert_true(res.changed);
	assert_true(res.mmap_len > 0);
	assert_int_equal(res.data_size, z.end - data_offset);
	assert_int_equal(read_samples(z.path), 2 * z.span_samples);
	assert_int_equal(recover_file(z.path, &res, &e), 0);
	assert_false(res.changed);
	zfile_free(&z);
}

/* A finished perf-style -z file with HOSTNAME, COMPRESSED and CLOCK_DATA,
 * then cut cut_back bytes before its end. */
static void finish_and_cut(struct zfile *z, off_t cut_back)
{
	struct buf host = BUF_INIT, comp = BUF_INIT, clock = BUF_INIT;
	assert_int_equal(feature_string(&host, "myhostname"), 0);
	assert_int_equal(feature_compressed(&comp, 1, 3, 1 << 20), 0);
	assert_int_equal(feature_clock_data(&clock, 1, 1000, 2000), 0);
	struct writer_feature f[3] = {
		{ PD_FEAT_HOSTNAME, host.data, host.len },
		{ PD_FEAT_COMPRESSED, comp.data, comp.len },
		{ PD_FEAT_CLOCK_DATA, clock.data, clock.len },
	};
	int ferr;
	assert_int_equal(writer_finish(&z->w, f, 3, &ferr), 0);
	assert_int_equal(ferr, 0);
	assert_int_equal(ftruncate(z->fd, file_size(z->path) - cut_back), 0);
	buf_free(&host);
	buf_free(&comp);
	buf_free(&clock);
}

static bool has_hostname(const char *path)
{
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	const uint8_t *p;
	size_t len;
	bool ok = reader_feature(&r, PD_FEAT_HOSTNAME, &p, &len, &e) == 0 && memmem(p, len, "myhostname", 10);
	reader_close(&r);
	return ok;
}

/*
 * Regression (issue 10.4): a finished -z file cut inside its feature
 * section (half of all cut points) kept its header and, with COMPRESSED
 * gone, read nothing: recover said it "needs no repair". Now the intact
 * features stay, COMPRESSED is rebuilt when it was the one cut, and every
 * sample reads.
 */
static void test_file_cut_in_its_feature_section_keeps_the_intact_features(void **state)
{
	(void)state;
	struct recover_result res;
	struct err e = { "" };
	/* cut inside CLOCK_DATA, the last payload */
	struct zfile z;
	zfile_make(&z);
	finish_and_cut(&z, 5);
	if (recover_file(z.path, &res, &e) < 0)
		fail_msg("recover: %s", e.msg);
	assert_true(res.changed);
	assert_int_equal(res.features, 2);
	assert_int_equal(res.mmap_len, 0);              /* COMPRESSED kept as it was */
	assert_int_equal(read_samples(z.path), 2 * z.span_samples);
	assert_true(has_hostname(z.path));
	zfile_free(&z);

	/* cut inside COMPRESSED: a new one; HOSTNAME goes where it is in the way */
	zfile_make(&z);
	finish_and_cut(&z, 28);
	if (recover_file(z.path, &res, &e) < 0)
		fail_msg("recover: %s", e.msg);
	assert_true(res.changed);
	assert_true(res.mmap_len > 0);
	assert_int_equal(read_samples(z.path), 2 * z.span_samples);
	zfile_free(&z);
}

/*
 * Regression (issue 10.4): psrec 0.1 kept COMPRESSED before the data and
 * its table after it; killed between writing records over that table and
 * the header update, its file lost every sample to recover. Its payload is
 * still before the data: recover points a new table at it and keeps all.
 */
static void test_psrec01_append_window_file_keeps_every_sample(void **state)
{
	(void)state;
	struct zfile z;
	zfile_make(&z);
	size_t len;
	uint8_t *old = th_read_file(z.path, &len);
	struct pd_file_header h;
	memcpy(&h, old, sizeof(h));
	/* The same file with a 24-byte COMPRESSED payload between the attrs
	 * and the data. */
	uint32_t comp[6] = { 0, 1, 1, 0, 1 << 20, 0 };
	uint64_t d0 = h.data.offset;
	h.data.offset += sizeof(comp);
	uint64_t cut = h.data.offset + (z.first_span_end - d0);
	h.data.size = cut - h.data.offset;              /* the first span only */
	h.features[0] = 1ULL << PD_FEAT_COMPRESSED;
	char path[64];
	int fd = th_tmpfile(path);
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	assert_int_equal(pwrite(fd, old + sizeof(h), d0 - sizeof(h), sizeof(h)), (ssize_t)(d0 - sizeof(h)));
	assert_int_equal(pwrite(fd, comp, sizeof(comp), (off_t)d0), (ssize_t)sizeof(comp));
	assert_int_equal(pwrite(fd, old + d0, len - d0, (off_t)h.data.offset), (ssize_t)(len - d0));
	/* and, after the records, the new table it wrote before the kill */
	struct pd_section live = { d0, 20 };
	assert_int_equal(pwrite(fd, &live, sizeof(live), (off_t)(h.data.offset + len - d0)), (ssize_t)sizeof(live));
	free(old);

	struct recover_result res;
	struct err e = { "" };
	if (recover_file(path, &res, &e) < 0)
		fail_msg("recover: %s", e.msg);
	assert_true(res.changed);
	assert_int_equal(res.mmap_len, 0);              /* no new payload: the old one */
	assert_int_equal(read_samples(path), 2 * z.span_samples);
	close(fd);
	unlink(path);
	zfile_free(&z);
}

static void test_text_file_is_refused_and_untouched(void **state)
{
	(void)state;
	char path[64];
	static const char text[] = "this is certainly not a perf.data file, but it is longer than a header "
				   "so that only the magic can tell....................................";
	th_write_file(path, text, sizeof(text));
	struct recover_result res;
	struct err e = { "" };
	assert_int_equal(recover_file(path, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "is not a perf.data file"));
	size_t len;
	uint8_t *back = th_read_file(path, &len);
	assert_int_equal(len, sizeof(text));
	assert_memory_equal(back, text, len);
	free(back);
	unlink(path);
}

/* What recover_file did in a child, and the most memory the child held. */
struct bomb_run {
	int err;
	struct recover_result res;
	long maxrss_kb;
};

static void bomb_body(void *out, void *arg)
{
	struct bomb_run *run = out;
	struct err e = { "" };
	run->err = recover_file(arg, &run->res, &e);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	run->maxrss_kb = ru.ru_maxrss;
}

/*
 * A 130 KB killed -z file whose last two COMPRESSED records go on with the
 * zstd frame in RLE blocks: 2 GiB each, of records that frame as 2056
 * bytes without end. recover held each record's whole output to measure
 * it, then to read it: 1.07 GB. Now the memory stays what psrec chose
 * (a piece of 256 KiB, zstd's window), the data ends before the first
 * such record with the reader's words, the samples before it are kept,
 * and the new COMPRESSED feature sizes the buffer by what was kept.
 */
static void test_decompression_bomb_is_dropped_in_bounded_memory(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	struct zbomb z = { 8, 2, 0, 100, 0 };
	assert_int_equal(zbomb_build(&b, &z), 0);
	assert_true(b.len < 140 * 1024);
	/* the first bomb: after the COMM and the samples' COMPRESSED record */
	uint64_t first = ZBOMB_DATA + th_u16(b.data, ZBOMB_DATA + 6);
	first += th_u16(b.data, first + 6);
	assert_int_equal(th_u32(b.data, first), PD_RECORD_COMPRESSED);
	char path[64];
	th_write_file(path, b.data, b.len);
	struct bomb_run run;
	th_run_in_child(bomb_body, path, &run, sizeof(run));
	assert_int_equal(run.err, 0);
	/* about 5 MB, 65 MB under ASan; the claim was 2 GiB a record */
	if (run.maxrss_kb > 256 * 1024)
		fail_msg("recover held %ld KiB", run.maxrss_kb);
	assert_true(run.res.changed);
	assert_int_equal(run.res.samples, 100);
	assert_int_equal(run.res.dropped_at, first);
	assert_non_null(strstr(run.res.dropped_why, "decompresses to more than"));
	assert_int_equal(run.res.data_size, first - ZBOMB_DATA);
	assert_int_equal(run.res.mmap_len, 100 * ZBOMB_SAMPLE_SIZE);
	assert_int_equal(file_size(path), (off_t)b.len);
	assert_int_equal(read_samples(path), 100);
	unlink(path);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_file_cut_inside_a_record_keeps_the_complete_ones),
		cmocka_unit_test(test_compressed_stream_cut_inside_a_record_ends_at_a_whole_one),
		cmocka_unit_test(test_compressed_file_without_room_drops_back_to_a_whole_point),
		cmocka_unit_test(test_finish_window_file_gets_a_usable_compressed_feature),
		cmocka_unit_test(test_file_cut_in_its_feature_section_keeps_the_intact_features),
		cmocka_unit_test(test_psrec01_append_window_file_keeps_every_sample),
		cmocka_unit_test(test_text_file_is_refused_and_untouched),
		cmocka_unit_test(test_decompression_bomb_is_dropped_in_bounded_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
