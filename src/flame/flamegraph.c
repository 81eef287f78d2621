/*
 * flamegraph.c - weighted stacks to one interactive SVG (flamegraph.h).
 *
 * The stacks are merged into a tree, a node per distinct path (frames are
 * equal when their names' bytes and their kinds are: the same name may
 * come as one pointer or as equal strings). Children are sorted by name,
 * as FlameGraph does, so the file depends on the counts alone, never on
 * the order of the stacks. A frame's x is its parent's plus its elder
 * siblings' samples; box edges are rounded to tenths of a pixel from these
 * cumulative counts, so a child's box never leaks out of its parent's and
 * siblings never overlap: the JavaScript (flamejs.h) finds ancestors and
 * nested search matches by geometry alone.
 *
 * The DOM, relied on by the JavaScript, the tests and other tools:
 *   <svg ... data-icicle="0|1" data-diff="0|1">, then #title, #subtitle,
 *   #details (the hovered frame), #unzoom ("Reset Zoom"), #search,
 *   #matched ("Matched: N.NN%"), and in <g id="frames">, pre-order (the
 *   root "all" first, parents before children, siblings by name), one
 *   <g class="f" data-name=NAME data-samples=N data-kind=K [data-delta=D]>
 *   per frame holding <title>, <rect x y width height fill> and, when the
 *   name fits at least 3 characters, <text>. K: root, user, kernel, jit,
 *   unknown. D: percentage points, "+1.25" or "-0.50".
 */
#include "flame/flamegraph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flamejs.h"
#include "flame/svgtext.h"
#include "symbol/kind.h"
#include "util/vec.h"

#define DEFAULT_WIDTH 1200
#define MIN_IMAGE_WIDTH 100
#define XPAD 10               /* px left and right of the frames */
#define FRAME_H 16            /* px per stack level; the box is 1 px less */
#define FONT 12               /* px, monospace: the JavaScript can count characters */
#define CHAR_W 7.3            /* px per character: 0.6 em and some slack, so text never spills */
#define TEXT_DY 11            /* the baseline, below a box's top */
#define TOP_H (3 * FONT)      /* title and buttons */
#define SUBTITLE_H (2 * FONT)
#define BOTTOM_H (2 * FONT + 10) /* the details line */
/* Frames narrower than this are not written, their subtrees neither: a
 * profile with a million distinct stacks stays a file a browser opens, and
 * nothing visible is lost. Their samples still count in their parents. */
#define MIN_WIDTH 0.1

struct node {
	const char *name;
	uint64_t count;       /* samples of this path and of all below it */
	uint64_t base;        /* diff: the same path's samples in base */
	uint64_t start;       /* samples left of this frame in the whole graph */
	uint32_t parent, hash, depth;
	uint32_t kids, nkids; /* children: tree.kids[kids .. kids + nkids) */
	int kind;
};

struct tree {
	struct node *n;       /* n[0] is the root, "all"; a parent comes before its children */
	size_t nr, cap;
	uint32_t *slot;       /* open addressing on (parent, name, kind): node index + 1, 0 free */
	size_t nslot;         /* a power of 2, at most half full */
	uint32_t *kids;
	uint64_t total, base_total;
};

struct emit {
	FILE *out;
	const struct tree *t;
	double scale;         /* px per sample */
	unsigned width, height, top; /* top: where the frames' area begins */
	bool icicle, diff;
	double max_delta;     /* diff: the largest |delta| drawn, in points */
	const char *unit;
};

/* No libm: these are all psrec needs of it, and psrec does not link it. */
static double abs_of(double v)
{
	return v < 0 ? -v : v;
}

static long long round_of(double v)
{
	return v < 0 ? -(long long)(0.5 - v) : (long long)(v + 0.5);
}

static uint32_t hash_mix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* FNV-1a, mixed: also the colors' source, so the same name gets the same
 * color in every run and every graph. */
static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return hash_mix(h);
}

static size_t slot_of(uint32_t parent, uint32_t hash, int kind, size_t mask)
{
	return hash_mix(hash ^ (parent * 0x9e3779b1u) ^ ((uint32_t)kind * 0x7feb352du)) & mask;
}

static void slot_put(uint32_t *slot, size_t mask, const struct node *n, uint32_t idx)
{
	size_t s = slot_of(n->parent, n->hash, n->kind, mask);
	while (slot[s])
		s = (s + 1) & mask;
	slot[s] = idx + 1;
}

