/* test_vec.c - growable arrays (src/util/vec.h). */
#include "test_helpers.h"

#include "util/vec.h"

struct pair {
	uint64_t a, b;
};

static void test_vec_reserve_on_an_empty_array_allocates_min_elements(void **state)
{
	(void)state;
	int *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0, 1, 16), 0);
	assert_non_null(v);
	assert_int_equal(cap, 16);
	free(v);
}

static void test_vec_reserve_of_nothing_allocates_nothing(void **state)
{
	(void)state;
	int *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0, 0, 16), 0);
	assert_null(v);
	assert_int_equal(cap, 0);
}

static void test_vec_reserve_within_the_capacity_keeps_the_array(void **state)
{
	(void)state;
	int *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0, 8, 8), 0);
	int *was = v;
	for (size_t n = 0; n < 8; n++) {
		assert_int_equal(VEC_RESERVE(v, cap, n, 1, 8), 0);
		v[n] = (int)n;
	}
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 8);
	assert_int_equal(VEC_RESERVE(v, cap, 3, 5, 8), 0);
	assert_int_equal(cap, 8);
	free(v);
}

static void test_vec_grows_by_doubling_keeping_the_elements(void **state)
{
	(void)state;
	struct pair *v = NULL;
	size_t cap = 0, n = 0;
	for (uint64_t i = 0; i < 10000; i++) {
		size_t had = cap;
		assert_int_equal(VEC_RESERVE(v, cap, n, 1, 4), 0);
		/* grown only when full, and then to twice the size */
		assert_int_equal(cap, had == n ? (had ? 2 * had : 4) : had);
		v[n++] = (struct pair){ i, ~i };
	}
	assert_int_equal(cap, 16384);
	for (uint64_t i = 0; i < 10000; i++) {
		assert_int_equal(v[i].a, i);
		assert_int_equal(v[i].b, ~i);
	}
	free(v);
}

static void test_vec_reserve_of_many_doubles_until_they_fit(void **state)
{
	(void)state;
	uint8_t *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0, 3, 4), 0);
	assert_int_equal(cap, 4);
	memcpy(v, "abc", 3);
	assert_int_equal(VEC_RESERVE(v, cap, 3, 20, 4), 0);
	assert_int_equal(cap, 32);
	assert_memory_equal(v, "abc", 3);
	/* the first reservation larger than min: min doubled as often */
	uint8_t *w = NULL;
	size_t wcap = 0;
	assert_int_equal(VEC_RESERVE(w, wcap, 0, 1000, 256), 0);
	assert_int_equal(wcap, 1024);
	free(v);
	free(w);
}

static void test_vec_reserve_with_min_zero_starts_at_one(void **state)
{
	(void)state;
	int *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0, 1, 0), 0);
	assert_int_equal(cap, 1);
	assert_int_equal(VEC_RESERVE(v, cap, 1, 1, 0), 0);
	assert_int_equal(cap, 2);
	free(v);
}

static void test_vec_reserve_past_any_size_is_enomem_and_changes_nothing(void **state)
{
	(void)state;
	struct pair *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0, 5, 8), 0);
	v[4] = (struct pair){ 4, 44 };
	struct pair *was = v;
	/* n + more wraps around */
	assert_int_equal(VEC_RESERVE(v, cap, 5, SIZE_MAX, 8), -ENOMEM);
	assert_int_equal(VEC_RESERVE(v, cap, 5, SIZE_MAX - 4, 8), -ENOMEM);
	/* the count fits, its bytes do not (or pass PTRDIFF_MAX): never a
	 * small allocation that a wrapped size would make */
	assert_int_equal(VEC_RESERVE(v, cap, 5, SIZE_MAX / sizeof(*v), 8), -ENOMEM);
	assert_int_equal(VEC_RESERVE(v, cap, 0, PTRDIFF_MAX / sizeof(*v) + 1, 8), -ENOMEM);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 8);
	assert_int_equal(v[4].b, 44);
	free(v);
}

static void test_vec_reserve_of_a_runtime_sized_array_grows_by_its_element_size(void **state)
{
	(void)state;
	void *v = NULL;
	size_t cap = 0, size = 24;
	for (size_t n = 0; n < 100; n++) {
		assert_int_equal(vec_reserve(&v, &cap, n, 1, size, 8), 0);
		memset((char *)v + n * size, (int)n, size);
	}
	assert_int_equal(cap, 128);
	for (size_t n = 0; n < 100; n++)
		assert_int_equal(((unsigned char *)v)[n * size + size - 1], n);
	assert_int_equal(vec_reserve(&v, &cap, 100, 1, 0, 8), 0); /* within the capacity */
	assert_int_equal(vec_grow(&v, &cap, 128, 1, 0, 8), -ENOMEM); /* size 0: nothing to grow */
	assert_int_equal(cap, 128);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vec_reserve_on_an_empty_array_allocates_min_elements),
		cmocka_unit_test(test_vec_reserve_of_nothing_allocates_nothing),
		cmocka_unit_test(test_vec_reserve_within_the_capacity_keeps_the_array),
		cmocka_unit_test(test_vec_grows_by_doubling_keeping_the_elements),
		cmocka_unit_test(test_vec_reserve_of_many_doubles_until_they_fit),
		cmocka_unit_test(test_vec_reserve_with_min_zero_starts_at_one),
		cmocka_unit_test(test_vec_reserve_past_any_size_is_enomem_and_changes_nothing),
		cmocka_unit_test(test_vec_reserve_of_a_runtime_sized_array_grows_by_its_element_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
