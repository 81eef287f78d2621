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

#include "format/feature.h"
#include "format/sample.h"
#include "format/walk.h"
#include "util/io.h"
#include "util/vec.h"

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

/* mmap_len from a COMPRESSED feature payload, if it is a usable one. */
static void take_mmap_len(struct reader *r, const uint8_t *p, size_t len)
{
	uint32_t mmap_len;
	if (feature_compressed_mmap_len(p, len, &mmap_len))
		r->mmap_len = mmap_len > ZDECODE_MAX_RECORD ? ZDECODE_MAX_RECORD : mmap_len;
}

/*
 * mmap_len from the COMPRESSED feature, if there is a usable one. A
 * missing or broken feature is not an error here (perf too only fails once
 * it meets a COMPRESSED record); decompress() reports it then. A
 * HEADER_FEATURE record in the data can supply it too (reader_next).
 */
static void read_mmap_len(struct reader *r)
{
	const uint8_t *p;
	size_t len;
	struct err ignored;
	if (reader_feature(r, PD_FEAT_COMPRESSED, &p, &len, &ignored) == 0)
		take_mmap_len(r, p, len);
}

/* Pipe format: attrs and features come as records; collect them all. */
static int open_pipe(struct reader *r, struct err *e)
{
	r->pipe = true;
	r->data_begin = r->pos = sizeof(struct pd_pipe_header);
	r->data_end = r->len;

	size_t nr = 0, nr_ids = 0;
	uint64_t pos = r->data_begin;
	struct pd_event_header h;
	/* Up to the first record that is not whole: reader_next reports it. */
	while (walk_mem(r->base, r->len, pos, &h) == WALK_WHOLE) {
		uint64_t trailer = walk_trailer(r->base + pos, &h);
		if (h.type == PD_RECORD_HEADER_ATTR) {
			uint32_t asz;
			if (h.size < 8 + ATTR_SIZE_VER0)
				return err_set(e, -EINVAL, "HEADER_ATTR record at offset %" PRIu64 " is too short (%u bytes)", pos, h.size);
			memcpy(&asz, r->base + pos + 12, 4);
			if (asz == 0)
				asz = ATTR_SIZE_VER0;
			if (asz < ATTR_SIZE_VER0 || (uint64_t)asz + 8 > h.size)
				return err_set(e, -EINVAL, "HEADER_ATTR record at offset %" PRIu64 " has attr size %u, record size %u",
					       pos, asz, h.size);
			nr++;
			nr_ids += (h.size - 8 - asz) / 8;
		} else if (h.type == PD_RECORD_HEADER_FEATURE && h.size >= 16) {
			uint64_t feat;
			memcpy(&feat, r->base + pos + 8, 8);
			if (feat < PD_FEAT_BITS) {
				r->pipe_feat[feat].p = r->base + pos + 16;
				r->pipe_feat[feat].len = h.size - 16u;
			}
		} else if (h.type == PD_RECORD_HEADER_TRACING_DATA) {
			if (trailer > r->len - pos - h.size)
				break;
			r->pipe_feat[PD_FEAT_TRACING_DATA].p = r->base + pos + h.size;
			r->pipe_feat[PD_FEAT_TRACING_DATA].len = (size_t)trailer;
		}
		pos += h.size + trailer;
	}
	if (nr == 0 && pos == r->data_begin) {
		/* Not one whole record: a stream whose writer was killed at
		 * once. Empty, as perf reads it, not malformed. */
		r->data_end = r->data_begin;
		return 0;
	}
	if (nr == 0)
		return err_set(e, -EINVAL, "pipe-format stream has no HEADER_ATTR record (offset 16)");
	r->attrs = calloc(nr, sizeof(*r->attrs));
	r->id_store = calloc(nr_ids ? nr_ids : 1, sizeof(uint64_t));
	if (!r->attrs || !r->id_store)
		return -ENOMEM;
	uint64_t *dst = r->id_store;
	pos = r->data_begin;
	while (r->nr_attrs < nr && walk_mem(r->base, r->len, pos, &h) == WALK_WHOLE) {
		if (h.type == PD_RECORD_HEADER_ATTR) {
			struct reader_attr *a = &r->attrs[r->nr_attrs++];
			uint32_t asz;
			memcpy(&asz, r->base + pos + 12, 4);
			if (asz == 0)
				asz = ATTR_SIZE_VER0;
			memcpy(&a->attr, r->base + pos + 8, asz < PD_ATTR_SIZE ? asz : PD_ATTR_SIZE);
			a->nr_ids = (h.size - 8 - asz) / 8;
			memcpy(dst, r->base + pos + 8 + asz, a->nr_ids * 8);
			a->ids = dst;
			dst += a->nr_ids;
		}
		pos += h.size + walk_trailer(r->base + pos, &h);
	}
	return 0;
}