static int tree_rehash(struct tree *t, struct err *e)
{
	size_t nslot = t->nslot ? t->nslot * 2 : 1024;
	uint32_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return err_set(e, -ENOMEM, "flamegraph: no memory for %zu tree slots", nslot);
	for (size_t i = 1; i < t->nr; i++)
		slot_put(slot, nslot - 1, &t->n[i], (uint32_t)i);
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
	return 0;
}

static int tree_node(struct tree *t, const char *name, int kind, uint32_t parent, uint32_t hash, struct err *e)
{
	/* node indices are uint32_t, UINT32_MAX meaning none and a slot
	 * holding one past an index: the doubled capacity stays below it */
	if (t->nr == t->cap && t->cap > (UINT32_MAX - 1) / 2)
		return err_set(e, -E2BIG, "flamegraph: more than %u distinct frames", UINT32_MAX - 2);
	if (VEC_RESERVE(t->n, t->cap, t->nr, 1, 1024))
		return err_set(e, -ENOMEM, "flamegraph: no memory for %zu frames", t->nr + 1);
	t->n[t->nr] = (struct node){ .name = name, .kind = kind, .parent = parent, .hash = hash,
				     .depth = t->nr ? t->n[parent].depth + 1 : 0 };
	t->nr++;
	return 0;
}

/* The child of parent for frame f: *idx, or UINT32_MAX when there is none
 * and add is false. */
static int tree_child(struct tree *t, uint32_t parent, const struct flame_frame *f, bool add, uint32_t *idx,
		      struct err *e)
{
	const char *name = f->name ? f->name : "";
	int kind = f->kind >= SYM_KIND_USER && f->kind <= SYM_KIND_UNKNOWN ? f->kind : SYM_KIND_UNKNOWN;
	uint32_t hash = hash_name(name);
	if (add && (t->nr + 1) * 2 > t->nslot) {
		int r = tree_rehash(t, e);
		if (r < 0)
			return r;
	}
	size_t mask = t->nslot - 1;
	for (size_t s = slot_of(parent, hash, kind, mask);; s = (s + 1) & mask) {
		uint32_t i = t->slot[s];
		if (!i)
			break;
		const struct node *n = &t->n[i - 1];
		if (n->parent == parent && n->hash == hash && n->kind == kind &&
		    (n->name == name || strcmp(n->name, name) == 0)) {
			*idx = i - 1;
			return 0;
		}
	}
	if (!add) {
		*idx = UINT32_MAX;
		return 0;
	}
	int r = tree_node(t, name, kind, parent, hash, e);
	if (r < 0)
		return r;
	*idx = (uint32_t)(t->nr - 1);
	slot_put(t->slot, mask, &t->n[*idx], *idx);
	return 0;
}

static int stacks_check(const struct flame_stack *s, size_t nr, struct err *e)
{
	if (nr && !s)
		return err_set(e, -EINVAL, "flamegraph: %zu stacks but no array", nr);
	for (size_t i = 0; i < nr; i++)
		if (s[i].nr && !s[i].frames)
			return err_set(e, -EINVAL, "flamegraph: stack %zu has %zu frames but no array", i, s[i].nr);
	return 0;
}

static int tree_build(struct tree *t, const struct flame_stack *s, size_t nr, struct err *e)
{
	int r = tree_node(t, "all", -1, 0, hash_name("all"), e);
	if (r < 0 || (r = tree_rehash(t, e)) < 0)
		return r;
	for (size_t i = 0; i < nr; i++) {
		uint64_t c = s[i].count;
		if (!c)
			continue;
		uint32_t at = 0;
		t->total += c;
		t->n[0].count += c;
		for (size_t j = 0; j < s[i].nr; j++) {
			if ((r = tree_child(t, at, &s[i].frames[j], true, &at, e)) < 0)
				return r;
			t->n[at].count += c;
		}
	}
	return 0;
}

/* Base's counts on cur's paths; paths only in base are not drawn. */
static void tree_add_base(struct tree *t, const struct flame_stack *s, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		uint64_t c = s[i].count;
		uint32_t at = 0;
		t->base_total += c;
		t->n[0].base += c;
		for (size_t j = 0; j < s[i].nr; j++) {
			(void)tree_child(t, at, &s[i].frames[j], false, &at, NULL);
			if (at == UINT32_MAX)
				break;
			t->n[at].base += c;
		}
	}
}

