/*
 * sampleflip - corrupt the SAMPLE records of a perf.data, for unwind.sh:
 * a copy of IN in OUT where FLIPS random bytes (default 4) of every SAMPLE
 * record are XORed with a random non-zero byte. Only bytes at offset 64
 * or more within a record are touched, so the header and the first fields
 * (id, ip, tid, time: what frames the record and places it) stay, and the
 * file still reads; what changes is the call chain, REGS_USER and
 * STACK_USER (their sizes too). Of each record's flips, about a third go
 * into the registers (abi and values), a third into the first 512 bytes of
 * the stack copy (where the return addresses an unwinder reads are), and
 * the rest anywhere from offset 64 on.
 *
 * usage: sampleflip IN OUT SEED [FLIPS]
 * Prints "samples N flipped M bytes B". File format only, not -z (the
 * records of a COMPRESSED one are not in the file as they are read).
 * Exits 1 on a file it cannot read or write, 2 on a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/reader.h"
#include "format/sample.h"

static uint64_t rng;

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Where REGS_USER and the STACK_USER data lie in a SAMPLE record: the
 * fields after CALLCHAIN, when only those two follow it. 0 when they are
 * not found (no such fields, RAW or BRANCH_STACK before them, or sizes
 * that do not fit). */
static int locate(const struct reader_attr *a, const uint8_t *rec, size_t size, size_t *regs, size_t *nregs,
		  size_t *stack, size_t *nstack)
{
	uint64_t st = a->attr.sample_type;
	struct sample s;
	*nregs = *nstack = 0;
	if (!(st & PD_SAMPLE_CALLCHAIN) || (st & (PD_SAMPLE_RAW | PD_SAMPLE_BRANCH_STACK)))
		return 0;
	if (sample_parse(st, rec, size, &s))
		return 0;
	size_t off = (size_t)(s.callchain - rec) + 8 * s.nr_callchain;
	if (st & PD_SAMPLE_REGS_USER) {
		if (off + 8 > size)
			return 0;
		size_t n = get64(rec + off) ? (size_t)__builtin_popcountll(a->attr.sample_regs_user) : 0;
		*regs = off;
		*nregs = 8 + 8 * n;
		off += 8 + 8 * n;
	}
	if (st & PD_SAMPLE_STACK_USER) {
		if (off + 8 > size)
			return 0;
		uint64_t len = get64(rec + off);
		if (len > size - off - 8)
			return 0;
		*stack = off + 8;
		*nstack = (size_t)len;
	}
	return 1;
}

/* A random offset in [lo, lo + n) that is at least 64, or in [64, size). */
static size_t pick(size_t lo, size_t n, size_t size)
{
	if (lo < 64) {
		n = lo + n > 64 ? lo + n - 64 : 0;
		lo = 64;
	}
	if (n == 0 || lo + n > size) {
		lo = 64;
		n = size - 64;
	}
	return lo + (size_t)(next() % n);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: sampleflip IN OUT SEED [FLIPS]\n");
		return 2;
	}
	rng = strtoull(argv[3], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	long flips = argc > 4 ? atol(argv[4]) : 4;
	if (flips < 1) {
		fprintf(stderr, "sampleflip: FLIPS must be at least 1\n");
		return 2;
	}
	struct reader r;
	struct err e = { "" };
	if (reader_open_file(&r, argv[1], &e)) {
		fprintf(stderr, "sampleflip: %s\n", e.msg);
		return 1;
	}
	if (r.pipe) {
		fprintf(stderr, "sampleflip: %s: pipe format is not supported\n", argv[1]);
		reader_close(&r);
		return 1;
	}
	uint8_t *copy = malloc(r.len ? r.len : 1);
	if (!copy) {
		fprintf(stderr, "sampleflip: out of memory\n");
		return 1;
	}
	memcpy(copy, r.base, r.len);
	uint64_t samples = 0, bytes = 0;
	struct reader_record rec;
	int err;
	while ((err = reader_next(&r, &rec, &e)) == 1) {
		if (rec.type != PD_RECORD_SAMPLE || rec.size <= 64)
			continue;
		if (rec.compressed) {
			fprintf(stderr, "sampleflip: %s: -z files are not supported\n", argv[1]);
			reader_close(&r);
			free(copy);
			return 1;
		}
		const struct reader_attr *a = reader_record_attr(&r, &rec);
		size_t regs = 0, nregs = 0, stack = 0, nstack = 0;
		if (a)
			locate(a, rec.data, rec.size, &regs, &nregs, &stack, &nstack);
		for (long i = 0; i < flips; i++) {
			size_t at;
			switch (next() % 3) {
			case 0:
				at = pick(regs, nregs, rec.size);
				break;
			case 1:
				at = pick(stack, nstack < 512 ? nstack : 512, rec.size);
				break;
			default:
				at = pick(64, rec.size - 64, rec.size);
				break;
			}
			copy[rec.offset + at] ^= (uint8_t)(1 + next() % 255);
			bytes++;
		}
		samples++;
	}
	if (err < 0) {
		fprintf(stderr, "sampleflip: %s\n", e.msg);
		reader_close(&r);
		free(copy);
		return 1;
	}
	FILE *f = fopen(argv[2], "wb");
	if (!f || fwrite(copy, 1, r.len, f) != r.len || fclose(f) != 0) {
		fprintf(stderr, "sampleflip: %s: %s\n", argv[2], strerror(errno));
		reader_close(&r);
		free(copy);
		return 1;
	}
	printf("samples %" PRIu64 " flipped %" PRIu64 " bytes %zu\n", samples, bytes, r.len);
	reader_close(&r);
	free(copy);
	return 0;
}
