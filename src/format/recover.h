/*
 * recover.h - repairing a perf.data left behind by a recorder that was
 * killed (SIGKILL, OOM, power off): perf record leaves data.size 0 and a
 * feature bitmap pointing at a table it never wrote; perf report then
 * shows nothing (perf-data-format.md 10).
 *
 * The repair walks the records from data.offset and stops at the first one
 * that is cut short, has an impossible size, or has a type perf 6.1 does
 * not know (which is where a feature table or junk begins). It sets
 * data.size to the end of the last complete record and clears the feature
 * bitmap. If the data holds COMPRESSED records, perf needs the COMPRESSED
 * feature to size its decompression buffer: the repair measures the
 * largest decompressed record and writes a one-entry feature table right
 * after the data, dropping trailing records if the file has no room for
 * it. The decompressed stream must end at a record boundary too: records
 * inside it straddle COMPRESSED records, so a kill can leave its last
 * record half there; the data then ends at the last COMPRESSED record
 * after which the stream is whole. The file never grows and is never
 * truncated; only the header and, for compressed data, 36 bytes after the
 * kept data are written.
 */
#ifndef PSREC_FORMAT_RECOVER_H
#define PSREC_FORMAT_RECOVER_H

#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

struct recover_result {
	uint64_t records;           /* complete records kept */
	uint64_t samples;
	uint64_t data_size;         /* the new data.size */
	uint64_t old_data_size;
	uint64_t unused_bytes;      /* after the kept data (a cut record, a table) */
	uint64_t compressed;        /* COMPRESSED records kept */
	uint32_t mmap_len;          /* measured, when compressed */
	bool changed;               /* false: the header was already right */
};

/* Repair path in place. -errno with *e set when it is not a perf.data
 * file (nothing is written then) or cannot be read or written. */
int recover_file(const char *path, struct recover_result *res, struct err *e);

#endif
