/*
 * profile.h - a pprof Profile built up entry by entry, then encoded with
 * protobuf-c (profile.proto): what psrec pprof writes.
 *
 * Each table of the Profile holds an entry once: strings (index 0 is ""),
 * mappings, functions, locations and samples are interned by their whole
 * content, and an entry's id (a string's index) is stable from the call
 * that made it. Ids are 1, 2, ... in the order of first use, as pprof
 * requires nonzero ids. Samples with the same locations and labels are
 * one Sample whose values are summed (what pprof does when it merges
 * profiles), so memory grows with the distinct stacks, not the samples.
 * Every string is copied: nothing a caller passes must outlive the call.
 */
#ifndef PSREC_PPROF_PROFILE_H
#define PSREC_PPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Values per sample (sample_type entries): psrec writes two. */
#define PROFILE_MAX_VALUES 4

struct profile;

/* A new, empty profile with nvalues values per sample (1..PROFILE_MAX_VALUES).
 * 0, -EINVAL or -ENOMEM. */
int profile_new(struct profile **p, size_t nvalues);
void profile_free(struct profile *p);

/* The index of s in the string table, added when new. NULL is "". A
 * control character or a byte that is not UTF-8 is stored as \xNN
 * (util/textesc.h): proto3 strings are UTF-8. 0 or -ENOMEM. */
int profile_string(struct profile *p, const char *s, int64_t *index);

/* sample_type[i] (i < nvalues): the type and unit of value i. 0 or -ENOMEM. */
int profile_sample_type(struct profile *p, size_t i, const char *type, const char *unit);

/* The informational fields: period_type and period, the collection's
 * start (ns since the epoch) and duration, the sample type a reader shows
 * first (NULL: pprof's default, the last), one comment line (NULL: none).
 * 0 or -ENOMEM. */
struct profile_info {
	const char *period_type, *period_unit;
	int64_t period;
	int64_t time_nanos, duration_nanos;
	const char *default_sample_type;
	const char *comment;
};
int profile_info(struct profile *p, const struct profile_info *in);

/* A mapping; build_id as lower-case hex, NULL or "" for none. */
struct profile_mapping {
	uint64_t start, limit, offset;
	const char *filename;
	const char *build_id;
	bool has_functions;         /* its locations carry function names */
	bool has_inline_frames;     /* ... and the calls inlined there */
};
int profile_mapping(struct profile *p, const struct profile_mapping *m, uint64_t *id);

/* Put mapping id first in Profile.mapping, where pprof looks for the
 * main binary (ids do not change). 0, or -EINVAL for no such mapping. */
int profile_mapping_first(struct profile *p, uint64_t id);

/* A function: its name, the name the system gives it (mangled; NULL or
 * equal to name when there is none other) and its source file (NULL: none). */
int profile_function(struct profile *p, const char *name, const char *system_name, const char *filename,
		     uint64_t *id);

/* A location: an address in a mapping (mapping_id 0: none), with nlines
 * lines innermost first (the inlined callee first, the function it was
 * inlined into last, as pprof orders Location.line): each a function and
 * its source line (linenos NULL: 0 for all). 0 or -ENOMEM. */
int profile_location(struct profile *p, uint64_t mapping_id, uint64_t address, const uint64_t *functions,
		     const int64_t *linenos, size_t nlines, uint64_t *id);

/* A sample's label: a string (str non-NULL) or a number (num, num_unit
 * NULL for none). */
struct profile_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *num_unit;
};

/* A sample: its locations leaf first and nvalues values; added to the
 * Sample with the same locations and labels, if there is one. 0, -EINVAL
 * for more than PROFILE_MAX_LABELS labels, or -ENOMEM. */
#define PROFILE_MAX_LABELS 16
int profile_sample(struct profile *p, const uint64_t *locations, size_t nlocations, const int64_t *values,
		   const struct profile_label *labels, size_t nlabels);

/* The same with labels interned beforehand by profile_label (ids as it
 * gave them): for a caller that sees the same labels sample after sample. */
int profile_label(struct profile *p, const struct profile_label *l, uint64_t *id);
int profile_sample_labeled(struct profile *p, const uint64_t *locations, size_t nlocations, const int64_t *values,
			   const uint64_t *label_ids, size_t nlabels);

/* How many of each the profile holds. */
struct profile_counts {
	size_t strings, mappings, functions, locations, samples;
};
void profile_counts(const struct profile *p, struct profile_counts *c);

/* The Profile as protobuf bytes (not compressed): *buf is malloc'd, *len
 * its size. 0 or -ENOMEM. */
int profile_encode(const struct profile *p, uint8_t **buf, size_t *len);

#endif
