/*
 * gzip.h - a buffer written gzip-compressed (zlib, the gzip wrapper):
 * pprof files are gzipped protobuf, and every pprof reader expects it.
 */
#ifndef PSREC_PPROF_GZIP_H
#define PSREC_PPROF_GZIP_H

#include <stddef.h>
#include <stdio.h>

/* p[0..len) compressed at zlib's default level into out (not flushed or
 * closed). 0, -ENOMEM, or -EIO when out fails (errno then says why). */
int gzip_write(FILE *out, const void *p, size_t len);

#endif
