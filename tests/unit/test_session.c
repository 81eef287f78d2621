/*
 * test_session.c - one pass per command (src/session/session.c): a -z
 * recording's COMPRESSED records are decoded once by psrec fold (plain,
 * --between, and per sample as psrec pprof folds), by psrec markers and
 * by the build-id pass after recording, file or stream, and what they give is what the same records give
 * uncompressed; a spool larger than what is held in memory replays the
 * same.
 */
#include "test_helpers.h"

#include <inttypes.h>

#include "fold/fold.h"
#include "format/compress.h"
#include "format/feature.h"
#include "format/reader.h"
#include "format/writer.h"
#include "marker/list.h"
#include "marker/tp.h"
#include "record/buildids.h"
#include "session/session.h"
#include "util/buf.h"

#define CPU_ID 1
#define SEC 1000000000ULL
#define SPAN (256 * 1024)

static struct pd_attr cpu_attr(void)
{
	struct pd_attr a;
	memset(&a, 0, sizeof(a));
	a.size = PD_ATTR_SIZE;
	a.type = PD_TYPE_SOFTWARE;
	a.sample_period = 1000000;
	a.sample_type = TH_SAMPLE_TYPE;
	a.flags = PD_ATTR_SAMPLE_ID_ALL;
	return a;
}

static struct pd_attr mark_attr(void)
{
	struct pd_attr base = cpu_attr(), a;
	marker_tp_attr(&a, &base, true);
	return a;
}

/* A COMM record with TH_SAMPLE_TYPE's trailer. */
static void put_comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name, uint64_t time)
{
	uint8_t r[8 + 8 + 16 + 32] = { 0 };
	struct pd_event_header h = { PD_RECORD_COMM, 0, sizeof(r) };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, tid);
	memcpy(r + 16, name, strlen(name));
	th_put_u32(r, 32, pid);
	th_put_u32(r, 36, tid);
	th_put_u64(r, 40, time);
	th_put_u64(r, 56, CPU_ID);
	assert_int_equal(buf_append(b, r, sizeof(r)), 0);
}

static void put_cpu(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time, uint64_t ip)
{
	uint8_t r[TH_SAMPLE_SIZE];
	th_make_sample(r, CPU_ID, ip, pid, tid, time, 0, 1000000);
	assert_int_equal(buf_append(b, r, sizeof(r)), 0);
}

static void put_mark(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time, const char *text)
{
	struct pd_attr a = mark_attr();
	struct psrec_marker_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.kind = PSREC_MK_TEXT;
	rec.len = (uint32_t)strlen(text);
	rec.time = time;
	rec.pid = pid;
	rec.tid = tid;
	rec.ip = 0x401000;
	assert_int_equal(marker_tp_sample(b, a.sample_type, &rec, (const uint8_t *)text), 0);
}

/* Samples of two threads around two windows; the second thread is named
 * (COMM) after its first samples, in the last chunk. */
static void recording(struct buf *b, size_t extra)
{
	put_comm(b, 1, 1, "prog", 1);
	put_cpu(b, 1, 1, 1 * SEC, 0x401000);
	put_cpu(b, 1, 2, 1 * SEC + 5, 0x402000);
	put_mark(b, 1, 1, 2 * SEC, "go");
	put_cpu(b, 1, 1, 2 * SEC + 1, 0x401000);
	put_cpu(b, 1, 2, 3 * SEC, 0x402000);
	put_mark(b, 1, 1, 4 * SEC, "stop");
	for (size_t i = 0; i < extra; i++)
		put_cpu(b, 1, 1 + (uint32_t)(i % 2), 5 * SEC + i, 0x401000 + (i % 64) * 16);
	put_cpu(b, 1, 1, 9 * SEC, 0x401000);
	put_comm(b, 1, 2, "worker", 10 * SEC);
}

/* The records as a file (or a stream, with pipe), compressed with z into
 * COMPRESSED records of chunks of about chunk bytes (whole records). */
