/*
 * test_walk.c - the record framing rule (src/format/walk.c): every verdict
 * over contiguous memory and over an iovec list, including a header that
 * straddles two iovecs and the edges of "cut short" and "impossible size".
 */
#include "test_helpers.h"

#include "format/walk.h"

/* A header of type and size at p. */
static void put_header(uint8_t *p, uint32_t type, uint16_t size)
{
	th_put_u32(p, 0, type);
	th_put_u16(p, 4, 0);
	th_put_u16(p, 6, size);
}

static void test_walk_check_verdicts(void **state)
{
	(void)state;
	struct pd_event_header h = { PD_RECORD_SAMPLE, 0, 16 };
	assert_int_equal(walk_check(&h, 0), WALK_END);
	assert_int_equal(walk_check(&h, 7), WALK_SHORT);
	assert_int_equal(walk_check(&h, 15), WALK_CUT);
	assert_int_equal(walk_check(&h, 16), WALK_WHOLE);
	assert_int_equal(walk_check(&h, 1000), WALK_WHOLE);
	h.size = 7;
	assert_int_equal(walk_check(&h, 1000), WALK_BAD);
	h.size = 0;
	assert_int_equal(walk_check(&h, 8), WALK_BAD);
	h.size = 8;
	assert_int_equal(walk_check(&h, 8), WALK_WHOLE);
}

/* A header cut short is judged before its size: its bytes may be junk. */
static void test_walk_check_short_header_wins_over_bad_size(void **state)
{
	(void)state;
	struct pd_event_header h = { 0, 0, 0 };
	assert_int_equal(walk_check(&h, 4), WALK_SHORT);
}

static void test_walk_mem_steps_through_records_and_stops_at_the_cut(void **state)
{
	(void)state;
	uint8_t b[64] = { 0 };
	put_header(b, PD_RECORD_SAMPLE, 24);
	put_header(b + 24, PD_RECORD_FINISHED_ROUND, 8);
	put_header(b + 32, PD_RECORD_MMAP, 40);     /* runs past 64 */
	struct pd_event_header h;
	uint64_t pos = 0, n = 0;
	while (walk_mem(b, sizeof(b), pos, &h) == WALK_WHOLE) {
		pos += h.size;
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(pos, 32);
	assert_int_equal(walk_mem(b, sizeof(b), pos, &h), WALK_CUT);
	assert_int_equal(h.type, PD_RECORD_MMAP);
	assert_int_equal(h.size, 40);
}

static void test_walk_mem_end_short_and_bad(void **state)
{
	(void)state;
	uint8_t b[16] = { 0 };
	struct pd_event_header h;
	assert_int_equal(walk_mem(b, 16, 16, &h), WALK_END);
	assert_int_equal(walk_mem(b, 16, 20, &h), WALK_END);    /* past the end */
	assert_int_equal(walk_mem(b, 16, 12, &h), WALK_SHORT);
	assert_int_equal(h.size, 0);                             /* not read */
	assert_int_equal(walk_mem(b, 16, 0, &h), WALK_BAD);     /* size 0 */
	put_header(b, PD_RECORD_SAMPLE, 3);
	assert_int_equal(walk_mem(b, 16, 0, &h), WALK_BAD);
	assert_int_equal(h.size, 3);
}

/* A NULL base with nothing in it is the end, never a read. */
static void test_walk_mem_of_nothing_is_end(void **state)
{
	(void)state;
	struct pd_event_header h;
	assert_int_equal(walk_mem(NULL, 0, 0, &h), WALK_END);
}

static void test_walk_iov_header_straddling_two_iovecs(void **state)
{
	(void)state;
	uint8_t b[40] = { 0 };
	put_header(b, PD_RECORD_SAMPLE, 20);
	put_header(b + 20, PD_RECORD_COMM, 20);
	/* Cut the list in the middle of the second header. */
	struct iovec iov[2] = { { b, 23 }, { b + 23, 17 } };
	struct pd_event_header h;
	assert_int_equal(walk_iov(iov, 2, 40, 0, &h), WALK_WHOLE);
	assert_int_equal(h.size, 20);
	assert_int_equal(walk_iov(iov, 2, 40, 20, &h), WALK_WHOLE);
	assert_int_equal(h.type, PD_RECORD_COMM);
	assert_int_equal(h.size, 20);
	assert_int_equal(walk_iov(iov, 2, 40, 40, &h), WALK_END);
}

/* end below the list's length: what lies past it does not count. */
static void test_walk_iov_end_cuts_the_list_short(void **state)
{
	(void)state;
	uint8_t b[40] = { 0 };
	put_header(b, PD_RECORD_SAMPLE, 20);
	put_header(b + 20, PD_RECORD_COMM, 20);
	struct iovec iov[1] = { { b, 40 } };
	struct pd_event_header h;
	assert_int_equal(walk_iov(iov, 1, 39, 20, &h), WALK_CUT);
	assert_int_equal(walk_iov(iov, 1, 27, 20, &h), WALK_SHORT);
	assert_int_equal(walk_iov(iov, 1, 20, 20, &h), WALK_END);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_check_verdicts),
		cmocka_unit_test(test_walk_check_short_header_wins_over_bad_size),
		cmocka_unit_test(test_walk_mem_steps_through_records_and_stops_at_the_cut),
		cmocka_unit_test(test_walk_mem_end_short_and_bad),
		cmocka_unit_test(test_walk_mem_of_nothing_is_end),
		cmocka_unit_test(test_walk_iov_header_straddling_two_iovecs),
		cmocka_unit_test(test_walk_iov_end_cuts_the_list_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
