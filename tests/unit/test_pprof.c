/*
 * test_pprof.c - the pprof profile builder (src/pprof/profile.c) and its
 * gzip (src/pprof/gzip.c): each table's entries interned once, ids and
 * string indexes as pprof requires, inlined calls as lines innermost
 * first, samples merged by locations and labels; the bytes decoded back
 * with protobuf-c's own unpack, the gzip with zlib's. psrec pprof on
 * real recordings is checked by go tool pprof in
 * tests/integration/pprof.sh.
 */
#include "test_helpers.h"

#include <zlib.h>

#include "cli/fold.h"
#include "pprof/gzip.h"
#include "pprof/profile.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile pb_profile;

static pb_profile *decode(const struct profile *p)
{
	uint8_t *buf;
	size_t len;
	assert_int_equal(profile_encode(p, &buf, &len), 0);
	pb_profile *d = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	assert_non_null(d);
	return d;
}

static const char *str(const pb_profile *d, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < d->n_string_table);
	return d->string_table[i];
}

static void test_profile_strings_interned_empty_first(void **state)
{
	(void)state;
	struct profile *p;
	assert_int_equal(profile_new(&p, 2), 0);
	int64_t a, b, c, z;
	assert_int_equal(profile_string(p, "hot_a", &a), 0);
	assert_int_equal(profile_string(p, "hot_b", &b), 0);
	assert_int_equal(profile_string(p, "hot_a", &c), 0);
	assert_int_equal(profile_string(p, NULL, &z), 0);
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	assert_int_equal(z, 0);
	/* many strings: the index grows and keeps every one */
	char name[32];
	for (int i = 0; i < 5000; i++) {
		int64_t k;
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(profile_string(p, name, &k), 0);
		assert_int_equal(k, i + 3);
	}
	assert_int_equal(profile_string(p, "f42", &c), 0);
	assert_int_equal(c, 45);
	pb_profile *d = decode(p);
	assert_int_equal(d->n_string_table, 5003);
	assert_string_equal(d->string_table[0], "");
	assert_string_equal(d->string_table[a], "hot_a");
	assert_string_equal(d->string_table[45], "f42");
	perftools__profiles__profile__free_unpacked(d, NULL);
	profile_free(p);
}

/* Names are a file's or a program's: a proto3 string must be UTF-8 (a
 * strict decoder drops the whole profile otherwise), and no control
 * character should reach whoever prints it. Stored as psrec fold prints
 * them; the same bytes intern to the same entry. */
static void test_profile_strings_escaped_utf8(void **state)
{
	(void)state;
	struct profile *p;
	assert_int_equal(profile_new(&p, 2), 0);
	int64_t a, b, c;
	assert_int_equal(profile_string(p, "\x1b[2Jab\xe6\x97", &a), 0);
	assert_int_equal(profile_string(p, "\x1b[2Jab\xe6\x97", &b), 0);
	assert_int_equal(profile_string(p, "caf\xc3\xa9", &c), 0);
	assert_int_equal(a, b);
	pb_profile *d = decode(p);
	assert_string_equal(str(d, a), "\\x1b[2Jab\\xe6\\x97");
	assert_string_equal(str(d, c), "caf\xc3\xa9");
	perftools__profiles__profile__free_unpacked(d, NULL);
	profile_free(p);
}

