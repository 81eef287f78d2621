/*
 * hsdecode - decode the stream hotspot-perfparser writes (--output FILE)
 * and print what it resolved, one line per event, for the integration
 * tests to assert on with awk.
 *
 * usage: hsdecode [--no-inline] FILE|-
 *
 * Output, in stream order:
 *   attr ID NAME
 *   command PID TID NAME
 *   thread_start PID TID
 *   thread_end PID TID
 *   error CODE MESSAGE
 *   sample PID TID TIME ATTR_ID NFRAMES<TAB>FRAME0<TAB>FRAME1...
 * then the summary:
 *   samples N
 *   samples_with_binary N     (leaf frame has a non-empty binary)
 *   samples_with_symbol N     (leaf frame has a non-empty symbol name)
 *   lost N                    (LostDefinition events: perfparser 4.12 sends
 *                              one per PERF_RECORD_LOST, without the count)
 *   unknown_events N          (event types this decoder does not know)
 *
 * FRAME is SYMBOL@BINARY, innermost first, "?" for an empty or unknown name
 * or binary; the binary follows the last '@'. Frames are expanded from
 * perfparser's location ids the way hotspot does it: a location with no
 * symbol of its own takes its parent's symbol, and the parent (a function
 * entry) is then skipped, so inlined functions appear as frames of their
 * own, innermost first. --no-inline leaves the inlined frames out, so the
 * leaf is the function the code was inlined into. TRACEPOINT samples are
 * printed as samples too (hotspot counts them as samples); their trace
 * data is skipped.
 *
 * Stream format (perfparser 4.12, Debian hotspot 1.3): "QPERFSTREAM\0",
 * a little-endian int32 QDataStream version, then events, each a
 * little-endian uint32 size and that many bytes of big-endian QDataStream
 * data starting with a uint8 event type.
 *
 * Exits 1 with a one-line message on malformed input, 2 on usage errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Event types, in perfparser's enum order. */
enum ev_type {
	EV_THREAD_START,
	EV_THREAD_END,
	EV_COMMAND,
	EV_LOCATION,
	EV_SYMBOL,
	EV_STRING,
	EV_LOST,
	EV_FEATURES,
	EV_ERROR,
	EV_PROGRESS,
	EV_TRACEPOINT_FORMAT,
	EV_ATTRIBUTES,
	EV_CONTEXT_SWITCH,
	EV_SAMPLE,
	EV_TRACEPOINT_SAMPLE,
	EV_NR_TYPES
};

static const char stream_magic[12] = "QPERFSTREAM";	/* with its NUL */

/* The longest parent chain followed from one frame (inline depth). */
#define CHAIN_MAX 1024

static const char *prog = "hsdecode";

/* ---- failure ---- */

static void die_malformed(const char *what, uint64_t offset)
{
	fflush(stdout);
	fprintf(stderr, "%s: malformed input at offset %" PRIu64 ": %s\n", prog, offset, what);
	exit(1);
}

static void die_system(const char *what)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

static void *mem_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 64;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			break;
		n *= 2;
	}
	void *q = n >= need && n <= SIZE_MAX / elem ? realloc(p, n * elem) : NULL;
	if (!q) {
		errno = ENOMEM;
		die_system("cannot grow a table");
	}
	*cap = n;
	return q;
}

/* ---- bounds-checked big-endian reader over one event ---- */

struct cursor {
	const unsigned char *p, *end;
	bool bad;		/* set once a read ran past the end */
};

static bool cur_need(struct cursor *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return false;
	}
	return true;
}

static size_t cur_left(const struct cursor *c)
{
	return c->bad ? 0 : (size_t)(c->end - c->p);
}

static uint8_t cur_u8(struct cursor *c)
{
	if (!cur_need(c, 1))
		return 0;
	return *c->p++;
}

static uint32_t cur_u32(struct cursor *c)
{
	if (!cur_need(c, 4))
		return 0;
	uint32_t v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 |
		     (uint32_t)c->p[2] << 8 | c->p[3];
	c->p += 4;
	return v;
}

static int32_t cur_i32(struct cursor *c)
{
	uint32_t v = cur_u32(c);
	return v <= INT32_MAX ? (int32_t)v : (int32_t)(v - INT32_MAX - 1) + INT32_MIN;
}

