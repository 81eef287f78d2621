/*
 * profile.c - the pprof Profile's tables, interned, and their encoding
 * with protobuf-c (see profile.h).
 *
 * Every table is an array of entries with an open-addressing index over
 * it (entry + 1 per slot, 0 empty) keyed by a hash of the whole entry;
 * an entry's id is its position + 1 (a string's index is its position).
 * The protobuf-c messages are made only in profile_encode, pointing into
 * the tables, and freed once packed: while samples are added the tables
 * are all there is.
 */
#include "profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"
#include "util/buf.h"
#include "util/textesc.h"
#include "util/vec.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* Entries of one kind and the index over them. */
struct table {
	void *v;                    /* entries of size bytes */
	uint64_t *hash;             /* each entry's */
	size_t size, n, cap;
	uint32_t *slot;             /* entry + 1, 0 empty */
	size_t nslot;               /* a power of two, or 0 */
};

struct mapping_e {
	uint64_t start, limit, offset;
	int64_t filename, build_id;
	bool has_functions, has_inline_frames;
};

struct function_e {
	int64_t name, system_name, filename;
};

struct location_e {
	uint64_t mapping, address;
	size_t off;                 /* first function id in lines */
	size_t n;
};

struct label_e {
	int64_t key, str, num, num_unit;
};

struct sample_e {
	size_t loc_off, nloc;       /* in locs */
	size_t lab_off, nlab;       /* in labs: label entries + 1 */
	int64_t value[PROFILE_MAX_VALUES];
};

/* A growable array of u64 (location ids, function ids, label numbers). */
struct pool {
	uint64_t *v;
	size_t n, cap;
};

struct profile {
	size_t nvalues;
	struct table strings;       /* char *: copies */
	struct table mappings, functions, locations, labels, samples;
	struct pool lines;          /* function ids of the locations */
	struct pool linenos;        /* beside each: its source line */
	struct pool locs;           /* location ids of the samples */
	struct pool labs;           /* label ids of the samples */
	int64_t type[PROFILE_MAX_VALUES], unit[PROFILE_MAX_VALUES];
	int64_t period_type, period_unit, period, time_nanos, duration_nanos, default_sample_type;
	int64_t comment;            /* 0: none */
	uint64_t first_mapping;     /* 0: in the order of their ids */
};

/* ---- hashing and tables -------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t mix_words(uint64_t h, const uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = mix(h, w[i]);
	return h;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return mix(h, n);
}

static void table_init(struct table *t, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
}

static void table_free(struct table *t)
{
	free(t->v);
	free(t->hash);
	free(t->slot);
}

static void *table_at(const struct table *t, size_t i)
{
	return (char *)t->v + i * t->size;
}

/* The entry with hash h for which eq holds, or SIZE_MAX. */
static size_t table_find(const struct table *t, uint64_t h, bool (*eq)(const void *entry, const void *key),
			 const void *key)
{
	if (!t->nslot)
		return SIZE_MAX;
	for (size_t i = (size_t)h & (t->nslot - 1);; i = (i + 1) & (t->nslot - 1)) {
		uint32_t s = t->slot[i];
		if (!s)
			return SIZE_MAX;
		if (t->hash[s - 1] == h && eq(table_at(t, s - 1), key))
			return s - 1;
	}
}

static void slot_put(uint32_t *slot, size_t nslot, uint64_t h, uint32_t v)
{
	size_t i = (size_t)h & (nslot - 1);
	while (slot[i])
		i = (i + 1) & (nslot - 1);
	slot[i] = v;
}

/* Append entry e (hash h): its index, or SIZE_MAX without memory. */
static size_t table_add(struct table *t, uint64_t h, const void *e)
{
	if (t->n >= UINT32_MAX - 1)
		return SIZE_MAX;
	/* the entries and their hashes, one capacity for both */
	size_t cap = t->cap, hcap = t->cap;
	if (vec_reserve(&t->v, &cap, t->n, 1, t->size, 64) || VEC_RESERVE(t->hash, hcap, t->n, 1, 64))
		return SIZE_MAX;
	t->cap = cap;
	/* at most half full: probes stay short */
	if (2 * (t->n + 1) > t->nslot) {
		size_t nslot = t->nslot ? 2 * t->nslot : 128;
		uint32_t *slot = calloc(nslot, sizeof(*slot));
		if (!slot)
			return SIZE_MAX;
		for (size_t i = 0; i < t->n; i++)
			slot_put(slot, nslot, t->hash[i], (uint32_t)(i + 1));
		free(t->slot);
		t->slot = slot;
		t->nslot = nslot;
	}
	memcpy(table_at(t, t->n), e, t->size);
	t->hash[t->n] = h;
	slot_put(t->slot, t->nslot, h, (uint32_t)(t->n + 1));
	return t->n++;
}

