/*
 * sideband.c - loading a recording's side band (see sideband.h).
 */
#include "sideband.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/sample.h"
#include "psrec/perf_data.h"
#include "util/vec.h"

struct sideband_comm {
	int32_t tid;
	int32_t parent;             /* the thread it was forked from, -1: none seen */
	uint64_t fork_time;
	size_t n, cap;
	struct { uint64_t time; const char *name; } *v;
	bool sorted;
};

void sideband_init(struct sideband *sb)
{
	memset(sb, 0, sizeof(*sb));
	dsos_init(&sb->dsos);
	maps_init(&sb->maps);
	strpool_init(&sb->names);
	sb->kernel_dso = sb->vdso_dso = -1;
}

void sideband_free(struct sideband *sb)
{
	dsos_free(&sb->dsos);
	maps_free(&sb->maps);
	for (size_t i = 0; i < sb->nr_comms; i++)
		free(sb->comms[i].v);
	free(sb->comms);
	free(sb->comm_tab);
	strpool_free(&sb->names);
	memset(sb, 0, sizeof(*sb));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

uint64_t sideband_record_time(const struct reader *r, const struct reader_record *rec)
{
	const struct reader_attr *a = reader_record_attr(r, rec);
	struct sample s;
	if (!a || !(a->attr.flags & PD_ATTR_SAMPLE_ID_ALL) ||
	    sample_parse_id_trailer(a->attr.sample_type, rec->data, rec->size, &s))
		return 0;
	return s.time;
}

/* MMAP (1) and MMAP2 (10): the map and its DSO. Records too short for
 * their type are skipped, as every reader must. */
static int load_mmap(struct sideband *sb, const struct reader *r, const struct reader_record *rec)
{
	const uint8_t *p = rec->data + sizeof(struct pd_event_header);
	size_t len = rec->size - sizeof(struct pd_event_header);
	bool v2 = rec->type == PD_RECORD_MMAP2;
	size_t fixed = v2 ? 64 : 32;
	if (len <= fixed)
		return 0;
	int32_t pid = (int32_t)get_u32(p);
	uint64_t start = get_u64(p + 8), size = get_u64(p + 16), pgoff = get_u64(p + 24);
	const char *name = (const char *)p + fixed;
	size_t name_len = strnlen(name, len - fixed);
	int mode = rec->misc & PD_MISC_CPUMODE_MASK;
	bool kernel = mode == PD_MISC_KERNEL || mode == PD_MISC_GUEST_KERNEL;
	if (!v2 && (rec->misc & PD_MISC_MMAP_DATA))
		return 0;
	if (v2 && (rec->misc & PD_MISC_MMAP_DATA) && !(get_u32(p + 56) & 4 /* PROT_EXEC */))
		return 0; /* data maps: no samples land there (dwarf unwinding reads them) */
	struct dso_key k = { name, name_len, NULL, 0, 0, 0, kernel };
	struct build_id id = { 0 };
	if (v2 && (rec->misc & PD_MISC_MMAP_BUILD_ID)) {
		if (build_id_set(&id, p + 36, p[32]) == 0)
			k.id = &id;
	} else if (v2) {
		k.maj = get_u32(p + 32);
		k.min = get_u32(p + 36);
		k.ino = get_u64(p + 40);
	}
	/* perf names the kernel map "[kernel.kallsyms]_text" (or _stext),
	 * and the DSO "[kernel.kallsyms]". */
	size_t kn = sizeof(SIDEBAND_KERNEL_NAME) - 1;
	if (kernel && name_len >= kn && memcmp(name, SIDEBAND_KERNEL_NAME, kn) == 0)
		k.name_len = kn;
	uint32_t di;
	int err = dsos_intern(&sb->dsos, &k, &di);
	if (err)
		return err;
	struct dso *d = &sb->dsos.v[di];
	if (kernel && strcmp(d->name, SIDEBAND_KERNEL_NAME) == 0 && sb->kernel_dso < 0)
		sb->kernel_dso = (int32_t)di;
	if (!kernel && strcmp(d->name, SIDEBAND_VDSO_NAME) == 0 && sb->vdso_dso < 0)
		sb->vdso_dso = (int32_t)di;
	if (!kernel && d->pid < 0) {
		d->pid = pid;
		d->start = start;
		d->end = start + size;
	}
	return maps_add(&sb->maps, kernel ? -1 : pid, sideband_record_time(r, rec), start, size, pgoff, di);
}

static struct sideband_comm *comm_lookup(const struct sideband *sb, int32_t tid)
{
	if (!sb->comm_tab_cap)
		return NULL;
	for (size_t j = ((uint32_t)tid * 2654435761u) & (sb->comm_tab_cap - 1); sb->comm_tab[j];
	     j = (j + 1) & (sb->comm_tab_cap - 1))
		if (sb->comms[sb->comm_tab[j] - 1].tid == tid)
			return &sb->comms[sb->comm_tab[j] - 1];
	return NULL;
}

static int comm_grow(struct sideband *sb)
{
	size_t cap = sb->comm_tab_cap ? sb->comm_tab_cap * 2 : 256;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < sb->nr_comms; i++) {
		size_t j = ((uint32_t)sb->comms[i].tid * 2654435761u) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(sb->comm_tab);
	sb->comm_tab = t;
	sb->comm_tab_cap = cap;
	return 0;
}

/* tid's entry, added when new; NULL when memory runs out. */
static struct sideband_comm *comm_get(struct sideband *sb, int32_t tid)
{
	struct sideband_comm *c = comm_lookup(sb, tid);
	if (c)
		return c;
	if ((sb->nr_comms + 1) * 2 > sb->comm_tab_cap && comm_grow(sb))
		return NULL;
	if (VEC_RESERVE(sb->comms, sb->cap_comms, sb->nr_comms, 1, 64))
		return NULL;
	c = &sb->comms[sb->nr_comms];
	*c = (struct sideband_comm){ .tid = tid, .parent = -1, .sorted = true };
	size_t j = ((uint32_t)tid * 2654435761u) & (sb->comm_tab_cap - 1);
	while (sb->comm_tab[j])
		j = (j + 1) & (sb->comm_tab_cap - 1);
	sb->comm_tab[j] = (uint32_t)++sb->nr_comms;
	return c;
}

/* FORK: pid, ppid, tid, ptid, time. A thread or process has its parent's
 * name until its own first COMM (an exec, a prctl), as perf shows it. */
static int load_fork(struct sideband *sb, const uint8_t *p)
{
	int32_t tid = (int32_t)get_u32(p + 8), ptid = (int32_t)get_u32(p + 12);
	if (tid == ptid)
		return 0;
	struct sideband_comm *c = comm_get(sb, tid);
	if (!c)
		return -ENOMEM;
	c->parent = ptid;
	c->fork_time = get_u64(p + 16);
	return 0;
}

static int load_comm(struct sideband *sb, const struct reader *r, const struct reader_record *rec)
{
	const uint8_t *p = rec->data + sizeof(struct pd_event_header);
	size_t len = rec->size - sizeof(struct pd_event_header);
	if (len <= 8)
		return 0;
	int32_t pid = (int32_t)get_u32(p), tid = (int32_t)get_u32(p + 4);
	uint64_t time = sideband_record_time(r, rec);
	if ((rec->misc & PD_MISC_COMM_EXEC)) {
		int err = maps_exec(&sb->maps, pid, time);
		if (err)
			return err;
	}
	const char *name = (const char *)p + 8;
	size_t n = strnlen(name, len - 8 < 16 ? len - 8 : 16);
	const char *in = strpool_intern(&sb->names, name, n);
	if (!in)
		return -ENOMEM;
	struct sideband_comm *c = comm_get(sb, tid);
	if (!c)
		return -ENOMEM;
	if (VEC_RESERVE(c->v, c->cap, c->n, 1, 2))
		return -ENOMEM;
	if (c->n && c->v[c->n - 1].time > time)
		c->sorted = false;
	c->v[c->n].time = time;
	c->v[c->n].name = in;
	c->n++;
	return 0;
}

static int cmp_comm(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int sideband_add(struct sideband *sb, const struct reader *r, const struct reader_record *rec)
{
	const uint8_t *p = rec->data + sizeof(struct pd_event_header);
	size_t len = rec->size - sizeof(struct pd_event_header);
	int err = 0;
	if (rec->type == PD_RECORD_MMAP || rec->type == PD_RECORD_MMAP2)
		err = load_mmap(sb, r, rec);
	else if (rec->type == PD_RECORD_COMM)
		err = load_comm(sb, r, rec);
	else if (rec->type == PD_RECORD_FORK && len >= 24) {
		err = maps_fork(&sb->maps, (int32_t)get_u32(p), (int32_t)get_u32(p + 4), get_u64(p + 16));
		if (!err)
			err = load_fork(sb, p);
	}
	else
		return 0;
	sb->records++;
	return err ? err : 1;
}

void sideband_finish(struct sideband *sb)
{
	maps_finish(&sb->maps);
	for (size_t i = 0; i < sb->nr_comms; i++)
		if (!sb->comms[i].sorted && sb->comms[i].n > 1)
			qsort(sb->comms[i].v, sb->comms[i].n, sizeof(*sb->comms[i].v), cmp_comm);
}

int sideband_load(struct sideband *sb, struct reader *r, struct err *e)
{
	struct reader_record rec;
	int n;
	while ((n = reader_next(r, &rec, e)) > 0) {
		int k = sideband_add(sb, r, &rec);
		if (k < 0)
			return err_set(e, k, SIDEBAND_NOMEM);
	}
	if (n < 0)
		return n;
	sideband_finish(sb);
	reader_rewind(r);
	return 0;
}

const struct maps_entry *sideband_map(const struct sideband *sb, int32_t pid, uint64_t addr, uint64_t time,
				      int cpumode)
{
	if (cpumode == PD_MISC_KERNEL || cpumode == PD_MISC_GUEST_KERNEL)
		return maps_find(&sb->maps, -1, addr, time);
	if (cpumode == PD_MISC_USER || cpumode == PD_MISC_GUEST_USER)
		return maps_find(&sb->maps, pid, addr, time);
	return NULL;
}

const char *sideband_comm(const struct sideband *sb, int32_t tid, uint64_t time)
{
	/* up a chain of forks (bounded: pid reuse in bad input can loop) */
	for (int depth = 0; depth < 64; depth++) {
		const struct sideband_comm *c = comm_lookup(sb, tid);
		if (!c)
			return NULL;
		if (c->n && (c->v[0].time <= time || c->parent < 0)) {
			const char *best = c->v[0].name;
			for (size_t i = 0; i < c->n && c->v[i].time <= time; i++)
				best = c->v[i].name;
			return best;
		}
		if (c->parent < 0)
			return NULL;
		tid = c->parent;
		time = c->fork_time;
	}
	return NULL;
}
