/*
 * recover.h - repairing a perf.data left behind by a recorder that was
 * killed (SIGKILL, OOM, power off, a full disk), or cut short in transit:
 * perf record leaves data.size 0 and a feature bitmap pointing at a table
 * it never wrote; a file cut inside its feature section has a header that
 * points past the end (perf-data-format.md 10).
 *
 * A file is left alone when the records perf knows end where its header
 * says, every feature it lists is there, and psrec's reader reads all of
 * its data. Otherwise the repair:
 *  - walks the records from data.offset and stops at the first one that
 *    is cut short, has an impossible size, or has a type perf 6.1 does not
 *    know (where a feature table or junk begins);
 *  - keeps the features whose table entry and payload are intact, drops
 *    the rest;
 *  - gives COMPRESSED data the COMPRESSED feature perf needs to size its
 *    decompression buffer, unless a HEADER_FEATURE record in the data
 *    carries it (psrec's -z files): the payload psrec 0.1 kept before the
 *    data if it is there, else a new one with the largest decompressed
 *    record measured;
 *  - ends the data earlier wherever the reader stops (a COMPRESSED record
 *    that does not decode or decodes to more than ZDECODE_MAX_RECORD, or
 *    a stream cut inside a record that straddles two COMPRESSED ones) or
 *    the table would not fit after it; a new COMPRESSED payload then
 *    measures only the records kept. Records are decoded a piece at a
 *    time (format/zdecode.h): a record that claims gigabytes costs the
 *    time to count them, never the memory;
 *  - writes the new table after the data, then data.size and the bitmap
 *    in one pwrite, so a repair killed half-way leaves the old header;
 *    with no table to write, zeroes the first 16 bytes after the data (a
 *    cut record: hotspot's perfparser reads a BUILD_ID table entry there
 *    in a header without feature bits, and aborted on the record's bytes).
 * The file never grows and is never truncated. The attrs must already be
 * what the reader accepts; a file whose attrs are broken is refused.
 */
#ifndef PSREC_FORMAT_RECOVER_H
#define PSREC_FORMAT_RECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct recover_result {
	uint64_t records;           /* complete records kept */
	uint64_t samples;
	uint64_t data_size;         /* the new data.size */
	uint64_t old_data_size;
	uint64_t unused_bytes;      /* after the kept data (a cut record, a table) */
	uint64_t compressed;        /* COMPRESSED records kept */
	uint32_t mmap_len;          /* of a new COMPRESSED feature (0: none written) */
	size_t features;            /* in the repaired header */
	bool changed;               /* false: the header was already right */
	/* Where the data was ended because psrec's reader stops there (a
	 * COMPRESSED record that does not decode, or decodes to more than
	 * mmap_len or ZDECODE_MAX_RECORD), and the reader's words; 0: nowhere. */
	uint64_t dropped_at;
	char dropped_why[256];
};

/* Repair path in place. -errno with *e set when it is not a perf.data
 * file (nothing is written then) or cannot be read or written. */
int recover_file(const char *path, struct recover_result *res, struct err *e);

#endif
