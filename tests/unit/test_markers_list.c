/*
 * test_markers_list.c - markers read back (src/marker/list.c): the
 * listing psrec markers prints, span pairing, --between's argument and
 * windows, and fold (src/fold/) leaving marker samples out unless asked,
 * on recordings built here from records (marker_tp_sample for the
 * markers, as the recorder writes them).
 */
#include "test_helpers.h"

#include "cli/args.h"
#include "cli/fold.h"
#include "cli/markers.h"
#include "fold/fold.h"
#include "marker/list.h"
#include "marker/tp.h"
#include "util/buf.h"
#include "util/textesc.h"

#define CPU_ID 1
#define SEC 1000000000ULL

/* the recording's kernel event, and the marker attr made to match it */
static struct pd_attr cpu_attr(void)
{
	struct pd_attr a;
	memset(&a, 0, sizeof(a));
	a.size = PD_ATTR_SIZE;
	a.type = PD_TYPE_SOFTWARE;
	a.config = 0; /* cpu-clock */
	a.sample_period = 1000000;
	a.sample_type = TH_SAMPLE_TYPE;
	a.flags = PD_ATTR_SAMPLE_ID_ALL;
	return a;
}

/* The tracepoint a finished recording has; unfinished (killed), the
 * bpf-output form it has until then. */
static bool unfinished;

static struct pd_attr mark_attr(void)
{
	struct pd_attr base = cpu_attr(), a;
	marker_tp_attr(&a, &base, !unfinished);
	return a;
}

/* A COMM record with TH_SAMPLE_TYPE's trailer (pid/tid, time, cpu, id). */
static void put_comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name, uint64_t time)
{
	uint8_t r[8 + 8 + 16 + 32] = { 0 };
	struct pd_event_header h = { PD_RECORD_COMM, 0, sizeof(r) };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, tid);
	size_t n = strlen(name);
	assert_true(n < 16);
	memcpy(r + 16, name, n);
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

static void put_mark(struct buf *b, uint32_t kind, uint32_t pid, uint32_t tid, uint64_t time, const char *text)
{
	struct pd_attr a = mark_attr();
	struct psrec_marker_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.kind = (uint16_t)kind;
	rec.type = kind == PSREC_MK_BYTES ? 7 : 0;
	rec.len = (uint32_t)strlen(text);
	rec.time = time;
	rec.pid = pid;
	rec.tid = tid;
	rec.ip = 0x401000;
	rec.cpu = 0;
	assert_int_equal(marker_tp_sample(b, a.sample_type, &rec, (const uint8_t *)text), 0);
}

#define MARK(b, pid, tid, t, s) put_mark(b, PSREC_MK_TEXT, pid, tid, t, s)
#define BEGIN(b, pid, tid, t, s) put_mark(b, PSREC_MK_SPAN_BEGIN, pid, tid, t, s)
#define END(b, pid, tid, t, s) put_mark(b, PSREC_MK_SPAN_END, pid, tid, t, s)

/* The records as a perf.data file (with the marker event unless
 * no_markers; a stream, as perf record -o - writes it, with pipe), path
 * filled; the caller unlinks it. */
static void write_recording_as(char path[64], const struct buf *recs, bool no_markers, bool pipe)
{
	int fd = th_tmpfile(path);
	struct pd_attr ca = cpu_attr(), ma = mark_attr();
	uint64_t cid = CPU_ID, mid = MARKER_TP_ID;
	struct writer_event ev[2] = { { &ca, &cid, 1, "cpu-clock" }, { &ma, &mid, 1, MARKER_TP_NAME } };
	size_t nev = no_markers ? 1 : 2;
	struct writer w;
	if (pipe)
		assert_int_equal(writer_begin_pipe(&w, fd, ev, nev, NULL, 0), 0);
	else
		assert_int_equal(writer_begin(&w, fd, ev, nev), 0);
	struct iovec iov = { recs->data, recs->len };
	assert_int_equal(writer_append(&w, &iov, 1), 0);
	int ferr = 0;
	if (!pipe)
		assert_int_equal(writer_finish(&w, NULL, 0, &ferr), 0);
	close(fd);
}

