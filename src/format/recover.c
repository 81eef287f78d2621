/*
 * recover.c - in-place repair of a killed recording (see recover.h).
 */
#include "recover.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/feature.h"
#include "format/reader.h"
#include "format/walk.h"
#include "format/zdecode.h"
#include "psrec/perf_data.h"
#include "util/io.h"

/* Rounds of "the reader stops at X: end the data before X". Each one
 * drops at least one COMPRESSED record; a stream whose records straddle
 * COMPRESSED records needs one per straddle at the cut. */
#define MAX_ROUNDS 64
/* What perf's COMPRESSED payload holds: version, type, level, ratio,
 * mmap_len (u32 each). */
#define COMP_LEN 20
#define MAX_TABLE 256

/* Types perf 6.1 knows: a record of any other type ends the walk. */
static bool known_type(uint32_t t)
{
	return (t >= PD_RECORD_MMAP && t <= PD_RECORD_AUX_OUTPUT_HW_ID) ||
	       (t >= PD_RECORD_HEADER_ATTR && t < PD_RECORD_PERF61_MAX);
}

/* What the walk saw of COMPRESSED data. */
struct walk {
	uint64_t first_compressed;      /* offset of the first COMPRESSED record, 0: none */
	bool feature_record;            /* a HEADER_FEATURE COMPRESSED record comes first */
};

/* Walk the complete records of types perf knows in [begin, limit), count
 * them, and return where they end: at limit, or at the first record that
 * is cut short, impossibly sized or of an unknown type (where a feature
 * table or junk begins). */
static uint64_t walk_records(const uint8_t *base, uint64_t begin, uint64_t limit, struct recover_result *res,
			     struct walk *w)
{
	res->records = res->samples = res->compressed = 0;
	memset(w, 0, sizeof(*w));
	uint64_t pos = begin;
	struct pd_event_header rh;
	while (walk_mem(base, limit, pos, &rh) == WALK_WHOLE && known_type(rh.type)) {
		if (rh.type == PD_RECORD_COMPRESSED && !w->first_compressed)
			w->first_compressed = pos;
		if (rh.type == PD_RECORD_HEADER_FEATURE && !w->first_compressed && rh.size >= 16 + COMP_LEN) {
			uint64_t feat;
			memcpy(&feat, base + pos + 8, sizeof(feat));
			w->feature_record |= feat == PD_FEAT_COMPRESSED;
		}
		res->compressed += rh.type == PD_RECORD_COMPRESSED;
		res->samples += rh.type == PD_RECORD_SAMPLE;
		res->records++;
		pos += rh.size;
	}
	return pos;
}

/* The largest output of one COMPRESSED record in [begin, end), whose
 * records walk_records found whole: what perf sizes its buffer by. Each
 * is decoded a piece at a time and counted (zdecode_measure), so a record
 * that claims gigabytes costs the time to count them, not the memory. 0
 * when nothing decodes; measuring stops at the first record that does not
 * decode or passes ZDECODE_MAX_RECORD (counted as one byte more): the
 * reader stops there too, so the data will end before it. */
