/*
 * zbomb.h - a perf.data whose -z data claims far more than its size: a
 * COMM, a COMPRESSED record of ordinary samples that starts a zstd frame,
 * then COMPRESSED records that go on with that frame in RLE blocks of one
 * byte (4 bytes of input for 128 KiB of output: 2 GiB a record). Killed
 * (data.size 0, no features, as perf -z leaves it) for psrec recover, or
 * finished with a COMPRESSED feature whose mmap_len lets the readers
 * decode as far as it says. For test_recover.c, test_reader.c and, through
 * tools/zbomb.c, the integration tests and the fuzz seeds.
 */
#ifndef PSREC_TEST_ZBOMB_H
#define PSREC_TEST_ZBOMB_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "psrec/perf_data.h"
#include "util/buf.h"

struct zbomb {
	uint8_t fill;           /* the byte the RLE blocks repeat (0x08: records
				   of size 2056 and an unknown type, without end) */
	unsigned bombs;         /* COMPRESSED records of RLE blocks */
	unsigned blocks;        /* in each (1 to ZBOMB_BLOCKS; 0: ZBOMB_BLOCKS) */
	unsigned samples;       /* in the first COMPRESSED record */
	uint32_t mmap_len;      /* 0: killed; else the feature's */
};

#define ZBOMB_PID 4242
#define ZBOMB_COMM "zbomb"
#define ZBOMB_IP 0x401000
#define ZBOMB_SAMPLE_TYPE (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_PERIOD)
#define ZBOMB_SAMPLE_SIZE (8 + 4 * 8)
/* RLE blocks of the largest size, as many as a record holds */
#define ZBOMB_BLOCK (128u << 10)
#define ZBOMB_BLOCKS ((65535u - 8) / 4)
/* where the data starts: header, ids, one attr */
#define ZBOMB_DATA (PD_FILE_HEADER_SIZE + 8 + PD_FILE_ATTR_SIZE)

static inline int zbomb_put(struct buf *b, const void *p, size_t n, int err)
{
	return err ? err : buf_append(b, p, n);
}

/* Build it into b (empty). 0, -ENOMEM, or -EIO when zstd fails. */
static inline int zbomb_build(struct buf *b, const struct zbomb *z)
{
	int err = 0;
	struct pd_file_header h;
	memset(&h, 0, sizeof(h));
	h.magic = PD_MAGIC;
	h.size = PD_FILE_HEADER_SIZE;
	h.attr_size = PD_FILE_ATTR_SIZE;
	h.attrs = (struct pd_section){ PD_FILE_HEADER_SIZE + 8, PD_FILE_ATTR_SIZE };
	h.data.offset = ZBOMB_DATA;
	err = zbomb_put(b, &h, sizeof(h), err);
	uint64_t id = 1;
	err = zbomb_put(b, &id, sizeof(id), err);
	struct pd_file_attr fa;
	memset(&fa, 0, sizeof(fa));
	fa.attr.type = PD_TYPE_SOFTWARE;
	fa.attr.size = PD_ATTR_SIZE;
	fa.attr.config = PD_SW_CPU_CLOCK;
	fa.attr.sample_period = 250000;
	fa.attr.sample_type = ZBOMB_SAMPLE_TYPE;
	fa.attr.flags = PD_ATTR_COMM;
	fa.ids = (struct pd_section){ PD_FILE_HEADER_SIZE, 8 };
	err = zbomb_put(b, &fa, sizeof(fa), err);

	uint8_t comm[8 + 8 + 8] = { 0 };
	struct pd_event_header ch = { PD_RECORD_COMM, 0, sizeof(comm) };
	uint32_t pid = ZBOMB_PID;
	memcpy(comm, &ch, sizeof(ch));
	memcpy(comm + 8, &pid, 4);
	memcpy(comm + 12, &pid, 4);
	memcpy(comm + 16, ZBOMB_COMM, sizeof(ZBOMB_COMM));
	err = zbomb_put(b, comm, sizeof(comm), err);

	/* the samples, one zstd frame begun and flushed into a record */
	struct buf raw = BUF_INIT;
	for (unsigned i = 0; i < z->samples && !err; i++) {
		struct pd_event_header sh = { PD_RECORD_SAMPLE, PD_MISC_USER, ZBOMB_SAMPLE_SIZE };
		uint64_t f[4] = { ZBOMB_IP + 16 * (i % 4), (uint64_t)pid << 32 | pid, 1000000 + 250000ull * i, 250000 };
		err = zbomb_put(&raw, &sh, sizeof(sh), err);
		err = zbomb_put(&raw, f, sizeof(f), err);
	}
	uint8_t *rec = malloc(65535);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	if (!err && (!rec || !cc))
		err = -ENOMEM;
	if (!err) {
		ZSTD_inBuffer in = { raw.data, raw.len, 0 };
		ZSTD_outBuffer out = { rec + 8, 65535 - 8, 0 };
		size_t left = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(left) || left != 0)
			err = -EIO;
		struct pd_event_header zh = { PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + out.pos) };
		memcpy(rec, &zh, sizeof(zh));
		err = zbomb_put(b, rec, zh.size, err);
	}
	/* the frame goes on: RLE blocks, never the last */
	unsigned nb = z->blocks && z->blocks < ZBOMB_BLOCKS ? z->blocks : ZBOMB_BLOCKS;
	for (unsigned k = 0; k < z->bombs && !err; k++) {
		struct pd_event_header zh = { PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + 4 * nb) };
		memcpy(rec, &zh, sizeof(zh));
		uint32_t bh = ZBOMB_BLOCK << 3 | 1u << 1; /* size, type RLE, not last */
		for (unsigned i = 0; i < nb; i++) {
			uint8_t *p = rec + 8 + 4 * i;
			p[0] = (uint8_t)bh;
			p[1] = (uint8_t)(bh >> 8);
			p[2] = (uint8_t)(bh >> 16);
			p[3] = z->fill;
		}
		err = zbomb_put(b, rec, zh.size, err);
	}
	ZSTD_freeCCtx(cc);
	free(rec);
	buf_free(&raw);
	if (err || !z->mmap_len)
		return err;
	/* finished: data.size, and the COMPRESSED feature after the data */
	struct pd_file_header *fh = (struct pd_file_header *)(void *)b->data;
	fh->data.size = b->len - ZBOMB_DATA;
	pd_feature_set(fh->features, PD_FEAT_COMPRESSED);
	struct pd_section s = { b->len + sizeof(s), 20 };
	uint32_t comp[5] = { 0, 1, 1, 0, z->mmap_len }; /* version, zstd, level, ratio, mmap_len */
	err = zbomb_put(b, &s, sizeof(s), err);
	return zbomb_put(b, comp, sizeof(comp), err);
}

#endif