static void test_profile_locations_dedupe_by_content(void **state)
{
	(void)state;
	struct profile *p;
	assert_int_equal(profile_new(&p, 2), 0);
	struct profile_mapping m = { 0x1000, 0x2000, 0, "/bin/spin", "24322390ecbbc6e9bc497bdfb3618a586333aec2", true, true };
	uint64_t m1, m2, m3;
	assert_int_equal(profile_mapping(p, &m, &m1), 0);
	assert_int_equal(profile_mapping(p, &m, &m2), 0);
	m.start = 0x5000;
	m.limit = 0x6000;
	assert_int_equal(profile_mapping(p, &m, &m3), 0);
	assert_int_equal(m1, 1);
	assert_int_equal(m2, 1);
	assert_int_equal(m3, 2);
	uint64_t f1, f2, f3;
	assert_int_equal(profile_function(p, "ns::f", "_ZN2ns1fEv", NULL, &f1), 0);
	assert_int_equal(profile_function(p, "ns::f", "_ZN2ns1fEv", NULL, &f2), 0);
	assert_int_equal(profile_function(p, "main", NULL, NULL, &f3), 0);
	assert_int_equal(f1, 1);
	assert_int_equal(f2, 1);
	assert_int_equal(f3, 2);
	uint64_t l1, l2, l3, l4;
	uint64_t fs[] = { f1 };
	assert_int_equal(profile_location(p, m1, 0x1234, fs, NULL, 1, &l1), 0);
	assert_int_equal(profile_location(p, m1, 0x1234, fs, NULL, 1, &l2), 0);
	assert_int_equal(profile_location(p, m1, 0x1238, fs, NULL, 1, &l3), 0);
	assert_int_equal(profile_location(p, m3, 0x1234, fs, NULL, 1, &l4), 0);
	assert_int_equal(l1, 1);
	assert_int_equal(l2, 1);
	assert_int_equal(l3, 2);
	assert_int_equal(l4, 3);
	pb_profile *d = decode(p);
	assert_int_equal(d->n_mapping, 2);
	assert_int_equal(d->mapping[0]->id, 1);
	assert_int_equal(d->mapping[0]->memory_start, 0x1000);
	assert_int_equal(d->mapping[0]->memory_limit, 0x2000);
	assert_string_equal(str(d, d->mapping[0]->filename), "/bin/spin");
	assert_string_equal(str(d, d->mapping[0]->build_id), "24322390ecbbc6e9bc497bdfb3618a586333aec2");
	assert_true(d->mapping[0]->has_functions);
	assert_int_equal(d->n_function, 2);
	assert_string_equal(str(d, d->function[0]->name), "ns::f");
	assert_string_equal(str(d, d->function[0]->system_name), "_ZN2ns1fEv");
	/* no other system name: the name itself */
	assert_string_equal(str(d, d->function[1]->system_name), "main");
	assert_string_equal(str(d, d->function[1]->filename), "");
	assert_int_equal(d->n_location, 3);
	assert_int_equal(d->location[2]->id, 3);
	assert_int_equal(d->location[2]->mapping_id, 2);
	assert_int_equal(d->location[2]->address, 0x1234);
	perftools__profiles__profile__free_unpacked(d, NULL);
	/* the main binary first: the order changes, the ids do not */
	assert_int_equal(profile_mapping_first(p, 3), -EINVAL);
	assert_int_equal(profile_mapping_first(p, 2), 0);
	d = decode(p);
	assert_int_equal(d->mapping[0]->id, 2);
	assert_int_equal(d->mapping[0]->memory_start, 0x5000);
	assert_int_equal(d->mapping[1]->id, 1);
	perftools__profiles__profile__free_unpacked(d, NULL);
	profile_free(p);
}

