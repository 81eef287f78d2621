/*
 * fuzz_fold.c - psrec fold on arbitrary bytes (see fuzz.h): the side band,
 * the symbolizer and the DWARF unwinder over whatever the records say,
 * against the real files of this machine they name (libc's CFI, say).
 *
 * fold reads a path, so the bytes go to a memfd first. The build-id cache
 * is a directory that does not exist: only the paths are looked at.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fold/fold.h"

int fuzz_fold_one(const uint8_t *data, size_t size)
{
	int fd = memfd_create("psrec-fuzz-fold", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (int cg = FOLD_CHAIN_AUTO; cg <= FOLD_CHAIN_DWARF; cg++) {
		struct fold_config c = {
			.input = path, .pid = -1, .tid = -1, .time_end = UINT64_MAX, .call_graph = cg,
			.sym = { .buildid_dir = "/nonexistent/psrec-fuzz", .demangle = true },
		};
		struct fold_result r;
		struct err e = { "" };
		if (fold_run(&c, &r, &e) == 0) {
			FILE *out = fopen("/dev/null", "we");
			if (out) {
				fold_write(out, &r, &e);
				fclose(out);
			}
		}
		fold_free(&r);
	}
	close(fd);
	return 0;
}

#ifdef PSREC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_fold_one(data, size);
}
#endif
