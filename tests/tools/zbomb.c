/*
 * zbomb - write the perf.data of tools/zbomb.h: -z data that claims 2 GiB
 * a COMPRESSED record from 64 KiB.
 *
 * usage: zbomb [-m MMAP_LEN] [-f FILL] [-b BOMBS] [-k BLOCKS] [-s SAMPLES] OUT
 *   -m  a finished file whose COMPRESSED feature says MMAP_LEN (default:
 *       killed, data.size 0 and no features, for psrec recover)
 *   -f  the byte repeated (default 8: records of 2056 bytes without end)
 *   -b  COMPRESSED records of it (default 2: about 130 KB, 4 GiB claimed)
 *   -k  RLE blocks of 128 KiB in each (default as many as fit, 16381)
 *   -s  samples before them (default 100)
 * Exits 1 when it cannot write OUT, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zbomb.h"

int main(int argc, char **argv)
{
	struct zbomb z = { 8, 2, 0, 100, 0 };
	int ch;
	while ((ch = getopt(argc, argv, "m:f:b:k:s:")) != -1) {
		unsigned long v = strtoul(optarg, NULL, 0);
		switch (ch) {
		case 'm': z.mmap_len = (uint32_t)v; break;
		case 'f': z.fill = (uint8_t)v; break;
		case 'b': z.bombs = (unsigned)v; break;
		case 'k': z.blocks = (unsigned)v; break;
		case 's': z.samples = (unsigned)v; break;
		default:
			fprintf(stderr, "usage: zbomb [-m MMAP_LEN] [-f FILL] [-b BOMBS] [-k BLOCKS] [-s SAMPLES] OUT\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: zbomb [-m MMAP_LEN] [-f FILL] [-b BOMBS] [-k BLOCKS] [-s SAMPLES] OUT\n");
		return 2;
	}
	struct buf b = BUF_INIT;
	int err = zbomb_build(&b, &z);
	int fd = err ? -1 : open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (err || fd < 0 || write(fd, b.data, b.len) != (ssize_t)b.len || close(fd) != 0) {
		fprintf(stderr, "zbomb: cannot write %s: %s\n", argv[optind], strerror(err ? -err : errno));
		return 1;
	}
	buf_free(&b);
	return 0;
}
