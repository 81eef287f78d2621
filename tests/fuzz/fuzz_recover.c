/*
 * fuzz_recover.c - psrec recover on arbitrary bytes (see fuzz.h).
 *
 * The bytes become a memfd, which recover_file() opens by its
 * /proc/self/fd path like any file; nothing is left on disk. recover may
 * refuse the input, but a repair it reports as done must leave a file the
 * reader accepts and reads to the end without an error: that is what
 * recover promises (perf report reads the result), so anything else
 * aborts for the fuzzer to flag. PSREC_FUZZ_RECOVER_NOCHECK=1 in the
 * environment skips that check, leaving the sanitizers: while a known
 * refusal gap floods the run, it still explores recover for memory errors.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/reader.h"
#include "format/recover.h"

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The repaired file must open and read to its end. */
static void check_repaired(const char *path, const struct recover_result *res)
{
	struct reader r;
	struct err e = { "" };
	if (reader_open_file(&r, path, &e) != 0) {
		fprintf(stderr, "fuzz_recover: recover succeeded (data_size %llu, changed %d), but the reader refuses the file: %s\n",
			(unsigned long long)res->data_size, res->changed, e.msg);
		abort();
	}
	struct reader_record rec;
	int k;
	while ((k = reader_next(&r, &rec, &e)) == 1)
		;
	if (k < 0) {
		fprintf(stderr, "fuzz_recover: recover succeeded (data_size %llu, changed %d), but reading the file fails: %s\n",
			(unsigned long long)res->data_size, res->changed, e.msg);
		abort();
	}
	reader_close(&r);
}

int fuzz_recover_one(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_recover", MFD_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_recover: memfd_create");
		abort();
	}
	if (write_all(fd, data, size) < 0) {
		perror("fuzz_recover: write");
		abort();
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct recover_result res;
	struct err e = { "" };
	static int nocheck = -1;
	if (nocheck < 0) {
		const char *v = getenv("PSREC_FUZZ_RECOVER_NOCHECK");
		nocheck = v && *v && strcmp(v, "0") != 0;
	}
	if (recover_file(path, &res, &e) == 0 && !nocheck)
		check_repaired(path, &res);
	close(fd);
	return 0;
}

#ifdef PSREC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_recover_one(data, size);
}
#endif