static uint32_t measure_mmap_len(const uint8_t *base, uint64_t begin, uint64_t end)
{
	struct zdecode z = ZDECODE_INIT;
	uint64_t max = 0;
	struct pd_event_header h;
	for (uint64_t pos = begin; walk_mem(base, end, pos, &h) == WALK_WHOLE; pos += h.size) {
		if (h.type != PD_RECORD_COMPRESSED)
			continue;
		const char *why;
		uint64_t got;
		int err = zdecode_measure(&z, base + pos + sizeof(h), h.size - sizeof(h), ZDECODE_MAX_RECORD, &got, &why);
		if (err && err != -EFBIG)
			break;
		if (got > max)
			max = got;
		if (err)
			break;
	}
	zdecode_free(&z);
	return max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

/* A COMPRESSED payload perf can use: zstd, and a buffer size. */
static bool comp_usable(const uint8_t *p, uint64_t len, uint32_t *mmap_len)
{
	uint32_t ml;
	if (!feature_compressed_mmap_len(p, len, &ml) || ml == 0)
		return false;
	*mmap_len = ml;
	return true;
}

struct entry {
	unsigned feat;
	struct pd_section s;
};

/*
 * The entries of the header's feature table that a reader can use: inside
 * the file, outside [data.offset, table end), COMPRESSED decodable. Only
 * when the data still ends where the table is (a table overwritten by
 * records holds nothing). Returns how many; *all_ok says whether every set
 * bit had one.
 */
static size_t intact_features(const uint8_t *base, uint64_t size, const struct pd_file_header *h,
			      uint64_t data_end, struct entry *out, bool *all_ok)
{
	size_t n = 0, k = 0, nbits = 0;
	*all_ok = true;
	for (unsigned b = 0; b < PD_FEAT_BITS; b++)
		nbits += (size_t)pd_feature_isset(h->features, b);
	uint64_t table = h->data.offset + h->data.size;
	uint64_t table_end = table + nbits * sizeof(struct pd_section);
	for (unsigned b = 0; b < PD_FEAT_BITS; b++) {
		if (!pd_feature_isset(h->features, b))
			continue;
		uint64_t ent = table + k++ * sizeof(struct pd_section);
		struct pd_section s;
		bool ok = table >= data_end && ent <= size && size - ent >= sizeof(s);
		if (ok) {
			memcpy(&s, base + ent, sizeof(s));
			/* inside the file, clear of the data and of the table */
			ok = s.offset <= size && s.size <= size - s.offset &&
			     (s.offset >= table_end || s.offset + s.size <= h->data.offset);
		}
		uint32_t ml;
		if (ok && b == PD_FEAT_COMPRESSED)
			ok = comp_usable(base + s.offset, s.size, &ml);
		if (ok && n < MAX_TABLE)
			out[n++] = (struct entry){ b, s };
		else
			*all_ok = false;
	}
	return n;
}

/* psrec 0.1 kept COMPRESSED before the data, between the attrs and
 * data.offset: a file it left between two writes still has it there. */
static bool gap_payload(const uint8_t *base, const struct pd_file_header *h, struct pd_section *s)
{
	uint64_t at = h->attrs.offset + h->attrs.size;
	uint32_t ml;
	if (!pd_feature_isset(h->features, PD_FEAT_COMPRESSED) ||
	    at > h->data.offset || h->data.offset - at < COMP_LEN || !comp_usable(base + at, COMP_LEN, &ml))
		return false;
	*s = (struct pd_section){ at, COMP_LEN };
	return true;
}

/* The repair: the data ends at end, and a new feature table (entries
 * kept from the old one, maybe a COMPRESSED entry) follows it. */
struct plan {
	uint64_t end;
	struct entry e[MAX_TABLE + 1];
	size_t n;
	bool new_comp;                  /* a COMPRESSED payload written after the table */
	uint8_t comp[COMP_LEN];
	uint32_t mmap_len;              /* what the reader decompresses with; 0: none */
};

static uint64_t plan_len(const struct plan *p)
{
	return p->n * sizeof(struct pd_section) + (p->new_comp ? COMP_LEN : 0);
}

/* The payload of a new COMPRESSED entry: zstd, level and ratio unknown
 * (0), the measured buffer size (1 when nothing decoded: 0 is no size). */
static int fresh_payload(uint32_t measured, uint8_t out[COMP_LEN])
{
	struct buf b = BUF_INIT;
	int err = feature_compressed(&b, 0, 0, measured ? measured : 1);
	if (!err)
		memcpy(out, b.data, COMP_LEN);
	buf_free(&b);
	return err;
}

/*
 * Lay out the table for data ending at p->end: the intact entries whose
 * payloads it does not cover, and COMPRESSED if the data needs it and
 * gets it from nowhere else (a kept entry, a HEADER_FEATURE record).
 */
static void plan_table(struct plan *p, const uint8_t *base, uint64_t size, const struct pd_file_header *h,
		       const struct walk *w, bool compressed, const uint8_t fresh[COMP_LEN])
{
	struct entry kept[MAX_TABLE];
	bool all_ok;
	size_t nk = intact_features(base, size, h, p->end, kept, &all_ok);
	p->n = 0;
	p->new_comp = false;
	p->mmap_len = 0;
	bool need_comp = compressed && !w->feature_record;
	struct pd_section gap;
	for (size_t i = 0; i < nk; i++) {
		if (kept[i].feat == PD_FEAT_COMPRESSED && !need_comp)
			continue;
		p->e[p->n++] = kept[i];
	}
	bool have_comp = false;
	for (size_t i = 0; i < p->n; i++)
		have_comp |= p->e[i].feat == PD_FEAT_COMPRESSED;
	if (need_comp && !have_comp) {
		/* ascending ids: COMPRESSED goes before any id above it */
		size_t at = 0;
		while (at < p->n && p->e[at].feat < PD_FEAT_COMPRESSED)
			at++;
		memmove(&p->e[at + 1], &p->e[at], (p->n - at) * sizeof(p->e[0]));
		p->n++;
		if (gap_payload(base, h, &gap)) {
			p->e[at] = (struct entry){ PD_FEAT_COMPRESSED, gap };
		} else {
			p->new_comp = true;
			p->e[at] = (struct entry){ PD_FEAT_COMPRESSED, { 0, COMP_LEN } };
			memcpy(p->comp, fresh, COMP_LEN);
		}
	}
	/* Drop kept payloads the new table would overwrite, until none. */
	for (bool again = true; again;) {
		again = false;
		uint64_t lo = p->end, hi = p->end + plan_len(p);
		for (size_t i = 0; i < p->n; i++) {
			const struct pd_section *s = &p->e[i].s;
			bool mine = p->new_comp && p->e[i].feat == PD_FEAT_COMPRESSED;
			if (!mine && s->offset < hi && lo < s->offset + s->size) {
				memmove(&p->e[i], &p->e[i + 1], (p->n - i - 1) * sizeof(p->e[0]));
				p->n--;
				again = true;
				break;
			}
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		if (p->e[i].feat != PD_FEAT_COMPRESSED)
			continue;
		if (p->new_comp)
			p->e[i].s.offset = p->end + p->n * sizeof(struct pd_section);
		comp_usable(p->new_comp ? p->comp : base + p->e[i].s.offset, COMP_LEN, &p->mmap_len);
	}
}

/* Read every record (those inside COMPRESSED ones too) and count them. */
static int count_records(struct reader *r, struct recover_result *res, struct err *e)
{
	struct reader_record rec;
	int k;
	res->records = res->samples = 0;
	while ((k = reader_next(r, &rec, e)) == 1) {
		res->records++;
		res->samples += rec.type == PD_RECORD_SAMPLE;
	}
	return k;
}

/* Does psrec's reader read every record of the planned data? If not,
 * *stop gets the record it stops at. */
static int plan_reads(const uint8_t *base, uint64_t size, const struct pd_file_header *h, const struct plan *p,
		      uint64_t *stop, struct recover_result *res, struct err *e)
{
	struct pd_file_header cand = *h;
	cand.data.size = p->end - h->data.offset;
	memset(cand.features, 0, sizeof(cand.features));
	struct reader r;
	int err = reader_open_mem_as(&r, base, size, &cand, e);
	if (err)
		return err;
	r.mmap_len = p->mmap_len > ZDECODE_MAX_RECORD ? ZDECODE_MAX_RECORD : p->mmap_len;
	int k = count_records(&r, res, e);
	*stop = r.error_at;
	reader_close(&r);
	return k;
}

/*
 * Cut the data until the planned table fits after it and psrec's reader
 * reads every record before it: p->end starts where the walk of the whole
 * file stopped, and each round ends it earlier (at the record the reader
 * stops at, or where the table still fits), so the rounds are bounded.
 * fresh: the COMPRESSED payload a new entry gets.
 */
static int plan_fit(struct plan *p, const char *path, const uint8_t *base, uint64_t size,
		    const struct pd_file_header *h, const uint8_t fresh[COMP_LEN], struct recover_result *res,
		    struct err *e)
{
	struct walk w;
	for (int round = 0;; round++) {
		if (round == MAX_ROUNDS)
			return err_set(e, -EINVAL, "%s: the data does not read back however it is cut; nothing changed", path);
		p->end = walk_records(base, h->data.offset, p->end, res, &w);
		plan_table(p, base, size, h, &w, res->compressed > 0, fresh);
		if (size - p->end < plan_len(p)) {
			/* No room after the data: end it earlier. */
			if (size - h->data.offset < plan_len(p))
				return err_set(e, -ENOSPC, "%s: no room after the data for its feature table; nothing changed", path);
			p->end = walk_records(base, h->data.offset, size - plan_len(p), res, &w);
			continue;
		}
		uint64_t stop = 0;
		struct err re = { "" };
		int k = plan_reads(base, size, h, p, &stop, res, &re);
		if (k == 0)
			return 0;
		if (stop <= h->data.offset || stop >= p->end)
			return err_set(e, -EINVAL, "%s: %s; nothing changed", path, re.msg);
		p->end = stop;
		res->dropped_at = stop;
		snprintf(res->dropped_why, sizeof(res->dropped_why), "%s", re.msg);
	}
}

/*
 * Write the plan: the table first, then the header that points at it, in
 * one pwrite (data.size through the bitmap), so a kill leaves the old
 * header or the new one. res->data_size is the new data.size.
 */
static int plan_write(const struct plan *p, int fd, const char *path, uint64_t size, const struct pd_file_header *h,
		      struct recover_result *res, struct err *e)
{
	uint8_t *tail = calloc(1, plan_len(p) + 16);
	if (!tail)
		return -ENOMEM;
	struct pd_file_header nh = *h;
	nh.data.size = res->data_size;
	memset(nh.features, 0, sizeof(nh.features));
	for (size_t i = 0; i < p->n; i++) {
		memcpy(tail + i * sizeof(struct pd_section), &p->e[i].s, sizeof(struct pd_section));
		pd_feature_set(nh.features, p->e[i].feat);
	}
	if (p->new_comp)
		memcpy(tail + p->n * sizeof(struct pd_section), p->comp, COMP_LEN);
	/* Nothing to put after the data, and bytes there (a cut record):
	 * hotspot's perfparser reads a header without feature bits as a
	 * byte-swapped file's and takes the 16 bytes after the data for a
	 * BUILD_ID table entry, its second 8 the entry's size. Zeroes there
	 * are an empty entry (the file still neither grows nor shrinks). */
	size_t tail_len = plan_len(p);
	if (tail_len == 0 && size > p->end)
		tail_len = size - p->end < 16 ? (size_t)(size - p->end) : 16;
	int err = io_pwrite_all(fd, tail, tail_len, p->end);
	free(tail);
	const size_t from = PD_HEADER_DATA_SIZE_OFFSET;
	if (!err)
		err = io_pwrite_all(fd, (const uint8_t *)&nh + from, sizeof(nh) - from, from);
	if (!err)
		err = fsync(fd) < 0 ? -errno : 0;
	if (err)
		return err_set(e, err, "cannot write %s: %s", path, strerror(-err));
	res->changed = true;
	return 0;
}

static int repair_with(struct plan *p, int fd, const char *path, const uint8_t *base, uint64_t size,
		       const struct pd_file_header *h, struct recover_result *res, struct err *e)
{
	struct walk w;
	p->end = walk_records(base, h->data.offset, size, res, &w);
	uint64_t measured_end = p->end;
	uint32_t measured = res->compressed ? measure_mmap_len(base, h->data.offset, p->end) : 0;
	uint8_t fresh[COMP_LEN];
	int err = fresh_payload(measured, fresh);
	if (!err)
		err = plan_fit(p, path, base, size, h, fresh, res, e);
	if (err)
		return err;
	/* A new COMPRESSED payload sizes the buffer by the records kept, not
	 * by one dropped for decoding to too much: perf maps that much for
	 * every COMPRESSED record it reads. */
	if (p->new_comp && res->compressed && p->end < measured_end) {
		uint32_t kept = measure_mmap_len(base, h->data.offset, p->end);
		if (kept && kept < measured) {
			err = fresh_payload(kept, p->comp);
			if (err)
				return err;
			p->mmap_len = kept;
		}
	}
	res->data_size = p->end - h->data.offset;
	res->unused_bytes = size - p->end;
	res->mmap_len = p->new_comp ? p->mmap_len : 0;
	res->features = p->n;
	return plan_write(p, fd, path, size, h, res, e);
}

/* The plan holds 4 KiB of table entries: on the heap, not the stack. */
static int repair(int fd, const char *path, const uint8_t *base, uint64_t size, const struct pd_file_header *h,
		  struct recover_result *res, struct err *e)
{
	struct plan *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	int err = repair_with(p, fd, path, base, size, h, res, e);
	free(p);
	return err;
}

/* The attrs and every ids section end at or before data.offset (the
 * reader has checked that they lie inside the file). */
static bool meta_before(const uint8_t *base, const struct pd_file_header *h)
{
	uint64_t limit = h->data.offset;
	if (h->attrs.offset + h->attrs.size > limit)
		return false;
	for (uint64_t at = h->attrs.offset; at + h->attr_size <= h->attrs.offset + h->attrs.size; at += h->attr_size) {
		uint32_t asz;
		memcpy(&asz, base + at + 4, sizeof(asz));
		struct pd_section ids;
		memcpy(&ids, base + at + (asz ? asz : 64), sizeof(ids));
		if (ids.size && ids.offset + ids.size > limit)
			return false;
	}
	return true;
}

/*
 * The header at base is a perf.data file header whose attrs and ids the
 * reader takes, all of them before the data: what the repair needs, as it
 * only ever writes after the data. -EINVAL with *e set when not.
 */
static int header_repairable(const char *path, const uint8_t *base, uint64_t size, const struct pd_file_header *h,
			     struct err *e)
{
	if (h->magic != PD_MAGIC || h->size != PD_FILE_HEADER_SIZE) {
		bool pipe = h->magic == PD_MAGIC && h->size == sizeof(struct pd_pipe_header);
		return err_set(e, -EINVAL, pipe ? "%s is a pipe-format stream: it has no header to repair (perf reads it as it is)"
						: "%s is not a perf.data file (bad magic or header size); nothing changed", path);
	}
	/* The attrs and ids must be what the reader takes: the repair only
	 * ever rewrites data.size and the features. */
	struct pd_file_header probe = *h;
	probe.data.size = 0;
	memset(probe.features, 0, sizeof(probe.features));
	struct reader r;
	struct err re = { "" };
	if (h->data.offset > size || reader_open_mem_as(&r, base, size, &probe, &re) != 0)
		return err_set(e, -EINVAL, "%s: %s; it is not a repairable perf.data, nothing changed", path,
			       h->data.offset > size ? "the data section starts past the end of the file" : re.msg);
	reader_close(&r);
	/* Everything recover writes goes after the data: the data must come
	 * after the attrs and their ids (as perf and psrec lay them out), or
	 * the new table could land on them. */
	if (!meta_before(base, h))
		return err_set(e, -EINVAL, "%s: the data section starts before the end of the attrs or their ids; it is not a repairable perf.data, nothing changed",
			       path);
	return 0;
}

/*
 * Already right: the records perf knows end where the header says, every
 * feature is intact, and the whole data reads. Fills res's counts either
 * way (a repair counts again); data_size and unused_bytes when right.
 */
static bool already_right(const uint8_t *base, uint64_t size, const struct pd_file_header *h,
			  struct recover_result *res)
{
	struct walk w;
	uint64_t end = walk_records(base, h->data.offset, size, res, &w);
	struct entry kept[MAX_TABLE];
	bool all_ok = false;
	uint64_t data_end = h->data.offset + h->data.size;
	if (data_end >= h->data.offset && data_end <= size)
		intact_features(base, size, h, data_end, kept, &all_ok);
	if (!all_ok || end > data_end)
		return false;
	struct reader chk;
	struct err re = { "" };
	uint64_t compressed = res->compressed;
	int k = reader_open_mem(&chk, base, size, &re);
	if (k == 0) {
		k = count_records(&chk, res, &re);
		reader_close(&chk);
	}
	if (k != 0)
		return false;
	res->compressed = compressed;
	res->data_size = h->data.size;
	res->unused_bytes = size - data_end;
	return true;
}

int recover_file(const char *path, struct recover_result *res, struct err *e)
{
	memset(res, 0, sizeof(*res));
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	int err = 0;
	uint8_t *base = NULL;
	uint64_t size = 0;
	if (fstat(fd, &st) < 0) {
		err = err_set(e, -errno, "cannot stat %s: %s", path, strerror(errno));
		goto out;
	}
	size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode) || size < PD_FILE_HEADER_SIZE) {
		err = err_set(e, -EINVAL, "%s is not a perf.data file (%s); nothing changed", path,
			      S_ISREG(st.st_mode) ? "shorter than a perf.data header" : "not a regular file");
		goto out;
	}
	base = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		base = NULL;
		err = err_set(e, -errno, "cannot map %s: %s", path, strerror(errno));
		goto out;
	}
	struct pd_file_header h;
	memcpy(&h, base, sizeof(h));
	err = header_repairable(path, base, size, &h, e);
	if (err)
		goto out;
	res->old_data_size = h.data.size;
	if (!already_right(base, size, &h, res))
		err = repair(fd, path, base, size, &h, res, e);
out:
	if (base)
		munmap(base, size);
	close(fd);
	return err;
}