static uint64_t cur_u64(struct cursor *c)
{
	uint64_t hi = cur_u32(c);
	return hi << 32 | cur_u32(c);
}

static void cur_skip(struct cursor *c, size_t n)
{
	if (cur_need(c, n))
		c->p += n;
}

/* A QByteArray or QString: uint32 byte length, 0xffffffff for null. */
static const unsigned char *cur_blob(struct cursor *c, size_t *len)
{
	uint32_t n = cur_u32(c);
	*len = 0;
	if (c->bad || n == UINT32_MAX)
		return NULL;
	if (!cur_need(c, n))
		return NULL;
	const unsigned char *p = c->p;
	c->p += n;
	*len = n;
	return p;
}

/* A QVector count, checked against the bytes left for ELEM-byte items. */
static uint32_t cur_count(struct cursor *c, size_t elem)
{
	uint32_t n = cur_u32(c);
	if (!c->bad && n > cur_left(c) / elem)
		c->bad = true;
	return c->bad ? 0 : n;
}

/* ---- tables ---- */

struct str {
	char *s;		/* NUL-terminated copy, NULL if empty */
};

struct loc {
	int32_t parent;		/* parentLocationId, -1 for none */
	int32_t name, binary, path;	/* string ids of its symbol */
	bool has_symbol;	/* a SymbolDefinition named it */
};

struct decoder {
	uint64_t base;		/* file offset of the current event */
	struct str *strs;
	size_t nr_strs, cap_strs;
	struct loc *locs;
	size_t nr_locs, cap_locs;
	bool no_inline;
	uint64_t samples, with_binary, with_symbol, lost, unknown;
};

static const char *strtab_get(const struct decoder *d, int32_t id)
{
	if (id < 0 || (size_t)id >= d->nr_strs)
		return NULL;
	return d->strs[id].s;
}

/* Ids come in order (0, 1, 2...); a repeated id replaces the old string. */
static void strtab_put(struct decoder *d, int32_t id, const unsigned char *p, size_t len)
{
	if (id < 0 || (size_t)id > d->nr_strs)
		die_malformed("string id out of sequence", d->base);
	char *s = NULL;
	if (len) {
		if (len == SIZE_MAX)
			die_malformed("string too long", d->base);
		s = malloc(len + 1);
		if (!s)
			die_system("out of memory");
		memcpy(s, p, len);
		s[len] = '\0';
	}
	if ((size_t)id == d->nr_strs) {
		d->strs = mem_grow(d->strs, &d->cap_strs, d->nr_strs + 1, sizeof(*d->strs));
		d->nr_strs++;
	} else {
		free(d->strs[id].s);
	}
	d->strs[id].s = s;
}

static const struct loc *loctab_get(const struct decoder *d, int32_t id)
{
	if (id < 0 || (size_t)id >= d->nr_locs)
		return NULL;
	return &d->locs[id];
}

static void loctab_put(struct decoder *d, int32_t id, int32_t parent)
{
	if (id < 0 || (size_t)id > d->nr_locs)
		die_malformed("location id out of sequence", d->base);
	if ((size_t)id == d->nr_locs) {
		d->locs = mem_grow(d->locs, &d->cap_locs, d->nr_locs + 1, sizeof(*d->locs));
		d->nr_locs++;
	}
	d->locs[id] = (struct loc){ .parent = parent, .name = -1, .binary = -1, .path = -1 };
}

static void decoder_free(struct decoder *d)
{
	for (size_t i = 0; i < d->nr_strs; i++)
		free(d->strs[i].s);
	free(d->strs);
	free(d->locs);
}

/* ---- output ---- */

/* Print S with control characters replaced, or "?" if it is empty. */
static void out_token(const char *s)
{
	if (!s || !*s) {
		fputc('?', stdout);
		return;
	}
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, stdout);
	}
}

