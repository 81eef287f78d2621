/*
 * io.h - writing and reading all of a buffer despite EINTR and short counts.
 *
 * The kernel may move fewer bytes than asked (a signal, a pipe's
 * capacity, a disk that fills) and says why only on the next call. These
 * helpers keep calling until everything has moved, the end of input, or
 * a real error, and report how far they got either way, so a writer can
 * keep what reached the disk. Each request is one system call of the kind
 * named (pwrite, pwritev, writev, read) until it is done: what a kill test
 * that counts system calls sees does not depend on the helper. Nothing here
 * allocates. Returns are 0 or -errno; a write that moves nothing is -EIO.
 */
#ifndef PSREC_UTIL_IO_H
#define PSREC_UTIL_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Write all iovecs at off (pwritev), or at the current position when off
 * is negative (writev, for pipes), at most 64 iovecs a call. The caller's
 * iovecs stay intact. *written gets the bytes that made it, even on error. */
int io_writev_all(int fd, const struct iovec *iov, int iovcnt, int64_t off, size_t *written);

/* Write all of p at off with pwrite. */
int io_pwrite_all(int fd, const void *p, size_t len, uint64_t off);

/* Read until len bytes or the end of input; *got gets the bytes read,
 * even on error (fewer than len without error: the input ended). */
int io_read_all(int fd, void *p, size_t len, size_t *got);

#endif
