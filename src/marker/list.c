/*
 * list.c - a recording's markers read back, paired into spans, printed,
 * and cut into --between windows (see list.h).
 */
#include "list.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/sample.h"
#include "marker/tp.h"
#include "psrec/perf_data.h"
#include "util/bsearch.h"
#include "util/textesc.h"
#include "util/utf8.h"
#include "util/vec.h"

void marker_list_init(struct marker_list *l)
{
	memset(l, 0, sizeof(*l));
}

void marker_list_free(struct marker_list *l)
{
	free(l->v);
	free(l->spans);
	buf_free(&l->pool);
	if (l->sideband) {
		sideband_free(l->sideband);
		free(l->sideband);
	}
	memset(l, 0, sizeof(*l));
}

/* The RAW field of a SAMPLE already decoded up to its CALLCHAIN; -EINVAL
 * when the record is too short for it. */
static int sample_raw(uint64_t st, const uint8_t *rec, size_t size, const struct sample *s, const uint8_t **raw,
		      size_t *len)
{
	if (!(st & PD_SAMPLE_RAW) || size < s->end || size - s->end < 4)
		return -EINVAL;
	uint32_t n;
	memcpy(&n, rec + s->end, 4);
	if (n > size - s->end - 4)
		return -EINVAL;
	*raw = rec + s->end + 4;
	*len = n;
	return 0;
}

/* A span's name: its payload; a begin or end written without one (msg
 * alone, by another writer) is named by its msg after "begin: "/"end: ". */
static void span_name(const struct marker_list *l, const struct marker_entry *m, const uint8_t **p, size_t *len)
{
	*p = marker_entry_payload(l, m);
	*len = m->pay_len;
	if (m->pay != m->msg)
		return;
	const char *pre = m->kind == PSREC_MK_SPAN_BEGIN ? "begin: " : "end: ";
	size_t n = strlen(pre);
	if (*len >= n && memcmp(*p, pre, n) == 0) {
		*p += n;
		*len -= n;
	}
}

static bool filter_keep(const struct marker_filter *f, int32_t pid, int32_t tid, const char *comm)
{
	if (f->pid >= 0 && pid != f->pid)
		return false;
	if (f->tid >= 0 && tid != f->tid)
		return false;
	return !f->comm || (comm && strcmp(comm, f->comm) == 0);
}