static int open_file_format(struct reader *r, struct err *e);

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
	if (hsize == sizeof(struct pd_pipe_header)) {
		int err = open_pipe(r, e);
		if (err)
			reader_close(r);
		else
			read_mmap_len(r);
		return err;
	}
	if (hsize != PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "unsupported header size %" PRIu64 " at offset 8 (expected 104)", hsize);
	if (len < PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "truncated header: file has %zu bytes, header needs 104", len);
	memcpy(&r->hdr, p, sizeof(r->hdr));
	return open_file_format(r, e);
}

int reader_open_mem_as(struct reader *r, const void *p, size_t len, const struct pd_file_header *hdr,
		       struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->base = p;
	r->len = len;
	if (len < PD_FILE_HEADER_SIZE || hdr->magic != PD_MAGIC || hdr->size != PD_FILE_HEADER_SIZE)
		return err_set(e, -EINVAL, "not a perf.data file header");
	r->hdr = *hdr;
	return open_file_format(r, e);
}

/* The checks of a file-format header in r->hdr, then the attrs. */
static int open_file_format(struct reader *r, struct err *e)
{
	size_t len = r->len;
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
	r->released = 0;
	read_mmap_len(r);
	return 0;
}

/* Read all of standard input (a pipe) into memory. */
static int slurp_stdin(uint8_t **out, size_t *len, struct err *e)
{
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL;
	for (;;) {
		if (VEC_RESERVE(buf, cap, n, 1, 1 << 20)) {
			free(buf);
			return -ENOMEM;
		}
		size_t k;
		int code = io_read_all(STDIN_FILENO, buf + n, cap - n, &k);
		if (code) {
			free(buf);
			return err_set(e, code, "cannot read standard input: %s", strerror(-code));
		}
		n += k;
		if (n < cap)
			break; /* the input ended */
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Map fd (a regular file) read-only and open it; name is for messages. */
static int open_fd(struct reader *r, int fd, const char *name, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_set(e, -errno, "cannot stat %s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(e, -EINVAL, "%s is not a regular file", name);
	size_t len = (size_t)st.st_size;
	void *p = NULL;
	if (len > 0) {
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return err_set(e, -errno, "cannot map %s: %s", name, strerror(errno));
		/* passes go front to back: read ahead, fewer faults */
		madvise(p, len, MADV_SEQUENTIAL);
	}
	int err = reader_open_mem(r, p ? p : "", len, e);
	if (err) {
		if (p)
			munmap(p, len);
		return err;
	}
	r->mapped = r->release = p != NULL;
	return 0;
}

/*
 * A stream on standard input is spooled into an unnamed temporary file
 * (O_TMPFILE under $TMPDIR or /tmp) and mapped like a file, so reading it
 * costs disk, not memory: a pipe from a long perf record stays bounded.
 * -EOPNOTSUPP when no such file can be made (the caller reads it into
 * memory then).
 */
static int spool_stdin(int *out, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && dir && *dir)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -EOPNOTSUPP;
	static const size_t chunk = 1 << 20;
	uint8_t *buf = malloc(chunk);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	int err = 0;
	uint64_t off = 0;
	for (;;) {
		size_t k;
		err = io_read_all(STDIN_FILENO, buf, chunk, &k);
		if (err) {
			err_set(e, err, "cannot read standard input: %s", strerror(-err));
			break;
		}
		if (k && (err = io_pwrite_all(fd, buf, k, (off_t)off)) != 0) {
			err_set(e, err, "cannot spool standard input to a temporary file: %s", strerror(-err));
			break;
		}
		off += k;
		if (k < chunk)
			break;
	}
	free(buf);
	if (err) {
		close(fd);
		return err;
	}
	*out = fd;
	return 0;
}

int reader_open_file(struct reader *r, const char *path, struct err *e)
{
	memset(r, 0, sizeof(*r));
	if (strcmp(path, "-") == 0) {
		struct stat st;
		/* "< FILE": map it as it is. */
		if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && lseek(STDIN_FILENO, 0, SEEK_CUR) == 0)
			return open_fd(r, STDIN_FILENO, "standard input", e);
		int fd;
		int err = spool_stdin(&fd, e);
		if (err == 0) {
			err = open_fd(r, fd, "standard input", e);
			close(fd);
			return err;
		}
		if (err != -EOPNOTSUPP)
			return err;
		uint8_t *buf = NULL;
		size_t len = 0;
		err = slurp_stdin(&buf, &len, e);
		if (err)
			return err;
		err = reader_open_mem(r, buf, len, e);
		if (err) {
			free(buf);
			return err;
		}
		r->owned = buf;
		return 0;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	int err = open_fd(r, fd, path, e);
	close(fd);
	return err;
}

void reader_close(struct reader *r)
{
	if (r->mapped)
		munmap((void *)r->base, r->len);
	free(r->owned);
	zdecode_free(&r->z);
	free(r->attrs);
	free(r->id_store);
	memset(r, 0, sizeof(*r));
}

void reader_rewind(struct reader *r)
{
	/* What the last pass kept is dropped too: the next pass maps it in
	 * again from the start, as it goes. */
	if (r->release && r->len > (r->released & ~(uint64_t)4095)) {
		uint64_t start = r->released & ~(uint64_t)4095;
		madvise((void *)(uintptr_t)(r->base + start), r->len - start, MADV_DONTNEED);
	}
	r->pos = r->data_begin;
	r->released = 0;
	r->dpos = 0;
	zdecode_reset(&r->z);
}

/* A COMPRESSED record: its payload becomes the decoder's input, decoded
 * as its records are taken (next_decompressed). */
static int decompress(struct reader *r, const struct reader_record *c, struct err *e)
{
	if (r->mmap_len == 0)
		return err_set(e, -EINVAL, "COMPRESSED record at offset %" PRIu64 " but no usable zstd COMPRESSED feature to size it "
			       "(perf cannot read this either; psrec recover can add it)", c->offset);
	zdecode_input(&r->z, c->data + sizeof(struct pd_event_header), c->size - sizeof(struct pd_event_header));
	r->dsrc = c->offset;
	r->nr_compressed++;
	return 0;
}

/*
 * The next record held in decompressed data: 1, 0 (the COMPRESSED record
 * is used up: the next one continues what is left), -EINVAL. The output
 * comes a piece at a time: when the buffer holds no whole record, what is
 * left of one moves to its start and the decoder fills the rest. A record
 * may decode to mmap_len in all (what perf sizes its buffer by; it fails
 * past that too), counted, never held.
 */
static int next_decompressed(struct reader *r, struct reader_record *rec, struct err *e)
{
	for (;;) {
		struct pd_event_header h;
		enum walk_verdict v = walk_mem(r->z.buf, r->z.len, r->dpos, &h);
		if (v == WALK_BAD)
			return err_set(e, -EINVAL, "record of impossible size %u inside the COMPRESSED record at offset %" PRIu64,
				       h.size, r->dsrc);
		if (v == WALK_WHOLE) {
			rec->offset = r->dsrc;
			rec->compressed = true;
			rec->type = h.type;
			rec->misc = h.misc;
			rec->size = h.size;
			rec->data = r->z.buf + r->dpos;
			r->dpos += h.size;
			return 1;
		}
		size_t rem = r->z.len - r->dpos;
		if (rem && r->dpos)
			memmove(r->z.buf, r->z.buf + r->dpos, rem);
		r->z.len = rem;
		r->dpos = 0;
		const char *why = "";
		int err = zdecode_step(&r->z, r->mmap_len, &why);
		if (err == -EBADMSG)
			return err_set(e, -EINVAL, "COMPRESSED record at offset %" PRIu64 ": %s", r->dsrc, why);
		if (err == -EFBIG && r->mmap_len == ZDECODE_MAX_RECORD)
			return err_set(e, -EINVAL, "COMPRESSED record at offset %" PRIu64 " decompresses to more than %u bytes, "
				       "the most psrec decodes of one record whatever mmap_len says", r->dsrc, ZDECODE_MAX_RECORD);
		if (err == -EFBIG)
			return err_set(e, -EINVAL, "COMPRESSED record at offset %" PRIu64 " decompresses to more than the feature's mmap_len %zu",
				       r->dsrc, r->mmap_len);
		if (err <= 0)
			return err;
	}
}

static int next_raw(struct reader *r, struct reader_record *rec, struct err *e);

/* A mapped file's pages already read are dropped from memory every
 * READER_RELEASE bytes, so a pass over a 10 GB recording does not grow
 * the reader's resident set to 10 GB (they fault back in from the file if
 * touched again, after a rewind say). */
#define READER_RELEASE ((uint64_t)4 << 20)
static void release_behind(struct reader *r)
{
	if (!r->release || r->pos < r->released + 2 * READER_RELEASE)
		return;
	uint64_t end = (r->pos - READER_RELEASE) & ~(uint64_t)4095;
	uint64_t start = r->released & ~(uint64_t)4095;
	if (end > start)
		madvise((void *)(uintptr_t)(r->base + start), end - start, MADV_DONTNEED);
	r->released = end;
}

int reader_next(struct reader *r, struct reader_record *rec, struct err *e)
{
	for (;;) {
		int k = next_decompressed(r, rec, e);
		if (k < 0)
			r->error_at = r->dsrc;
		if (k != 0)
			return k;
		k = next_raw(r, rec, e);
		if (k <= 0) {
			if (k < 0)
				r->error_at = r->pos;
			if (k == 0 && r->z.len > r->dpos) {
				r->error_at = r->dsrc;
				return err_set(e, -EINVAL, "compressed data ends inside a record (COMPRESSED record at offset %" PRIu64 ")",
					       r->dsrc);
			}
			return k;
		}
		/* perf takes a feature record in file mode too, when it meets it
		 * (psrec writes COMPRESSED so, for killed recordings). */
		if (rec->type == PD_RECORD_HEADER_FEATURE && rec->size >= 16) {
			uint64_t feat;
			memcpy(&feat, rec->data + 8, sizeof(feat));
			if (feat == PD_FEAT_COMPRESSED)
				take_mmap_len(r, rec->data + 16, rec->size - 16u);
		}
		if (rec->type != PD_RECORD_COMPRESSED)
			return 1;
		k = decompress(r, rec, e);
		if (k) {
			r->error_at = rec->offset;
			return k;
		}
	}
}

static int next_raw(struct reader *r, struct reader_record *rec, struct err *e)
{
	struct pd_event_header h;
	switch (walk_mem(r->base, r->data_end, r->pos, &h)) {
	case WALK_END:
		return 0;
	case WALK_SHORT:
		return err_set(e, -EINVAL, "truncated record header at offset %" PRIu64 " (%" PRIu64 " bytes left in the data section)",
			       r->pos, r->data_end - r->pos);
	case WALK_BAD:
		return err_set(e, -EINVAL, "record at offset %" PRIu64 " has impossible size %u", r->pos, h.size);
	case WALK_CUT:
		return err_set(e, -EINVAL, "record at offset %" PRIu64 " (type %u, size %u) runs past the end of the data section at %" PRIu64,
			       r->pos, h.type, h.size, r->data_end);
	case WALK_WHOLE:
		break;
	}
	rec->offset = r->pos;
	rec->compressed = false;
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	rec->data = r->base + r->pos;
	uint64_t trailer = walk_trailer(rec->data, &h);
	if (trailer > r->data_end - r->pos - h.size)
		return err_set(e, -EINVAL, "record at offset %" PRIu64 " (type %u) is followed by %" PRIu64 " bytes of data past the end at %" PRIu64,
			       r->pos, h.type, trailer, r->data_end);
	r->pos += h.size + trailer;
	release_behind(r);
	return 1;
}

bool reader_has_feature(const struct reader *r, unsigned feat)
{
	if (feat >= PD_FEAT_BITS)
		return false;
	if (r->pipe)
		return r->pipe_feat[feat].p != NULL;
	return pd_feature_isset(r->hdr.features, feat);
}

int reader_feature(const struct reader *r, unsigned feat, const uint8_t **p, size_t *len,
		   struct err *e)
{
	if (r->pipe) {
		if (feat >= PD_FEAT_BITS || !r->pipe_feat[feat].p)
			return -ENOENT;
		*p = r->pipe_feat[feat].p;
		*len = r->pipe_feat[feat].len;
		return 0;
	}
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
	bool sample = rec->type == PD_RECORD_SAMPLE;
	if (!sample && !(rec->type < PD_RECORD_KERNEL_MAX && (r->attrs[0].attr.flags & PD_ATTR_SAMPLE_ID_ALL)))
		return &r->attrs[0];
	struct sample s;
	int err = 0;
	/* IDENTIFIER is a sample's first field and a trailer's last: no
	 * parse for the common case (every record is asked this). */
	if ((st & PD_SAMPLE_IDENTIFIER) && rec->size >= 16)
		memcpy(&s.id, rec->data + (sample ? 8 : rec->size - 8u), 8);
	else if (sample)
		err = sample_parse(st & ~(PD_SAMPLE_READ | PD_SAMPLE_CALLCHAIN), rec->data, rec->size, &s);
	else
		err = sample_parse_id_trailer(st, rec->data, rec->size, &s);
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
