/*
 * fold.c - a recording to weighted stacks (see fold.h).
 */
#include "fold.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/sample.h"
#include "marker/list.h"
#include "marker/tp.h"
#include "psrec/perf_data.h"
#include "session/session.h"
#include "session/sideband.h"
#include "util/textesc.h"

/* Frames kept per sample: the kernel's perf_event_max_stack tops at 127
 * by default, and dwarf chains are unwound later (issue 14). */
#define FOLD_MAX_FRAMES 1024

static const char unknown_comm[] = "[unknown]";
static const char truncated[] = "[truncated]";

/* chain_mode of the frame that marks a stack copy ending early */
#define MODE_TRUNCATED (-1)

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Resolved frames by (map entry, address, mode, pid): a map entry is one
 * mapping of one life of one process, so a hit is exactly what resolving
 * again would give. Direct-mapped; a miss just resolves. */
#define FRAME_CACHE (1 << 16)
struct frame_slot {
	const struct maps_entry *map;
	uint64_t ip;
	int32_t pid;
	int mode;                   /* | FRAME_CALLER for a return address */
	struct flame_frame f;
	const char *raw;            /* f.name before demangling */
	const char *const *inl;     /* calls inlined there, outermost first */
	uint32_t ninl;
	bool used;
};
#define FRAME_CALLER 0x100

struct fold_ctx {
	const struct fold_config *c;
	struct fold_result *r;
	struct session ss;          /* the one pass over c->input */
	struct events ev;
	struct sideband *sb;        /* r->sideband: it owns the thread names */
	int attr;                   /* the folded event's attr index */
	uint64_t *win;              /* --between: r->windows (start, end) pairs */
	struct flame_frame frames[FOLD_MAX_FRAMES + 1];
	size_t nframes;             /* used in frames */
	uint64_t chain_ip[FOLD_MAX_FRAMES];
	int chain_mode[FOLD_MAX_FRAMES];
	bool chain_exact[FOLD_MAX_FRAMES]; /* the address is the call's own, not a return address */
	uint64_t user_ip[FOLD_MAX_FRAMES];
	struct fold_frame out[FOLD_MAX_FRAMES + 1]; /* a sample for c->on_sample */
	struct unwind *unwind;      /* opened at the first stack copy */
	/* the map of each address of the current sample: within one sample
	 * (one pid, one time) it cannot change, and a recursion repeats a few
	 * return addresses; a slot is valid when its gen is the sample's */
	struct {
		uint64_t ip, gen;
		int mode;
		const struct maps_entry *m;
	} map_memo[16];
	uint64_t gen;
	struct frame_slot cache[FRAME_CACHE];
};

static int choose_event(struct fold_ctx *x, struct err *e)
{
	const struct fold_config *c = x->c;
	if (c->event) {
		x->attr = events_find(&x->ev, c->event);
		if (x->attr < 0) {
			char list[512];
			events_list(&x->ev, list, sizeof(list));
			return err_set(e, -ENOENT, "%s has no event '%s'; it has: %s", c->input, c->event, list);
		}
	} else {
		x->attr = events_first_sampling(&x->ss.rd);
		if (x->attr < 0)
			return err_set(e, -ENOENT, x->ss.rd.nr_attrs ? "%s has only markers: psrec markers lists them, "
				       "--event " MARKER_TP_NAME " folds them" : "%s has no events", c->input);
		size_t sampling = 0;
		for (size_t i = 0; i < x->ss.rd.nr_attrs; i++)
			sampling += x->ss.rd.attrs[i].attr.sample_period != 0 && !marker_tp_is(&x->ss.rd.attrs[i].attr);
		x->r->event_chosen = sampling > 1;
	}
	snprintf(x->r->event, sizeof(x->r->event), "%s", x->ev.name[x->attr]);
	const struct pd_attr *a = &x->ss.rd.attrs[x->attr].attr;
	x->r->event_type = a->type;
	x->r->event_config = a->config;
	x->r->sample_period = a->sample_period;
	x->r->freq = (a->flags & PD_ATTR_FREQ) != 0;
	return 0;
}

/* The frame of one address, and the calls inlined there. caller: ip is a
 * return address, whose call is the byte before it. */
