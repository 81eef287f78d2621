/* test_buf.c - the growable byte buffer (src/util/buf.c). */
#include "test_helpers.h"

#include "util/buf.h"

static void test_buf_init_is_empty_and_free_accepts_it(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void test_buf_append_zero_bytes_allocates_nothing(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "x", 0), 0);
	assert_int_equal(buf_append_zeros(&b, 0), 0);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

static void test_buf_append_copies_bytes_in_order(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "abc", 3), 0);
	assert_int_equal(buf_append(&b, "defg", 4), 0);
	assert_int_equal(b.len, 7);
	assert_true(b.cap >= 7);
	assert_memory_equal(b.data, "abcdefg", 7);
	buf_free(&b);
}

static void test_buf_grows_across_many_appends_keeping_contents(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	for (unsigned i = 0; i < 10000; i++) {
		uint8_t c = (uint8_t)(i * 7);
		assert_int_equal(buf_append(&b, &c, 1), 0);
	}
	assert_int_equal(b.len, 10000);
	for (unsigned i = 0; i < 10000; i++)
		assert_int_equal(b.data[i], (uint8_t)(i * 7));
	/* One big append past the current capacity. */
	uint8_t big[70000];
	memset(big, 0xab, sizeof(big));
	assert_int_equal(buf_append(&b, big, sizeof(big)), 0);
	assert_int_equal(b.len, 80000);
	assert_memory_equal(b.data + 10000, big, sizeof(big));
	assert_int_equal(b.data[9999], (uint8_t)(9999 * 7));
	buf_free(&b);
}

static void test_buf_append_integers_in_native_byte_order(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append_u16(&b, 0x1122), 0);
	assert_int_equal(buf_append_u32(&b, 0x33445566), 0);
	assert_int_equal(buf_append_u64(&b, 0x778899aabbccddeeULL), 0);
	assert_int_equal(b.len, 2 + 4 + 8);
	static const uint8_t want[] = { 0x22, 0x11, 0x66, 0x55, 0x44, 0x33,
					0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77 };
	assert_memory_equal(b.data, want, sizeof(want));
	buf_free(&b);
}

static void test_buf_append_zeros_appends_zero_bytes(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "\xff\xff", 2), 0);
	assert_int_equal(buf_append_zeros(&b, 300), 0);
	assert_int_equal(b.len, 302);
	assert_int_equal(b.data[1], 0xff);
	assert_true(th_all_zero(b.data + 2, 300));
	buf_free(&b);
}

static void test_buf_pad_rounds_len_up_to_alignment_with_zeros(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "12345", 5), 0);
	assert_int_equal(buf_pad(&b, 8), 0);
	assert_int_equal(b.len, 8);
	assert_true(th_all_zero(b.data + 5, 3));
	/* Already aligned: nothing added. */
	assert_int_equal(buf_pad(&b, 8), 0);
	assert_int_equal(b.len, 8);
	assert_int_equal(buf_pad(&b, 64), 0);
	assert_int_equal(b.len, 64);
	assert_true(th_all_zero(b.data + 5, 59));
	buf_free(&b);
}

static void test_buf_pad_on_empty_buffer_adds_nothing(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_pad(&b, 8), 0);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

static void test_buf_reserve_impossible_size_is_enomem_and_leaves_buffer_unchanged(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "keep", 4), 0);
	uint8_t *data = b.data;
	size_t cap = b.cap;
	assert_int_equal(buf_reserve(&b, SIZE_MAX), -ENOMEM);
	assert_int_equal(buf_reserve(&b, SIZE_MAX / 2), -ENOMEM);
	assert_ptr_equal(b.data, data);
	assert_int_equal(b.cap, cap);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "keep", 4);
	/* Appends of an impossible size fail the same way, buffer intact. */
	assert_int_equal(buf_append_zeros(&b, SIZE_MAX - 2), -ENOMEM);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "keep", 4);
	buf_free(&b);
}

static void test_buf_reserve_guarantees_room_without_changing_len(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_reserve(&b, 1000), 0);
	assert_int_equal(b.len, 0);
	assert_true(b.cap >= 1000);
	uint8_t *data = b.data;
	/* Appending within the reservation does not reallocate. */
	uint8_t chunk[1000] = { 0 };
	assert_int_equal(buf_append(&b, chunk, sizeof(chunk)), 0);
	assert_ptr_equal(b.data, data);
	buf_free(&b);
}

static void test_buf_reset_keeps_allocation_and_empties(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "hello", 5), 0);
	uint8_t *data = b.data;
	size_t cap = b.cap;
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_ptr_equal(b.data, data);
	assert_int_equal(b.cap, cap);
	assert_int_equal(buf_append(&b, "xy", 2), 0);
	assert_memory_equal(b.data, "xy", 2);
	buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	/* Freeing twice is harmless. */
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_init_is_empty_and_free_accepts_it),
		cmocka_unit_test(test_buf_append_zero_bytes_allocates_nothing),
		cmocka_unit_test(test_buf_append_copies_bytes_in_order),
		cmocka_unit_test(test_buf_grows_across_many_appends_keeping_contents),
		cmocka_unit_test(test_buf_append_integers_in_native_byte_order),
		cmocka_unit_test(test_buf_append_zeros_appends_zero_bytes),
		cmocka_unit_test(test_buf_pad_rounds_len_up_to_alignment_with_zeros),
		cmocka_unit_test(test_buf_pad_on_empty_buffer_adds_nothing),
		cmocka_unit_test(test_buf_reserve_impossible_size_is_enomem_and_leaves_buffer_unchanged),
		cmocka_unit_test(test_buf_reserve_guarantees_room_without_changing_len),
		cmocka_unit_test(test_buf_reset_keeps_allocation_and_empties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