static int node_cmp(const void *a, const void *b, void *ctx)
{
	const struct node *n = ctx;
	const struct node *x = &n[*(const uint32_t *)a], *y = &n[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);
	return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

/* Children lists sorted by name, and each frame's start: parents come
 * before their children in t->n, so one pass places everything. */
static int tree_layout(struct tree *t, struct err *e)
{
	free(t->slot);
	t->slot = NULL;
	t->kids = malloc((t->nr ? t->nr : 1) * sizeof(*t->kids));
	if (!t->kids)
		return err_set(e, -ENOMEM, "flamegraph: no memory for %zu frames", t->nr);
	for (size_t i = 1; i < t->nr; i++)
		t->n[t->n[i].parent].nkids++;
	uint32_t at = 0;
	for (size_t i = 0; i < t->nr; i++) {
		t->n[i].kids = at;
		at += t->n[i].nkids;
		t->n[i].nkids = 0;
	}
	for (size_t i = 1; i < t->nr; i++) {
		struct node *p = &t->n[t->n[i].parent];
		t->kids[p->kids + p->nkids++] = (uint32_t)i;
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct node *p = &t->n[i];
		qsort_r(t->kids + p->kids, p->nkids, sizeof(*t->kids), node_cmp, t->n);
		uint64_t start = p->start;
		for (uint32_t k = 0; k < p->nkids; k++) {
			struct node *c = &t->n[t->kids[p->kids + k]];
			c->start = start;
			start += c->count;
		}
	}
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->n);
	free(t->slot);
	free(t->kids);
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case -1: return "root";
	case SYM_KIND_USER: return "user";
	case SYM_KIND_KERNEL: return "kernel";
	case SYM_KIND_JIT: return "jit";
	default: return "unknown";
	}
}

static bool node_drawn(const struct emit *m, const struct node *n)
{
	return (double)n->count * m->scale >= MIN_WIDTH;
}

/* In percentage points: the path's share of cur minus its share of base. */
static double node_delta(const struct tree *t, const struct node *n)
{
	double cur = t->total ? (double)n->count / (double)t->total : 0;
	double base = t->base_total ? (double)n->base / (double)t->base_total : 0;
	double d = 100.0 * (cur - base);
	/* what prints as 0.00 is 0: no "-0.00", and white */
	return abs_of(d) < 0.005 ? 0 : d;
}

/* FlameGraph's palettes: user "hot" (red to yellow), kernel orange, JIT
 * green, unknown grey; the shade from the name's hash. */
static unsigned kind_color(int kind, uint32_t hash)
{
	unsigned v1 = hash & 0xff, v2 = (hash >> 8) & 0xff, v3 = (hash >> 16) & 0xff, r, g, b;
	switch (kind) {
	case SYM_KIND_KERNEL:
		r = 190 + 65 * v1 / 255;
		g = 90 + 65 * v1 / 255;
		b = 0;
		break;
	case SYM_KIND_JIT:
		r = 50 + 60 * v1 / 255;
		g = 200 + 55 * v1 / 255;
		b = 50 + 60 * v1 / 255;
		break;
	case SYM_KIND_USER:
	case -1:
		r = 205 + 50 * v3 / 255;
		g = 230 * v1 / 255;
		b = 55 * v2 / 255;
		break;
	default:
		r = g = b = 170 + 50 * v1 / 255;
		break;
	}
	return r << 16 | g << 8 | b;
}

/* difffolded's colors: red grew, blue shrank, deeper the more it changed
 * relative to the largest change; near white for none. */
static unsigned delta_color(double d, double max)
{
	if (d == 0 || max <= 0)
		return 0xf5f5f5;
	double t = abs_of(d) / max;
	unsigned c = (unsigned)round_of(235.0 - 195.0 * (t > 1 ? 1 : t));
	return d > 0 ? 0xff0000u | c << 8 | c : c << 16 | c << 8 | 0xffu;
}