static int frame_of(struct fold_ctx *x, int32_t pid, uint64_t ip, uint64_t time, int mode, bool caller,
		    const struct frame_slot **out)
{
	unsigned mh = (unsigned)(((ip ^ (uint64_t)mode) * 0x9e3779b97f4a7c15ULL) >> 60);
	const struct maps_entry *m;
	if (x->map_memo[mh].gen == x->gen && x->map_memo[mh].ip == ip && x->map_memo[mh].mode == mode) {
		m = x->map_memo[mh].m;
	} else {
		m = sideband_map(x->sb, pid, ip, time, mode);
		x->map_memo[mh].ip = ip;
		x->map_memo[mh].gen = x->gen;
		x->map_memo[mh].mode = mode;
		x->map_memo[mh].m = m;
	}
	bool kernel = mode == PD_MISC_KERNEL || mode == PD_MISC_GUEST_KERNEL;
	/* Without a map the name may come from perf-PID.map: pid is part of
	 * the key; with one it is implied by the entry. */
	int32_t kpid = m ? 0 : pid;
	int kmode = mode | (caller ? FRAME_CALLER : 0);
	uint64_t h = (ip ^ (uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint32_t)kpid << 7 ^ (uint64_t)kmode) *
		     0xff51afd7ed558ccdULL;
	struct frame_slot *slot = &x->cache[h >> 48];
	*out = slot;
	if (slot->used && slot->map == m && slot->ip == ip && slot->pid == kpid && slot->mode == kmode)
		return 0;
	struct sym_dso d = { 0 };
	const struct sym_dso *dp = NULL;
	uint64_t start = 0, pgoff = 0;
	if (m) {
		const struct dso *o = &x->sb->dsos.v[m->dso];
		d = (struct sym_dso){ o->name, &o->id, o->kernel };
		dp = &d;
		start = m->start;
		pgoff = m->pgoff;
	} else if (kernel) {
		/* No kernel map (kptr_restrict when recording): kallsyms
		 * may still name it. */
		d = (struct sym_dso){ SIDEBAND_KERNEL_NAME, NULL, true };
		dp = &d;
	}
	struct sym_frame sf;
	int err = symbolizer_frame(x->r->symbolizer, dp, start, pgoff, ip, pid, &sf);
	const char *const *inl = NULL;
	size_t ninl = 0;
	if (!err && m && !kernel)
		err = symbolizer_inlines(x->r->symbolizer, dp, start, pgoff, caller ? ip - 1 : ip, &inl, &ninl);
	if (err)
		return err;
	*slot = (struct frame_slot){ m, ip, kpid, kmode, { sf.name, kernel ? SYM_KIND_KERNEL : sf.kind }, sf.raw,
				     inl, (uint32_t)ninl, true };
	return 0;
}

/* Append one address's frames (its function, then what was inlined). */
static int frames_add(struct fold_ctx *x, int32_t pid, uint64_t ip, uint64_t time, int mode, bool caller)
{
	const struct frame_slot *f;
	int err = frame_of(x, pid, ip, time, mode, caller, &f);
	if (err)
		return err;
	if (x->nframes <= FOLD_MAX_FRAMES)
		x->frames[x->nframes++] = f->f;
	for (uint32_t k = 0; k < f->ninl && x->nframes <= FOLD_MAX_FRAMES; k++)
		x->frames[x->nframes++] = (struct flame_frame){ f->inl[k], f->f.kind };
	return 0;
}

/* A sample that was folded or emitted: the counts and times. */
static void sample_kept(struct fold_result *r, uint64_t time)
{
	if (!r->kept || time < r->first_time)
		r->first_time = time;
	if (time > r->last_time)
		r->last_time = time;
	r->kept++;
}

/* The chain (innermost first, n entries) as fold_frames, to c->on_sample:
 * the same frames, in the same order reversed, as the folded stack gets. */
static int sample_emit(struct fold_ctx *x, const struct sample *s, const char *comm, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int m = x->chain_mode[i];
		if (m == MODE_TRUNCATED) {
			x->out[k++] = (struct fold_frame){ .kind = SYM_KIND_UNKNOWN, .name = truncated, .raw = truncated };
			continue;
		}
		bool kernel = m == PD_MISC_KERNEL || m == PD_MISC_GUEST_KERNEL;
		if (kernel && x->c->no_kernel)
			continue;
		const struct frame_slot *f;
		int err = frame_of(x, (int32_t)s->pid, x->chain_ip[i], s->time, m, i > 0 && !x->chain_exact[i], &f);
		if (err)
			return err;
		x->out[k++] = (struct fold_frame){ f->ip, f->map, f->map ? &x->sb->dsos.v[f->map->dso] : NULL, kernel,
						   (f->mode & FRAME_CALLER) != 0, f->f.kind, f->f.name, f->raw, f->inl,
						   f->ninl };
	}
	if (k == 0)
		return 0; /* only kernel frames, and --no-kernel */
	sample_kept(x->r, s->time);
	struct fold_sample fs = { (int32_t)s->pid, (int32_t)s->tid, comm ? comm : unknown_comm, s->time, s->period,
				  x->out, k };
	return x->c->on_sample(x->c->arg, &fs);
}

