/*
 * fuzz.h - the bodies of the fuzz targets, as plain functions.
 *
 * Each tests/fuzz/fuzz_*.c defines one fuzz_*_one() and, when built for
 * libFuzzer (-DPSREC_LIBFUZZER), the LLVMFuzzerTestOneInput() that calls
 * it. Keeping the body separate lets tests/unit/test_fuzz_regress.c replay
 * the corpus and every regression input in the normal (gcc) build, through
 * exactly the code the fuzzer ran. A body returns 0; a broken invariant
 * aborts, which is what libFuzzer (and the unit test) report.
 */
#ifndef PSREC_FUZZ_H
#define PSREC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The bytes as a perf.data file or pipe stream: every record (out of
 * COMPRESSED ones too), every sample and sample_id trailer, every feature. */
int fuzz_reader_one(const uint8_t *data, size_t size);
/* The bytes as a file given to recover_file(); what it repairs must read. */
int fuzz_recover_one(const uint8_t *data, size_t size);
/* The bytes as the input of psrec fold (each --call-graph source): the
 * side band, symbolizer and unwinder over what the records say. */
int fuzz_fold_one(const uint8_t *data, size_t size);
/* The bytes as a script for a hostile producer on a marker channel,
 * played before and while the recorder's reader drains it. */
int fuzz_markers_one(const uint8_t *data, size_t size);
/* The bytes, split at NUL bytes, as the arguments of psrec. */
int fuzz_options_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