static void test_profile_inlined_calls_are_lines_innermost_first(void **state)
{
	(void)state;
	struct profile *p;
	assert_int_equal(profile_new(&p, 2), 0);
	uint64_t outer, mid, inner, loc, loc2;
	assert_int_equal(profile_function(p, "middle", NULL, NULL, &outer), 0);
	assert_int_equal(profile_function(p, "helper", NULL, NULL, &mid), 0);
	assert_int_equal(profile_function(p, "leaf", NULL, NULL, &inner), 0);
	uint64_t lines[] = { inner, mid, outer };
	int64_t linenos[] = { 12, 40, 77 }, other[] = { 12, 41, 77 };
	assert_int_equal(profile_location(p, 0, 0x400100, lines, linenos, 3, &loc), 0);
	/* the same address with other lines (a caller named at ip - 1) is another location */
	assert_int_equal(profile_location(p, 0, 0x400100, lines + 2, NULL, 1, &loc2), 0);
	assert_int_not_equal(loc, loc2);
	uint64_t again, moved;
	assert_int_equal(profile_location(p, 0, 0x400100, lines, linenos, 3, &again), 0);
	assert_int_equal(again, loc);
	assert_int_equal(profile_location(p, 0, 0x400100, lines, other, 3, &moved), 0);
	assert_int_equal(moved, 3);
	pb_profile *d = decode(p);
	assert_int_equal(d->n_location, 3);
	const Perftools__Profiles__Location *l = d->location[0];
	assert_int_equal(l->n_line, 3);
	assert_int_equal(l->line[0]->line, 12);
	assert_int_equal(l->line[2]->line, 77);
	assert_int_equal(d->location[1]->line[0]->line, 0);
	assert_string_equal(str(d, d->function[l->line[0]->function_id - 1]->name), "leaf");
	assert_string_equal(str(d, d->function[l->line[1]->function_id - 1]->name), "helper");
	assert_string_equal(str(d, d->function[l->line[2]->function_id - 1]->name), "middle");
	assert_int_equal(l->mapping_id, 0);
	assert_int_equal(d->location[1]->n_line, 1);
	perftools__profiles__profile__free_unpacked(d, NULL);
	profile_free(p);
}

static void test_profile_samples_merge_by_stack_and_labels(void **state)
{
	(void)state;
	struct profile *p;
	assert_int_equal(profile_new(&p, 2), 0);
	assert_int_equal(profile_sample_type(p, 0, "samples", "count"), 0);
	assert_int_equal(profile_sample_type(p, 1, "cpu", "nanoseconds"), 0);
	assert_int_equal(profile_sample_type(p, 2, "x", "y"), -EINVAL);
	uint64_t stack[] = { 3, 2, 1 };
	int64_t v[] = { 1, 250000 };
	struct profile_label t1[] = { { "pid", NULL, 7, NULL }, { "tid", NULL, 7, NULL }, { "comm", "spin", 0, NULL },
				      { "event", "cpu-clock", 0, NULL } };
	struct profile_label t2[] = { { "pid", NULL, 7, NULL }, { "tid", NULL, 8, NULL }, { "comm", "worker", 0, NULL },
				      { "event", "cpu-clock", 0, NULL } };
	for (int i = 0; i < 3; i++)
		assert_int_equal(profile_sample(p, stack, 3, v, t1, 4), 0);
	assert_int_equal(profile_sample(p, stack, 3, v, t2, 4), 0);
	assert_int_equal(profile_sample(p, stack, 2, v, t1, 4), 0);
	/* the same labels interned beforehand: the same Sample */
	uint64_t ids[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(profile_label(p, &t2[i], &ids[i]), 0);
	assert_int_equal(profile_sample_labeled(p, stack, 3, v, ids, 4), 0);
	ids[0] = 99;
	assert_int_equal(profile_sample_labeled(p, stack, 3, v, ids, 4), -EINVAL);
	struct profile_counts c;
	profile_counts(p, &c);
	assert_int_equal(c.samples, 3);
	struct profile_info in = { "cpu", "nanoseconds", 250000, 1700000000000000000LL, 1000000000, "samples", "a comment" };
	assert_int_equal(profile_info(p, &in), 0);
	pb_profile *d = decode(p);
	assert_int_equal(d->n_sample_type, 2);
	assert_string_equal(str(d, d->sample_type[1]->type), "cpu");
	assert_string_equal(str(d, d->sample_type[1]->unit), "nanoseconds");
	assert_string_equal(str(d, d->period_type->type), "cpu");
	assert_int_equal(d->period, 250000);
	assert_int_equal(d->time_nanos, 1700000000000000000LL);
	assert_int_equal(d->duration_nanos, 1000000000);
	assert_string_equal(str(d, d->default_sample_type), "samples");
	assert_int_equal(d->n_comment, 1);
	assert_string_equal(str(d, d->comment[0]), "a comment");
	assert_int_equal(d->n_sample, 3);
	const Perftools__Profiles__Sample *s = d->sample[0];
	assert_int_equal(s->n_location_id, 3);
	assert_int_equal(s->location_id[0], 3);
	assert_int_equal(s->n_value, 2);
	assert_int_equal(s->value[0], 3);
	assert_int_equal(s->value[1], 750000);
	assert_int_equal(s->n_label, 4);
	assert_string_equal(str(d, s->label[0]->key), "pid");
	assert_int_equal(s->label[0]->num, 7);
	assert_int_equal(s->label[0]->str, 0);
	assert_string_equal(str(d, s->label[2]->key), "comm");
	assert_string_equal(str(d, s->label[2]->str), "spin");
	assert_string_equal(str(d, d->sample[1]->label[2]->str), "worker");
	assert_int_equal(d->sample[1]->label[1]->num, 8);
	assert_int_equal(d->sample[1]->value[0], 2);
	assert_int_equal(d->sample[2]->n_location_id, 2);
	perftools__profiles__profile__free_unpacked(d, NULL);
	profile_free(p);
}

static void test_profile_new_refuses_bad_value_counts(void **state)
{
	(void)state;
	struct profile *p = (struct profile *)1;
	assert_int_equal(profile_new(&p, 0), -EINVAL);
	assert_null(p);
	assert_int_equal(profile_new(&p, PROFILE_MAX_VALUES + 1), -EINVAL);
	profile_free(NULL);
}

static void test_gzip_round_trips(void **state)
{
	(void)state;
	/* more than one 64 KiB output buffer, and text that compresses */
	size_t len = 1 << 20;
	char *in = malloc(len);
	assert_non_null(in);
	for (size_t i = 0; i < len; i++)
		in[i] = (char)("hot_a;hot_b;hot_c\n"[i % 18] ^ (i % 977 == 0));
	char *gz = NULL;
	size_t gzlen = 0;
	FILE *f = open_memstream(&gz, &gzlen);
	assert_non_null(f);
	assert_int_equal(gzip_write(f, in, len), 0);
	assert_int_equal(fclose(f), 0);
	assert_true(gzlen > 18 && gzlen < len / 10);
	assert_int_equal((unsigned char)gz[0], 0x1f); /* the gzip magic */
	assert_int_equal((unsigned char)gz[1], 0x8b);
	char *out = malloc(len + 1);
	z_stream z = { 0 };
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)len + 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.total_out, len);
	assert_memory_equal(in, out, len);
	inflateEnd(&z);
	free(in);
	free(out);
	free(gz);
}