static void out_utf8(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f) {
		fputc('?', stdout);
	} else if (cp < 0x80) {
		fputc((int)cp, stdout);
	} else if (cp < 0x800) {
		fputc((int)(0xc0 | cp >> 6), stdout);
		fputc((int)(0x80 | (cp & 0x3f)), stdout);
	} else if (cp < 0x10000) {
		fputc((int)(0xe0 | cp >> 12), stdout);
		fputc((int)(0x80 | (cp >> 6 & 0x3f)), stdout);
		fputc((int)(0x80 | (cp & 0x3f)), stdout);
	} else {
		fputc((int)(0xf0 | cp >> 18), stdout);
		fputc((int)(0x80 | (cp >> 12 & 0x3f)), stdout);
		fputc((int)(0x80 | (cp >> 6 & 0x3f)), stdout);
		fputc((int)(0x80 | (cp & 0x3f)), stdout);
	}
}

/* A QString's UTF-16BE bytes as UTF-8; lone surrogates become '?'. */
static void out_utf16be(const unsigned char *p, size_t len)
{
	if (len < 2) {
		fputc('?', stdout);
		return;
	}
	for (size_t i = 0; i + 1 < len; i += 2) {
		uint32_t u = (uint32_t)p[i] << 8 | p[i + 1];
		if (u >= 0xd800 && u < 0xdc00 && i + 3 < len) {
			uint32_t lo = (uint32_t)p[i + 2] << 8 | p[i + 3];
			if (lo >= 0xdc00 && lo < 0xe000) {
				out_utf8(0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
				i += 2;
				continue;
			}
		}
		out_utf8(u >= 0xd800 && u < 0xe000 ? '?' : u);
	}
}

/* ---- frames ---- */

struct frame {
	const char *name, *binary;
	bool inlined;
};

/* The symbol a location carries, as hotspot sees it: valid when any of
 * name, binary, path is non-empty. */
static bool frame_symbol(const struct decoder *d, const struct loc *l, struct frame *f)
{
	f->name = f->binary = NULL;
	f->inlined = false;
	if (!l || !l->has_symbol)
		return false;
	f->name = strtab_get(d, l->name);
	f->binary = strtab_get(d, l->binary);
	/* A function entry with a parent is an inlined function's entry:
	 * its parent is the call site in the caller. */
	f->inlined = l->parent != -1;
	return (f->name && *f->name) || (f->binary && *f->binary) ||
	       (strtab_get(d, l->path) && *strtab_get(d, l->path));
}

/*
 * Expand one sample frame (a location id) into the frames hotspot shows,
 * innermost first, printing them if PRINT. Returns how many there are;
 * *leaf gets the first one if LEAF is non-NULL and there is one.
 */
static size_t frame_expand(const struct decoder *d, int32_t id, bool print, struct frame *leaf)
{
	size_t n = 0;
	bool skip = false;
	for (unsigned steps = 0; id != -1 && steps < CHAIN_MAX; steps++) {
		const struct loc *l = loctab_get(d, id);
		int32_t parent = l ? l->parent : -1;
		if (skip) {
			skip = false;
			id = parent;
			continue;
		}
		struct frame f;
		if (!frame_symbol(d, l, &f)) {
			/* An address inside a function: the function entry
			 * (its parent) names it, and is not a frame itself. */
			frame_symbol(d, loctab_get(d, parent), &f);
			skip = true;
		}
		id = parent;
		if (d->no_inline && f.inlined)
			continue;
		if (leaf && n == 0)
			*leaf = f;
		n++;
		if (print) {
			fputc('\t', stdout);
			out_token(f.name);
			fputc('@', stdout);
			out_token(f.binary);
		}
	}
	return n;
}

/* Walk the QVector<qint32> of frame ids at P (COUNT of them, checked). */
static size_t frame_walk(const struct decoder *d, const unsigned char *p, uint32_t count,
			 bool print, struct frame *leaf)
{
	struct cursor c = { p, p + (size_t)count * 4, false };
	size_t n = 0;
	for (uint32_t i = 0; i < count; i++)
		n += frame_expand(d, cur_i32(&c), print, n == 0 ? leaf : NULL);
	return n;
}

/* ---- events ---- */

struct record {
	int32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

static void ev_record(struct cursor *c, struct record *r)
{
	r->pid = cur_i32(c);
	r->tid = cur_i32(c);
	r->time = cur_u64(c);
	r->cpu = cur_u32(c);
}

static void ev_check(struct decoder *d, const struct cursor *c, const char *what)
{
	if (c->bad)
		die_malformed(what, d->base);
}

static void ev_thread(struct decoder *d, struct cursor *c, bool start)
{
	struct record r;
	ev_record(c, &r);
	/* ThreadStart then carries the parent pid; not printed. */
	ev_check(d, c, start ? "short ThreadStart" : "short ThreadEnd");
	printf("%s %" PRId32 " %" PRId32 "\n", start ? "thread_start" : "thread_end", r.pid, r.tid);
}

static void ev_command(struct decoder *d, struct cursor *c)
{
	struct record r;
	ev_record(c, &r);
	int32_t comm = cur_i32(c);
	ev_check(d, c, "short Command");
	printf("command %" PRId32 " %" PRId32 " ", r.pid, r.tid);
	out_token(strtab_get(d, comm));
	fputc('\n', stdout);
}

static void ev_location(struct decoder *d, struct cursor *c)
{
	int32_t id = cur_i32(c);
	cur_u64(c);		/* address */
	cur_i32(c);		/* file string id */
	cur_u32(c);		/* pid */
	cur_i32(c);		/* line */
	cur_i32(c);		/* column */
	int32_t parent = cur_i32(c);
	ev_check(d, c, "short LocationDefinition");
	loctab_put(d, id, parent);
}

static void ev_symbol(struct decoder *d, struct cursor *c)
{
	int32_t id = cur_i32(c);
	int32_t name = cur_i32(c);
	int32_t binary = cur_i32(c);
	int32_t path = cur_i32(c);
	cur_u8(c);		/* isKernel */
	ev_check(d, c, "short SymbolDefinition");
	if (id < 0 || (size_t)id >= d->nr_locs)
		die_malformed("symbol for an undefined location", d->base);
	struct loc *l = &d->locs[id];
	l->name = name;
	l->binary = binary;
	l->path = path;
	l->has_symbol = true;
}

static void ev_string(struct decoder *d, struct cursor *c)
{
	int32_t id = cur_i32(c);
	size_t len;
	const unsigned char *p = cur_blob(c, &len);
	ev_check(d, c, "short StringDefinition");
	strtab_put(d, id, p, len);
}

static void ev_lost(struct decoder *d, struct cursor *c)
{
	struct record r;
	ev_record(c, &r);
	ev_check(d, c, "short LostDefinition");
	d->lost++;
}

static void ev_error(struct decoder *d, struct cursor *c)
{
	int32_t code = cur_i32(c);
	size_t len;
	const unsigned char *msg = cur_blob(c, &len);
	ev_check(d, c, "short Error");
	if (len % 2)
		die_malformed("odd-length QString in Error", d->base);
	printf("error %" PRId32 " ", code);
	out_utf16be(msg, len);
	fputc('\n', stdout);
}

static void ev_attributes(struct decoder *d, struct cursor *c)
{
	int32_t id = cur_i32(c);
	cur_u32(c);		/* type */
	cur_u64(c);		/* config */
	int32_t name = cur_i32(c);
	cur_u8(c);		/* usesFrequency */
	cur_u64(c);		/* frequency or period */
	ev_check(d, c, "short AttributesDefinition");
	printf("attr %" PRId32 " ", id);
	out_token(strtab_get(d, name));
	fputc('\n', stdout);
}

static void ev_sample(struct decoder *d, struct cursor *c)
{
	struct record r;
	ev_record(c, &r);
	uint32_t nr_frames = cur_count(c, 4);
	const unsigned char *frames = c->p;
	cur_skip(c, (size_t)nr_frames * 4);
	cur_u8(c);		/* number of guessed frames */
	uint32_t nr_costs = cur_count(c, 12);
	int32_t attr = -1;
	if (nr_costs)
		attr = cur_i32(c);
	/* The rest: costs (attribute id, uint64 period) and, for trace
	 * points, a QHash of trace data, are not printed. */
	ev_check(d, c, "short Sample");

	struct frame leaf = { NULL, NULL, false };
	size_t n = frame_walk(d, frames, nr_frames, false, &leaf);
	printf("sample %" PRId32 " %" PRId32 " %" PRIu64 " %" PRId32 " %zu",
	       r.pid, r.tid, r.time, attr, n);
	frame_walk(d, frames, nr_frames, true, NULL);
	fputc('\n', stdout);
	d->samples++;
	if (n && leaf.binary && *leaf.binary)
		d->with_binary++;
	if (n && leaf.name && *leaf.name)
		d->with_symbol++;
}

/* Events decoded only to check their size. */
static void ev_quiet(struct decoder *d, struct cursor *c, unsigned type)
{
	struct record r;
	switch (type) {
	case EV_PROGRESS:
		cur_u64(c);	/* a float, written as a double */
		break;
	case EV_TRACEPOINT_FORMAT:
		cur_skip(c, 16);	/* id, system, name, flags */
		break;
	case EV_CONTEXT_SWITCH:
		ev_record(c, &r);
		cur_u8(c);	/* switched out */
		break;
	default:
		break;		/* FeaturesDefinition: not needed */
	}
	ev_check(d, c, "short event");
}

static void ev_dispatch(struct decoder *d, const unsigned char *p, size_t len)
{
	struct cursor c = { p, p + len, false };
	unsigned type = cur_u8(&c);
	ev_check(d, &c, "empty event");
	/* Later perfparsers append fields; bytes after the known ones are
	 * ignored. */
	switch (type) {
	case EV_THREAD_START:
	case EV_THREAD_END:
		ev_thread(d, &c, type == EV_THREAD_START);
		break;
	case EV_COMMAND:
		ev_command(d, &c);
		break;
	case EV_LOCATION:
		ev_location(d, &c);
		break;
	case EV_SYMBOL:
		ev_symbol(d, &c);
		break;
	case EV_STRING:
		ev_string(d, &c);
		break;
	case EV_LOST:
		ev_lost(d, &c);
		break;
	case EV_ERROR:
		ev_error(d, &c);
		break;
	case EV_ATTRIBUTES:
		ev_attributes(d, &c);
		break;
	case EV_SAMPLE:
	case EV_TRACEPOINT_SAMPLE:
		ev_sample(d, &c);
		break;
	case EV_FEATURES:
	case EV_PROGRESS:
	case EV_TRACEPOINT_FORMAT:
	case EV_CONTEXT_SWITCH:
		ev_quiet(d, &c, type);
		break;
	default:
		d->unknown++;
		break;
	}
}

/* ---- input ---- */

static unsigned char *input_read(const char *path, size_t *size)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(1);
	}
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		buf = mem_grow(buf, &cap, len + 65536, 1);
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: read error\n", prog, path);
		exit(1);
	}
	if (f != stdin)
		fclose(f);
	*size = len;
	return buf;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void stream_decode(struct decoder *d, const unsigned char *buf, size_t len)
{
	if (len < sizeof(stream_magic) + 4 || memcmp(buf, stream_magic, sizeof(stream_magic)))
		die_malformed("not a QPERFSTREAM", 0);
	size_t pos = sizeof(stream_magic) + 4;	/* then the QDataStream version */
	while (pos < len) {
		d->base = pos;
		if (len - pos < 4)
			die_malformed("truncated event size", pos);
		uint32_t size = le32(buf + pos);
		if (size > len - pos - 4)
			die_malformed("event runs past the end", pos);
		ev_dispatch(d, buf + pos + 4, size);
		pos += 4 + (size_t)size;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--no-inline] FILE|-   (FILE: hotspot-perfparser --output)\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct decoder d = { 0 };
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-inline"))
			d.no_inline = true;
		else if (!strcmp(argv[i], "--") && i + 2 == argc && !path)
			path = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			usage();
		else if (path)
			usage();
		else
			path = argv[i];
	}
	if (!path)
		usage();

	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	size_t len;
	unsigned char *buf = input_read(path, &len);
	stream_decode(&d, buf, len);
	free(buf);

	printf("samples %" PRIu64 "\n", d.samples);
	printf("samples_with_binary %" PRIu64 "\n", d.with_binary);
	printf("samples_with_symbol %" PRIu64 "\n", d.with_symbol);
	printf("lost %" PRIu64 "\n", d.lost);
	printf("unknown_events %" PRIu64 "\n", d.unknown);
	decoder_free(&d);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error\n", prog);
		return 1;
	}
	return 0;
}
