/*
 * fuzz_fold.c - psrec fold on arbitrary bytes (see fuzz.h): the side band,
 * the symbolizer and the DWARF unwinder over whatever the records say,
 * against the real files of this machine they name (libc's CFI, say).
 *
 * Then psrec markers' listing, span pairing and --between windows over
 * the same bytes (its psrec:marker samples are the program's text).
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
#include "marker/list.h"

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
	struct marker_list l;
	struct marker_filter f = MARKER_FILTER_ALL;
	struct err e = { "" };
	marker_list_init(&l);
	if (marker_list_read(&l, path, &f, &e) == 0 && marker_list_pair(&l) == 0) {
		FILE *out = fopen("/dev/null", "we");
		if (out) {
			marker_list_write(out, &l, path, &e);
			marker_list_write_json(out, &l, path, &e);
			fclose(out);
		}
		uint64_t *win = NULL;
		size_t nwin = 0;
		if (marker_windows(&l, "phase 1 begin", "phase 1 end", &win, &nwin, &e) == 0)
			free(win);
	}
	marker_list_free(&l);
	close(fd);
	return 0;
}

#ifdef PSREC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_fold_one(data, size);
}
#endif
