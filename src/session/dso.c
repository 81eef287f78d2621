/*
 * dso.c - interning DSOs by name and identity (see dso.h).
 */
#include "dso.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

void dsos_init(struct dsos *d)
{
	memset(d, 0, sizeof(*d));
}

void dsos_free(struct dsos *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
	free(d->tab);
	memset(d, 0, sizeof(*d));
}

/* FNV-1a over the name and the identity. */
static uint64_t key_hash(const struct dso_key *k)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < k->name_len; i++)
		h = (h ^ (uint8_t)k->name[i]) * 1099511628211ULL;
	if (k->id && k->id->size) {
		for (size_t i = 0; i < k->id->size; i++)
			h = (h ^ k->id->data[i]) * 1099511628211ULL;
	} else {
		uint64_t dev = (uint64_t)k->maj << 32 | k->min;
		h = (h ^ dev) * 1099511628211ULL;
		h = (h ^ k->ino) * 1099511628211ULL;
	}
	return h ^ (h >> 29) ^ k->kernel;
}

static bool key_matches(const struct dso *o, const struct dso_key *k)
{
	if (o->kernel != k->kernel || strlen(o->name) != k->name_len || memcmp(o->name, k->name, k->name_len))
		return false;
	bool kid = k->id && k->id->size;
	if (kid || o->id.size)
		return kid && build_id_equal(&o->id, k->id);
	return o->maj == k->maj && o->min == k->min && o->ino == k->ino;
}

static int grow_table(struct dsos *d)
{
	size_t cap = d->tab_cap ? d->tab_cap * 2 : 256;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++) {
		const struct dso *o = &d->v[i];
		struct dso_key k = { o->name, strlen(o->name), &o->id, o->maj, o->min, o->ino, o->kernel };
		size_t j = key_hash(&k) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(d->tab);
	d->tab = t;
	d->tab_cap = cap;
	return 0;
}

int dsos_intern(struct dsos *d, const struct dso_key *k, uint32_t *index)
{
	if ((d->n + 1) * 2 > d->tab_cap && grow_table(d))
		return -ENOMEM;
	size_t j = key_hash(k) & (d->tab_cap - 1);
	for (; d->tab[j]; j = (j + 1) & (d->tab_cap - 1)) {
		if (key_matches(&d->v[d->tab[j] - 1], k)) {
			*index = d->tab[j] - 1;
			return 0;
		}
	}
	if (VEC_RESERVE(d->v, d->cap, d->n, 1, 64))
		return -ENOMEM;
	struct dso *o = &d->v[d->n];
	memset(o, 0, sizeof(*o));
	o->name = strndup(k->name, k->name_len);
	if (!o->name)
		return -ENOMEM;
	if (k->id && k->id->size)
		o->id = *k->id;
	o->maj = k->maj;
	o->min = k->min;
	o->ino = k->ino;
	o->kernel = k->kernel;
	o->pid = -1;
	d->tab[j] = (uint32_t)d->n + 1;
	*index = (uint32_t)d->n++;
	return 0;
}