static void write_file(char path[64], const struct buf *recs, bool z, bool pipe, size_t chunk)
{
	int fd = th_tmpfile(path);
	struct pd_attr ca = cpu_attr(), ma = mark_attr();
	uint64_t cid = CPU_ID, mid = MARKER_TP_ID;
	struct writer_event ev[2] = { { &ca, &cid, 1, "cpu-clock" }, { &ma, &mid, 1, MARKER_TP_NAME } };
	struct buf fb = BUF_INIT;
	assert_int_equal(feature_compressed(&fb, 1, 0, SPAN), 0);
	struct writer_feature feat = { PD_FEAT_COMPRESSED, fb.data, fb.len };
	struct writer w;
	if (pipe)
		assert_int_equal(writer_begin_pipe(&w, fd, ev, 2, z ? &feat : NULL, z), 0);
	else
		assert_int_equal(writer_begin(&w, fd, ev, 2), 0);
	struct compressor c;
	assert_int_equal(compress_init(&c, 1, SPAN), 0);
	for (size_t off = 0; off < recs->len;) {
		size_t end = off;
		while (end < recs->len && end - off < chunk)
			end += th_u16(recs->data, end + 6);
		struct iovec iov = { recs->data + off, end - off };
		if (z) {
			size_t len;
			assert_int_equal(compress_span(&c, &iov, 1, &len), 0);
			iov = (struct iovec){ c.out, len };
		}
		assert_int_equal(writer_append(&w, &iov, 1), 0);
		if (!pipe)
			assert_int_equal(writer_round(&w), 0);
		off = end;
	}
	int ferr = 0;
	if (!pipe)
		assert_int_equal(writer_finish(&w, z ? &feat : NULL, z, &ferr), 0);
	compress_free(&c);
	buf_free(&fb);
	close(fd);
}

/* The COMPRESSED records of path: one pass of a reader of its own. */
static uint64_t compressed_records(const char *path)
{
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	struct reader_record rec;
	int k;
	while ((k = reader_next(&r, &rec, &e)) == 1)
		;
	assert_int_equal(k, 0);
	uint64_t n = r.nr_compressed;
	reader_close(&r);
	return n;
}

static int count_sample(void *arg, const struct fold_sample *s)
{
	(void)s;
	++*(uint64_t *)arg;
	return 0;
}

/* fold_run of path (with --between go,stop when between; each sample to
 * count_sample when emitted), its folded lines malloc'd, *decoded the
 * COMPRESSED records it decoded. */
static char *fold_text(const char *path, bool between, bool emit, uint64_t *decoded, uint64_t *kept)
{
	struct fold_config c;
	memset(&c, 0, sizeof(c));
	c.input = path;
	c.pid = c.tid = -1;
	c.time_end = UINT64_MAX;
	if (between) {
		c.between_a = "go";
		c.between_b = "stop";
	}
	uint64_t emitted = 0;
	if (emit) {
		c.on_sample = count_sample;
		c.arg = &emitted;
	}
	struct fold_result r;
	struct err e = { "" };
	if (fold_run(&c, &r, &e))
		fail_msg("fold_run %s: %s", path, e.msg);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(fold_write(m, &r, &e), 0);
	fclose(m);
	*decoded = r.decoded;
	*kept = r.kept;
	if (emit)
		assert_int_equal(emitted, r.kept);
	fold_free(&r);
	return text;
}

/* Every command decodes each COMPRESSED record once, and folds what the
 * uncompressed records fold. */
static void check_once(bool pipe, size_t extra, size_t chunk)
{
	struct buf recs = BUF_INIT;
	recording(&recs, extra);
	char zpath[64], ppath[64];
	write_file(zpath, &recs, true, pipe, chunk);
	write_file(ppath, &recs, false, pipe, chunk);
	uint64_t want = compressed_records(zpath);
	assert_true(want >= 3);
	assert_int_equal(compressed_records(ppath), 0);
	for (int mode = 0; mode < 3; mode++) {
		uint64_t zd, pd, zk, pk;
		char *zt = fold_text(zpath, mode == 1, mode == 2, &zd, &zk);
		char *pt = fold_text(ppath, mode == 1, mode == 2, &pd, &pk);
		assert_int_equal(zd, want);
		assert_int_equal(pd, 0);
		assert_string_equal(zt, pt);
		assert_int_equal(zk, pk);
		assert_int_equal(zk, mode == 1 ? 2 : 5 + extra);
		free(zt);
		free(pt);
	}
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	struct err e = { "" };
	marker_list_init(&l);
	if (marker_list_read(&l, zpath, &all, &e))
		fail_msg("marker_list_read: %s", e.msg);
	assert_int_equal(l.decoded, want);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].comm, "prog");
	assert_int_equal(l.first_time, 1 * SEC);
	assert_int_equal(l.last_time, 9 * SEC);
	marker_list_free(&l);
	if (!pipe) {
		/* the build-id pass after recording, over the file in memory */
		size_t len;
		uint8_t *p = th_read_file(zpath, &len);
		struct pd_file_header hdr;
		memcpy(&hdr, p, sizeof(hdr));
		struct buildids b;
		buildids_init(&b);
		if (buildids_scan(&b, p, len, &hdr, false, &e))
			fail_msg("buildids_scan: %s", e.msg);
		assert_int_equal(b.decoded, want);
		assert_true(b.samples >= 5 + extra);
		buildids_free(&b);
		free(p);
	}
	unlink(zpath);
	unlink(ppath);
	buf_free(&recs);
}