static int entry_add(struct marker_list *l, const struct sample *s, const struct marker_view *v, const char *comm)
{
	if (VEC_RESERVE(l->v, l->cap, l->n, 1, 64))
		return -ENOMEM;
	size_t plen;
	const uint8_t *pay = marker_payload(v, &plen);
	struct marker_entry *m = &l->v[l->n];
	*m = (struct marker_entry){ s->time, (int32_t)s->pid, (int32_t)s->tid, v->kind, v->type, v->flags, comm,
				    l->pool.len, v->msg_len, l->pool.len, plen };
	/* msg, NUL, then the payload when it is not msg itself */
	uint8_t nul = 0;
	if (buf_append(&l->pool, v->msg, v->msg_len) || buf_append(&l->pool, &nul, 1))
		return -ENOMEM;
	if (pay != (const uint8_t *)v->msg) {
		m->pay = l->pool.len;
		if (buf_append(&l->pool, pay, plen) || buf_append(&l->pool, &nul, 1))
			return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* What collect_one keeps, and how. */
struct marker_collect {
	struct marker_list *l;
	const struct marker_filter *f;
	bool comm;                  /* name the threads */
};

/* Time order; equal times keep file order, which is pool order. */
static int cmp_entry(const void *pa, const void *pb)
{
	const struct marker_entry *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->msg < b->msg ? -1 : a->msg > b->msg;
}

/* A sample of the session: the times of all, the markers kept. */
static int collect_one(void *arg, const struct session_sample *ss)
{
	struct marker_collect *c = arg;
	struct marker_list *l = c->l;
	const struct reader_record *rec = ss->rec;
	const struct reader_attr *a = ss->attr;
	int off = sample_time_offset(a->attr.sample_type);
	if (off >= 0 && (size_t)off + 8 <= rec->size) {
		uint64_t t;
		memcpy(&t, rec->data + off, 8);
		if (!l->first_time || t < l->first_time)
			l->first_time = t;
		if (t > l->last_time)
			l->last_time = t;
	}
	if (!marker_tp_is(&a->attr))
		return 0;
	const uint8_t *raw;
	size_t rlen;
	struct marker_view v;
	if (!ss->parsed || sample_raw(a->attr.sample_type, rec->data, rec->size, &ss->s, &raw, &rlen) ||
	    marker_tp_decode(raw, rlen, &v)) {
		l->bad++;
		return 0;
	}
	const char *comm = c->comm ? ss->comm : NULL;
	if (!filter_keep(c->f, (int32_t)ss->s.pid, (int32_t)ss->s.tid, comm)) {
		l->filtered++;
		return 0;
	}
	return entry_add(l, &ss->s, &v, comm);
}

int marker_list_collect_session(struct marker_list *l, struct session *s, bool comm, const struct marker_filter *f,
				struct err *e)
{
	for (size_t i = 0; i < s->rd.nr_attrs; i++)
		l->has_event |= marker_tp_is(&s->rd.attrs[i].attr);
	if (!l->has_event)
		return 0;
	struct marker_collect c = { l, f, comm };
	int err = session_samples(s, collect_one, &c);
	if (err)
		return err_set(e, err, "out of memory reading the markers");
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	return 0;
}

int marker_list_read(struct marker_list *l, const char *path, const struct marker_filter *f, struct err *e)
{
	const char *name = strcmp(path, "-") ? path : "standard input";
	struct session s;
	struct err re = { "" };
	int err = session_open(&s, path, &re);
	if (err) {
		session_close(&s);
		return err_set(e, err, "%s: %s", name, re.msg);
	}
	l->sideband = calloc(1, sizeof(*l->sideband));
	if (!l->sideband) {
		session_close(&s);
		return err_set(e, -ENOMEM, "%s: out of memory reading the markers", name);
	}
	sideband_init(l->sideband);
	err = session_load(&s, l->sideband, &re);
	if (!err)
		err = marker_list_collect_session(l, &s, true, f, &re);
	if (err)
		err_set(e, err, "%s: %s", name, err_is_set(&re) ? re.msg : strerror(-err));
	l->decoded = session_decoded(&s);
	snprintf(l->warning, sizeof(l->warning), "%s", s.warning);
	session_close(&s);
	return err;
}

/* ---- spans ---------------------------------------------------------------- */

/* Span markers by thread, then (by_name) name, then time: qsort_r's. */
struct span_order {
	const struct marker_list *l;
	bool by_name;
};

static int cmp_span_marker(const void *pa, const void *pb, void *arg)
{
	const struct span_order *o = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct marker_entry *a = &o->l->v[ia], *b = &o->l->v[ib];
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (o->by_name) {
		const uint8_t *na, *nb;
		size_t la, lb;
		span_name(o->l, a, &na, &la);
		span_name(o->l, b, &nb, &lb);
		int c = memcmp(na, nb, la < lb ? la : lb);
		if (c || la != lb)
			return c ? c : la < lb ? -1 : 1;
	}
	return ia < ib ? -1 : ia > ib;
}

static bool same_thread(const struct marker_entry *a, const struct marker_entry *b)
{
	return a->pid == b->pid && a->tid == b->tid;
}

static bool same_span(const struct marker_list *l, const struct marker_entry *a, const struct marker_entry *b)
{
	if (!same_thread(a, b))
		return false;
	const uint8_t *pa, *pb;
	size_t la, lb;
	span_name(l, a, &pa, &la);
	span_name(l, b, &pb, &lb);
	return la == lb && memcmp(pa, pb, la) == 0;
}

/*
 * Sorted by (thread, name, time), the markers of one span name on one
 * thread are a run in which each end closes the top of a stack of its
 * begins: the latest open one. Then sorted by (thread, time), the open
 * spans counted along each thread give each begin its depth. O(n log n)
 * whatever the program left unbalanced.
 */
int marker_list_pair(struct marker_list *l)
{
	free(l->spans);
	l->spans = NULL;
	l->nspans = 0;
	l->unmatched_ends = 0;
	size_t m = 0, begins = 0;
	for (size_t i = 0; i < l->n; i++) {
		m += l->v[i].kind == PSREC_MK_SPAN_BEGIN || l->v[i].kind == PSREC_MK_SPAN_END;
		begins += l->v[i].kind == PSREC_MK_SPAN_BEGIN;
	}
	if (!m)
		return 0;
	size_t *idx = malloc(m * sizeof(*idx)), *stack = malloc(m * sizeof(*stack));
	size_t *span_of = malloc(l->n * sizeof(*span_of)); /* a begin's span; SIZE_MAX: a matched end */
	l->spans = calloc(begins ? begins : 1, sizeof(*l->spans));
	if (!idx || !stack || !span_of || !l->spans) {
		free(idx);
		free(stack);
		free(span_of);
		free(l->spans);
		l->spans = NULL;
		return -ENOMEM;
	}
	m = 0;
	for (size_t i = 0; i < l->n; i++) {
		uint32_t k = l->v[i].kind;
		span_of[i] = 0;
		if (k == PSREC_MK_SPAN_BEGIN) {
			span_of[i] = l->nspans;
			l->spans[l->nspans++] = (struct marker_span){ i, SIZE_MAX, 0 };
		}
		if (k == PSREC_MK_SPAN_BEGIN || k == PSREC_MK_SPAN_END)
			idx[m++] = i;
	}
	struct span_order o = { l, true };
	qsort_r(idx, m, sizeof(*idx), cmp_span_marker, &o);
	size_t top = 0;
	for (size_t j = 0; j < m; j++) {
		size_t i = idx[j];
		if (j == 0 || !same_span(l, &l->v[idx[j - 1]], &l->v[i]))
			top = 0; /* a new run: its stack starts empty */
		if (l->v[i].kind == PSREC_MK_SPAN_BEGIN) {
			stack[top++] = span_of[i];
		} else if (top) {
			l->spans[stack[--top]].end = i;
			span_of[i] = SIZE_MAX;
		} else {
			l->unmatched_ends++;
		}
	}
	o.by_name = false;
	qsort_r(idx, m, sizeof(*idx), cmp_span_marker, &o);
	unsigned open = 0;
	for (size_t j = 0; j < m; j++) {
		size_t i = idx[j];
		if (j == 0 || !same_thread(&l->v[idx[j - 1]], &l->v[i]))
			open = 0;
		if (l->v[i].kind == PSREC_MK_SPAN_BEGIN)
			l->spans[span_of[i]].depth = open++;
		else if (span_of[i] == SIZE_MAX)
			open--;
	}
	free(idx);
	free(stack);
	free(span_of);
	return 0;
}

/* ---- the listing ---------------------------------------------------------- */

/* Bytes as text (util/textesc.h): control characters and broken UTF-8
 * as \xNN. A msg is escaped by its writer already (backslashes too), so
 * a backslash is kept; a payload or a name from another writer, or a
 * thread's name, may hold anything. */
static void put_text(FILE *out, const void *p, size_t len)
{
	textesc_put(out, p, len, 0);
}

/* ns as seconds with 6 decimals, the integer part at least width wide */
static void put_seconds(FILE *out, int width, uint64_t ns)
{
	fprintf(out, "%*" PRIu64 ".%06" PRIu64, width, ns / 1000000000u, ns % 1000000000u / 1000u);
}

/* t from the first sample (a marker stamped 0 by a broken writer: 0) */
static uint64_t since_first(const struct marker_list *l, uint64_t t)
{
	return t > l->first_time ? t - l->first_time : 0;
}

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case PSREC_MK_TEXT: return "mark";
	case PSREC_MK_BYTES: return "bytes";
	case PSREC_MK_SPAN_BEGIN: return "begin";
	case PSREC_MK_SPAN_END: return "end";
	default: return NULL;
	}
}

