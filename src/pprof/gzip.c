/*
 * gzip.c - gzip a buffer into a stream (see gzip.h).
 */
#include "gzip.h"

#include <errno.h>
#include <stdint.h>
#include <zlib.h>

/* windowBits 15 + 16: zlib writes a gzip header and trailer, not its own */
#define GZIP_WINDOW (15 + 16)

int gzip_write(FILE *out, const void *p, size_t len)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	unsigned char buf[64 * 1024];
	const unsigned char *in = p;
	size_t left = len;
	int err = 0, rc;
	do {
		/* avail_in is 32 bits: feed at most 1 GiB at a time */
		if (z.avail_in == 0 && left) {
			size_t n = left < (1u << 30) ? left : (1u << 30);
			z.next_in = (unsigned char *)(uintptr_t)in;
			z.avail_in = (uInt)n;
			in += n;
			left -= n;
		}
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
		if (rc == Z_STREAM_ERROR) {
			err = -ENOMEM;
			break;
		}
		size_t have = sizeof(buf) - z.avail_out;
		if (have && fwrite(buf, 1, have, out) != have) {
			err = -EIO;
			break;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}