/* Look up e, else add it: its index, or SIZE_MAX without memory. */
static size_t table_intern(struct table *t, uint64_t h, const void *e,
			   bool (*eq)(const void *entry, const void *key))
{
	size_t i = table_find(t, h, eq, e);
	return i != SIZE_MAX ? i : table_add(t, h, e);
}

static int pool_add(struct pool *p, const uint64_t *v, size_t n, size_t *off)
{
	if (VEC_RESERVE(p->v, p->cap, p->n, n, 256))
		return -ENOMEM;
	if (n)
		memcpy(p->v + p->n, v, n * sizeof(*v));
	*off = p->n;
	p->n += n;
	return 0;
}

/* ---- strings --------------------------------------------------------------- */

struct str_key {
	const char *s;
	size_t len;
};

static bool str_eq(const void *entry, const void *key)
{
	const char *s = *(char *const *)entry;
	const struct str_key *k = key;
	return strncmp(s, k->s, k->len) == 0 && s[k->len] == '\0';
}

int profile_string(struct profile *p, const char *s, int64_t *index)
{
	if (!s)
		s = "";
	/* A proto3 string must be UTF-8 (a strict decoder drops the whole
	 * profile), and names are hostile: written as psrec fold prints
	 * them, control characters and broken UTF-8 as \xNN. */
	struct buf esc = BUF_INIT;
	size_t len = strlen(s);
	if (!textesc_clean(s, len, 0)) {
		if (textesc_buf(&esc, s, len, 0, NULL) != 0 || buf_append(&esc, "", 1) != 0) {
			buf_free(&esc);
			return -ENOMEM;
		}
		s = (const char *)esc.data;
		len = esc.len - 1;
	}
	struct str_key k = { s, len };
	uint64_t h = hash_bytes(s, k.len);
	size_t i = table_find(&p->strings, h, str_eq, &k);
	int err = 0;
	if (i == SIZE_MAX) {
		char *copy = strdup(s);
		if (copy)
			i = table_add(&p->strings, h, &copy);
		if (!copy || i == SIZE_MAX) {
			free(copy);
			err = -ENOMEM;
		}
	}
	buf_free(&esc);
	if (!err)
		*index = (int64_t)i;
	return err;
}

/* ---- life ------------------------------------------------------------------ */

int profile_new(struct profile **out, size_t nvalues)
{
	*out = NULL;
	if (nvalues < 1 || nvalues > PROFILE_MAX_VALUES)
		return -EINVAL;
	struct profile *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nvalues = nvalues;
	table_init(&p->strings, sizeof(char *));
	table_init(&p->mappings, sizeof(struct mapping_e));
	table_init(&p->functions, sizeof(struct function_e));
	table_init(&p->locations, sizeof(struct location_e));
	table_init(&p->labels, sizeof(struct label_e));
	table_init(&p->samples, sizeof(struct sample_e));
	int64_t empty;
	int err = profile_string(p, "", &empty); /* string_table[0] must be "" */
	if (err) {
		profile_free(p);
		return err;
	}
	*out = p;
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->strings.n; i++)
		free(*(char **)table_at(&p->strings, i));
	table_free(&p->strings);
	table_free(&p->mappings);
	table_free(&p->functions);
	table_free(&p->locations);
	table_free(&p->labels);
	table_free(&p->samples);
	free(p->lines.v);
	free(p->linenos.v);
	free(p->locs.v);
	free(p->labs.v);
	free(p);
}

int profile_sample_type(struct profile *p, size_t i, const char *type, const char *unit)
{
	if (i >= p->nvalues)
		return -EINVAL;
	int err = profile_string(p, type, &p->type[i]);
	return err ? err : profile_string(p, unit, &p->unit[i]);
}

