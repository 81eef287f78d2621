/* test_bsearch.c - binary search in sorted arrays (src/util/bsearch.h). */
#include "test_helpers.h"

#include "util/bsearch.h"

static int int_cmp(const void *key, const void *elem)
{
	int a = *(const int *)key, b = *(const int *)elem;
	return a < b ? -1 : a > b;
}

/* As the compile-unit and map tables are searched: by one field. */
struct range {
	uint64_t lo, hi;
};

static int range_at(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, lo = ((const struct range *)elem)->lo;
	return a < lo ? -1 : a > lo;
}

static void test_bsearch_last_le_finds_the_last_element_not_above_the_key(void **state)
{
	(void)state;
	static const int v[] = { 10, 20, 30, 40 };
	size_t i = 99;
	int keys[] = { 10, 15, 20, 39, 40, 1000 };
	size_t want[] = { 0, 0, 1, 2, 3, 3 };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		assert_true(bsearch_last_le(v, 4, sizeof(*v), &keys[k], int_cmp, &i));
		assert_int_equal(i, want[k]);
	}
}

static void test_bsearch_last_le_is_false_below_the_first_element_and_on_no_elements(void **state)
{
	(void)state;
	static const int v[] = { 10, 20 };
	size_t i = 99;
	int key = 9;
	assert_false(bsearch_last_le(v, 2, sizeof(*v), &key, int_cmp, &i));
	key = 10;
	assert_false(bsearch_last_le(v, 0, sizeof(*v), &key, int_cmp, &i));
	assert_false(bsearch_last_le(NULL, 0, sizeof(*v), &key, int_cmp, &i));
	assert_int_equal(i, 99); /* untouched */
}

static void test_bsearch_last_le_of_equal_elements_takes_the_last(void **state)
{
	(void)state;
	static const int v[] = { 1, 5, 5, 5, 5, 9 };
	size_t i;
	int key = 5;
	assert_true(bsearch_last_le(v, 6, sizeof(*v), &key, int_cmp, &i));
	assert_int_equal(i, 4);
	key = 8;
	assert_true(bsearch_last_le(v, 6, sizeof(*v), &key, int_cmp, &i));
	assert_int_equal(i, 4);
}

static void test_bsearch_last_le_searches_structs_by_a_field(void **state)
{
	(void)state;
	static const struct range r[] = { { 0x1000, 0x2000 }, { 0x2000, 0x2800 }, { 0x5000, 0x6000 } };
	size_t i;
	uint64_t a = 0x27ff;
	assert_true(bsearch_last_le(r, 3, sizeof(*r), &a, range_at, &i));
	assert_int_equal(i, 1);
	a = 0x4fff; /* in no range: the caller checks hi */
	assert_true(bsearch_last_le(r, 3, sizeof(*r), &a, range_at, &i));
	assert_int_equal(i, 1);
	assert_true(a >= r[i].hi);
	a = 0xfff;
	assert_false(bsearch_last_le(r, 3, sizeof(*r), &a, range_at, &i));
}

static void test_bsearch_first_ge_finds_where_a_key_is_or_would_go(void **state)
{
	(void)state;
	static const int v[] = { 10, 20, 30 };
	bool found = true;
	int key = 5;
	assert_int_equal(bsearch_first_ge(v, 3, sizeof(*v), &key, int_cmp, &found), 0);
	assert_false(found);
	key = 20;
	assert_int_equal(bsearch_first_ge(v, 3, sizeof(*v), &key, int_cmp, &found), 1);
	assert_true(found);
	key = 25;
	assert_int_equal(bsearch_first_ge(v, 3, sizeof(*v), &key, int_cmp, &found), 2);
	assert_false(found);
	key = 31;
	assert_int_equal(bsearch_first_ge(v, 3, sizeof(*v), &key, int_cmp, &found), 3);
	assert_false(found);
	assert_int_equal(bsearch_first_ge(v, 0, sizeof(*v), &key, int_cmp, &found), 0);
	assert_false(found);
	/* found may be NULL */
	key = 30;
	assert_int_equal(bsearch_first_ge(v, 3, sizeof(*v), &key, int_cmp, NULL), 2);
}

static void test_bsearch_first_ge_of_equal_elements_takes_the_first(void **state)
{
	(void)state;
	static const int v[] = { 1, 5, 5, 5, 9 };
	bool found;
	int key = 5;
	assert_int_equal(bsearch_first_ge(v, 5, sizeof(*v), &key, int_cmp, &found), 1);
	assert_true(found);
}

/* Every size up to 70 (odd and even halvings), duplicates, every key
 * from below the first to above the last. */
static void test_bsearch_agrees_with_a_linear_scan_for_every_size_and_key(void **state)
{
	(void)state;
	int v[70];
	for (size_t n = 0; n <= 70; n++) {
		for (size_t j = 0; j < n; j++)
			v[j] = (int)(j / 3) * 2; /* 0 0 0 2 2 2 4 ... */
		for (int key = -1; key <= (int)(n / 3) * 2 + 1; key++) {
			size_t last = SIZE_MAX, first = n;
			for (size_t j = 0; j < n; j++) {
				if (v[j] <= key)
					last = j;
				if (v[j] >= key && first == n)
					first = j;
			}
			size_t i = SIZE_MAX;
			bool got = bsearch_last_le(v, n, sizeof(*v), &key, int_cmp, &i);
			assert_int_equal(got, last != SIZE_MAX);
			if (got)
				assert_int_equal(i, last);
			bool found;
			assert_int_equal(bsearch_first_ge(v, n, sizeof(*v), &key, int_cmp, &found), first);
			assert_int_equal(found, first < n && v[first] == key);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bsearch_last_le_finds_the_last_element_not_above_the_key),
		cmocka_unit_test(test_bsearch_last_le_is_false_below_the_first_element_and_on_no_elements),
		cmocka_unit_test(test_bsearch_last_le_of_equal_elements_takes_the_last),
		cmocka_unit_test(test_bsearch_last_le_searches_structs_by_a_field),
		cmocka_unit_test(test_bsearch_first_ge_finds_where_a_key_is_or_would_go),
		cmocka_unit_test(test_bsearch_first_ge_of_equal_elements_takes_the_first),
		cmocka_unit_test(test_bsearch_agrees_with_a_linear_scan_for_every_size_and_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