static void test_cli_pprof_takes_fold_options(void **state)
{
	(void)state;
	struct fold_cli cli;
	struct err e = { "" };
	char *ok[] = { "pprof", "-i", "x.data", "-o", "p.pb.gz", "--comm", "spin", "--period", "--call-graph", "dwarf", NULL };
	assert_int_equal(fold_cli_parse(10, ok, FOLD_CLI_PPROF, &cli, &e), 0);
	assert_string_equal(cli.output, "p.pb.gz");
	assert_string_equal(cli.fold.comm, "spin");
	assert_true(cli.fold.period);
	char *bad[] = { "pprof", "--width", "300", NULL };
	assert_int_equal(fold_cli_parse(3, bad, FOLD_CLI_PPROF, &cli, &e), -EINVAL);
	assert_string_equal(e.msg, "pprof: unknown option '--width'; see psrec pprof --help");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_strings_interned_empty_first),
		cmocka_unit_test(test_profile_strings_escaped_utf8),
		cmocka_unit_test(test_profile_locations_dedupe_by_content),
		cmocka_unit_test(test_profile_inlined_calls_are_lines_innermost_first),
		cmocka_unit_test(test_profile_samples_merge_by_stack_and_labels),
		cmocka_unit_test(test_profile_new_refuses_bad_value_counts),
		cmocka_unit_test(test_gzip_round_trips),
		cmocka_unit_test(test_cli_pprof_takes_fold_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