static bool keep(const struct fold_ctx *x, const struct sample *s, const char *comm)
{
	const struct fold_config *c = x->c;
	if (c->pid >= 0 && (int32_t)s->pid != c->pid)
		return false;
	if (c->tid >= 0 && (int32_t)s->tid != c->tid)
		return false;
	if (s->time < c->time_start || s->time > c->time_end)
		return false;
	if (x->win && !marker_windows_hold(x->win, x->r->windows, s->time))
		return false;
	return !c->comm || (comm && strcmp(comm, c->comm) == 0);
}

/* The chain of a sample into x->chain_*: its recorded one, its user
 * part unwound from the stack copy when that is where user frames come
 * from. The number of entries, or -errno. */
static int chain_of(struct fold_ctx *x, const struct session_sample *ss)
{
	const struct reader_record *rec = ss->rec;
	const struct pd_attr *a = &ss->attr->attr;
	const struct sample *s = &ss->s;
	int mode = rec->misc & PD_MISC_CPUMODE_MASK;
	size_t n = 0;
	struct sample_user su;
	bool dwarf = x->c->call_graph != FOLD_CHAIN_FP && (a->sample_type & (PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER)) &&
		     sample_parse_user(a->sample_type, a->branch_sample_type, a->sample_regs_user, rec->data, rec->size, s,
				       &su) == 0 && su.regs;
	bool user_from_stack = dwarf || x->c->call_graph == FOLD_CHAIN_DWARF;
	for (uint64_t i = 0; i < s->nr_callchain && n < FOLD_MAX_FRAMES; i++) {
		uint64_t ip = get_u64(s->callchain + 8 * i);
		if (sample_chain_marker(ip, &mode))
			continue;
		if (user_from_stack && (mode == PD_MISC_USER || mode == PD_MISC_GUEST_USER))
			continue;
		x->chain_ip[n] = ip;
		x->chain_exact[n] = false;
		x->chain_mode[n++] = mode;
	}
	if (dwarf) {
		if (!x->unwind) {
			int err = unwind_open(&x->unwind, x->r->symbolizer, x->sb, x->c->unwind_dwfl);
			if (err)
				return err;
		}
		size_t un;
		int st = unwind_sample(x->unwind, (int32_t)s->pid, s->time, &su, x->user_ip, FOLD_MAX_FRAMES - n, &un);
		if (st < 0)
			return st;
		/* a caller is named by its call, the byte before the return
		 * address, as perf names the frames it unwinds itself */
		for (size_t i = 0; i < un; i++) {
			x->chain_ip[n] = x->user_ip[i] - (i > 0);
			x->chain_exact[n] = true;
			x->chain_mode[n++] = PD_MISC_USER;
		}
		if (st == UNWIND_TRUNCATED && n < FOLD_MAX_FRAMES)
			x->chain_mode[n++] = MODE_TRUNCATED;
	}
	if (n == 0 && (a->sample_type & PD_SAMPLE_IP)) {
		x->chain_exact[0] = true;
		x->chain_ip[0] = s->ip;
		x->chain_mode[n++] = rec->misc & PD_MISC_CPUMODE_MASK;
	}
	return (int)n;
}

/* The chain (n entries, innermost first) as a folded stack, added. */
static int stack_of(struct fold_ctx *x, const struct sample *s, const char *comm, size_t n)
{
	x->nframes = 0;
	x->frames[x->nframes++] = (struct flame_frame){ comm ? comm : unknown_comm, SYM_KIND_USER };
	/* The chain is innermost first; a folded line outermost first. */
	for (size_t i = n; i-- > 0;) {
		int m = x->chain_mode[i];
		if (m == MODE_TRUNCATED) {
			if (x->nframes <= FOLD_MAX_FRAMES)
				x->frames[x->nframes++] = (struct flame_frame){ truncated, SYM_KIND_UNKNOWN };
			continue;
		}
		bool kernel = m == PD_MISC_KERNEL || m == PD_MISC_GUEST_KERNEL;
		if (kernel && x->c->no_kernel)
			continue;
		int err = frames_add(x, (int32_t)s->pid, x->chain_ip[i], s->time, m, i > 0 && !x->chain_exact[i]);
		if (err)
			return err;
	}
	size_t nf = x->nframes;
	if (nf == 1)
		return 0; /* only kernel frames, and --no-kernel */
	uint64_t w = x->c->period ? s->period : 1;
	sample_kept(x->r, s->time);
	return stacks_add(&x->r->stacks, x->frames, nf, w);
}