static void test_file_decoded_once_per_command(void **state)
{
	(void)state;
	check_once(false, 0, 64);
}

static void test_stream_decoded_once_per_command(void **state)
{
	(void)state;
	check_once(true, 0, 64);
}

/* More samples than the spool holds in memory: they go through its file
 * and come back the same, in order. */
static void test_spool_past_memory_replays_the_same(void **state)
{
	(void)state;
	check_once(false, 2 * SESSION_SPOOL_MEM / TH_SAMPLE_SIZE, 60000);
}

/* A thread named only after its samples is named by that COMM (the pass
 * names samples once the side band is whole). */
static void test_later_comm_names_earlier_samples(void **state)
{
	(void)state;
	struct buf recs = BUF_INIT;
	recording(&recs, 0);
	char path[64];
	write_file(path, &recs, true, false, 64);
	uint64_t d, k;
	char *t = fold_text(path, false, false, &d, &k);
	assert_non_null(strstr(t, "\nworker;"));
	assert_int_equal(strncmp(t, "prog;", 5), 0);
	assert_null(strstr(t, "\n[unknown];"));
	free(t);
	unlink(path);
	buf_free(&recs);
}

struct order {
	uint64_t *times;
	size_t n, cap;
	size_t marks;               /* samples of the marker attr */
};

static int take_time(void *arg, const struct session_sample *ss)
{
	struct order *o = arg;
	assert_true(ss->parsed);
	assert_true(o->n < o->cap);
	o->times[o->n++] = ss->s.time;
	o->marks += marker_tp_is(&ss->attr->attr);
	return 0;
}

/* Samples written in time order come out in the reader's order, twice
 * alike, through a spool that went past memory; with want, one attr's
 * alone. */
static void test_samples_in_order_replay_alike(void **state)
{
	(void)state;
	struct buf recs = BUF_INIT;
	size_t extra = 2 * SESSION_SPOOL_MEM / TH_SAMPLE_SIZE;
	recording(&recs, extra);
	char path[64];
	write_file(path, &recs, true, false, 60000);
	size_t cap = extra + 16;
	uint64_t *want = malloc(cap * sizeof(*want));
	size_t n = 0;
	struct reader r;
	struct err e = { "" };
	assert_int_equal(reader_open_file(&r, path, &e), 0);
	struct reader_record rec;
	while (reader_next(&r, &rec, &e) == 1)
		if (rec.type == PD_RECORD_SAMPLE)
			want[n++] = th_u64(rec.data, 32);
	reader_close(&r);
	for (int only_cpu = 0; only_cpu < 2; only_cpu++) {
		struct session s;
		struct sideband sb;
		sideband_init(&sb);
		assert_int_equal(session_open(&s, path, &e), 0);
		bool keep[2] = { true, false };
		if (only_cpu)
			s.want = keep;
		assert_int_equal(session_load(&s, &sb, &e), 0);
		assert_true(s.fd >= 0); /* it spilled */
		for (int pass = 0; pass < 2; pass++) {
			struct order o = { calloc(cap, sizeof(uint64_t)), 0, cap, 0 };
			assert_int_equal(session_samples(&s, take_time, &o), 0);
			assert_int_equal(o.n, only_cpu ? n - 2 : n);
			assert_int_equal(o.marks, only_cpu ? 0 : 2);
			for (size_t i = 0, j = 0; i < n; i++) {
				if (only_cpu && (want[i] == 2 * SEC || want[i] == 4 * SEC))
					continue; /* the markers */
				assert_int_equal(o.times[j++], want[i]);
			}
			free(o.times);
		}
		assert_int_equal(session_decoded(&s), compressed_records(path));
		session_close(&s);
		sideband_free(&sb);
	}
	free(want);
	unlink(path);
	buf_free(&recs);
}