static void write_recording(char path[64], const struct buf *recs, bool no_markers)
{
	write_recording_as(path, recs, no_markers, false);
}

static void read_list(const struct buf *recs, struct marker_list *l, const struct marker_filter *f)
{
	char path[64];
	write_recording(path, recs, false);
	struct err e = { "" };
	marker_list_init(l);
	if (marker_list_read(l, path, f, &e))
		fail_msg("marker_list_read: %s", e.msg);
	assert_int_equal(marker_list_pair(l), 0);
	unlink(path);
}

/* What marker_list_write prints, malloc'd. */
static char *listing(const struct marker_list *l)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	struct err e = { "" };
	assert_int_equal(marker_list_write(m, l, "x.data", &e), 0);
	fclose(m);
	return text;
}

/* What marker_list_write_json prints for input, malloc'd. */
static char *json_listing(const struct marker_list *l, const char *input)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	struct err e = { "" };
	assert_int_equal(marker_list_write_json(m, l, input, &e), 0);
	fclose(m);
	return text;
}

/* Markers come back in time order (two rounds, the second earlier in
 * part), times from the first sample of any event, with their thread's
 * name and kind; the listing is exactly this. */
static void test_listing_in_time_order_with_comm(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	put_comm(&b, 10, 10, "prog", 1 * SEC);
	put_comm(&b, 10, 11, "worker", 1 * SEC);
	put_cpu(&b, 10, 10, 2 * SEC, 0x401000);
	MARK(&b, 10, 10, 2 * SEC + 500000, "phase 1");
	put_mark(&b, PSREC_MK_BYTES, 10, 11, 3 * SEC, "\x01\x02");
	MARK(&b, 10, 11, 2 * SEC + 250000, "early");
	MARK(&b, 12, 12, 4 * SEC, "tab\there");
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	assert_true(l.has_event);
	assert_int_equal(l.n, 4);
	assert_true(l.first_time == 2 * SEC);
	char *text = listing(&l);
	const char *want =
		"# 4 markers, 0 spans in x.data (0 open, 0 ends without a begin); times in s from the first sample, 2.000000\n"
		"#         TIME  PID/TID        COMM              KIND       TEXT\n"
		"       0.000250  10/11          worker            mark       early\n"
		"       0.000500  10/10          prog              mark       phase 1\n"
		"       1.000000  10/11          worker            bytes(7)   [type 7] 0102\n"
		"       2.000000  12/12          [unknown]         mark       tab\\x09here\n";
	assert_string_equal(text, want);
	free(text);
	/* the payload as sent, not the msg: bytes and escaped text */
	assert_int_equal(l.v[2].pay_len, 2);
	assert_memory_equal(marker_entry_payload(&l, &l.v[2]), "\x01\x02", 2);
	assert_int_equal(l.v[3].pay_len, 8);
	assert_memory_equal(marker_entry_payload(&l, &l.v[3]), "tab\there", 8);
	marker_list_free(&l);
	/* --tid and --comm keep one thread's */
	struct marker_filter f = { -1, 11, NULL };
	read_list(&b, &l, &f);
	assert_int_equal(l.n, 2);
	marker_list_free(&l);
	f = (struct marker_filter){ -1, -1, "prog" };
	read_list(&b, &l, &f);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].comm, "prog");
	marker_list_free(&l);
	buf_free(&b);
}

/* Spans nest per thread; an end closes the latest open begin of its name
 * on its thread; an end with none is counted; a begin never ended is
 * open; another thread's begin of the same name is not closed. */