/* One sample of the session: the folded event's are counted, filtered,
 * resolved and folded (or emitted). One whose fields do not fit is
 * counted as read, not folded. */
static int fold_sample(void *arg, const struct session_sample *ss)
{
	struct fold_ctx *x = arg;
	if (ss->attr_index != (size_t)x->attr || !ss->parsed)
		return 0;
	x->r->samples++;
	if (!keep(x, &ss->s, ss->comm))
		return 0;
	int n = chain_of(x, ss);
	if (n < 0)
		return n;
	x->gen++;
	if (x->c->on_sample)
		return sample_emit(x, &ss->s, ss->comm, (size_t)n);
	return stack_of(x, &ss->s, ss->comm, (size_t)n);
}

/* CLOCK_DATA, when the file has a well-formed one (a stream's came with
 * its records, so this runs after them). */
static void clock_data(struct fold_ctx *x)
{
	const uint8_t *p;
	size_t len;
	struct err ignored = { "" };
	if (reader_feature(&x->ss.rd, PD_FEAT_CLOCK_DATA, &p, &len, &ignored) || len < 24)
		return;
	uint32_t version;
	memcpy(&version, p, 4);
	if (version < 1)
		return;
	x->r->has_clock_data = true;
	x->r->clock_wall_ns = get_u64(p + 8);
	x->r->clock_ns = get_u64(p + 16);
}

/* --between's windows, from the session's markers. */
static int between(struct fold_ctx *x, struct err *e)
{
	struct marker_list l;
	marker_list_init(&l);
	struct marker_filter all = MARKER_FILTER_ALL;
	struct err re = { "" };
	int err = marker_list_collect_session(&l, &x->ss, false, &all, &re);
	if (!err)
		err = marker_windows(&l, x->c->between_a, x->c->between_b, &x->win, &x->r->windows, &re);
	if (err)
		err_set(e, err, "%s: %s", x->c->input, err_is_set(&re) ? re.msg : strerror(-err));
	marker_list_free(&l);
	return err;
}

int fold_run(const struct fold_config *c, struct fold_result *r, struct err *e)
{
	memset(r, 0, sizeof(*r));
	stacks_init(&r->stacks);
	struct fold_ctx *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->c = c;
	x->r = r;
	r->sideband = calloc(1, sizeof(*r->sideband));
	if (!r->sideband) {
		free(x);
		return -ENOMEM;
	}
	sideband_init(r->sideband);
	x->sb = r->sideband;
	struct err re = { "" }, pe = { "" };
	bool *want = NULL;
	int err = session_open(&x->ss, c->input, &re);
	if (err) {
		err_set(e, err, "%s: %s", strcmp(c->input, "-") ? c->input : "standard input", re.msg);
		goto out;
	}
	/* The event is chosen, and said missing, before the data is read, or
	 * said not to read: but a stream named by EVENT_UPDATEs only is named
	 * by the pass (which stops where the data does, what it read kept). */
	bool late = x->ss.rd.pipe && !x->ss.rd.pipe_feat[PD_FEAT_EVENT_DESC].p;
	int perr = late ? session_load(&x->ss, x->sb, &pe) : 0;
	err = events_read_session(&x->ev, &x->ss);
	if (!err)
		err = choose_event(x, e);
	if (!err)
		err = symbolizer_open(&r->symbolizer, &c->sym, e);
	if (!err && !late) {
		/* the event's samples are all the pass keeps (and the markers,
		 * for --between's windows) */
		want = calloc(x->ss.rd.nr_attrs ? x->ss.rd.nr_attrs : 1, sizeof(*want));
		if (!want)
			err = err_set(e, -ENOMEM, "%s: out of memory", c->input);
		for (size_t i = 0; want && i < x->ss.rd.nr_attrs; i++)
			want[i] = (int)i == x->attr || (c->between_a && marker_tp_is(&x->ss.rd.attrs[i].attr));
		x->ss.want = want;
	}
	if (!err && !late)
		perr = session_load(&x->ss, x->sb, &pe);
	if (!err && perr)
		err = err_set(e, perr, "%s: %s", c->input, pe.msg);
	r->unknown_records = x->ss.unknown_records;
	r->decoded = session_decoded(&x->ss);
	snprintf(r->warning, sizeof(r->warning), "%s", x->ss.warning);
	if (!err && c->between_a)
		err = between(x, e);
	if (!err && (err = session_samples(&x->ss, fold_sample, x)) != 0) {
		err_set(&re, err, "out of memory folding %s", c->input);
		err_set(e, err, "%s: %s", c->input, re.msg);
	}
	if (!err)
		symbolizer_stats(r->symbolizer, &r->sym, r->sym_dsos, sizeof(r->sym_dsos));
	if (!err)
		clock_data(x);
out:
	if (x->unwind) {
		unwind_stats(x->unwind, &r->unwind);
		unwind_close(x->unwind);
	}
	session_close(&x->ss);
	free(want);
	events_free(&x->ev);
	free(x->win);
	free(x);
	return err;
}

