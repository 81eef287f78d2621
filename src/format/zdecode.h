/*
 * zdecode.h - the zstd stream decoder for COMPRESSED records.
 *
 * perf record -z writes one zstd frame that is never ended, cut into
 * COMPRESSED records; each record continues the stream of the ones before
 * it, so one decoder serves a whole data section and is reset only on a
 * rewind. A record is decoded a piece at a time into one buffer of
 * ZDECODE_BUF bytes, as its output is taken, never whole: zstd turns 4
 * bytes into 128 KiB, so one 64 KiB record of a 138 KB file can claim 2
 * GiB, and the memory a file costs must not be what its bytes ask for.
 * What a record may decode to in all (max_out) is only counted: the work,
 * not the memory, is bounded by it. Besides the buffer, zstd keeps its
 * window (what the frame's level chose: 512 KiB at level 1, at most 128
 * MiB, zstd's own limit, at level 22).
 */
#ifndef PSREC_FORMAT_ZDECODE_H
#define PSREC_FORMAT_ZDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zdecode {
	void *ds;               /* ZSTD_DStream, created by the first step */
	uint8_t *buf;           /* output, cap bytes */
	size_t cap;             /* 0 until the first step, then ZDECODE_BUF */
	size_t len;             /* bytes of output held; the caller may set it
				   (0 to drop it, or after moving a tail down) */
	const uint8_t *in;      /* the input being decoded (zdecode_input) */
	size_t in_len, in_pos;
	uint64_t out;           /* output of that input so far */
	bool more;              /* zstd may hold output of it not yet in buf */
};

#define ZDECODE_INIT { NULL, NULL, 0, 0, NULL, 0, 0, 0, false }

/* The output buffer: room for a whole record (at most 64 KiB) after the
 * start of one left from the last piece, and for pieces large enough
 * that taking them costs little. */
#define ZDECODE_BUF (256u << 10)

/* The most one COMPRESSED record is let decode to, whatever a file's
 * mmap_len claims: 1 GiB. */
#define ZDECODE_MAX_RECORD (1u << 30)

/* The next input of the stream (a COMPRESSED record's payload, n bytes,
 * kept alive by the caller until it is used up): its output count starts
 * at 0. What buf holds stays. */
void zdecode_input(struct zdecode *z, const void *in, size_t n);

/*
 * Decode more of the input, appending at buf + len until buf is full or
 * the input is used up and its output flushed (len < ZDECODE_BUF first).
 * Returns 1 when output was appended (call again for the rest), 0 once
 * the input is used up and flushed (nothing appended), -EFBIG when its
 * output passes max_out in all, -EBADMSG when zstd fails (*why gets its
 * message), -ENOMEM. On an error len is left as it was.
 */
int zdecode_step(struct zdecode *z, uint64_t max_out, const char **why);

/* The output size of n bytes of input, decoded a piece at a time and
 * dropped (what buf held goes too): 0 and *bytes; -EFBIG once it passes
 * max_out (*bytes: more than max_out), -EBADMSG, -ENOMEM. */
int zdecode_measure(struct zdecode *z, const void *in, size_t n, uint64_t max_out, uint64_t *bytes,
		    const char **why);

/* Start a new stream (drops the output and the input; keeps the
 * allocations). */
void zdecode_reset(struct zdecode *z);

/* Free everything; z becomes ZDECODE_INIT. */
void zdecode_free(struct zdecode *z);

#endif
