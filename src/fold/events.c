/*
 * events.c - event names of a recording (see events.h).
 */
#include "events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marker/tp.h"

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
};

static void name_from_attr(const struct pd_attr *a, size_t i, char *out)
{
	const char *n = NULL;
	if (marker_tp_is(a))
		n = MARKER_TP_NAME;
	else if (a->type == PD_TYPE_HARDWARE && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		n = hw_names[a->config];
	else if (a->type == PD_TYPE_SOFTWARE && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		n = sw_names[a->config];
	if (n)
		snprintf(out, EVENTS_NAME_MAX, "%s", n);
	else
		snprintf(out, EVENTS_NAME_MAX, "event %zu (type %" PRIu32 ", config %#" PRIx64 ")", i, a->type, a->config);
}

/* The attr whose ids include id, -1 if none. */
static int attr_of_id(const struct reader *r, uint64_t id)
{
	for (size_t i = 0; i < r->nr_attrs; i++)
		for (size_t k = 0; k < r->attrs[i].nr_ids; k++) {
			uint64_t v;
			memcpy(&v, &r->attrs[i].ids[k], sizeof(v));
			if (v == id)
				return (int)i;
		}
	return -1;
}

/* EVENT_DESC: u32 nr; u32 attr_size; per event: attr, u32 nr_ids, string
 * name, u64 ids[nr_ids]. An event without ids names the attr at its index. */
static void names_from_desc(struct events *ev, const struct reader *r)
{
	const uint8_t *p;
	size_t len;
	struct err e;
	if (reader_feature(r, PD_FEAT_EVENT_DESC, &p, &len, &e) || len < 8)
		return;
	uint32_t nr, asz;
	memcpy(&nr, p, 4);
	memcpy(&asz, p + 4, 4);
	size_t off = 8;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		if (asz > len - off || len - off - asz < 4)
			return;
		off += asz;
		memcpy(&nids, p + off, 4);
		off += 4;
		const char *s;
		size_t slen, used;
		if (reader_string(p + off, len - off, &s, &slen, &used))
			return;
		off += used;
		if (nids > (len - off) / 8)
			return;
		int ai = (int)i;
		if (nids) {
			uint64_t id;
			memcpy(&id, p + off, 8);
			ai = attr_of_id(r, id);
		}
		off += (size_t)nids * 8;
		if (ai >= 0 && (size_t)ai < ev->nr && slen > 0)
			snprintf(ev->name[ai], EVENTS_NAME_MAX, "%.*s", (int)slen, s);
	}
}

/* EVENT_UPDATE records of type NAME: u64 type; u64 id; char name[]. The
 * UNIT and SCALE ones around them say nothing of the name. perf and psrec
 * write them right after the attrs, so the scan stops at the first sample
 * rather than read a whole stream for them. */
static void names_from_updates(struct events *ev, struct reader *r)
{
	struct reader_record rec;
	struct err e;
	while (reader_next(r, &rec, &e) == 1 && rec.type != PD_RECORD_SAMPLE) {
		if (rec.type != PD_RECORD_EVENT_UPDATE || rec.size <= 24)
			continue;
		uint64_t type, id;
		memcpy(&type, rec.data + 8, 8);
		memcpy(&id, rec.data + 16, 8);
		int ai = attr_of_id(r, id);
		if (type != PD_EVENT_UPDATE_NAME || ai < 0)
			continue;
		const char *s = (const char *)rec.data + 24;
		size_t len = strnlen(s, rec.size - 24u);
		if (len > 0)
			snprintf(ev->name[ai], EVENTS_NAME_MAX, "%.*s", (int)len, s);
	}
	reader_rewind(r);
}

/* The names every recording has: from the attrs, then EVENT_DESC over
 * them, after the stream's EVENT_UPDATE names (in update, when given). */
static int names_read(struct events *ev, struct reader *r, const char (*update)[SESSION_NAME_MAX])
{
	ev->nr = r->nr_attrs;
	ev->name = calloc(ev->nr ? ev->nr : 1, sizeof(*ev->name));
	if (!ev->name)
		return -ENOMEM;
	for (size_t i = 0; i < ev->nr; i++)
		name_from_attr(&r->attrs[i].attr, i, ev->name[i]);
	if (r->pipe && !r->pipe_feat[PD_FEAT_EVENT_DESC].p) {
		if (!update)
			names_from_updates(ev, r);
		for (size_t i = 0; update && i < ev->nr; i++)
			if (update[i][0])
				snprintf(ev->name[i], EVENTS_NAME_MAX, "%s", update[i]);
	}
	names_from_desc(ev, r);
	return 0;
}

int events_read(struct events *ev, struct reader *r)
{
	return names_read(ev, r, NULL);
}

int events_read_session(struct events *ev, struct session *s)
{
	return names_read(ev, &s->rd, (const char (*)[SESSION_NAME_MAX])s->update_name);
}

void events_free(struct events *ev)
{
	free(ev->name);
	ev->name = NULL;
	ev->nr = 0;
}

int events_find(const struct events *ev, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < ev->nr; i++)
		if (strcmp(ev->name[i], name) == 0)
			return (int)i;
	for (size_t i = 0; i < ev->nr; i++)
		if (strncmp(ev->name[i], name, n) == 0 && ev->name[i][n] == ':')
			return (int)i;
	return -1;
}

int events_first_sampling(const struct reader *r)
{
	for (size_t i = 0; i < r->nr_attrs; i++)
		if (r->attrs[i].attr.sample_period && !marker_tp_is(&r->attrs[i].attr))
			return (int)i;
	for (size_t i = 0; i < r->nr_attrs; i++)
		if (!marker_tp_is(&r->attrs[i].attr))
			return (int)i;
	return -1;
}

void events_list(const struct events *ev, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ev->nr && used + 1 < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s", i ? ", " : "", ev->name[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
