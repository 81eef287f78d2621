/*
 * zdecode.h - the zstd stream decoder for COMPRESSED records.
 *
 * perf record -z writes one zstd frame that is never ended, cut into
 * COMPRESSED records; each record continues the stream of the ones before
 * it, so one decoder serves a whole data section and is reset only on a
 * rewind. The output buffer grows as output arrives, never past the limit
 * the caller sets (what perf sizes its buffer by, mmap_len): a small file
 * whose feature claims a huge mmap_len must not cost a gigabyte allocated
 * up front (found by fuzzing: 13 s and 1.2 GB for 8 KB).
 */
#ifndef PSREC_FORMAT_ZDECODE_H
#define PSREC_FORMAT_ZDECODE_H

#include <stddef.h>
#include <stdint.h>

struct zdecode {
	void *ds;               /* ZSTD_DStream, created by the first feed */
	uint8_t *buf;           /* output */
	size_t cap;
	size_t len;             /* bytes of output held; the caller may set it
				   (0 to drop it, or after moving a tail down) */
};

#define ZDECODE_INIT { NULL, NULL, 0, 0 }

/* The most one COMPRESSED record is let decode to, whatever a file's
 * mmap_len claims: 1 GiB. */
#define ZDECODE_MAX_RECORD (1u << 30)

/*
 * Decode all n bytes of in, appending the output at buf + len; limit is
 * the most that len may reach. Returns 0 once the input is read and its
 * output flushed; -EFBIG when the output would pass limit; -EBADMSG when
 * zstd fails (*why gets its message); -ENOMEM. On an error len is left as
 * it was.
 */
int zdecode_feed(struct zdecode *z, const void *in, size_t n, size_t limit, const char **why);

/* Start a new stream (drops the output; keeps the allocations). */
void zdecode_reset(struct zdecode *z);

/* Free everything; z becomes ZDECODE_INIT. */
void zdecode_free(struct zdecode *z);

#endif