static void test_spans_nest_and_pair_per_thread(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	put_cpu(&b, 1, 1, 1 * SEC, 0x401000);
	BEGIN(&b, 1, 1, 1 * SEC + 1000000, "req");         /* span 0 */
	BEGIN(&b, 1, 1, 1 * SEC + 2000000, "parse");       /* span 1, inside req */
	BEGIN(&b, 1, 2, 1 * SEC + 2500000, "parse");       /* span 2, thread 2 */
	END(&b, 1, 1, 1 * SEC + 4000000, "parse");         /* closes span 1 */
	BEGIN(&b, 1, 1, 1 * SEC + 5000000, "req");         /* span 3, nested req */
	END(&b, 1, 1, 1 * SEC + 6000000, "req");           /* closes span 3 */
	END(&b, 1, 1, 1 * SEC + 9000000, "req");           /* closes span 0 */
	END(&b, 1, 1, 1 * SEC + 9500000, "req");           /* no begin left */
	END(&b, 1, 1, 1 * SEC + 9600000, "never");
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	assert_int_equal(l.nspans, 4);
	assert_int_equal(l.unmatched_ends, 2);
	assert_int_equal(l.v[l.spans[0].end].time, 1 * SEC + 9000000);
	assert_int_equal(l.spans[0].depth, 0);
	assert_int_equal(l.v[l.spans[1].end].time, 1 * SEC + 4000000);
	assert_int_equal(l.spans[1].depth, 1);
	assert_true(l.spans[2].end == SIZE_MAX);
	assert_int_equal(l.spans[2].depth, 0);
	assert_int_equal(l.v[l.spans[3].end].time, 1 * SEC + 6000000);
	assert_int_equal(l.spans[3].depth, 1);
	char *text = listing(&l);
	const char *spans = strstr(text, "# spans\n");
	assert_non_null(spans);
	assert_string_equal(spans,
		"# spans\n"
		"#        START   DURATION ms  PID/TID        NAME\n"
		"       0.001000         8.000  1/1            req\n"
		"       0.002000         2.000  1/1              parse\n"
		"       0.002500          open  1/2            parse\n"
		"       0.005000         1.000  1/1              req\n");
	assert_non_null(strstr(text, "# 9 markers, 4 spans in x.data (1 open, 2 ends without a begin)"));
	free(text);
	marker_list_free(&l);
	buf_free(&b);
}

/* Ends that close out of order still close their own name's begin. */
static void test_span_end_closes_latest_begin_of_its_name(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	BEGIN(&b, 1, 1, 10, "a");
	BEGIN(&b, 1, 1, 20, "b");
	END(&b, 1, 1, 30, "a");
	END(&b, 1, 1, 40, "b");
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	assert_int_equal(l.nspans, 2);
	assert_int_equal(l.unmatched_ends, 0);
	assert_int_equal(l.v[l.spans[0].end].time, 30);
	assert_int_equal(l.v[l.spans[1].end].time, 40);
	marker_list_free(&l);
	buf_free(&b);
}

/* A program that leaks begins (an error path that skips the end) and
 * ends of names never begun: pairing stays linear-logarithmic, depths
 * count only what is still open. */
static void test_spans_unbalanced_at_scale(void **state)
{
	(void)state;
	enum { N = 50000 };
	struct buf b = BUF_INIT;
	for (uint64_t i = 0; i < N; i++) {
		BEGIN(&b, 1, 1, 10 * i + 1, "req");
		BEGIN(&b, 1, 1, 10 * i + 2, "step");
		END(&b, 1, 1, 10 * i + 3, "step");
		END(&b, 1, 1, 10 * i + 4, "other");
	}
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	assert_int_equal(l.nspans, 2 * N);
	assert_int_equal(l.unmatched_ends, N);
	/* the last req is inside every earlier one; its step one deeper */
	assert_int_equal(l.spans[2 * N - 2].depth, N - 1);
	assert_true(l.spans[2 * N - 2].end == SIZE_MAX);
	assert_int_equal(l.spans[2 * N - 1].depth, N);
	assert_int_equal(l.v[l.spans[2 * N - 1].end].time, 10 * (N - 1) + 3);
	marker_list_free(&l);
	buf_free(&b);
}

static void between_ok(const char *arg, const char *wa, const char *wb)
{
	char *a, *b;
	struct err e = { "" };
	assert_int_equal(cli_between_parse(arg, &a, &b, &e), 0);
	assert_string_equal(a, wa);
	assert_string_equal(b, wb);
	free(a);
	free(b);
}

