/*
 * archive.h - psrec archive: what another machine needs to symbolize a
 * recording, in one zstd-compressed tar written through libarchive.
 *
 * Members, all relative, none with "..", laid out as ~/.debug so that
 * `tar --zstd -xf FILE -C ~/.debug` (or into DIR for perf --buildid-dir
 * DIR) is the whole installation:
 *   .build-id/xx/rest -> ../../<name>/<hex>   (symlink)
 *   <name>/<hex>/elf | vdso | kallsyms        (relative name: "usr/bin/x")
 *   tmp/perf-PID.map                          JIT maps of recorded processes
 * The DSOs are those of the recording's BUILD_ID feature. Each comes from
 * the build-id cache, else from its path when the file there still has the
 * recorded id (the running kernel's /proc/kallsyms for the kernel, psrec's
 * own vdso for [vdso]); a DSO found nowhere, or with a name the cache
 * cannot hold, is counted as missing, never guessed.
 *
 * Without a BUILD_ID feature (pipe-format streams) the ids are taken from
 * HEADER_BUILD_ID records, else from the MMAP2 records that carry one
 * (perf record --buildid-mmap), one entry per id.
 */
#ifndef PSREC_ARCHIVE_ARCHIVE_H
#define PSREC_ARCHIVE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "buildid/store.h"
#include "util/err.h"

struct archive_result {
	size_t dsos;                /* DSOs written */
	size_t missing;             /* listed but found nowhere with their id */
	size_t maps;                /* perf-PID.map files written */
	uint64_t bytes;             /* uncompressed bytes of the members */
	uint64_t out_bytes;         /* size of the archive */
	char first_missing[256];    /* name of the first missing DSO ("" when none) */
};

/*
 * Write the archive of the recording at data_path to out_path (through a
 * temporary name, renamed into place at the end: an error never leaves a
 * partial archive at out_path). The cache is looked up in s. -errno with
 * *e (one line) when the recording cannot be read or the archive written;
 * a recording without build-ids is an error naming the fix (record
 * without -B).
 */
int archive_write(const char *data_path, const char *out_path, const struct store *s,
		  struct archive_result *res, struct err *e);

#endif
