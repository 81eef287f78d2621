/*
 * pdcheck - read a perf.data with psrec's reader and print what it holds,
 * one "key value" per line, for the integration tests to assert on:
 *   attrs N / ids N / records N / samples N / lost N (sum of LOST counts) /
 *   lost_samples N / type T N ... / feature F bytes
 * It reads perf record's files as well as psrec's.
 * Exits 1 with the reader's message on malformed input.
 * pdcheck --to-eof FILE reads past data.size to the end of the file and
 * stops quietly at the first record that does not read: what a killed
 * recording holds, whatever its header says (for kill_anywhere.sh).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "format/reader.h"
#include "format/sample.h"

int main(int argc, char **argv)
{
	bool to_eof = argc == 3 && strcmp(argv[1], "--to-eof") == 0;
	if (argc != 2 && !to_eof) {
		fprintf(stderr, "usage: pdcheck [--to-eof] FILE\n");
		return 2;
	}
	struct reader r;
	struct err e = { "" };
	int err = reader_open_file(&r, argv[argc - 1], &e);
	if (err) {
		fprintf(stderr, "pdcheck: %s\n", e.msg);
		return 1;
	}
	if (to_eof && !r.pipe)
		r.data_end = r.len;
	uint64_t by_type[256] = { 0 }, other = 0, records = 0, unmapped = 0, bad_samples = 0;
	uint64_t lost = 0, lost_samples = 0;
	struct reader_record rec;
	while ((err = reader_next(&r, &rec, &e)) == 1) {
		records++;
		if (rec.type < 256)
			by_type[rec.type]++;
		else
			other++;
		if (rec.type == PD_RECORD_SAMPLE) {
			const struct reader_attr *a = reader_record_attr(&r, &rec);
			struct sample s;
			if (!a)
				unmapped++;
			else if (sample_parse(a->attr.sample_type, rec.data, rec.size, &s))
				bad_samples++;
		} else if (rec.type == PD_RECORD_LOST && rec.size >= 24) {
			uint64_t v;
			memcpy(&v, rec.data + 16, sizeof(v));
			lost += v;
		} else if (rec.type == PD_RECORD_LOST_SAMPLES && rec.size >= 16) {
			uint64_t v;
			memcpy(&v, rec.data + 8, sizeof(v));
			lost_samples += v;
		}
	}
	if (err < 0 && !to_eof) {
		fprintf(stderr, "pdcheck: %s\n", e.msg);
		reader_close(&r);
		return 1;
	}
	size_t ids = 0;
	for (size_t i = 0; i < r.nr_attrs; i++)
		ids += r.attrs[i].nr_ids;
	printf("attrs %zu\nids %zu\nrecords %" PRIu64 "\nsamples %" PRIu64 "\n",
	       r.nr_attrs, ids, records, by_type[PD_RECORD_SAMPLE]);
	printf("unmapped_samples %" PRIu64 "\nbad_samples %" PRIu64 "\n", unmapped, bad_samples);
	printf("rounds %" PRIu64 "\n", by_type[PD_RECORD_FINISHED_ROUND]);
	printf("lost %" PRIu64 "\nlost_samples %" PRIu64 "\n", lost, lost_samples);
	printf("data_size %" PRIu64 "\n", r.hdr.data.size);
	for (unsigned t = 0; t < 256; t++)
		if (by_type[t])
			printf("type %u %" PRIu64 "\n", t, by_type[t]);
	if (other)
		printf("type_other %" PRIu64 "\n", other);
	for (unsigned f = 0; f < PD_FEAT_BITS; f++) {
		const uint8_t *p;
		size_t len;
		int ferr = reader_feature(&r, f, &p, &len, &e);
		if (ferr == 0)
			printf("feature %u %zu\n", f, len);
		else if (ferr != -ENOENT)
			printf("feature_error %u %s\n", f, e.msg);
	}
	reader_close(&r);
	return 0;
}