int profile_info(struct profile *p, const struct profile_info *in)
{
	int err = profile_string(p, in->period_type, &p->period_type);
	if (!err)
		err = profile_string(p, in->period_unit, &p->period_unit);
	p->default_sample_type = 0;
	if (!err && in->default_sample_type)
		err = profile_string(p, in->default_sample_type, &p->default_sample_type);
	p->comment = 0;
	if (!err && in->comment)
		err = profile_string(p, in->comment, &p->comment);
	p->period = in->period;
	p->time_nanos = in->time_nanos;
	p->duration_nanos = in->duration_nanos;
	return err;
}

/* ---- mappings, functions, locations ---------------------------------------- */

static bool mapping_eq(const void *entry, const void *key)
{
	const struct mapping_e *a = entry, *b = key;
	return a->start == b->start && a->limit == b->limit && a->offset == b->offset &&
	       a->filename == b->filename && a->build_id == b->build_id &&
	       a->has_functions == b->has_functions && a->has_inline_frames == b->has_inline_frames;
}

int profile_mapping(struct profile *p, const struct profile_mapping *m, uint64_t *id)
{
	struct mapping_e e = { m->start, m->limit, m->offset, 0, 0, m->has_functions, m->has_inline_frames };
	int err = profile_string(p, m->filename, &e.filename);
	if (!err)
		err = profile_string(p, m->build_id, &e.build_id);
	if (err)
		return err;
	uint64_t w[] = { e.start, e.limit, e.offset, (uint64_t)e.filename, (uint64_t)e.build_id,
			 (uint64_t)e.has_functions << 1 | e.has_inline_frames };
	size_t i = table_intern(&p->mappings, mix_words(1, w, 6), &e, mapping_eq);
	if (i == SIZE_MAX)
		return -ENOMEM;
	*id = i + 1;
	return 0;
}

int profile_mapping_first(struct profile *p, uint64_t id)
{
	if (id < 1 || id > p->mappings.n)
		return -EINVAL;
	p->first_mapping = id;
	return 0;
}

static bool function_eq(const void *entry, const void *key)
{
	const struct function_e *a = entry, *b = key;
	return a->name == b->name && a->system_name == b->system_name && a->filename == b->filename;
}

int profile_function(struct profile *p, const char *name, const char *system_name, const char *filename,
		     uint64_t *id)
{
	struct function_e e;
	int err = profile_string(p, name, &e.name);
	if (!err)
		err = profile_string(p, system_name ? system_name : name, &e.system_name);
	if (!err)
		err = profile_string(p, filename, &e.filename);
	if (err)
		return err;
	uint64_t w[] = { (uint64_t)e.name, (uint64_t)e.system_name, (uint64_t)e.filename };
	size_t i = table_intern(&p->functions, mix_words(2, w, 3), &e, function_eq);
	if (i == SIZE_MAX)
		return -ENOMEM;
	*id = i + 1;
	return 0;
}

/* A location looked up by its content: the lines are not yet in the pool. */
struct location_key {
	const struct profile *p;
	uint64_t mapping, address;
	const uint64_t *functions, *linenos;
	size_t n;
};

static bool location_eq(const void *entry, const void *key)
{
	const struct location_e *a = entry;
	const struct location_key *k = key;
	return a->mapping == k->mapping && a->address == k->address && a->n == k->n &&
	       (k->n == 0 || (memcmp(k->p->lines.v + a->off, k->functions, k->n * sizeof(uint64_t)) == 0 &&
			      memcmp(k->p->linenos.v + a->off, k->linenos, k->n * sizeof(uint64_t)) == 0));
}

/* Lines per location: an address holds a function and the calls inlined there. */
#define LOCATION_MAX_LINES 256

int profile_location(struct profile *p, uint64_t mapping_id, uint64_t address, const uint64_t *functions,
		     const int64_t *linenos, size_t nlines, uint64_t *id)
{
	uint64_t ln[LOCATION_MAX_LINES];
	if (nlines > LOCATION_MAX_LINES)
		return -EINVAL;
	for (size_t i = 0; i < nlines; i++)
		ln[i] = linenos ? (uint64_t)linenos[i] : 0;
	struct location_key k = { p, mapping_id, address, functions, ln, nlines };
	uint64_t h = mix_words(mix_words(mix(mix(3, mapping_id), address), functions, nlines), ln, nlines);
	size_t i = table_find(&p->locations, h, location_eq, &k);
	if (i == SIZE_MAX) {
		struct location_e e = { mapping_id, address, 0, nlines };
		size_t off2;
		/* the two pools grow together: one offset for both */
		if (pool_add(&p->lines, functions, nlines, &e.off) || pool_add(&p->linenos, ln, nlines, &off2))
			return -ENOMEM;
		i = table_add(&p->locations, h, &e);
		if (i == SIZE_MAX)
			return -ENOMEM;
	}
	*id = i + 1;
	return 0;
}