/* 'A,B' splits at the first comma no backslash escapes; "\," and "\\"
 * stand for a comma and a backslash; another backslash is itself. */
static void test_between_splits_at_first_unescaped_comma(void **state)
{
	(void)state;
	between_ok("phase 2 begin,phase 2 end", "phase 2 begin", "phase 2 end");
	between_ok("a\\,b,c", "a,b", "c");
	between_ok("a,b,c", "a", "b,c");
	between_ok("a\\\\,b", "a\\", "b");
	between_ok("x\\n,y\\,z", "x\\n", "y,z");
	char *a, *b;
	struct err e = { "" };
	assert_int_equal(cli_between_parse("nocomma", &a, &b, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--between 'nocomma'"));
	assert_int_equal(cli_between_parse(",b", &a, &b, &e), -EINVAL);
	assert_int_equal(cli_between_parse("a,", &a, &b, &e), -EINVAL);
	assert_int_equal(cli_between_parse("a\\,b", &a, &b, &e), -EINVAL);
	assert_null(a);
	/* through fold's command line, and freed on a later error */
	struct fold_cli cli;
	char *argv[] = { (char *)"fold", (char *)"--between", (char *)"s\\,1,e", NULL };
	assert_int_equal(fold_cli_parse(3, argv, FOLD_CLI_FOLD, &cli, &e), 0);
	assert_string_equal(cli.fold.between_a, "s,1");
	assert_string_equal(cli.fold.between_b, "e");
	fold_cli_free(&cli);
	char *bad[] = { (char *)"flamegraph", (char *)"--between", (char *)"a,b", (char *)"--bogus", NULL };
	assert_int_equal(fold_cli_parse(4, bad, FOLD_CLI_FLAMEGRAPH, &cli, &e), -EINVAL);
	assert_null(cli.between_a);
}

/* Every window A..next B, the next one starting at the first A after
 * that B; a missing A or a B that never follows is an error naming it. */
static void test_windows_repeat_and_name_what_is_missing(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	MARK(&b, 1, 1, 100, "A");
	MARK(&b, 1, 1, 150, "A");       /* inside the first window */
	MARK(&b, 1, 2, 200, "B");       /* another thread's B ends it */
	MARK(&b, 1, 1, 250, "B");       /* no A open */
	MARK(&b, 1, 1, 300, "A");
	MARK(&b, 1, 1, 400, "B");
	MARK(&b, 1, 1, 500, "A");       /* never ended: no window */
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	uint64_t *win;
	size_t n;
	struct err e = { "" };
	assert_int_equal(marker_windows(&l, "A", "B", &win, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_true(win[0] == 100 && win[1] == 200 && win[2] == 300 && win[3] == 400);
	assert_false(marker_windows_hold(win, n, 99));
	assert_true(marker_windows_hold(win, n, 100));
	assert_true(marker_windows_hold(win, n, 200));
	assert_false(marker_windows_hold(win, n, 250));
	assert_true(marker_windows_hold(win, n, 350));
	assert_false(marker_windows_hold(win, n, 401));
	free(win);
	/* the same text both ends: consecutive pairs */
	assert_int_equal(marker_windows(&l, "A", "A", &win, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_true(win[0] == 100 && win[1] == 150 && win[2] == 300 && win[3] == 500);
	free(win);
	assert_int_equal(marker_windows(&l, "C", "B", &win, &n, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no marker 'C'"));
	assert_int_equal(marker_windows(&l, "B", "C", &win, &n, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no marker 'C' after the marker 'B'"));
	assert_null(win);
	marker_list_free(&l);
	buf_free(&b);
}

static void fold_file(const char *path, const char *event, const char *a, const char *b, struct fold_result *r,
		      int want)
{
	struct fold_config c;
	memset(&c, 0, sizeof(c));
	c.input = path;
	c.event = event;
	c.pid = c.tid = -1;
	c.time_end = UINT64_MAX;
	c.between_a = a;
	c.between_b = b;
	struct err e = { "" };
	int err = fold_run(&c, r, &e);
	if (err != want)
		fail_msg("fold_run: %d (%s), want %d", err, e.msg, want);
}

/* A recording with CPU samples and markers of several threads. */
static void mixed(struct buf *b)
{
	put_comm(b, 1, 1, "prog", 1);
	put_cpu(b, 1, 1, 1 * SEC, 0x401000);           /* before */
	MARK(b, 1, 1, 2 * SEC, "go");
	put_cpu(b, 1, 1, 2 * SEC + 1, 0x401000);       /* in 1 */
	put_cpu(b, 1, 2, 3 * SEC, 0x401000);           /* in 1, another thread */
	MARK(b, 1, 1, 4 * SEC, "stop");
	put_cpu(b, 1, 1, 5 * SEC, 0x401000);           /* between the windows */
	MARK(b, 1, 2, 6 * SEC, "go");
	put_cpu(b, 1, 1, 7 * SEC, 0x401000);           /* in 2 */
	MARK(b, 1, 2, 8 * SEC, "stop");
	put_cpu(b, 1, 1, 9 * SEC, 0x401000);           /* after */
}

/* fold's default event is the CPU one even with markers; markers are
 * folded only when asked for by name, each weighing 1. */
static void test_fold_leaves_markers_out_by_default(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	mixed(&b);
	char path[64];
	write_recording(path, &b, false);
	struct fold_result r;
	fold_file(path, NULL, NULL, NULL, &r, 0);
	assert_string_equal(r.event, "cpu-clock");
	assert_false(r.event_chosen);
	assert_int_equal(r.kept, 6);
	assert_true(r.stacks.total == 6);
	fold_free(&r);
	fold_file(path, MARKER_TP_NAME, NULL, NULL, &r, 0);
	assert_string_equal(r.event, MARKER_TP_NAME);
	assert_int_equal(r.kept, 4);
	assert_true(r.stacks.total == 4);
	fold_free(&r);
	unlink(path);
	buf_free(&b);
}

/* --between keeps the samples of every thread inside every window,
 * the markers' own times included. */
static void test_fold_between_keeps_window_samples(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	mixed(&b);
	char path[64];
	write_recording(path, &b, false);
	struct fold_result r;
	fold_file(path, NULL, "go", "stop", &r, 0);
	assert_int_equal(r.windows, 2);
	assert_int_equal(r.samples, 6);
	assert_int_equal(r.kept, 3);
	assert_true(r.first_time == 2 * SEC + 1 && r.last_time == 7 * SEC);
	fold_free(&r);
	fold_file(path, MARKER_TP_NAME, "go", "stop", &r, 0);
	assert_int_equal(r.kept, 4);
	fold_free(&r);
	fold_file(path, NULL, "stop", "nope", &r, -ENOENT);
	fold_free(&r);
	unlink(path);
	/* without a marker event at all */
	write_recording(path, &b, true);
	fold_file(path, NULL, "go", "stop", &r, -ENOENT);
	fold_free(&r);
	struct marker_list l;
	struct err e = { "" };
	struct marker_filter all = MARKER_FILTER_ALL;
	marker_list_init(&l);
	assert_int_equal(marker_list_read(&l, path, &all, &e), 0);
	assert_false(l.has_event);
	assert_int_equal(l.n, 0);
	marker_list_free(&l);
	unlink(path);
	buf_free(&b);
}

/* The same windows from a stream (pipe format), read from a file. */
static void test_fold_between_reads_a_stream(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	mixed(&b);
	char path[64];
	write_recording_as(path, &b, false, true);
	struct fold_result r;
	fold_file(path, NULL, "go", "stop", &r, 0);
	assert_string_equal(r.event, "cpu-clock");
	assert_int_equal(r.kept, 3);
	fold_free(&r);
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	struct err e = { "" };
	marker_list_init(&l);
	assert_int_equal(marker_list_read(&l, path, &all, &e), 0);
	assert_int_equal(l.n, 4);
	marker_list_free(&l);
	unlink(path);
	buf_free(&b);
}

/* A recording killed before it was finished has the marker event in its
 * bpf-output form: the same markers, the same exclusion from fold. */
static void test_unfinished_recording_markers_read_the_same(void **state)
{
	(void)state;
	unfinished = true;
	struct buf b = BUF_INIT;
	mixed(&b);
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	assert_true(l.has_event);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.bad, 0);
	marker_list_free(&l);
	char path[64];
	write_recording(path, &b, false);
	struct fold_result r;
	fold_file(path, NULL, "go", "stop", &r, 0);
	assert_string_equal(r.event, "cpu-clock");
	assert_int_equal(r.kept, 3);
	fold_free(&r);
	fold_file(path, MARKER_TP_NAME, NULL, NULL, &r, 0);
	assert_int_equal(r.kept, 4);
	fold_free(&r);
	unlink(path);
	buf_free(&b);
	unfinished = false;
}

/* A thread's name is the program's (prctl), and another writer's msg
 * need not be escaped: neither reaches the terminal raw, in the listing
 * or in JSON (which must stay UTF-8: a byte that is not is the text \xNN). */
static void test_listing_escapes_comm_and_foreign_msg(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	put_comm(&b, 10, 10, "\x1b[2J\a\xc2\x9b\xff", 1 * SEC);
	MARK(&b, 10, 10, 2 * SEC, "ABCD");
	/* the msg as a writer that does not escape would leave it */
	uint8_t *at = memmem(b.data, b.len, "ABCD", 4);
	assert_non_null(at);
	memcpy(at, "\x1b]0;", 4);
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	assert_int_equal(l.n, 1);
	char *text = listing(&l);
	for (const char *p = text; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\n');
	assert_non_null(strstr(text, "  \\x1b[2J\\x07\\xc2\\x9b\\xff  mark       \\x1b]0;\n"));
	free(text);
	text = json_listing(&l, "x\x1b.data");
	assert_non_null(strstr(text, "{\"input\": \"x\\u001b.data\""));
	assert_non_null(strstr(text, "\"comm\": \"\\u001b[2J\\u0007\\u009b\\\\xff\""));
	assert_non_null(strstr(text, "\"text\": \"\\u001b]0;\""));
	/* line by line: printable UTF-8, nothing to escape */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		assert_true(textesc_clean(line, strlen(line), 0));
	free(text);
	marker_list_free(&l);
	buf_free(&b);
}

/* --json: one object, every string escaped (a msg's control bytes come
 * escaped by its writer already); exactly this. */
static void test_json_listing(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	put_comm(&b, 1, 1, "p\"q", 1);  /* tid 2 has its process's name */
	BEGIN(&b, 1, 1, 1 * SEC, "all");
	MARK(&b, 1, 1, 1 * SEC + 1500, "say \"hi\"\n");
	put_mark(&b, PSREC_MK_BYTES, 1, 2, 2 * SEC, "\xff");
	END(&b, 1, 1, 3 * SEC, "all");
	BEGIN(&b, 1, 2, 3 * SEC, "late");
	struct marker_list l;
	struct marker_filter all = MARKER_FILTER_ALL;
	read_list(&b, &l, &all);
	char *text = json_listing(&l, "x.data");
	assert_string_equal(text,
		"{\"input\": \"x.data\", \"first_sample_ns\": 1000000000, \"unmatched_ends\": 0, \"markers\": [\n"
		"  {\"time\": 0.000000000, \"time_ns\": 1000000000, \"pid\": 1, \"tid\": 1, \"comm\": \"p\\\"q\", "
		"\"kind\": \"begin\", \"truncated\": false, \"text\": \"begin: all\"},\n"
		"  {\"time\": 0.000001500, \"time_ns\": 1000001500, \"pid\": 1, \"tid\": 1, \"comm\": \"p\\\"q\", "
		"\"kind\": \"mark\", \"truncated\": false, \"text\": \"say \\\"hi\\\"\\\\x0a\"},\n"
		"  {\"time\": 1.000000000, \"time_ns\": 2000000000, \"pid\": 1, \"tid\": 2, \"comm\": \"p\\\"q\", "
		"\"kind\": \"bytes\", \"type\": 7, \"truncated\": false, \"text\": \"[type 7] ff\"},\n"
		"  {\"time\": 2.000000000, \"time_ns\": 3000000000, \"pid\": 1, \"tid\": 1, \"comm\": \"p\\\"q\", "
		"\"kind\": \"end\", \"truncated\": false, \"text\": \"end: all\"},\n"
		"  {\"time\": 2.000000000, \"time_ns\": 3000000000, \"pid\": 1, \"tid\": 2, \"comm\": \"p\\\"q\", "
		"\"kind\": \"begin\", \"truncated\": false, \"text\": \"begin: late\"}\n"
		"], \"spans\": [\n"
		"  {\"start\": 0.000000000, \"duration_ms\": 2000.000000, \"open\": false, \"pid\": 1, \"tid\": 1, "
		"\"depth\": 0, \"name\": \"all\"},\n"
		"  {\"start\": 2.000000000, \"duration_ms\": null, \"open\": true, \"pid\": 1, \"tid\": 2, "
		"\"depth\": 0, \"name\": \"late\"}\n"
		"]}\n");
	free(text);
	marker_list_free(&l);
	buf_free(&b);
}

static void test_markers_cli(void **state)
{
	(void)state;
	struct markers_cli c;
	struct err e = { "" };
	char *ok[] = { (char *)"markers", (char *)"-i", (char *)"r.data", (char *)"--pid", (char *)"5",
		       (char *)"--tid", (char *)"6", (char *)"--comm", (char *)"w", (char *)"--json", NULL };
	assert_int_equal(markers_cli_parse(10, ok, &c, &e), 0);
	assert_true(c.json);
	assert_string_equal(c.input, "r.data");
	assert_int_equal(c.filter.pid, 5);
	assert_int_equal(c.filter.tid, 6);
	assert_string_equal(c.filter.comm, "w");
	char *def[] = { (char *)"markers", NULL };
	assert_int_equal(markers_cli_parse(1, def, &c, &e), 0);
	assert_string_equal(c.input, "perf.data");
	assert_int_equal(c.filter.pid, -1);
	char *bad[] = { (char *)"markers", (char *)"--pid", (char *)"x", NULL };
	assert_int_equal(markers_cli_parse(3, bad, &c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--pid 'x'"));
	char *extra[] = { (char *)"markers", (char *)"file", NULL };
	assert_int_equal(markers_cli_parse(2, extra, &c, &e), -EINVAL);
	assert_false(c.json);
	char *unk[] = { (char *)"markers", (char *)"--csv", NULL };
	assert_int_equal(markers_cli_parse(2, unk, &c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--csv"));
	/* an empty input names nothing: a usage error, not "cannot open :" */
	char *empty[] = { (char *)"markers", (char *)"-i", (char *)"", NULL };
	assert_int_equal(markers_cli_parse(3, empty, &c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "-i: empty file name; give a recording, or - for standard input"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listing_in_time_order_with_comm),
		cmocka_unit_test(test_spans_nest_and_pair_per_thread),
		cmocka_unit_test(test_span_end_closes_latest_begin_of_its_name),
		cmocka_unit_test(test_spans_unbalanced_at_scale),
		cmocka_unit_test(test_between_splits_at_first_unescaped_comma),
		cmocka_unit_test(test_windows_repeat_and_name_what_is_missing),
		cmocka_unit_test(test_fold_leaves_markers_out_by_default),
		cmocka_unit_test(test_fold_between_keeps_window_samples),
		cmocka_unit_test(test_fold_between_reads_a_stream),
		cmocka_unit_test(test_unfinished_recording_markers_read_the_same),
		cmocka_unit_test(test_json_listing),
		cmocka_unit_test(test_listing_escapes_comm_and_foreign_msg),
		cmocka_unit_test(test_markers_cli),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
