/*
 * test_maps.c - address spaces over time (src/session/maps.c) and DSO
 * interning (src/session/dso.c).
 */
#include "test_helpers.h"

#include "session/dso.h"
#include "session/maps.h"

static uint32_t dso_at(const struct maps *m, int32_t pid, uint64_t addr, uint64_t t)
{
	const struct maps_entry *e = maps_find(m, pid, addr, t);
	return e ? e->dso : UINT32_MAX;
}

/* Maps added at time 0 (synthesized) cover every time; a later map covers
 * from its time on; the latest covering map wins. */
static void test_maps_time_and_remap(void **state)
{
	(void)state;
	struct maps m;
	maps_init(&m);
	assert_int_equal(maps_add(&m, 10, 0, 0x1000, 0x1000, 0, 1), 0);
	assert_int_equal(maps_add(&m, 10, 500, 0x1800, 0x100, 0, 2), 0);
	assert_int_equal(maps_add(&m, 10, 100, 0x5000, 0x1000, 0, 3), 0);
	maps_finish(&m);
	assert_int_equal(dso_at(&m, 10, 0x1000, 1), 1);
	assert_int_equal(dso_at(&m, 10, 0x1fff, 1000), 1);
	assert_int_equal(dso_at(&m, 10, 0x2000, 1000), UINT32_MAX);
	assert_int_equal(dso_at(&m, 10, 0x1850, 499), 1);
	assert_int_equal(dso_at(&m, 10, 0x1850, 500), 2);
	assert_int_equal(dso_at(&m, 10, 0x5000, 99), UINT32_MAX);
	assert_int_equal(dso_at(&m, 10, 0x5000, 100), 3);
	assert_int_equal(dso_at(&m, 11, 0x1000, 100), UINT32_MAX);
	maps_free(&m);
}

/* An exec empties the address space from its time on, even when its
 * record is loaded after the maps of the new program (another ring). */
static void test_maps_exec_in_any_order(void **state)
{
	(void)state;
	struct maps m;
	maps_init(&m);
	assert_int_equal(maps_add(&m, 7, 0, 0x1000, 0x1000, 0, 1), 0);     /* old program */
	assert_int_equal(maps_add(&m, 7, 300, 0x8000, 0x1000, 0, 2), 0);   /* new program */
	assert_int_equal(maps_exec(&m, 7, 200), 0);
	maps_finish(&m);
	assert_int_equal(dso_at(&m, 7, 0x1000, 150), 1);
	assert_int_equal(dso_at(&m, 7, 0x1000, 250), UINT32_MAX);
	assert_int_equal(dso_at(&m, 7, 0x8000, 250), UINT32_MAX);
	assert_int_equal(dso_at(&m, 7, 0x8000, 300), 2);
	maps_free(&m);
}

/* A forked child sees its parent's maps as they were at the fork, then its
 * own; a thread (pid == ppid) changes nothing. */
static void test_maps_fork_inherits(void **state)
{
	(void)state;
	struct maps m;
	maps_init(&m);
	assert_int_equal(maps_add(&m, 1, 0, 0x1000, 0x1000, 0, 1), 0);
	assert_int_equal(maps_add(&m, 1, 400, 0x3000, 0x1000, 0, 4), 0);  /* parent maps after the fork */
	assert_int_equal(maps_fork(&m, 2, 1, 300), 0);
	assert_int_equal(maps_add(&m, 2, 350, 0x2000, 0x1000, 0, 2), 0);
	assert_int_equal(maps_fork(&m, 1, 1, 10), 0);
	assert_int_equal(maps_fork(&m, 3, 2, 360), 0);
	assert_int_equal(maps_exec(&m, 3, 370), 0);
	assert_int_equal(maps_add(&m, 3, 380, 0x1000, 0x1000, 0, 3), 0);
	maps_finish(&m);
	assert_int_equal(dso_at(&m, 2, 0x1000, 301), 1);
	assert_int_equal(dso_at(&m, 2, 0x2000, 351), 2);
	assert_int_equal(dso_at(&m, 2, 0x3000, 500), UINT32_MAX);
	assert_int_equal(dso_at(&m, 1, 0x3000, 500), 4);
	assert_int_equal(dso_at(&m, 1, 0x1000, 20), 1);
	assert_int_equal(dso_at(&m, 3, 0x2000, 365), 2);   /* grandchild, before its exec */
	assert_int_equal(dso_at(&m, 3, 0x2000, 375), UINT32_MAX);
	assert_int_equal(dso_at(&m, 3, 0x1000, 390), 3);
	maps_free(&m);
}