static void put_thread(FILE *out, const struct marker_entry *m)
{
	char id[32];
	snprintf(id, sizeof(id), "%" PRId32 "/%" PRId32, m->pid, m->tid);
	fprintf(out, "  %-13s  ", id);
}

int marker_list_write(FILE *out, const struct marker_list *l, const char *input, struct err *e)
{
	size_t open = 0;
	for (size_t i = 0; i < l->nspans; i++)
		open += l->spans[i].end == SIZE_MAX;
	fprintf(out, "# %zu marker%s, %zu span%s in ", l->n, l->n == 1 ? "" : "s", l->nspans, l->nspans == 1 ? "" : "s");
	input = strcmp(input, "-") ? input : "standard input";
	put_text(out, input, strlen(input)); /* a file name may be anyone's */
	fprintf(out, " (%zu open, %" PRIu64 " end%s without a begin); times in s from the first sample, ", open,
		l->unmatched_ends, l->unmatched_ends == 1 ? "" : "s");
	put_seconds(out, 0, l->first_time);
	fputs("\n#         TIME  PID/TID        COMM              KIND       TEXT\n", out);
	struct buf cbuf = BUF_INIT;
	for (size_t i = 0; i < l->n; i++) {
		const struct marker_entry *m = &l->v[i];
		fputs("  ", out);
		put_seconds(out, 6, since_first(l, m->time));
		put_thread(out, m);
		/* the column is as wide as the name printed, escapes and all */
		const char *comm = m->comm ? m->comm : "[unknown]";
		buf_reset(&cbuf);
		if (textesc_buf(&cbuf, comm, strnlen(comm, 64), 0, NULL) != 0) {
			buf_free(&cbuf);
			return -ENOMEM;
		}
		fwrite(cbuf.data, 1, cbuf.len, out);
		fprintf(out, "%*s", (int)(cbuf.len < 16 ? 18 - cbuf.len : 2), "");
		char kind[32];
		const char *k = kind_name(m->kind);
		if (m->kind == PSREC_MK_BYTES)
			snprintf(kind, sizeof(kind), "bytes(%" PRIu32 ")", m->type);
		else if (k)
			snprintf(kind, sizeof(kind), "%s", k);
		else
			snprintf(kind, sizeof(kind), "kind(%" PRIu32 ")", m->kind);
		fprintf(out, "%-9s  ", kind);
		put_text(out, marker_entry_msg(l, m), m->msg_len);
		putc('\n', out);
	}
	if (l->nspans) {
		fputs("# spans\n#        START   DURATION ms  PID/TID        NAME\n", out);
		for (size_t i = 0; i < l->nspans; i++) {
			const struct marker_span *sp = &l->spans[i];
			const struct marker_entry *b = &l->v[sp->begin];
			fputs("  ", out);
			put_seconds(out, 6, since_first(l, b->time));
			if (sp->end == SIZE_MAX)
				fprintf(out, "  %12s", "open");
			else
				fprintf(out, "  %12.3f", (double)(l->v[sp->end].time - b->time) / 1e6);
			put_thread(out, b);
			fprintf(out, "%*s", (int)(2 * sp->depth), "");
			const uint8_t *name;
			size_t len;
			span_name(l, b, &name, &len);
			put_text(out, name, len);
			putc('\n', out);
		}
	}
	buf_free(&cbuf);
	if (fflush(out) != 0 || ferror(out))
		return err_set(e, -EIO, "cannot write the markers: %s", strerror(errno));
	return 0;
}