static void put_round(struct buf *b)
{
	struct pd_event_header h = { PD_RECORD_FINISHED_ROUND, 0, 8 };
	assert_int_equal(buf_append(b, &h, sizeof(h)), 0);
}

/* Two rings drained in one pass leave a round out of time order, and a
 * round may hold samples older than the previous round's last: they come
 * out in time order, as perf orders them (a round's samples wait until
 * the next round ends; the last ones at the end), compressed or not. */
static void test_samples_come_in_time_order_by_rounds(void **state)
{
	(void)state;
	static const uint64_t t[] = { 10, 30, 0, 20, 25, 0, 40, 35, 0, 50, 45 };
	static const uint64_t want[] = { 10, 20, 25, 30, 35, 40, 45, 50 };
	struct buf recs = BUF_INIT;
	put_comm(&recs, 1, 1, "prog", 1);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i])
			put_cpu(&recs, 1, 1, t[i] * SEC, 0x401000);
		else
			put_round(&recs);
	for (int z = 0; z < 2; z++) {
		char path[64];
		/* one chunk: write_file adds no round of its own */
		write_file(path, &recs, z, false, recs.len);
		struct session s;
		struct sideband sb;
		struct err e = { "" };
		sideband_init(&sb);
		assert_int_equal(session_open(&s, path, &e), 0);
		assert_int_equal(session_load(&s, &sb, &e), 0);
		uint64_t times[16];
		struct order o = { times, 0, 16, 0 };
		assert_int_equal(session_samples(&s, take_time, &o), 0);
		assert_int_equal(o.n, sizeof(want) / sizeof(want[0]));
		for (size_t i = 0; i < o.n; i++)
			if (times[i] != want[i] * SEC)
				fail_msg("z=%d: sample %zu at %" PRIu64 " s, expected %" PRIu64, z, i, times[i] / SEC, want[i]);
		session_close(&s);
		sideband_free(&sb);
		unlink(path);
	}
	buf_free(&recs);
}

/* Past the spool's bound the samples are left out, counted, warned of;
 * the ones before it come whole. */
static void test_spool_bound_drops_and_warns(void **state)
{
	(void)state;
	struct buf recs = BUF_INIT;
	recording(&recs, 100000);
	char path[64];
	write_file(path, &recs, true, false, 60000);
	struct session s;
	struct sideband sb;
	struct err e = { "" };
	sideband_init(&sb);
	assert_int_equal(session_open(&s, path, &e), 0);
	assert_true(s.spool_max >= SESSION_SPOOL_FLOOR);
	s.spool_max = 1 << 20;
	assert_int_equal(session_load(&s, &sb, &e), 0);
	assert_true(s.dropped > 0);
	assert_non_null(strstr(s.warning, "samples left out"));
	size_t cap = 100016;
	struct order o = { calloc(cap, sizeof(uint64_t)), 0, cap, 0 };
	assert_int_equal(session_samples(&s, take_time, &o), 0);
	assert_int_equal(o.n + s.dropped, 100000 + 7);
	assert_true(o.n * (8 + TH_SAMPLE_SIZE) <= (1 << 20));
	free(o.times);
	session_close(&s);
	sideband_free(&sb);
	unlink(path);
	buf_free(&recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_decoded_once_per_command),
		cmocka_unit_test(test_stream_decoded_once_per_command),
		cmocka_unit_test(test_spool_past_memory_replays_the_same),
		cmocka_unit_test(test_later_comm_names_earlier_samples),
		cmocka_unit_test(test_samples_in_order_replay_alike),
		cmocka_unit_test(test_samples_come_in_time_order_by_rounds),
		cmocka_unit_test(test_spool_bound_drops_and_warns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