/* ---- samples --------------------------------------------------------------- */

static bool label_eq(const void *entry, const void *key)
{
	return memcmp(entry, key, sizeof(struct label_e)) == 0;
}

struct sample_key {
	const struct profile *p;
	const uint64_t *locs;
	size_t nloc;
	const uint64_t *labs;
	size_t nlab;
};

static bool sample_eq(const void *entry, const void *key)
{
	const struct sample_e *a = entry;
	const struct sample_key *k = key;
	return a->nloc == k->nloc && a->nlab == k->nlab &&
	       memcmp(k->p->locs.v + a->loc_off, k->locs, k->nloc * sizeof(uint64_t)) == 0 &&
	       memcmp(k->p->labs.v + a->lab_off, k->labs, k->nlab * sizeof(uint64_t)) == 0;
}

int profile_label(struct profile *p, const struct profile_label *l, uint64_t *id)
{
	struct label_e e = { 0, 0, l->str ? 0 : l->num, 0 };
	int err = profile_string(p, l->key, &e.key);
	if (!err && l->str)
		err = profile_string(p, l->str, &e.str);
	if (!err && !l->str && l->num_unit)
		err = profile_string(p, l->num_unit, &e.num_unit);
	if (err)
		return err;
	uint64_t w[] = { (uint64_t)e.key, (uint64_t)e.str, (uint64_t)e.num, (uint64_t)e.num_unit };
	size_t k = table_intern(&p->labels, mix_words(4, w, 4), &e, label_eq);
	if (k == SIZE_MAX)
		return -ENOMEM;
	*id = k + 1;
	return 0;
}

int profile_sample(struct profile *p, const uint64_t *locations, size_t nlocations, const int64_t *values,
		   const struct profile_label *labels, size_t nlabels)
{
	uint64_t lab[PROFILE_MAX_LABELS];
	if (nlabels > PROFILE_MAX_LABELS)
		return -EINVAL;
	for (size_t i = 0; i < nlabels; i++) {
		int err = profile_label(p, &labels[i], &lab[i]);
		if (err)
			return err;
	}
	return profile_sample_labeled(p, locations, nlocations, values, lab, nlabels);
}

int profile_sample_labeled(struct profile *p, const uint64_t *locations, size_t nlocations, const int64_t *values,
			   const uint64_t *lab, size_t nlabels)
{
	if (nlabels > PROFILE_MAX_LABELS)
		return -EINVAL;
	for (size_t i = 0; i < nlabels; i++)
		if (lab[i] < 1 || lab[i] > p->labels.n)
			return -EINVAL;
	struct sample_key key = { p, locations, nlocations, lab, nlabels };
	uint64_t h = mix_words(mix_words(5, locations, nlocations), lab, nlabels);
	size_t i = table_find(&p->samples, h, sample_eq, &key);
	if (i == SIZE_MAX) {
		struct sample_e e = { 0 };
		e.nloc = nlocations;
		e.nlab = nlabels;
		if (pool_add(&p->locs, locations, nlocations, &e.loc_off) || pool_add(&p->labs, lab, nlabels, &e.lab_off))
			return -ENOMEM;
		i = table_add(&p->samples, h, &e);
		if (i == SIZE_MAX)
			return -ENOMEM;
	}
	struct sample_e *s = table_at(&p->samples, i);
	for (size_t v = 0; v < p->nvalues; v++)
		s->value[v] += values[v];
	return 0;
}

void profile_counts(const struct profile *p, struct profile_counts *c)
{
	*c = (struct profile_counts){ p->strings.n, p->mappings.n, p->functions.n, p->locations.n, p->samples.n };
}

/* ---- encoding ---------------------------------------------------------------- */

