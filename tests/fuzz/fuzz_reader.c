/*
 * fuzz_reader.c - the perf.data reader and the sample parser on arbitrary
 * bytes (see fuzz.h).
 *
 * The input is read from libFuzzer's own buffer, which is exactly size
 * bytes long, so ASan sees a read one byte past the end. Every byte the
 * reader hands out (records, callchains, feature payloads) is touched, so
 * a pointer it returns that lies outside the input is caught here rather
 * than in some later caller.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/feature.h"
#include "format/reader.h"
#include "format/sample.h"
#include "record/buildids.h"

/* Read every byte; the sum goes to a volatile so nothing is optimized out. */
static volatile uint8_t sink;

static void touch(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s ^= p[i];
	sink = s;
}

static void parse_record(const struct reader *r, const struct reader_record *rec)
{
	touch(rec->data, rec->size);
	const struct reader_attr *a = reader_record_attr(r, rec);
	if (!a)
		return;
	uint64_t st = a->attr.sample_type;
	struct sample s;
	if (rec->type == PD_RECORD_SAMPLE) {
		if (sample_parse(st, rec->data, rec->size, &s) == 0 && s.nr_callchain)
			touch(s.callchain, s.nr_callchain * 8);
		(void)sample_time_offset(st);
	} else {
		(void)sample_parse_id_trailer(st, rec->data, rec->size, &s);
	}
}

/* Two passes: the second, after reader_rewind(), must see what the first
 * did (rewinding resets the decompression state). */
static void read_all(struct reader *r)
{
	struct reader_record rec;
	struct err e = { "" };
	uint64_t first = 0, second = 0;
	int k;
	while ((k = reader_next(r, &rec, &e)) == 1) {
		parse_record(r, &rec);
		first++;
	}
	int first_k = k;
	reader_rewind(r);
	while ((k = reader_next(r, &rec, &e)) == 1)
		second++;
	if (k != first_k || first != second)
		abort();
}

static void read_features(const struct reader *r)
{
	struct err e = { "" };
	for (unsigned f = 0; f < PD_FEAT_BITS; f++) {
		const uint8_t *p;
		size_t len;
		if (reader_feature(r, f, &p, &len, &e) != 0)
			continue;
		touch(p, len);
		/* Most features are strings or start with one. */
		const char *s;
		size_t slen, used;
		if (reader_string(p, len, &s, &slen, &used) == 0)
			touch((const uint8_t *)s, slen);
		if (f == PD_FEAT_BUILD_ID) {
			struct feature_build_id_entry ent;
			size_t off = 0;
			while (feature_build_id_next(p, len, &off, &ent) == 1)
				touch((const uint8_t *)ent.name, strlen(ent.name));
		}
	}
}

/* What psrec does with its own file after recording: the side band into
 * maps over time, every sample resolved, the BUILD_ID payload built and
 * read back (psrec archive reads it so). No ids are resolved from disk. */
static void scan_build_ids(const struct reader *r, const uint8_t *data, size_t size)
{
	struct buildids b;
	struct err e = { "" };
	buildids_init(&b);
	if (buildids_scan(&b, data, size, &r->hdr, false, &e) == 0) {
		struct buf out = BUF_INIT;
		size_t nr = 0, seen = 0, off = 0;
		struct feature_build_id_entry ent;
		if (buildids_feature(&b, true, &out, &nr) == 0) {
			while (feature_build_id_next(out.data, out.len, &off, &ent) == 1)
				seen++;
			if (seen != nr)
				abort();
		}
		buf_free(&out);
	}
	buildids_free(&b);
}

/* FNV-1a: the input must come out as it went in. */
static uint64_t hash(const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

int fuzz_reader_one(const uint8_t *data, size_t size)
{
	struct reader r;
	struct err e = { "" };
	uint64_t before = hash(data, size);
	if (reader_open_mem(&r, data, size, &e) != 0)
		return 0;
	for (size_t i = 0; i < r.nr_attrs; i++)
		touch((const uint8_t *)r.attrs[i].ids, r.attrs[i].nr_ids * 8);
	read_features(&r);
	read_all(&r);
	if (!r.pipe)
		scan_build_ids(&r, data, size);
	reader_close(&r);
	/* Found by fuzz_reader: the build-id scan dropped the pages of memory
	 * it was given as if they mapped a file, which zeroes heap memory
	 * (MADV_DONTNEED). */
	if (hash(data, size) != before) {
		fprintf(stderr, "fuzz_reader: the reader changed its input\n");
		abort();
	}
	return 0;
}

#ifdef PSREC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader_one(data, size);
}
#endif
