/*
 * compress.c - COMPRESSED record writer (see compress.h).
 */
#include "compress.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format/walk.h"
#include "psrec/perf_data.h"
#include "util/iov.h"

/* Room a chunk may need beyond its input: record header, frame header,
 * block headers. */
#define CHUNK_OVERHEAD 128

int compress_init(struct compressor *c, int level, size_t max_span)
{
	memset(c, 0, sizeof(*c));
	c->cctx = ZSTD_createCCtx();
	if (!c->cctx)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level))) {
		compress_free(c);
		return -EINVAL;
	}
	/* Any one record fits a span, however small the ring: a caller
	 * cutting other data (the markers) into spans can always cut. */
	if (max_span < COMPRESS_SPAN_MIN)
		max_span = COMPRESS_SPAN_MIN;
	/* Two neighbouring chunks hold more than COMPRESS_CHUNK_MAX bytes
	 * (one closes only when the next record does not fit it). */
	c->max_chunks = 2 * (max_span / COMPRESS_CHUNK_MAX) + 3;
	c->out_cap = max_span + c->max_chunks * CHUNK_OVERHEAD;
	c->out = malloc(c->out_cap);
	c->chunk = calloc(c->max_chunks, sizeof(*c->chunk));
	if (!c->out || !c->chunk) {
		compress_free(c);
		return -ENOMEM;
	}
	c->max_span = max_span;
	c->level = level;
	return 0;
}

/*
 * Where the chunk starting at pos ends, and whether it goes out raw:
 * whole records up to COMPRESS_CHUNK_MAX bytes, or one bigger record on
 * its own. *blind is set for good once the framing breaks.
 */
static size_t chunk_end(const struct iovec *iov, int n, size_t total, size_t pos, bool *blind, bool *raw)
{
	*raw = false;
	size_t end = pos;
	while (!*blind && end < total) {
		struct pd_event_header h;
		if (walk_iov(iov, n, total, end, &h) != WALK_WHOLE) {
			*blind = true;
			break;
		}
		if (end - pos + h.size > COMPRESS_CHUNK_MAX) {
			if (end == pos) {
				*raw = true;
				end += h.size;
			}
			return end;
		}
		end += h.size;
	}
	if (*blind && end == pos)
		end = total - pos < COMPRESS_CHUNK_MAX ? total : pos + COMPRESS_CHUNK_MAX;
	return end;
}

/* Feed [pos, end) and flush it into one COMPRESSED record at c->out + at. */
static int compress_chunk(struct compressor *c, const struct iovec *iov, int n, size_t pos, size_t end,
			  size_t at, size_t *rec_len)
{
	struct iovec piece[2];
	int k = iov_slice(iov, n, pos, end - pos, piece, 2);
	if (k < 0)
		return -EINVAL;
	size_t room = c->out_cap - at - sizeof(struct pd_event_header);
	ZSTD_outBuffer out = { c->out + at + sizeof(struct pd_event_header),
			       room < COMPRESS_MAX_PAYLOAD ? room : COMPRESS_MAX_PAYLOAD, 0 };
	for (int i = 0; i < k; i++) {
		ZSTD_inBuffer in = { piece[i].iov_base, piece[i].iov_len, 0 };
		ZSTD_EndDirective mode = i == k - 1 ? ZSTD_e_flush : ZSTD_e_continue;
		for (;;) {
			size_t r = ZSTD_compressStream2(c->cctx, &out, &in, mode);
			if (ZSTD_isError(r))
				return -EIO;
			if (mode == ZSTD_e_flush ? r == 0 : in.pos == in.size)
				break;
			/* The bound in compress.h makes this unreachable. */
			if (out.pos == out.size)
				return -EIO;
		}
	}
	struct pd_event_header h = { PD_RECORD_COMPRESSED, 0, (uint16_t)(sizeof(h) + out.pos) };
	memcpy(c->out + at, &h, sizeof(h));
	*rec_len = sizeof(h) + out.pos;
	return 0;
}

int compress_span(struct compressor *c, const struct iovec *iov, int n, size_t *len)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	*len = 0;
	c->nr_chunks = 0;
	if (total > c->max_span)
		return -EINVAL;

	size_t pos = 0, at = 0;
	bool blind = false;
	while (pos < total) {
		bool raw;
		size_t end = chunk_end(iov, n, total, pos, &blind, &raw);
		if (c->nr_chunks == c->max_chunks || c->out_cap - at < end - pos + CHUNK_OVERHEAD)
			return -EIO;
		size_t rec_len;
		if (raw) {
			iov_copy(iov, n, pos, c->out + at, end - pos);
			rec_len = end - pos;
			c->raw_records++;
		} else {
			int err = compress_chunk(c, iov, n, pos, end, at, &rec_len);
			if (err)
				return err;
		}
		at += rec_len;
		pos = end;
		c->chunk[c->nr_chunks++] = (struct compress_chunk){ at, pos };
	}
	*len = at;
	c->in_bytes += total;
	c->out_bytes += at;
	return 0;
}

void compress_reset(struct compressor *c)
{
	ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_only);
}

size_t compress_input_kept(const struct compressor *c, size_t out_kept)
{
	size_t in = 0;
	for (size_t i = 0; i < c->nr_chunks && c->chunk[i].out_end <= out_kept; i++)
		in = c->chunk[i].in_end;
	return in;
}

uint32_t compress_ratio(const struct compressor *c)
{
	if (c->out_bytes == 0)
		return 0;
	uint64_t r = c->in_bytes / c->out_bytes;
	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

void compress_free(struct compressor *c)
{
	ZSTD_freeCCtx(c->cctx);
	free(c->out);
	free(c->chunk);
	memset(c, 0, sizeof(*c));
}
