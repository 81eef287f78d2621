/*
 * test_flamegraph.c - the SVG writer on hand-built stacks: merging and
 * widths, XML safety of any name, determinism, icicles, the narrow-frame
 * cut, diff colors and write errors. The SVG is parsed here only as far as
 * the data-* attributes and the rects go (flamegraph.c documents the DOM);
 * tests/integration/flamegraph_browser.sh checks the rest in a browser.
 */
#include "test_helpers.h"

#include "flame/flamegraph.h"
#include "symbol/kind.h"

#define U SYM_KIND_USER
#define K SYM_KIND_KERNEL

static double dabs(double v)
{
	return v < 0 ? -v : v;
}

/* The SVG as a NUL-terminated string (caller frees); asserts r == 0. */
static char *svg_of(const struct flame_stack *base, size_t nr_base, const struct flame_stack *s, size_t nr,
		    const struct flame_config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct err e = { 0 };
	int r = base ? flamegraph_write_diff(f, base, nr_base, s, nr, c, &e) : flamegraph_write(f, s, nr, c, &e);
	if (r != 0)
		fail_msg("flamegraph_write: %d %s", r, e.msg);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	return buf;
}

/* The <g> of the frame named name (the exact data-name text), the nth of
 * that name (0: the first); NULL if none. */
static const char *frame_nth(const char *svg, const char *name, int nth)
{
	char key[256];
	snprintf(key, sizeof(key), "<g class=\"f\" data-name=\"%s\"", name);
	for (const char *p = svg; (p = strstr(p, key)); p++)
		if (nth-- == 0)
			return p;
	return NULL;
}

static const char *frame(const char *svg, const char *name)
{
	const char *g = frame_nth(svg, name, 0);
	if (!g)
		fail_msg("no frame %s", name);
	return g;
}

/* Attribute attr (e.g. " width=") of the frame's g or its children. */
static const char *frame_attr(const char *g, const char *attr)
{
	const char *end = strstr(g, "</g>");
	const char *a = strstr(g, attr);
	if (!a || a > end)
		fail_msg("no %s in %.80s", attr, g);
	return a + strlen(attr) + 1;
}

static double frame_num(const char *svg, const char *name, const char *attr)
{
	return strtod(frame_attr(frame(svg, name), attr), NULL);
}

static unsigned frame_rgb(const char *svg, const char *name)
{
	const char *fill = frame_attr(frame(svg, name), " fill=");
	assert_int_equal(fill[0], '#');
	return (unsigned)strtoul(fill + 1, NULL, 16);
}

