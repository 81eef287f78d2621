/*
 * recover.c - in-place repair of a killed recording (see recover.h).
 */
#include "recover.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "psrec/perf_data.h"

/* Types perf 6.1 knows: a record of any other type ends the walk. */
static bool known_type(uint32_t t)
{
	return (t >= PD_RECORD_MMAP && t <= PD_RECORD_AUX_OUTPUT_HW_ID) ||
	       (t >= PD_RECORD_HEADER_ATTR && t < PD_RECORD_PERF61_MAX);
}

static int pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	const uint8_t *b = p;
	while (len) {
		ssize_t n = pwrite(fd, b, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Follows record boundaries through a decompressed byte stream that may
 * cut records (and even their headers) anywhere. */
struct stream_walk {
	uint8_t hdr[sizeof(struct pd_event_header)];
	size_t have;            /* header bytes collected */
	size_t left;            /* body bytes of the current record still to come */
};

static int stream_walk_feed(struct stream_walk *w, const uint8_t *p, size_t n)
{
	while (n) {
		if (w->left) {
			size_t k = n < w->left ? n : w->left;
			w->left -= k;
			p += k;
			n -= k;
			continue;
		}
		size_t k = sizeof(w->hdr) - w->have;
		if (k > n)
			k = n;
		memcpy(w->hdr + w->have, p, k);
		w->have += k;
		p += k;
		n -= k;
		if (w->have == sizeof(w->hdr)) {
			struct pd_event_header h;
			memcpy(&h, w->hdr, sizeof(h));
			if (h.size < sizeof(h))
				return -EINVAL;
			w->left = h.size - sizeof(h);
			w->have = 0;
		}
	}
	return 0;
}

static bool stream_walk_at_boundary(const struct stream_walk *w)
{
	return w->have == 0 && w->left == 0;
}

/*
 * Decompress every COMPRESSED record in [begin, end). *mmap_len gets the
 * largest output of one record (what perf sizes its buffer by, a bound
 * for any prefix too); *whole_end the end of the last record, at most
 * limit, after which the decompressed stream is at a record boundary: a
 * killed recorder can leave the stream cut inside a record whose rest was
 * in a COMPRESSED record that never reached the disk. -EINVAL when the
 * data does not decode.
 */
static int scan_compressed(const uint8_t *base, uint64_t begin, uint64_t end, uint64_t limit,
			   uint32_t *mmap_len, uint64_t *whole_end)
{
	size_t cap = 1 << 20, max = 0;
	uint8_t *out = malloc(cap);
	ZSTD_DStream *ds = ZSTD_createDStream();
	struct stream_walk w = { .have = 0 };
	int ret = 0;
	*whole_end = begin;
	if (!out || !ds) {
		ret = -ENOMEM;
		goto done;
	}
	for (uint64_t pos = begin; pos < end;) {
		struct pd_event_header h;
		memcpy(&h, base + pos, sizeof(h));
		if (h.type == PD_RECORD_COMPRESSED) {
			ZSTD_inBuffer in = { base + pos + 8, h.size - 8u, 0 };
			size_t got = 0;
			for (;;) {
				ZSTD_outBuffer o = { out, cap, 0 };
				size_t r = ZSTD_decompressStream(ds, &o, &in);
				if (ZSTD_isError(r) || stream_walk_feed(&w, out, o.pos) < 0) {
					ret = -EINVAL;
					goto done;
				}
				got += o.pos;
				if (in.pos == in.size && o.pos < o.size)
					break;
				if (got > (1u << 30)) {
					ret = -EINVAL;
					goto done;
				}
			}
			if (got > max)
				max = got;
		}
		pos += h.size;
		if (stream_walk_at_boundary(&w) && pos <= limit)
			*whole_end = pos;
	}
	*mmap_len = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
done:
	free(out);
	ZSTD_freeDStream(ds);
	return ret;
}

/* Walk the complete records of types perf knows in [begin, limit), count
 * them, and return where they end: at limit, or at the first record that
 * is cut short, impossibly sized or of an unknown type (where a feature
 * table or junk begins). */
static uint64_t walk_records(const uint8_t *base, uint64_t begin, uint64_t limit, struct recover_result *res)
{
	res->records = res->samples = res->compressed = 0;
	uint64_t pos = begin;
	while (limit - pos >= sizeof(struct pd_event_header)) {
		struct pd_event_header rh;
		memcpy(&rh, base + pos, sizeof(rh));
		if (rh.size < sizeof(rh) || rh.size > limit - pos || !known_type(rh.type))
			break;
		res->compressed += rh.type == PD_RECORD_COMPRESSED;
		res->samples += rh.type == PD_RECORD_SAMPLE;
		res->records++;
		pos += rh.size;
	}
	return pos;
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
	if (h.magic != PD_MAGIC || h.size != PD_FILE_HEADER_SIZE) {
		bool pipe = h.magic == PD_MAGIC && h.size == sizeof(struct pd_pipe_header);
		err = err_set(e, -EINVAL, pipe ? "%s is a pipe-format stream: it has no header to repair (perf reads it as it is)"
					       : "%s is not a perf.data file (bad magic or header size); nothing changed", path);
		goto out;
	}
	if (h.data.offset < PD_FILE_HEADER_SIZE || h.data.offset > size || h.attr_size < 80 ||
	    h.attrs.offset < PD_FILE_HEADER_SIZE || h.attrs.offset > size || h.attrs.size > size - h.attrs.offset ||
	    h.attrs.size == 0) {
		err = err_set(e, -EINVAL, "%s: the header's attrs or data section is not inside the file; it is not a repairable perf.data",
			      path);
		goto out;
	}

	uint64_t end = walk_records(base, h.data.offset, size, res);
	res->old_data_size = h.data.size;
	res->data_size = end - h.data.offset;
	res->unused_bytes = size - end;
	/* The header already ends the data here: a finished file (its
	 * feature table follows the data) or one killed right after a
	 * checkpoint. Leave it alone. */
	if (h.data.size == res->data_size)
		goto out;
	uint64_t bits[4] = { 0, 0, 0, 0 };
	struct { uint32_t ver, type, level, ratio, mmap_len; } comp = { 0, 1, 0, 0, 0 };
	struct pd_section table;
	if (res->compressed) {
		/* End where the stream is whole and the feature table (and its
		 * payload) still fits after the data. */
		size_t need = sizeof(table) + sizeof(comp);
		if (size - h.data.offset < need) {
			err = err_set(e, -ENOSPC, "%s: no room after the data for the COMPRESSED feature; nothing changed", path);
			goto out;
		}
		uint64_t whole_end;
		int serr = scan_compressed(base, h.data.offset, end, size - need, &comp.mmap_len, &whole_end);
		if (serr < 0) {
			err = err_set(e, serr, "%s: the compressed data does not decode; nothing changed", path);
			goto out;
		}
		end = walk_records(base, h.data.offset, whole_end, res);
	}
	res->data_size = end - h.data.offset;
	res->unused_bytes = size - end;

	/* The feature table first, then the header that points at it. */
	if (res->compressed) {
		if (comp.mmap_len == 0)
			comp.mmap_len = 1;
		res->mmap_len = comp.mmap_len;
		table.offset = end + sizeof(table);
		table.size = sizeof(comp);
		bits[PD_FEAT_COMPRESSED / 64] |= 1ULL << (PD_FEAT_COMPRESSED % 64);
		uint8_t tail[sizeof(table) + sizeof(comp)];
		memcpy(tail, &table, sizeof(table));
		memcpy(tail + sizeof(table), &comp, sizeof(comp));
		err = pwrite_all(fd, tail, sizeof(tail), end);
	}
	uint64_t dsize = res->data_size;
	if (!err)
		err = pwrite_all(fd, &dsize, sizeof(dsize), PD_HEADER_DATA_SIZE_OFFSET);
	if (!err)
		err = pwrite_all(fd, bits, sizeof(bits), offsetof(struct pd_file_header, features));
	if (!err)
		err = fsync(fd) < 0 ? -errno : 0;
	if (err)
		err = err_set(e, err, "cannot write %s: %s", path, strerror(-err));
	else
		res->changed = true;
out:
	if (base)
		munmap(base, size);
	close(fd);
	return err;
}