/* 12345 as "12,345", as perf report and FlameGraph print counts. */
static void put_count(FILE *out, uint64_t v)
{
	char d[32];
	int n = 0;
	do {
		if (n % 4 == 3)
			d[n++] = ',';
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		putc(d[--n], out);
}

/* Tenths of a pixel, "12.3", or "12" when whole (bytes matter at 100k frames). */
static void put_tenths(FILE *out, long long v)
{
	if (v % 10)
		fprintf(out, "%lld.%lld", v / 10, v % 10);
	else
		fprintf(out, "%lld", v / 10);
}

static long long x_tenths(const struct emit *m, uint64_t pos)
{
	return round_of(((double)XPAD + (double)pos * m->scale) * 10.0);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

static void emit_frame(const struct emit *m, const struct node *n)
{
	FILE *out = m->out;
	const struct tree *t = m->t;
	unsigned y = m->icicle ? m->top + n->depth * FRAME_H : m->height - BOTTOM_H - (n->depth + 1) * FRAME_H;
	long long x0 = x_tenths(m, n->start), x1 = x_tenths(m, n->start + n->count);
	double delta = m->diff ? node_delta(t, n) : 0;

	fputs("<g class=\"f\" data-name=\"", out);
	svgtext_put(out, n->name, SIZE_MAX);
	fprintf(out, "\" data-samples=\"%llu\" data-kind=\"%s\"", (unsigned long long)n->count, kind_name(n->kind));
	if (m->diff)
		fprintf(out, " data-delta=\"%+.2f\"", delta);
	fputs("><title>", out);
	svgtext_put(out, n->name, SIZE_MAX);
	fputs(" (", out);
	put_count(out, n->count);
	putc(' ', out);
	svgtext_put(out, m->unit, SIZE_MAX);
	fprintf(out, ", %.2f%%)", pct(n->count, t->total));
	if (m->diff)
		fprintf(out, " (%+.2f points)", delta);
	fputs("</title><rect x=\"", out);
	put_tenths(out, x0);
	fprintf(out, "\" y=\"%u\" width=\"", y);
	put_tenths(out, x1 - x0);
	unsigned rgb = m->diff ? delta_color(delta, m->max_delta) : kind_color(n->kind, n->hash);
	fprintf(out, "\" height=\"%u\" fill=\"#%06x\"/>", FRAME_H - 1, rgb);

	/* FlameGraph's truncation: what fits, the last two characters of it
	 * ".." when cut, nothing when not even 3 characters fit. */
	double room = ((double)(x1 - x0) / 10.0 - 3.0) / CHAR_W;
	long chars = room < 0 ? -1 : (long)room;
	if (chars >= 3) {
		size_t len = svgtext_len(n->name);
		fputs("<text x=\"", out);
		put_tenths(out, x0 + 30);
		fprintf(out, "\" y=\"%u\">", y + TEXT_DY);
		if (len <= (size_t)chars) {
			svgtext_put(out, n->name, SIZE_MAX);
		} else {
			svgtext_put(out, n->name, (size_t)chars - 2);
			fputs("..", out);
		}
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

static void emit_head(const struct emit *m, const struct flame_config *c)
{
	FILE *out = m->out;
	unsigned w = m->width, h = m->height;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		/* No DOCTYPE: its DTD URL is the one thing an XML tool might fetch. */
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-icicle=\"%d\" data-diff=\"%d\">\n",
		w, h, w, h, m->icicle, m->diff);
	fputs("<style>\n"
	      "text{font-family:monospace;font-size:12px;fill:#000}\n"
	      "#title{font-size:17px;text-anchor:middle}\n"
	      "#subtitle{text-anchor:middle;fill:#555}\n"
	      "#search,#matched{text-anchor:end}\n"
	      ".btn{cursor:pointer}\n"
	      ".btn:hover{text-decoration:underline}\n"
	      ".hide{display:none}\n"
	      ".f{cursor:pointer}\n"
	      ".f text{pointer-events:none}\n"
	      ".f:hover rect{stroke:#000;stroke-width:.5}\n"
	      ".z{display:none}\n"        /* outside the zoomed frame */
	      ".p rect{fill-opacity:.5}\n" /* the zoomed frame's ancestors */
	      ".m rect{fill:#e600e6}\n"   /* search matches */
	      "</style>\n", out);
	fputs("<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#bg)\"/>\n", w, h);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"%d\">", w / 2, 2 * FONT);
	svgtext_put(out, c && c->title ? c->title : "Flame Graph", SIZE_MAX);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"subtitle\" x=\"%u\" y=\"%d\">", w / 2, 4 * FONT);
	svgtext_put(out, c ? c->subtitle : NULL, SIZE_MAX);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n", XPAD, 2 * FONT);
	fprintf(out, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"%d\">Search</text>\n", w - XPAD, 2 * FONT);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", XPAD, h - BOTTOM_H / 2);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n", w - XPAD, h - BOTTOM_H / 2);
	if (!m->t->total)
		fprintf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">No samples</text>\n", w / 2,
			h - BOTTOM_H - FRAME_H / 4);
}

