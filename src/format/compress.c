/*
 * compress.c - COMPRESSED record writer (see compress.h).
 */
#include "compress.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "psrec/perf_data.h"

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
	/* Worst case: incompressible data, plus a header per record. */
	size_t bound = ZSTD_compressBound(max_span);
	size_t records = bound / COMPRESS_MAX_PAYLOAD + 2;
	c->out_cap = bound + records * sizeof(struct pd_event_header) + 64;
	c->out = malloc(c->out_cap);
	if (!c->out) {
		compress_free(c);
		return -ENOMEM;
	}
	c->max_span = max_span;
	c->level = level;
	return 0;
}

int compress_span(struct compressor *c, const struct iovec *iov, int n, size_t *len)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	*len = 0;
	if (total > c->max_span)
		return -EINVAL;

	size_t pos = 0;         /* end of finished records in c->out */
	size_t rec = 0;         /* start of the record being filled */
	ZSTD_outBuffer out = { NULL, 0, 0 };
	for (int i = 0; i < n; i++) {
		ZSTD_inBuffer in = { iov[i].iov_base, iov[i].iov_len, 0 };
		ZSTD_EndDirective mode = i == n - 1 ? ZSTD_e_flush : ZSTD_e_continue;
		for (;;) {
			if (out.dst == NULL || out.pos == out.size) {
				/* Close the full record, open the next one. */
				if (out.dst) {
					struct pd_event_header h = { PD_RECORD_COMPRESSED, 0,
								     (uint16_t)(sizeof(h) + out.pos) };
					memcpy(c->out + rec, &h, sizeof(h));
					pos = rec + sizeof(h) + out.pos;
				}
				rec = pos;
				size_t room = c->out_cap - rec - sizeof(struct pd_event_header);
				out.dst = c->out + rec + sizeof(struct pd_event_header);
				out.size = room < COMPRESS_MAX_PAYLOAD ? room : COMPRESS_MAX_PAYLOAD;
				out.pos = 0;
				if (out.size == 0)
					return -EIO;
			}
			size_t r = ZSTD_compressStream2(c->cctx, &out, &in, mode);
			if (ZSTD_isError(r))
				return -EIO;
			bool done = mode == ZSTD_e_flush ? r == 0 : in.pos == in.size;
			if (done)
				break;
		}
	}
	if (out.dst && out.pos > 0) {
		struct pd_event_header h = { PD_RECORD_COMPRESSED, 0, (uint16_t)(sizeof(h) + out.pos) };
		memcpy(c->out + rec, &h, sizeof(h));
		pos = rec + sizeof(h) + out.pos;
	} else if (out.dst) {
		pos = rec;
	}
	*len = pos;
	c->in_bytes += total;
	c->out_bytes += pos;
	return 0;
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
	memset(c, 0, sizeof(*c));
}
