/*
 * reader.c - perf.data iteration (see reader.h).
 *
 * Validation mirrors what perf's reader checks (perf-data-format.md 1.1,
 * 1.2) and adds what it does not: every section and record must lie inside
 * the input. Attrs are walked the way perf walks them: attr.size bytes of
 * attr (0 means 64), then the 16-byte ids section right after them.
 */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/sample.h"

#define ATTR_SIZE_VER0 64

/* off + len lies within [0, total]; no overflow. */
static bool in_bounds(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

static int parse_attrs(struct reader *r, struct err *e)
{
	const struct pd_file_header *h = &r->hdr;
	uint64_t stride = h->attr_size;

	if (stride < ATTR_SIZE_VER0 + 16 || stride > 4096)
		return err_set(e, -EINVAL, "bad attr_size %" PRIu64 " in header at offset 16", stride);
	if (!in_bounds(h->attrs.offset, h->attrs.size, r->len))
		return err_set(e, -EINVAL, "attrs section [%" PRIu64 ", +%" PRIu64 ") at offset 24 lies outside the %zu-byte file",
			       h->attrs.offset, h->attrs.size, r->len);
	if (h->attrs.size % stride != 0 || h->attrs.size == 0)
		return err_set(e, -EINVAL, "attrs section size %" PRIu64 " at offset 32 is not a non-zero multiple of attr_size %" PRIu64,
			       h->attrs.size, stride);
	if (h->attrs.offset < PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "attrs section at %" PRIu64 " overlaps the header", h->attrs.offset);

	size_t nr = (size_t)(h->attrs.size / stride);
	r->attrs = calloc(nr, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	r->nr_attrs = nr;

	uint64_t total_ids = 0;
	for (size_t i = 0; i < nr; i++) {
		uint64_t off = h->attrs.offset + i * stride;
		const uint8_t *p = r->base + off;
		uint32_t asz;
		memcpy(&asz, p + 4, sizeof(asz));
		if (asz == 0)
			asz = ATTR_SIZE_VER0;
		if (asz < ATTR_SIZE_VER0 || (uint64_t)asz + 16 > stride)
			return err_set(e, -EINVAL, "attr %zu at offset %" PRIu64 " has size %u, which does not fit attr_size %" PRIu64,
				       i, off, asz, stride);
		memcpy(&r->attrs[i].attr, p, asz < PD_ATTR_SIZE ? asz : PD_ATTR_SIZE);
		struct pd_section ids;
		memcpy(&ids, p + asz, sizeof(ids));
		if (ids.size % 8 != 0 || !in_bounds(ids.offset, ids.size, r->len))
			return err_set(e, -EINVAL, "ids of attr %zu (section at offset %" PRIu64 ") lie outside the file",
				       i, off + asz);
		r->attrs[i].nr_ids = (size_t)(ids.size / 8);
		total_ids += ids.size / 8;
	}

	/* Copy ids to aligned storage: the file does not promise alignment. */
	r->id_store = calloc(total_ids ? total_ids : 1, sizeof(uint64_t));
	if (!r->id_store)
		return -ENOMEM;
	uint64_t *dst = r->id_store;
	for (size_t i = 0; i < nr; i++) {
		uint64_t off = h->attrs.offset + i * stride;
		uint32_t asz = r->attrs[i].attr.size ? r->attrs[i].attr.size : ATTR_SIZE_VER0;
		struct pd_section ids;
		memcpy(&ids, r->base + off + asz, sizeof(ids));
		memcpy(dst, r->base + ids.offset, ids.size);
		r->attrs[i].ids = dst;
		dst += ids.size / 8;
	}
	return 0;
}

int reader_open_mem(struct reader *r, const void *p, size_t len, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->base = p;
	r->len = len;

	if (len < 16)
		return err_set(e, -EINVAL, "not a perf.data file: only %zu bytes", len);
	uint64_t magic;
	memcpy(&magic, p, sizeof(magic));
	if (magic == PD_MAGIC_SWAPPED)
		return err_set(e, -ENOTSUP, "perf.data of the other byte order is not supported (magic at offset 0)");
	if (magic != PD_MAGIC)
		return err_set(e, -EINVAL, "not a perf.data file (bad magic at offset 0)");
	uint64_t hsize;
	memcpy(&hsize, (const uint8_t *)p + 8, sizeof(hsize));
	if (hsize == sizeof(struct pd_pipe_header))
		return err_set(e, -ENOTSUP, "pipe-format perf.data is not supported yet (header size 16 at offset 8)");
	if (hsize != PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "unsupported header size %" PRIu64 " at offset 8 (expected 104)", hsize);
	if (len < PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "truncated header: file has %zu bytes, header needs 104", len);
	memcpy(&r->hdr, p, sizeof(r->hdr));

	const struct pd_file_header *h = &r->hdr;
	if (!in_bounds(h->data.offset, h->data.size, len))
		return err_set(e, -EINVAL, "data section [%" PRIu64 ", +%" PRIu64 ") at offset 40 extends past the end of the %zu-byte file (truncated?)",
			       h->data.offset, h->data.size, len);
	if (h->data.offset < PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "data section at %" PRIu64 " overlaps the header", h->data.offset);
	int err = parse_attrs(r, e);
	if (err) {
		reader_close(r);
		return err;
	}
	if (h->attrs.offset < h->data.offset + h->data.size &&
	    h->data.offset < h->attrs.offset + h->attrs.size) {
		reader_close(r);
		return err_set(e, -EINVAL, "attrs and data sections overlap (offsets %" PRIu64 " and %" PRIu64 ")",
			       h->attrs.offset, h->data.offset);
	}
	r->data_begin = h->data.offset;
	r->data_end = h->data.offset + h->data.size;
	r->pos = r->data_begin;
	return 0;
}

int reader_open_file(struct reader *r, const char *path, struct err *e)
{
	memset(r, 0, sizeof(*r));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int code = -errno;
		close(fd);
		return err_set(e, code, "cannot stat %s: %s", path, strerror(-code));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, -EINVAL, "%s is not a regular file", path);
	}
	size_t len = (size_t)st.st_size;
	void *p = NULL;
	if (len > 0) {
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int code = -errno;
			close(fd);
			return err_set(e, code, "cannot map %s: %s", path, strerror(-code));
		}
	}
	close(fd);
	int err = reader_open_mem(r, p ? p : "", len, e);
	if (err) {
		if (p)
			munmap(p, len);
		return err;
	}
	r->mapped = p != NULL;
	return 0;
}