/* ---- the listing as JSON --------------------------------------------------- */

/* A JSON string of len bytes: quote, backslash and control characters
 * (C0, DEL, C1) JSON-escaped, UTF-8 text as it is, and a byte that is not
 * UTF-8 as the text \xNN (JSON is UTF-8, and such a byte has no
 * character: a thread name cut inside one by the kernel, say). */
static void put_json_str(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', out);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_next(p + i, len - i, &cp);
		if (cp == UTF8_INVALID) {
			for (size_t k = 0; k < n; k++)
				fprintf(out, "\\\\x%02x", p[i + k]);
		} else if (cp == '"' || cp == '\\') {
			fprintf(out, "\\%c", (int)cp);
		} else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			fprintf(out, "\\u%04x", (unsigned)cp);
		} else {
			fwrite(p + i, 1, n, out);
		}
		i += n;
	}
	putc('"', out);
}

/* A span's name for JSON: its begin's msg after "begin: " (escaped as
 * perf script prints it, so always text). */
static void put_json_name(FILE *out, const struct marker_list *l, const struct marker_entry *b)
{
	const char *m = marker_entry_msg(l, b);
	size_t len = b->msg_len;
	if (len >= 7 && memcmp(m, "begin: ", 7) == 0) {
		m += 7;
		len -= 7;
	}
	put_json_str(out, m, len);
}

