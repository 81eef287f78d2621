/*
 * sidecache.c - per-process side band kept between chunks (see
 * sidecache.h).
 */
#include "sidecache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "psrec/perf_data.h"
#include "util/bsearch.h"
#include "util/vec.h"

int sidecache_init(struct sidecache *c, size_t pid_max)
{
	memset(c, 0, sizeof(*c));
	c->nr_pids = pid_max ? pid_max : 1;
	c->dirty = calloc((c->nr_pids + 63) / 64, sizeof(*c->dirty));
	c->all_dirty = true;
	return c->dirty ? 0 : -ENOMEM;
}

static void drop_all(struct sidecache *c)
{
	for (size_t i = 0; i < c->n; i++)
		buf_free(&c->v[i].recs);
	c->n = 0;
}

void sidecache_free(struct sidecache *c)
{
	drop_all(c);
	free(c->v);
	free(c->dirty);
	memset(c, 0, sizeof(*c));
}

static void mark(struct sidecache *c, uint32_t pid)
{
	if (pid > 0 && pid < c->nr_pids)
		c->dirty[pid / 64] |= 1ULL << (pid % 64);
}

static int mark_record(void *ctx, const struct ring *r, uint64_t pos, const struct pd_event_header *h)
{
	struct sidecache *c = ctx;
	switch (h->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_COMM:
	case PD_RECORD_EXIT:
	case PD_RECORD_FORK:
	case PD_RECORD_MMAP2:
		/* The pid follows the header in all five; 8-aligned, so it
		 * never straddles the wrap. */
		if (h->size >= 16) {
			uint32_t pid;
			memcpy(&pid, r->data + ((pos + 8) & (r->size - 1)), sizeof(pid));
			mark(c, pid);
		}
		break;
	case PD_RECORD_LOST:
		c->all_dirty = true;
		break;
	default:
		break;
	}
	return 0;
}

void sidecache_mark(struct sidecache *c, const struct ring *r, size_t len)
{
	/* A broken header ends the walk: the ring scan counts it. */
	(void)ring_walk_prefix(r, len, mark_record, c);
}

/* bsearch_cmp_fn of a pid_t key and an entry: the entries are by pid. */
static int cmp_pid(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key, p = ((const struct sidecache_proc *)elem)->pid;
	return (k > p) - (k < p);
}

/* Make b (taken over) pid's entry; an empty b removes it. */
static int put(struct sidecache *c, pid_t pid, struct buf b)
{
	/* pid's entry, or where it would go */
	bool have;
	size_t i = bsearch_first_ge(c->v, c->n, sizeof(*c->v), &pid, cmp_pid, &have);
	if (have) {
		buf_free(&c->v[i].recs);
		if (b.len) {
			c->v[i].recs = b;
			return 0;
		}
		buf_free(&b);
		memmove(c->v + i, c->v + i + 1, (c->n - i - 1) * sizeof(*c->v));
		c->n--;
		return 0;
	}
	if (!b.len) {
		buf_free(&b);
		return 0;
	}
	if (VEC_RESERVE(c->v, c->cap, c->n, 1, 256)) {
		buf_free(&b);
		return -ENOMEM;
	}
	memmove(c->v + i + 1, c->v + i, (c->n - i) * sizeof(*c->v));
	c->v[i] = (struct sidecache_proc){ pid, b };
	c->n++;
	return 0;
}

/* Describe pid again: replace, insert or (gone) remove its entry. */
static int update(struct sidecache *c, pid_t pid, sidecache_synth_fn synth, void *ctx)
{
	struct buf b = BUF_INIT;
	int err = synth(ctx, pid, &b);
	if (err) {
		buf_free(&b);
		return err;
	}
	return put(c, pid, b);
}

int sidecache_seed(struct sidecache *c, pid_t pid, const void *p, size_t len)
{
	struct buf b = BUF_INIT;
	int err = buf_append(&b, p, len);
	if (err) {
		buf_free(&b);
		return err;
	}
	return put(c, pid, b);
}

void sidecache_seeded(struct sidecache *c)
{
	c->all_dirty = false;
}

int sidecache_refresh(struct sidecache *c, int (*live)(void *ctx, pid_t **pids, size_t *n),
		      sidecache_synth_fn synth, void *ctx, struct buf *out)
{
	int err = 0;
	if (c->all_dirty) {
		pid_t *pids;
		size_t n;
		err = live(ctx, &pids, &n);
		if (err)
			return err;
		drop_all(c);
		for (size_t i = 0; i < n && !err; i++)
			err = update(c, pids[i], synth, ctx);
		free(pids);
		c->all_dirty = err != 0;
	} else {
		for (size_t w = 0; w < (c->nr_pids + 63) / 64 && !err; w++)
			for (uint64_t bits = c->dirty[w]; bits && !err; bits &= bits - 1)
				err = update(c, (pid_t)(w * 64 + (size_t)__builtin_ctzll(bits)), synth, ctx);
	}
	memset(c->dirty, 0, (c->nr_pids + 63) / 64 * sizeof(*c->dirty));
	for (size_t i = 0; i < c->n && !err; i++)
		err = buf_append(out, c->v[i].recs.data, c->v[i].recs.len);
	return err;
}
