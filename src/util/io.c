/*
 * io.c - write-all and read-all loops (see io.h).
 */
#include "io.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* The most iovecs handed to one call (the writer's limit since psrec 0.1;
 * a pass over many CPUs is cut into calls of this many). */
#define IO_IOV_MAX 64

/* One system call: pwrite for a plain buffer, so a header update stays
 * the single pwrite that docs/writer.md promises; pwritev or writev
 * otherwise. */
static ssize_t io_put(int fd, const struct iovec *v, int cnt, int64_t off, bool plain)
{
	if (plain)
		return pwrite(fd, v->iov_base, v->iov_len, (off_t)off);
	return off >= 0 ? pwritev(fd, v, cnt, (off_t)off) : writev(fd, v, cnt);
}

/* A short write leaves the vector partially consumed; we advance through
 * a private copy so the caller's iovecs stay intact. */
static int io_put_all(int fd, const struct iovec *iov, int iovcnt, int64_t off, bool plain,
		      size_t *written)
{
	struct iovec local[IO_IOV_MAX];
	int i = 0;

	*written = 0;
	while (i < iovcnt) {
		int n = iovcnt - i < IO_IOV_MAX ? iovcnt - i : IO_IOV_MAX;
		memcpy(local, iov + i, (size_t)n * sizeof(*iov));
		struct iovec *v = local;
		int cnt = n;
		while (cnt > 0) {
			ssize_t w = io_put(fd, v, cnt, off, plain);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (w == 0)
				return -EIO;
			if (off >= 0)
				off += w;
			*written += (size_t)w;
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

int io_writev_all(int fd, const struct iovec *iov, int iovcnt, int64_t off, size_t *written)
{
	return io_put_all(fd, iov, iovcnt, off, false, written);
}

int io_pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	/* Nothing to write is no system call (a feature table of no entries). */
	if (len == 0)
		return 0;
	struct iovec one = { (void *)p, len };
	size_t written;
	return io_put_all(fd, &one, 1, (int64_t)off, true, &written);
}

int io_read_all(int fd, void *p, size_t len, size_t *got)
{
	uint8_t *b = p;
	*got = 0;
	while (*got < len) {
		ssize_t n = read(fd, b + *got, len - *got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}