static void put_json_seconds(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

int marker_list_write_json(FILE *out, const struct marker_list *l, const char *input, struct err *e)
{
	fputs("{\"input\": ", out);
	put_json_str(out, input, strlen(input));
	fprintf(out, ", \"first_sample_ns\": %" PRIu64 ", \"unmatched_ends\": %" PRIu64 ", \"markers\": [",
		l->first_time, l->unmatched_ends);
	for (size_t i = 0; i < l->n; i++) {
		const struct marker_entry *m = &l->v[i];
		const char *k = kind_name(m->kind);
		fprintf(out, "%s\n  {\"time\": ", i ? "," : "");
		put_json_seconds(out, since_first(l, m->time));
		fprintf(out, ", \"time_ns\": %" PRIu64 ", \"pid\": %" PRId32 ", \"tid\": %" PRId32 ", \"comm\": ",
			m->time, m->pid, m->tid);
		if (m->comm)
			put_json_str(out, m->comm, strlen(m->comm));
		else
			fputs("null", out);
		if (k)
			fprintf(out, ", \"kind\": \"%s\"", k);
		else
			fprintf(out, ", \"kind\": %" PRIu32, m->kind);
		if (m->kind == PSREC_MK_BYTES)
			fprintf(out, ", \"type\": %" PRIu32, m->type);
		fprintf(out, ", \"truncated\": %s, \"text\": ", m->flags & PSREC_MKF_TRUNCATED ? "true" : "false");
		put_json_str(out, marker_entry_msg(l, m), m->msg_len);
		putc('}', out);
	}
	fputs(l->n ? "\n], \"spans\": [" : "], \"spans\": [", out);
	for (size_t i = 0; i < l->nspans; i++) {
		const struct marker_span *sp = &l->spans[i];
		const struct marker_entry *b = &l->v[sp->begin];
		fprintf(out, "%s\n  {\"start\": ", i ? "," : "");
		put_json_seconds(out, since_first(l, b->time));
		if (sp->end == SIZE_MAX)
			fputs(", \"duration_ms\": null, \"open\": true", out);
		else
			fprintf(out, ", \"duration_ms\": %.6f, \"open\": false", (double)(l->v[sp->end].time - b->time) / 1e6);
		fprintf(out, ", \"pid\": %" PRId32 ", \"tid\": %" PRId32 ", \"depth\": %u, \"name\": ", b->pid, b->tid,
			sp->depth);
		put_json_name(out, l, b);
		putc('}', out);
	}
	fputs(l->nspans ? "\n]}\n" : "]}\n", out);
	if (fflush(out) != 0 || ferror(out))
		return err_set(e, -EIO, "cannot write the markers: %s", strerror(errno));
	return 0;
}

/* ---- --between ------------------------------------------------------------ */

static bool payload_is(const struct marker_list *l, const struct marker_entry *m, const char *s)
{
	size_t n = strlen(s);
	return m->pay_len == n && memcmp(marker_entry_payload(l, m), s, n) == 0;
}

/* The first entry from i on whose payload is s; l->n if none. */
static size_t find_from(const struct marker_list *l, size_t i, const char *s)
{
	while (i < l->n && !payload_is(l, &l->v[i], s))
		i++;
	return i;
}

int marker_windows(const struct marker_list *l, const char *a, const char *b, uint64_t **win, size_t *nwin,
		   struct err *e)
{
	*win = NULL;
	*nwin = 0;
	if (l->n == 0)
		return err_set(e, -ENOENT, "--between: no markers at all (recorded without a program using psrec_mark?)");
	size_t i = find_from(l, 0, a);
	if (i == l->n)
		return err_set(e, -ENOENT, "--between: no marker '%s'", a);
	size_t cap = 0;
	while (i < l->n) {
		size_t j = find_from(l, i + 1, b);
		if (j == l->n)
			break;
		if (*nwin == cap) {
			cap = cap ? cap * 2 : 8;
			uint64_t *nw = realloc(*win, cap * 2 * sizeof(*nw));
			if (!nw) {
				free(*win);
				*win = NULL;
				*nwin = 0;
				return -ENOMEM;
			}
			*win = nw;
		}
		(*win)[2 * *nwin] = l->v[i].time;
		(*win)[2 * *nwin + 1] = l->v[j].time;
		(*nwin)++;
		i = find_from(l, j + 1, a);
	}
	if (*nwin == 0)
		return err_set(e, -ENOENT, "--between: no marker '%s' after the marker '%s'", b, a);
	return 0;
}

/* bsearch_cmp_fn of a time and a window (start, end): by start. */
static int cmp_window(const void *key, const void *elem)
{
	uint64_t t = *(const uint64_t *)key, start = *(const uint64_t *)elem;
	return (t > start) - (t < start);
}

bool marker_windows_hold(const uint64_t *win, size_t nwin, uint64_t t)
{
	/* the last window starting at or before t */
	size_t i;
	return bsearch_last_le(win, nwin, 2 * sizeof(*win), &t, cmp_window, &i) && t <= win[2 * i + 1];
}
