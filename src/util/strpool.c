/*
 * strpool.c - interned strings in chunks (see strpool.h).
 */
#include "strpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Big enough that a libc's few thousand names take one or two chunks. */
#define STRPOOL_CHUNK (64u << 10)

struct strpool_chunk {
	struct strpool_chunk *next;
	char data[];
};

struct strpool_slot {
	const char *s;                  /* NULL: empty */
	uint32_t len;
	uint32_t hash;                  /* the low bits, to skip most memcmps */
};

void strpool_init(struct strpool *p)
{
	memset(p, 0, sizeof(*p));
}

void strpool_free(struct strpool *p)
{
	while (p->chunks) {
		struct strpool_chunk *c = p->chunks;
		p->chunks = c->next;
		free(c);
	}
	free(p->tab);
	memset(p, 0, sizeof(*p));
}

/* A word at a time: a libc's names are hashed once each, but a big C++
 * binary has a few hundred thousand. */
static uint64_t hash(const void *s, size_t len)
{
	const unsigned char *b = s;
	uint64_t h = len * 0x9e3779b97f4a7c15ULL;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		b += 8;
		len -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, b, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 29);
}

static int grow(struct strpool *p)
{
	size_t cap = p->cap ? p->cap * 2 : 1024;
	struct strpool_slot *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->tab[i].s)
			continue;
		size_t j = p->tab[i].hash & (cap - 1);
		while (t[j].s)
			j = (j + 1) & (cap - 1);
		t[j] = p->tab[i];
	}
	free(p->tab);
	p->tab = t;
	p->cap = cap;
	return 0;
}

/* Room for len + 1 bytes that never moves. */
static char *take(struct strpool *p, size_t len)
{
	if (len + 1 > p->left) {
		/* a string longer than a chunk gets a chunk of its own, and the
		 * current chunk's free space stays in use */
		size_t size = len + 1 > STRPOOL_CHUNK ? len + 1 : STRPOOL_CHUNK;
		struct strpool_chunk *c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		if (size > STRPOOL_CHUNK && p->chunks) {
			c->next = p->chunks->next;
			p->chunks->next = c;
			return c->data;
		}
		c->next = p->chunks;
		p->chunks = c;
		p->cur = c->data;
		p->left = size;
	}
	char *r = p->cur;
	p->cur += len + 1;
	p->left -= len + 1;
	return r;
}

const char *strpool_intern(struct strpool *p, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return NULL;
	if ((p->n + 1) * 4 > p->cap * 3 && grow(p))
		return NULL;
	uint32_t h = (uint32_t)hash(s, len);
	size_t j = h & (p->cap - 1);
	for (; p->tab[j].s; j = (j + 1) & (p->cap - 1)) {
		const struct strpool_slot *o = &p->tab[j];
		if (o->hash == h && o->len == len && memcmp(o->s, s, len) == 0)
			return o->s;
	}
	char *c = take(p, len);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = '\0';
	p->tab[j] = (struct strpool_slot){ c, (uint32_t)len, h };
	p->n++;
	return c;
}

const char *strpool_store(struct strpool *p, const char *s, size_t len)
{
	char *c = take(p, len);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = '\0';
	return c;
}