static int count_of(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Well-formed enough: tags nest and close, every '<' outside the CDATA
 * starts a tag, no '<' in an attribute value, every '&' is an entity the
 * writer uses, and the whole text is valid UTF-8. NULL or what is wrong. */
static const char *xml_problem(const char *s)
{
	static const char *const ents[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&#39;" };
	char stack[32][32];
	int depth = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		if (*p >= 0x80) {
			int n = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 ? 2 : 0;
			if (!n || *p > 0xF4)
				return "bad UTF-8 lead byte";
			for (int i = 1; i < n; i++)
				if ((p[i] & 0xC0) != 0x80)
					return "bad UTF-8 continuation";
			p += n;
			continue;
		}
		if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
			return "a control character";
		if (*p == '&') {
			size_t i;
			for (i = 0; i < sizeof(ents) / sizeof(*ents); i++)
				if (!strncmp((const char *)p, ents[i], strlen(ents[i])))
					break;
			if (i == sizeof(ents) / sizeof(*ents))
				return "a raw &";
			p++;
			continue;
		}
		if (*p == '>')
			return "a raw > outside a tag";
		if (*p != '<') {
			p++;
			continue;
		}
		if (!strncmp((const char *)p, "<![CDATA[", 9)) {
			const char *end = strstr((const char *)p, "]]>");
			if (!end)
				return "unterminated CDATA";
			p = (const unsigned char *)end + 3;
			continue;
		}
		if (p[1] == '?') {
			const char *end = strstr((const char *)p, "?>");
			if (!end)
				return "unterminated <?";
			p = (const unsigned char *)end + 2;
			continue;
		}
		bool closing = p[1] == '/';
		const unsigned char *n = p + 1 + closing;
		size_t len = strspn((const char *)n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (!len || len >= sizeof(stack[0]))
			return "a '<' that starts no tag";
		const unsigned char *q = n + len;
		bool quoted = false;
		for (; *q && (quoted || *q != '>'); q++) {
			if (*q == '"')
				quoted = !quoted;
			else if (*q == '<')
				return "a '<' inside a tag";
		}
		if (!*q)
			return "unterminated tag";
		bool empty = q[-1] == '/';
		if (closing) {
			if (!depth || strlen(stack[depth - 1]) != len || strncmp(stack[depth - 1], (const char *)n, len))
				return "a close tag that does not match";
			depth--;
		} else if (!empty) {
			if (depth == 32)
				return "too deep";
			memcpy(stack[depth], n, len);
			stack[depth++][len] = 0;
		}
		p = q + 1;
	}
	return depth ? "unclosed tags" : NULL;
}

/* The basic set: comm "spin", main->hot_a 60 (20 of them in a kernel
 * frame), hot_b 30 (10 in a long name), hot_c 10, and two odd names. */
static char main2[] = "main"; /* equal to "main" but another pointer: must merge */
#define LONG_NAME "a_very_long_function_name_that_cannot_fit"
#define ODD_NAME "odd<&\"'\xff\xfe\t\x01"
static const struct flame_frame a_user[] = { { "spin", U }, { "main", U }, { "hot_a", U } };
static const struct flame_frame a_kern[] = { { "spin", U }, { main2, U }, { "hot_a", U }, { "entry_SYSCALL_64", K } };
static const struct flame_frame b_self[] = { { "spin", U }, { "main", U }, { "hot_b", U } };
static const struct flame_frame b_long[] = { { "spin", U }, { "main", U }, { "hot_b", U }, { LONG_NAME, U } };
static const struct flame_frame c_self[] = { { "spin", U }, { main2, U }, { "hot_c", U } };
static const struct flame_frame odd[] = { { "spin", U }, { ODD_NAME, U } };
static const struct flame_frame empty[] = { { "spin", U }, { "", SYM_KIND_UNKNOWN } };
static const struct flame_stack basic[] = {
	{ a_user, 3, 40 }, { a_kern, 4, 20 }, { b_self, 3, 20 }, { b_long, 4, 10 },
	{ c_self, 3, 10 }, { odd, 2, 5 }, { empty, 2, 5 },
};
#define BASIC_TOTAL 110.0
#define FULL 1180.0 /* 1200 px less the margins */

static void test_widths(void **state)
{
	(void)state;
	char *svg = svg_of(NULL, 0, basic, 7, NULL);
	assert_null(xml_problem(svg));
	assert_int_equal(count_of(svg, "data-name=\"main\""), 1);
	assert_int_equal(count_of(svg, "<g class=\"f\""), 10);
	assert_true(frame_num(svg, "all", " data-samples=") == 110);
	assert_true(frame_num(svg, "main", " data-samples=") == 100);
	assert_true(frame_num(svg, "hot_a", " data-samples=") == 60);
	assert_true(dabs(frame_num(svg, "all", " width=") - FULL) < 0.05);
	const char *names[] = { "hot_a", "hot_b", "hot_c" };
	const double counts[] = { 60, 30, 10 };
	for (int i = 0; i < 3; i++) {
		double w = frame_num(svg, names[i], " width=");
		if (dabs(w - counts[i] / BASIC_TOTAL * FULL) > 1)
			fail_msg("%s: %.1f px", names[i], w);
	}
	/* siblings side by side, by name, from the parent's left edge */
	double xa = frame_num(svg, "hot_a", " x="), xb = frame_num(svg, "hot_b", " x="),
	       xc = frame_num(svg, "hot_c", " x=");
	assert_true(dabs(xa - frame_num(svg, "main", " x=")) < 0.05);
	assert_true(dabs(xb - (xa + frame_num(svg, "hot_a", " width="))) < 0.05);
	assert_true(dabs(xc - (xb + frame_num(svg, "hot_b", " width="))) < 0.05);
	assert_non_null(strstr(frame(svg, "hot_a"), "<title>hot_a (60 samples, 54.55%)</title>"));
	assert_non_null(strstr(svg, "<text id=\"title\" x=\"600\" y=\"24\">Flame Graph</text>"));
	free(svg);
}

static void test_kinds_and_colors(void **state)
{
	(void)state;
	char *svg = svg_of(NULL, 0, basic, 7, NULL);
	assert_non_null(strstr(frame(svg, "hot_a"), "data-kind=\"user\""));
	assert_non_null(strstr(frame(svg, "entry_SYSCALL_64"), "data-kind=\"kernel\""));
	assert_non_null(strstr(frame(svg, ""), "data-kind=\"unknown\""));
	assert_non_null(strstr(frame(svg, "all"), "data-kind=\"root\""));
	unsigned k = frame_rgb(svg, "entry_SYSCALL_64"), u = frame_rgb(svg, "hot_a"), n = frame_rgb(svg, "");
	assert_int_equal(k & 0xff, 0);                         /* orange: no blue */
	assert_true((k >> 16) >= 190 && ((k >> 8) & 0xff) >= 90);
	assert_true((u >> 16) >= 205 && (u & 0xff) <= 55);     /* hot */
	assert_true((n >> 16) == (n & 0xff) && (n >> 16) == ((n >> 8) & 0xff)); /* grey */
	/* the same name, the same color, wherever it is */
	static const struct flame_frame other[] = { { "x", U }, { "y", U }, { "hot_a", U } };
	static const struct flame_stack one = { other, 3, 7 };
	char *svg2 = svg_of(NULL, 0, &one, 1, NULL);
	assert_int_equal(frame_rgb(svg2, "hot_a"), u);
	free(svg2);
	free(svg);
}

static void test_same_name_other_kind(void **state)
{
	(void)state;
	static const struct flame_frame u[] = { { "spin", U }, { "f", U } };
	static const struct flame_frame k[] = { { "spin", U }, { "f", K } };
	static const struct flame_stack s[] = { { u, 2, 3 }, { k, 2, 4 }, { u, 2, 1 } };
	char *svg = svg_of(NULL, 0, s, 3, NULL);
	assert_int_equal(count_of(svg, "data-name=\"f\""), 2);
	assert_non_null(strstr(frame_nth(svg, "f", 0), "data-samples=\"4\" data-kind=\"user\""));
	assert_non_null(strstr(frame_nth(svg, "f", 1), "data-samples=\"4\" data-kind=\"kernel\""));
	free(svg);
}

static void test_escaping(void **state)
{
	(void)state;
	char *svg = svg_of(NULL, 0, basic, 7, NULL);
	assert_null(xml_problem(svg));
	/* < & " ' escaped, \xff \xfe one U+FFFD each, tab and ^A as Control Pictures */
	const char *esc = "odd&lt;&amp;&quot;&#39;\xef\xbf\xbd\xef\xbf\xbd\xe2\x90\x89\xe2\x90\x81";
	const char *g = frame(svg, esc);
	char title[128];
	snprintf(title, sizeof(title), "<title>%s (5 samples, 4.55%%)</title>", esc);
	assert_non_null(strstr(g, title));
	assert_null(strstr(svg, "\xff"));
	assert_null(strstr(svg, "odd<"));
	/* the long name, cut to its box with "..": 10/110 of 1180 px, (107.3 - 3) / 7.3 = 14 characters */
	assert_non_null(strstr(frame(svg, LONG_NAME), ">a_very_long_..</text>"));
	/* a name and a title in arbitrary bytes */
	char bytes[256];
	for (int i = 0; i < 255; i++)
		bytes[i] = (char)(i + 1);
	bytes[255] = 0;
	const struct flame_frame all_bytes[] = { { bytes, U }, { "\xe2\x82", U }, { "\xf4\x90\x80\x80\xed\xa0\x80", U } };
	const struct flame_stack s = { all_bytes, 3, 1 };
	struct flame_config c = { .title = "<title> & \"more\"", .subtitle = "\x80 ]]> sub", .unit = "n<s>" };
	char *svg2 = svg_of(NULL, 0, &s, 1, &c);
	const char *problem = xml_problem(svg2);
	if (problem)
		fail_msg("%s", problem);
	assert_non_null(strstr(svg2, ">&lt;title&gt; &amp; &quot;more&quot;</text>"));
	assert_non_null(strstr(svg2, ">\xef\xbf\xbd ]]&gt; sub</text>"));
	assert_non_null(strstr(svg2, " n&lt;s&gt;, 100.00%)"));
	/* a cut sequence is one U+FFFD; past U+10FFFF and surrogates one per byte */
	assert_non_null(frame(svg2, "\xef\xbf\xbd"));
	assert_non_null(frame(svg2, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
				    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"));
	free(svg2);
	free(svg);
}

static void test_deterministic(void **state)
{
	(void)state;
	char *one = svg_of(NULL, 0, basic, 7, NULL), *two = svg_of(NULL, 0, basic, 7, NULL);
	assert_string_equal(one, two);
	/* the stacks' order does not matter either */
	struct flame_stack rev[7];
	for (int i = 0; i < 7; i++)
		rev[i] = basic[6 - i];
	char *three = svg_of(NULL, 0, rev, 7, NULL);
	assert_string_equal(one, three);
	free(one);
	free(two);
	free(three);
}

static void test_icicle(void **state)
{
	(void)state;
	struct flame_config c = { .icicle = true, .width = 800, .subtitle = "cpu-clock" };
	char *flame = svg_of(NULL, 0, basic, 7, NULL), *icicle = svg_of(NULL, 0, basic, 7, &c);
	double root = frame_num(flame, "all", " y="), leaf = frame_num(flame, "hot_a", " y=");
	assert_true(root > leaf);
	assert_true(root - leaf == 3 * 16);
	root = frame_num(icicle, "all", " y=");
	leaf = frame_num(icicle, "hot_a", " y=");
	assert_true(root < leaf);
	assert_true(leaf - root == 3 * 16);
	assert_true(root >= 36 + 24); /* below the title and the subtitle */
	assert_non_null(strstr(icicle, "data-icicle=\"1\""));
	assert_true(dabs(frame_num(icicle, "hot_a", " width=") - 60 / BASIC_TOTAL * 780) < 1);
	free(flame);
	free(icicle);
}

static void test_narrow_frames(void **state)
{
	(void)state;
	/* 1 sample in 10^6 is 0.001 px: not written, but counted in main */
	static const struct flame_frame big[] = { { "spin", U }, { "main", U }, { "big", U } };
	static const struct flame_frame tiny[] = { { "spin", U }, { "main", U }, { "tiny", U }, { "tinier", U } };
	static const struct flame_stack s[] = { { big, 3, 999999 }, { tiny, 4, 1 } };
	char *svg = svg_of(NULL, 0, s, 2, NULL);
	assert_null(frame_nth(svg, "tiny", 0));
	assert_null(frame_nth(svg, "tinier", 0));
	assert_true(frame_num(svg, "main", " data-samples=") == 1000000);
	/* and the graph is no taller for them: root, spin, main, big */
	assert_true(frame_num(svg, "all", " y=") - frame_num(svg, "big", " y=") == 3 * 16);
	free(svg);
}

static void test_empty(void **state)
{
	(void)state;
	char *svg = svg_of(NULL, 0, NULL, 0, NULL);
	assert_null(xml_problem(svg));
	assert_non_null(strstr(svg, "No samples"));
	assert_int_equal(count_of(svg, "<g class=\"f\""), 0);
	free(svg);
}

static void test_diff(void **state)
{
	(void)state;
	static const struct flame_frame a[] = { { "main", U }, { "a", U } };
	static const struct flame_frame b[] = { { "main", U }, { "b", U } };
	static const struct flame_frame c[] = { { "main", U }, { "c", U } };
	static const struct flame_frame gone[] = { { "main", U }, { "gone", U } };
	static const struct flame_frame fresh[] = { { "main", U }, { "c", U }, { "fresh", U } };
	/* base 40/40/20 (+ "gone" 100, all scaled x10), cur 60/20/20 with 5 of c in "fresh" */
	static const struct flame_stack base[] = { { a, 2, 400 }, { b, 2, 400 }, { c, 2, 200 }, { gone, 2, 1000 } };
	static const struct flame_stack cur[] = { { a, 2, 60 }, { b, 2, 20 }, { c, 2, 15 }, { fresh, 3, 5 } };
	char *svg = svg_of(base, 4, cur, 4, NULL);
	assert_null(xml_problem(svg));
	assert_non_null(strstr(svg, "data-diff=\"1\""));
	assert_null(frame_nth(svg, "gone", 0));
	/* widths from cur */
	assert_true(dabs(frame_num(svg, "a", " width=") - 0.6 * FULL) < 1);
	/* shares: base total 2000, so a 20% -> 60%, b 20% -> 20%, c 10% -> 20%, main 50% -> 100% */
	assert_true(frame_num(svg, "a", " data-delta=") == 40);
	assert_non_null(strstr(frame(svg, "a"), "data-delta=\"+40.00\""));
	assert_non_null(strstr(frame(svg, "a"), "(60 samples, 60.00%) (+40.00 points)</title>"));
	assert_non_null(strstr(frame(svg, "b"), "data-delta=\"+0.00\""));
	assert_non_null(strstr(frame(svg, "fresh"), "data-delta=\"+5.00\""));
	unsigned ra = frame_rgb(svg, "a"), rb = frame_rgb(svg, "b"), rf = frame_rgb(svg, "fresh");
	assert_true((ra >> 16) == 255 && ((ra >> 8) & 0xff) < 80 && (ra & 0xff) < 80); /* the largest growth */
	assert_true((rb >> 16) > 230 && ((rb >> 8) & 0xff) > 230 && (rb & 0xff) > 230);
	assert_true((rf >> 16) == 255 && ((rf >> 8) & 0xff) > ((ra >> 8) & 0xff)); /* paler red */
	free(svg);

	/* the other way round: a shrinks, blue */
	static const struct flame_stack base2[] = { { a, 2, 60 }, { b, 2, 40 } };
	static const struct flame_stack cur2[] = { { a, 2, 3 }, { b, 2, 7 } };
	svg = svg_of(base2, 2, cur2, 2, NULL);
	assert_true(frame_num(svg, "a", " data-delta=") < 0);
	assert_non_null(strstr(frame(svg, "a"), "data-delta=\"-30.00\""));
	assert_non_null(strstr(frame(svg, "a"), "(-30.00 points)"));
	ra = frame_rgb(svg, "a");
	rb = frame_rgb(svg, "b");
	assert_true((ra & 0xff) == 255 && (ra >> 16) < 80 && ((ra >> 8) & 0xff) < 80);
	assert_true((rb >> 16) == 255 && (rb & 0xff) < 80);
	unsigned rm = frame_rgb(svg, "main");
	assert_true((rm >> 16) > 230 && ((rm >> 8) & 0xff) > 230 && (rm & 0xff) > 230);
	free(svg);

	/* the same shares at another scale: no change anywhere */
	static const struct flame_stack base3[] = { { a, 2, 5000 }, { b, 2, 5000 } };
	static const struct flame_stack cur3[] = { { a, 2, 1 }, { b, 2, 1 } };
	svg = svg_of(base3, 2, cur3, 2, NULL);
	assert_int_equal(count_of(svg, "data-delta=\"+0.00\""), 4);
	assert_int_equal(frame_rgb(svg, "a"), frame_rgb(svg, "main"));
	free(svg);
}

static void test_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	struct err e = { 0 };
	int r = flamegraph_write(f, basic, 7, NULL, &e);
	assert_true(r == -ENOSPC || r == -EIO);
	assert_true(err_is_set(&e));
	assert_non_null(strstr(e.msg, "flamegraph"));
	fclose(f);
}

static void test_bad_args(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct flame_config c = { .width = 50 };
	assert_int_equal(flamegraph_write(stdout, basic, 7, &c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "50"));
	const struct flame_stack bad = { NULL, 3, 1 };
	assert_int_equal(flamegraph_write(stdout, &bad, 1, NULL, &e), -EINVAL);
	assert_int_equal(flamegraph_write(NULL, basic, 7, NULL, &e), -EINVAL);
}

/* 10k distinct frames (a wide, deep tree): bytes per frame, as a bound. */
static void test_size(void **state)
{
	(void)state;
	enum { FANOUT = 100, N = 100 };
	static struct flame_frame fr[FANOUT * N][3];
	static struct flame_stack st[FANOUT * N];
	static char names[FANOUT + N][32];
	for (int i = 0; i < FANOUT; i++)
		snprintf(names[i], sizeof(names[i]), "module_%d::function_%d", i, i * 7);
	for (int j = 0; j < N; j++)
		snprintf(names[FANOUT + j], sizeof(names[0]), "callee_%d_helper", j);
	for (int i = 0; i < FANOUT; i++)
		for (int j = 0; j < N; j++) {
			struct flame_frame *f = fr[i * N + j];
			f[0] = (struct flame_frame){ "spin", U };
			f[1] = (struct flame_frame){ names[i], U };
			f[2] = (struct flame_frame){ names[FANOUT + j], U };
			st[i * N + j] = (struct flame_stack){ f, 3, 1000 };
		}
	/* at 1200 px a leaf is 0.118 px: all drawn, none with text */
	char *svg = svg_of(NULL, 0, st, FANOUT * N, NULL);
	int frames = count_of(svg, "<g class=\"f\"");
	assert_int_equal(frames, 1 + 1 + FANOUT + FANOUT * N);
	size_t len = strlen(svg);
	print_message("10k-frame SVG: %d frames, %zu bytes, %zu bytes/frame\n", frames, len, len / (size_t)frames);
	assert_true(len / (size_t)frames < 400);
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_kinds_and_colors),
		cmocka_unit_test(test_same_name_other_kind),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_icicle),
		cmocka_unit_test(test_narrow_frames),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