/* A frame's name in a line: ';' separates frames, so it becomes ':';
 * control characters and broken UTF-8 are escaped (util/textesc.h), so a
 * line stays one line and a name cannot drive the reader's terminal. */
static int put_name(FILE *out, const char *s)
{
	for (;;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		if (textesc_put(out, s, n, 0) != 0)
			return -EIO;
		if (!semi)
			return 0;
		if (putc(':', out) == EOF)
			return -EIO;
		s = semi + 1;
	}
}

struct line {
	char *text;                 /* the frames as printed, then " WEIGHT\n" */
	uint64_t weight;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* Each distinct printed stack once, its weights summed: distinct stacks
 * may print the same (names that differ only in what was escaped, or in a
 * ';'). Then the count is put after each; *n shrinks to the lines left.
 * On an error every slot of the *n holds a text or NULL. */
static int merge_lines(struct line *lines, size_t *n)
{
	qsort(lines, *n, sizeof(*lines), cmp_line);
	size_t out = 0;
	for (size_t i = 0; i < *n;) {
		uint64_t w = 0;
		size_t j = i;
		for (; j < *n && strcmp(lines[j].text, lines[i].text) == 0; j++)
			w += lines[j].weight;
		char *t;
		if (asprintf(&t, "%s %" PRIu64 "\n", lines[i].text, w) < 0)
			return -ENOMEM;
		for (size_t k = i; k < j; k++) {
			free(lines[k].text);
			lines[k].text = NULL;
		}
		lines[out++] = (struct line){ t, w };
		i = j;
	}
	*n = out; /* the slots past it are NULL */
	return 0;
}

int fold_write(FILE *out, const struct fold_result *r, struct err *e)
{
	const struct stacks *s = &r->stacks;
	struct line *lines = calloc(s->n ? s->n : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	size_t n = s->n;
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		size_t len = 0;
		FILE *m = open_memstream(&lines[i].text, &len);
		if (!m) {
			err = -ENOMEM;
			break;
		}
		const struct flame_frame *f = s->pool + s->v[i].off;
		for (uint32_t k = 0; k < s->v[i].nr && !err; k++) {
			if (k)
				putc(';', m);
			err = put_name(m, f[k].name);
		}
		if (fclose(m) != 0 && !err)
			err = -ENOMEM;
		lines[i].weight = s->v[i].weight;
	}
	if (!err)
		err = merge_lines(lines, &n);
	if (!err) {
		/* bytewise, as LC_ALL=C sort orders whole lines */
		qsort(lines, n, sizeof(*lines), cmp_line);
		for (size_t i = 0; i < n; i++)
			fputs(lines[i].text, out);
		if (fflush(out) != 0 || ferror(out))
			err = err_set(e, -EIO, "cannot write the folded stacks: %s", strerror(errno));
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	return err;
}

void fold_free(struct fold_result *r)
{
	stacks_free(&r->stacks);
	if (r->symbolizer)
		symbolizer_close(r->symbolizer);
	r->symbolizer = NULL;
	if (r->sideband) {
		sideband_free(r->sideband);
		free(r->sideband);
	}
	r->sideband = NULL;
}