void reader_close(struct reader *r)
{
	if (r->mapped)
		munmap((void *)r->base, r->len);
	free(r->attrs);
	free(r->id_store);
	memset(r, 0, sizeof(*r));
}

void reader_rewind(struct reader *r)
{
	r->pos = r->data_begin;
}

int reader_next(struct reader *r, struct reader_record *rec, struct err *e)
{
	if (r->pos >= r->data_end)
		return 0;
	uint64_t left = r->data_end - r->pos;
	if (left < sizeof(struct pd_event_header))
		return err_set(e, -EINVAL, "truncated record header at offset %" PRIu64 " (%" PRIu64 " bytes left in the data section)",
			       r->pos, left);
	struct pd_event_header h;
	memcpy(&h, r->base + r->pos, sizeof(h));
	if (h.size < sizeof(h))
		return err_set(e, -EINVAL, "record at offset %" PRIu64 " has impossible size %u", r->pos, h.size);
	if (h.size > left)
		return err_set(e, -EINVAL, "record at offset %" PRIu64 " (type %u, size %u) runs past the end of the data section at %" PRIu64,
			       r->pos, h.type, h.size, r->data_end);
	rec->offset = r->pos;
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	rec->data = r->base + r->pos;
	r->pos += h.size;
	return 1;
}

bool reader_has_feature(const struct reader *r, unsigned feat)
{
	if (feat >= PD_FEAT_BITS)
		return false;
	return (r->hdr.features[feat / 64] >> (feat % 64)) & 1;
}

int reader_feature(const struct reader *r, unsigned feat, const uint8_t **p, size_t *len,
		   struct err *e)
{
	if (!reader_has_feature(r, feat))
		return -ENOENT;
	/* The k-th table entry belongs to the k-th set bit (ascending). */
	uint64_t k = 0;
	for (unsigned b = 0; b < feat; b++)
		k += reader_has_feature(r, b);
	uint64_t ent = r->data_end + k * sizeof(struct pd_section);
	if (!in_bounds(ent, sizeof(struct pd_section), r->len))
		return err_set(e, -EINVAL, "feature %u: table entry at offset %" PRIu64 " lies outside the file", feat, ent);
	struct pd_section s;
	memcpy(&s, r->base + ent, sizeof(s));
	if (!in_bounds(s.offset, s.size, r->len))
		return err_set(e, -EINVAL, "feature %u: payload [%" PRIu64 ", +%" PRIu64 ") (table entry at offset %" PRIu64 ") lies outside the file",
			       feat, s.offset, s.size, ent);
	*p = r->base + s.offset;
	*len = (size_t)s.size;
	return 0;
}

const struct reader_attr *reader_record_attr(const struct reader *r, const struct reader_record *rec)
{
	if (r->nr_attrs == 1)
		return &r->attrs[0];
	uint64_t st = r->attrs[0].attr.sample_type;
	struct sample s;
	int err;
	if (rec->type == PD_RECORD_SAMPLE)
		err = sample_parse(st & ~(PD_SAMPLE_READ | PD_SAMPLE_CALLCHAIN), rec->data, rec->size, &s);
	else if (rec->type < PD_RECORD_KERNEL_MAX && (r->attrs[0].attr.flags & PD_ATTR_SAMPLE_ID_ALL))
		err = sample_parse_id_trailer(st, rec->data, rec->size, &s);
	else
		return &r->attrs[0];
	if (err)
		return NULL;
	if (s.id == 0)
		return &r->attrs[0];
	for (size_t i = 0; i < r->nr_attrs; i++)
		for (size_t j = 0; j < r->attrs[i].nr_ids; j++)
			if (r->attrs[i].ids[j] == s.id)
				return &r->attrs[i];
	return NULL;
}

int reader_string(const uint8_t *p, size_t len, const char **s, size_t *slen, size_t *used)
{
	if (len < 4)
		return -EINVAL;
	uint32_t n;
	memcpy(&n, p, sizeof(n));
	if (n > len - 4)
		return -EINVAL;
	const uint8_t *str = p + 4;
	const uint8_t *nul = memchr(str, 0, n);
	*s = (const char *)str;
	*slen = nul ? (size_t)(nul - str) : n;
	*used = 4 + (size_t)n;
	return 0;
}