static void emit_tail(const struct emit *m)
{
	fprintf(m->out, "<script type=\"text/ecmascript\"><![CDATA[\nvar fg = {xpad: %d, cw: %.2f, ty: %d};\n",
		XPAD, CHAR_W, TEXT_DY);
	fputs(flamegraph_js, m->out);
	fputs("]]></script>\n</svg>\n", m->out);
}

/* Pre-order, children by name: an explicit stack, as stacks can be deep. */
static int emit_frames(const struct emit *m, struct err *e)
{
	const struct tree *t = m->t;
	uint32_t *todo = malloc(t->nr * sizeof(*todo));
	size_t nr = 0, done = 0;
	if (!todo)
		return err_set(e, -ENOMEM, "flamegraph: no memory for %zu frames", t->nr);
	fputs("<g id=\"frames\">\n", m->out);
	todo[nr++] = 0;
	while (nr) {
		const struct node *n = &t->n[todo[--nr]];
		emit_frame(m, n);
		for (uint32_t k = n->nkids; k-- > 0;) {
			uint32_t c = t->kids[n->kids + k];
			if (node_drawn(m, &t->n[c]))
				todo[nr++] = c;
		}
		/* A full disk: stop now rather than format a million frames more. */
		if (++done % 4096 == 0 && ferror(m->out))
			break;
	}
	fputs("</g>\n", m->out);
	free(todo);
	return 0;
}

static int write_graph(FILE *out, const struct flame_stack *base, size_t nr_base, const struct flame_stack *cur,
		       size_t nr_cur, const struct flame_config *c, bool diff, struct err *e)
{
	if (!out)
		return err_set(e, -EINVAL, "flamegraph: no output stream");
	int r = stacks_check(cur, nr_cur, e);
	if (r < 0 || (r = stacks_check(base, nr_base, e)) < 0)
		return r;
	unsigned width = c && c->width ? c->width : DEFAULT_WIDTH;
	if (width < MIN_IMAGE_WIDTH)
		return err_set(e, -EINVAL, "flamegraph: %u px is too narrow (at least %d)", width, MIN_IMAGE_WIDTH);

	struct tree t = { 0 };
	if ((r = tree_build(&t, cur, nr_cur, e)) < 0)
		goto out;
	if (diff)
		tree_add_base(&t, base, nr_base);
	if ((r = tree_layout(&t, e)) < 0)
		goto out;

	struct emit m = { .out = out, .t = &t, .width = width, .icicle = c && c->icicle, .diff = diff,
			  .unit = c && c->unit ? c->unit : "samples" };
	m.scale = t.total ? (double)(width - 2 * XPAD) / (double)t.total : 0;
	uint32_t depth = 0;
	for (size_t i = 0; i < t.nr; i++) {
		if (!node_drawn(&m, &t.n[i]))
			continue;
		if (t.n[i].depth > depth)
			depth = t.n[i].depth;
		if (diff && abs_of(node_delta(&t, &t.n[i])) > m.max_delta)
			m.max_delta = abs_of(node_delta(&t, &t.n[i]));
	}
	m.top = TOP_H + (c && c->subtitle ? SUBTITLE_H : 0);
	m.height = m.top + (depth + 1) * FRAME_H + BOTTOM_H;

	emit_head(&m, c);
	if (t.total && (r = emit_frames(&m, e)) < 0)
		goto out;
	emit_tail(&m);

	/* Buffered stdio keeps 100k frames fast; the price is that errors
	 * show only here, and a small graph's only when flushed. */
	errno = 0;
	if (fflush(out) != 0 || ferror(out)) {
		int code = errno ? errno : EIO;
		r = err_set(e, -code, "flamegraph: writing the SVG: %s", strerror(code));
	}
out:
	tree_free(&t);
	return r;
}

int flamegraph_write(FILE *out, const struct flame_stack *stacks, size_t nr, const struct flame_config *c,
		     struct err *e)
{
	return write_graph(out, NULL, 0, stacks, nr, c, false, e);
}

int flamegraph_write_diff(FILE *out, const struct flame_stack *base, size_t nr_base, const struct flame_stack *cur,
			  size_t nr_cur, const struct flame_config *c, struct err *e)
{
	return write_graph(out, base, nr_base, cur, nr_cur, c, true, e);
}