/* The messages profile_encode makes, freed together. */
struct pb_parts {
	pb_value_type types[PROFILE_MAX_VALUES], *type_ptr[PROFILE_MAX_VALUES], period_type;
	pb_sample *samples, **sample_ptr;
	pb_label *labels, **label_ptr;   /* label_ptr: every sample's, in a row */
	pb_mapping *mappings, **mapping_ptr;
	pb_location *locations, **location_ptr;
	pb_line *lines, **line_ptr;      /* line_ptr: every location's, in a row */
	pb_function *functions, **function_ptr;
};

static void parts_free(struct pb_parts *m)
{
	free(m->samples);
	free(m->sample_ptr);
	free(m->labels);
	free(m->label_ptr);
	free(m->mappings);
	free(m->mapping_ptr);
	free(m->locations);
	free(m->location_ptr);
	free(m->lines);
	free(m->line_ptr);
	free(m->functions);
	free(m->function_ptr);
}

/* calloc of n (at least one) elements. */
static void *alloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/*
 * Every array parts_make fills, sized from the profile's tables; -ENOMEM
 * when any allocation fails (parts_free then frees those that did not).
 */
static int parts_alloc(const struct profile *p, struct pb_parts *m)
{
	memset(m, 0, sizeof(*m));
	m->samples = alloc_n(p->samples.n, sizeof(*m->samples));
	m->sample_ptr = alloc_n(p->samples.n, sizeof(*m->sample_ptr));
	m->labels = alloc_n(p->labels.n, sizeof(*m->labels));
	m->label_ptr = alloc_n(p->labs.n, sizeof(*m->label_ptr));
	m->mappings = alloc_n(p->mappings.n, sizeof(*m->mappings));
	m->mapping_ptr = alloc_n(p->mappings.n, sizeof(*m->mapping_ptr));
	m->locations = alloc_n(p->locations.n, sizeof(*m->locations));
	m->location_ptr = alloc_n(p->locations.n, sizeof(*m->location_ptr));
	m->lines = alloc_n(p->lines.n, sizeof(*m->lines));
	m->line_ptr = alloc_n(p->lines.n, sizeof(*m->line_ptr));
	m->functions = alloc_n(p->functions.n, sizeof(*m->functions));
	m->function_ptr = alloc_n(p->functions.n, sizeof(*m->function_ptr));
	if (!m->samples || !m->sample_ptr || !m->labels || !m->label_ptr || !m->mappings || !m->mapping_ptr ||
	    !m->locations || !m->location_ptr || !m->lines || !m->line_ptr || !m->functions || !m->function_ptr)
		return -ENOMEM;
	return 0;
}

/* The sample value types and the period type: fixed arrays, no allocation. */
static void parts_types(const struct profile *p, struct pb_parts *m)
{
	for (size_t i = 0; i < p->nvalues; i++) {
		perftools__profiles__value_type__init(&m->types[i]);
		m->types[i].type = p->type[i];
		m->types[i].unit = p->unit[i];
		m->type_ptr[i] = &m->types[i];
	}
	perftools__profiles__value_type__init(&m->period_type);
	m->period_type.type = p->period_type;
	m->period_type.unit = p->period_unit;
}

/*
 * The labels, then the samples: a sample's labels are a run of label_ptr
 * (which points into the interned labels, ids 1-based), so the message
 * shares one label per distinct (key, value) instead of a copy per sample.
 */
static void parts_samples(const struct profile *p, struct pb_parts *m)
{
	for (size_t i = 0; i < p->labels.n; i++) {
		const struct label_e *l = table_at(&p->labels, i);
		pb_label *o = &m->labels[i];
		perftools__profiles__label__init(o);
		o->key = l->key;
		o->str = l->str;
		o->num = l->num;
		o->num_unit = l->num_unit;
	}
	for (size_t i = 0; i < p->labs.n; i++)
		m->label_ptr[i] = &m->labels[p->labs.v[i] - 1];
	for (size_t i = 0; i < p->samples.n; i++) {
		struct sample_e *s = table_at(&p->samples, i);
		pb_sample *o = &m->samples[i];
		perftools__profiles__sample__init(o);
		o->n_location_id = s->nloc;
		o->location_id = p->locs.v + s->loc_off;
		o->n_value = p->nvalues;
		o->value = s->value;
		o->n_label = s->nlab;
		o->label = m->label_ptr + s->lab_off;
		m->sample_ptr[i] = o;
	}
}

