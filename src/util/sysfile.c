/* sysfile.c - small /proc and /sys file readers (see sysfile.h). */
#include "sysfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/io.h"
#include "util/vec.h"

int sysfile_path(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sysfile_read_str(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got;
	int err = io_read_all(fd, buf, len - 1, &got);
	if (!err && got == len - 1) {
		/* Buffer full: it fits only if the file ends right here. */
		char probe;
		size_t more;
		err = io_read_all(fd, &probe, 1, &more);
		if (!err && more)
			err = -EFBIG;
	}
	close(fd);
	if (err)
		return err;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	return 0;
}

int sysfile_read_s64(const char *path, int64_t *out)
{
	char s[64];
	int err = sysfile_read_str(path, s, sizeof(s));
	if (err)
		return err;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

#define CPULIST_MAX_CPU     (1 << 20)
#define CPULIST_MAX_ENTRIES (2 * (CPULIST_MAX_CPU + 1))

static int parse_uint(const char **p, long *out)
{
	const char *s = *p;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || v < 0 || v > CPULIST_MAX_CPU)
		return -EINVAL;
	*out = v;
	*p = end;
	return 0;
}

int cpulist_parse(const char *s, int **cpus, int *n)
{
	int *arr = NULL;
	size_t cnt = 0, cap = 0;
	const char *p = s;

	*cpus = NULL;
	*n = 0;
	if (*p == '\0')
		return -EINVAL;
	while (*p) {
		long lo, hi;
		if (parse_uint(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_uint(&p, &hi) || hi < lo)
				goto bad;
		}
		for (long c = lo; c <= hi; c++) {
			/* Duplicates are dropped below, but "0-1048576" repeated
			 * would first expand to hundreds of millions of entries
			 * (a 1 KB -C argument took 12 s in fuzz_options). No
			 * list of distinct CPUs needs more than twice the range. */
			if (cnt >= CPULIST_MAX_ENTRIES)
				goto bad;
			if (VEC_RESERVE(arr, cap, cnt, 1, 16)) {
				free(arr);
				return -ENOMEM;
			}
			arr[cnt++] = (int)c;
		}
		if (*p == ',') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
		} else if (*p != '\0' && *p != '\n')
			goto bad;
		if (*p == '\n')
			break;
	}
	qsort(arr, cnt, sizeof(*arr), cmp_int);
	size_t out = 0;
	for (size_t i = 0; i < cnt; i++)
		if (out == 0 || arr[out - 1] != arr[i])
			arr[out++] = arr[i];
	*cpus = arr;
	*n = (int)out;
	return 0;
bad:
	free(arr);
	return -EINVAL;
}
