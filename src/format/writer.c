/*
 * writer.c - perf.data writer (see writer.h for the layout and guarantees).
 */
#include "writer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* pwrite all of buf at off, retrying short writes and EINTR. */
static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * pwritev all iovecs at off. A short write leaves the vector partially
 * consumed; we advance through a private copy so the caller's iovecs stay
 * intact. Vectors longer than IOV_MAX are written in slices.
 */
static int writev_at(int fd, const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct iovec local[64];
	int i = 0;

	while (i < iovcnt) {
		int n = iovcnt - i;
		if (n > (int)(sizeof(local) / sizeof(local[0])))
			n = (int)(sizeof(local) / sizeof(local[0]));
		memcpy(local, iov + i, (size_t)n * sizeof(*iov));
		struct iovec *v = local;
		int cnt = n;
		while (cnt > 0) {
			ssize_t w = pwritev(fd, v, cnt, (off_t)off);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (w == 0)
				return -EIO;
			off += (uint64_t)w;
			size_t left = (size_t)w;
			while (cnt > 0 && left >= v->iov_len) {
				left -= v->iov_len;
				v++;
				cnt--;
			}
			if (cnt > 0) {
				v->iov_base = (uint8_t *)v->iov_base + left;
				v->iov_len -= left;
			}
		}
		i += n;
	}
	return 0;
}

int writer_begin(struct writer *w, int fd, const struct writer_event *ev, size_t nr)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	if (nr == 0)
		return -EINVAL;

	uint64_t nr_ids = 0;
	for (size_t i = 0; i < nr; i++)
		nr_ids += ev[i].nr_ids;

	uint64_t ids_off = PD_FILE_HEADER_SIZE;
	uint64_t attrs_off = ids_off + nr_ids * sizeof(uint64_t);
	uint64_t data_off = attrs_off + nr * PD_FILE_ATTR_SIZE;

	/* One buffer for ids + attrs: they are written once, before any data. */
	size_t len = (size_t)(data_off - ids_off);
	uint8_t *area = calloc(1, len);
	if (!area)
		return -ENOMEM;
	uint64_t id_pos = ids_off;
	for (size_t i = 0; i < nr; i++) {
		struct pd_file_attr fa;
		memcpy(&fa.attr, ev[i].attr, sizeof(fa.attr));
		fa.attr.size = PD_ATTR_SIZE;
		fa.ids.offset = ev[i].nr_ids ? id_pos : 0;
		fa.ids.size = ev[i].nr_ids * sizeof(uint64_t);
		if (fa.ids.size)
			memcpy(area + (id_pos - ids_off), ev[i].ids, fa.ids.size);
		id_pos += fa.ids.size;
		memcpy(area + (attrs_off - ids_off) + i * PD_FILE_ATTR_SIZE, &fa, sizeof(fa));
	}

	w->hdr.magic = PD_MAGIC;
	w->hdr.size = PD_FILE_HEADER_SIZE;
	w->hdr.attr_size = PD_FILE_ATTR_SIZE;
	w->hdr.attrs.offset = attrs_off;
	w->hdr.attrs.size = nr * PD_FILE_ATTR_SIZE;
	w->hdr.data.offset = data_off;
	w->hdr.data.size = 0;

	int err = write_at(fd, &w->hdr, sizeof(w->hdr), 0);
	if (!err)
		err = write_at(fd, area, len, ids_off);
	free(area);
	if (err)
		return err;
	w->data_offset = data_off;
	w->end = data_off;
	return 0;
}

int writer_append(struct writer *w, const struct iovec *iov, int iovcnt)
{
	if (w->error)
		return w->error;
	size_t total = 0;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total == 0)
		return 0;
	int err = writev_at(w->fd, iov, iovcnt, w->end);
	if (err) {
		w->error = err;
		return err;
	}
	w->end += total;
	return 0;
}

int writer_checkpoint(struct writer *w)
{
	uint64_t size = writer_data_size(w);
	if (size == w->committed)
		return 0;
	int err = write_at(w->fd, &size, sizeof(size), PD_HEADER_DATA_SIZE_OFFSET);
	if (err)
		return err;
	w->committed = size;
	return 0;
}

static int write_features(struct writer *w, const struct writer_feature *f, size_t nr,
			  uint64_t bits[4], uint64_t *file_end)
{
	for (size_t i = 0; i < nr; i++) {
		if (f[i].id >= PD_FEAT_BITS || (i > 0 && f[i].id <= f[i - 1].id))
			return -EINVAL;
	}
	size_t table_len = nr * sizeof(struct pd_section);
	struct pd_section *table = calloc(nr ? nr : 1, sizeof(*table));
	if (!table)
		return -ENOMEM;
	uint64_t off = w->end + table_len;
	for (size_t i = 0; i < nr; i++) {
		table[i].offset = off;
		table[i].size = f[i].len;
		off += f[i].len;
	}
	int err = write_at(w->fd, table, table_len, w->end);
	for (size_t i = 0; i < nr && !err; i++)
		err = write_at(w->fd, f[i].data, f[i].len, table[i].offset);
	free(table);
	if (err)
		return err;
	for (size_t i = 0; i < nr; i++)
		bits[f[i].id / 64] |= 1ULL << (f[i].id % 64);
	*file_end = off;
	return 0;
}

int writer_finish(struct writer *w, const struct writer_feature *f, size_t nr,
		  int *features_error)
{
	uint64_t bits[4] = { 0, 0, 0, 0 };
	uint64_t file_end = w->end;

	*features_error = 0;
	/* Drop a partial append first: it frees room for the features. */
	if (w->error && ftruncate(w->fd, (off_t)w->end) < 0)
		return -errno;
	int ferr = write_features(w, f, nr, bits, &file_end);
	if (ferr) {
		memset(bits, 0, sizeof(bits));
		file_end = w->end;
	}
	/* Best effort: a pipe or special file cannot be truncated. */
	int terr = ftruncate(w->fd, (off_t)file_end);
	(void)terr;

	w->hdr.data.size = writer_data_size(w);
	memcpy(w->hdr.features, bits, sizeof(bits));
	*features_error = ferr;
	int err = write_at(w->fd, &w->hdr, sizeof(w->hdr), 0);
	if (err)
		return err;
	w->committed = w->hdr.data.size;
	return 0;
}