/* A fork cycle (pid reuse in damaged input) ends, not loops. */
static void test_maps_fork_cycle_terminates(void **state)
{
	(void)state;
	struct maps m;
	maps_init(&m);
	assert_int_equal(maps_fork(&m, 5, 6, 0), 0);
	assert_int_equal(maps_fork(&m, 6, 5, 0), 0);
	maps_finish(&m);
	assert_null(maps_find(&m, 5, 0x1000, 10));
	maps_free(&m);
}

/* Kernel maps live under pid -1; many processes and maps. */
static void test_maps_many(void **state)
{
	(void)state;
	struct maps m;
	maps_init(&m);
	assert_int_equal(maps_add(&m, -1, 0, 0xffffffff81000000ULL, 0x1000000, 0, 0), 0);
	for (int32_t pid = 1; pid <= 3000; pid++)
		for (uint64_t k = 0; k < 8; k++)
			assert_int_equal(maps_add(&m, pid, k, 0x400000 + k * 0x10000, 0x8000, 0, (uint32_t)(pid * 8 + k)), 0);
	/* one huge early map below everything, to defeat a naive scan cut */
	assert_int_equal(maps_add(&m, 1, 0, 0x1000, 0x10000000, 0, 99), 0);
	maps_finish(&m);
	assert_int_equal(dso_at(&m, -1, 0xffffffff81000010ULL, 5), 0);
	assert_int_equal(dso_at(&m, 2999, 0x400000 + 3 * 0x10000 + 4, 100), 2999 * 8 + 3);
	assert_int_equal(dso_at(&m, 1, 0x400000 + 0x10000 * 7, 100), 8 + 7);
	assert_int_equal(dso_at(&m, 1, 0x400000 + 0x9000, 100), 99);
	assert_int_equal(m.nr_maps, 3000 * 8 + 2);
	maps_free(&m);
}

static void test_dsos_identity(void **state)
{
	(void)state;
	struct dsos d;
	dsos_init(&d);
	struct build_id a, b;
	assert_int_equal(build_id_from_hex("aabbcc", &a), 0);
	assert_int_equal(build_id_from_hex("aabbcd", &b), 0);
	struct dso_key ka = { "/bin/x", 6, &a, 0, 0, 0, false };
	struct dso_key kb = { "/bin/x", 6, &b, 0, 0, 0, false };
	struct dso_key kdev = { "/bin/x", 6, NULL, 8, 1, 1234, false };
	struct dso_key kdev2 = { "/bin/x", 6, NULL, 8, 1, 1235, false };
	struct dso_key kk = { "/bin/xyz", 6, &a, 0, 0, 0, true };
	uint32_t i1, i2, i3, i4, i5, i6;
	assert_int_equal(dsos_intern(&d, &ka, &i1), 0);
	assert_int_equal(dsos_intern(&d, &kb, &i2), 0);
	assert_int_equal(dsos_intern(&d, &kdev, &i3), 0);
	assert_int_equal(dsos_intern(&d, &kdev2, &i4), 0);
	assert_int_equal(dsos_intern(&d, &kk, &i5), 0);
	assert_int_equal(dsos_intern(&d, &ka, &i6), 0);
	assert_int_equal(i6, i1);
	assert_int_not_equal(i1, i2);
	assert_int_not_equal(i3, i4);
	assert_int_not_equal(i1, i3);
	assert_int_not_equal(i5, i1);
	assert_string_equal(d.v[i5].name, "/bin/x");
	assert_true(d.v[i5].kernel);
	assert_int_equal(d.v[i1].pid, -1);
	char name[32];
	for (int k = 0; k < 5000; k++) {
		snprintf(name, sizeof(name), "/lib/l%d.so", k);
		struct dso_key kn = { name, strlen(name), NULL, 1, 2, (uint64_t)k, false };
		uint32_t ix, again;
		assert_int_equal(dsos_intern(&d, &kn, &ix), 0);
		assert_int_equal(dsos_intern(&d, &kn, &again), 0);
		assert_int_equal(ix, again);
	}
	assert_int_equal(d.n, 5005);
	dsos_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_time_and_remap),
		cmocka_unit_test(test_maps_exec_in_any_order),
		cmocka_unit_test(test_maps_fork_inherits),
		cmocka_unit_test(test_maps_fork_cycle_terminates),
		cmocka_unit_test(test_maps_many),
		cmocka_unit_test(test_dsos_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
