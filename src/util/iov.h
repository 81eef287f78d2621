/*
 * iov.h - reading a list of iovecs as one run of bytes (a ring span that
 * wraps is two iovecs; a record may straddle them).
 */
#ifndef PSREC_UTIL_IOV_H
#define PSREC_UTIL_IOV_H

#include <stddef.h>
#include <sys/uio.h>

/* Copy len bytes starting at byte pos of the list into dst; the bytes past
 * the end of the list are left untouched. */
void iov_copy(const struct iovec *iov, int n, size_t pos, void *dst, size_t len);

/* Point out[0..max) at bytes [pos, pos + len) of the list; returns how many
 * iovecs that took (at most n), or -1 when max is too small. */
int iov_slice(const struct iovec *iov, int n, size_t pos, size_t len, struct iovec *out, int max);

#endif