/*
 * The mappings, ids 1-based in table order; the first_mapping'th is
 * swapped to the front of the message because pprof takes the first
 * mapping as the main binary.
 */
static void parts_mappings(const struct profile *p, struct pb_parts *m)
{
	for (size_t i = 0; i < p->mappings.n; i++) {
		const struct mapping_e *e = table_at(&p->mappings, i);
		pb_mapping *o = &m->mappings[i];
		perftools__profiles__mapping__init(o);
		o->id = i + 1;
		o->memory_start = e->start;
		o->memory_limit = e->limit;
		o->file_offset = e->offset;
		o->filename = e->filename;
		o->build_id = e->build_id;
		o->has_functions = e->has_functions;
		o->has_inline_frames = e->has_inline_frames;
		m->mapping_ptr[i] = o;
	}
	if (p->first_mapping > 1) {
		m->mapping_ptr[0] = &m->mappings[p->first_mapping - 1];
		m->mapping_ptr[p->first_mapping - 1] = &m->mappings[0];
	}
}

/*
 * The lines, then the locations: a location's lines (its inline frames)
 * are a run of line_ptr, as a sample's labels are of label_ptr.
 */
static void parts_locations(const struct profile *p, struct pb_parts *m)
{
	for (size_t i = 0; i < p->lines.n; i++) {
		perftools__profiles__line__init(&m->lines[i]);
		m->lines[i].function_id = p->lines.v[i];
		m->lines[i].line = (int64_t)p->linenos.v[i];
		m->line_ptr[i] = &m->lines[i];
	}
	for (size_t i = 0; i < p->locations.n; i++) {
		const struct location_e *e = table_at(&p->locations, i);
		pb_location *o = &m->locations[i];
		perftools__profiles__location__init(o);
		o->id = i + 1;
		o->mapping_id = e->mapping;
		o->address = e->address;
		o->n_line = e->n;
		o->line = m->line_ptr + e->off;
		m->location_ptr[i] = o;
	}
}

/* The functions, ids 1-based in table order. */
static void parts_functions(const struct profile *p, struct pb_parts *m)
{
	for (size_t i = 0; i < p->functions.n; i++) {
		const struct function_e *e = table_at(&p->functions, i);
		pb_function *o = &m->functions[i];
		perftools__profiles__function__init(o);
		o->id = i + 1;
		o->name = e->name;
		o->system_name = e->system_name;
		o->filename = e->filename;
		m->function_ptr[i] = o;
	}
}

/*
 * The protobuf-c messages of p, pointing into p's tables (nothing is
 * copied but the messages themselves): free them with parts_free, also
 * after an error.
 */
static int parts_make(const struct profile *p, struct pb_parts *m)
{
	int err = parts_alloc(p, m);
	if (err)
		return err;
	parts_types(p, m);
	parts_samples(p, m);
	parts_mappings(p, m);
	parts_locations(p, m);
	parts_functions(p, m);
	return 0;
}

int profile_encode(const struct profile *p, uint8_t **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	struct pb_parts m;
	int err = parts_make(p, &m);
	if (err) {
		parts_free(&m);
		return err;
	}
	pb_profile pr;
	perftools__profiles__profile__init(&pr);
	pr.n_sample_type = p->nvalues;
	pr.sample_type = m.type_ptr;
	pr.n_sample = p->samples.n;
	pr.sample = m.sample_ptr;
	pr.n_mapping = p->mappings.n;
	pr.mapping = m.mapping_ptr;
	pr.n_location = p->locations.n;
	pr.location = m.location_ptr;
	pr.n_function = p->functions.n;
	pr.function = m.function_ptr;
	pr.n_string_table = p->strings.n;
	pr.string_table = p->strings.v;
	pr.time_nanos = p->time_nanos;
	pr.duration_nanos = p->duration_nanos;
	pr.period_type = &m.period_type;
	pr.period = p->period;
	int64_t comment = p->comment;
	if (comment) {
		pr.n_comment = 1;
		pr.comment = &comment;
	}
	pr.default_sample_type = p->default_sample_type;
	size_t n = perftools__profiles__profile__get_packed_size(&pr);
	uint8_t *out = malloc(n ? n : 1);
	if (!out) {
		parts_free(&m);
		return -ENOMEM;
	}
	*len = perftools__profiles__profile__pack(&pr, out);
	*buf = out;
	parts_free(&m);
	return 0;
}
