/*
 * test_cpucache.c - CPU caches read from a fake sysfs tree
 * (src/record/cpucache.c), the facts of the CACHE feature.
 */
#include "test_helpers.h"

#include "record/cpucache.h"

static void cache(int cpu, int idx, int level, const char *type, const char *size, int sets,
		  int ways, const char *shared)
{
	char dir[512], path[600], v[32];
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cache/index%d", th_root, cpu, idx);
	th_mkdirs("%s", dir);
	snprintf(path, sizeof(path), "%s/level", dir);
	snprintf(v, sizeof(v), "%d\n", level);
	th_put_file(path, v);
	snprintf(path, sizeof(path), "%s/coherency_line_size", dir);
	th_put_file(path, "64\n");
	snprintf(path, sizeof(path), "%s/number_of_sets", dir);
	snprintf(v, sizeof(v), "%d\n", sets);
	th_put_file(path, v);
	snprintf(path, sizeof(path), "%s/ways_of_associativity", dir);
	snprintf(v, sizeof(v), "%d\n", ways);
	th_put_file(path, v);
	snprintf(path, sizeof(path), "%s/type", dir);
	th_put_file(path, type);
	snprintf(path, sizeof(path), "%s/size", dir);
	th_put_file(path, size);
	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	th_put_file(path, shared);
}

/* The test VM's two CPUs: private L1d, L1i, L2 and a shared L3. */
static void vm_caches(void)
{
	for (int cpu = 0; cpu < 2; cpu++) {
		const char *me = cpu ? "1\n" : "0\n";
		cache(cpu, 0, 1, "Data\n", "32K\n", 64, 8, me);
		cache(cpu, 1, 1, "Instruction\n", "32K\n", 64, 8, me);
		cache(cpu, 2, 2, "Unified\n", "512K\n", 1024, 8, me);
		cache(cpu, 3, 3, "Unified\n", "32768K\n", 32768, 16, "0-1\n");
	}
}

static void expect(const struct feature_cache *c, uint32_t level, const char *type, const char *size,
		   const char *map)
{
	assert_int_equal(c->level, level);
	assert_int_equal(c->line_size, 64);
	assert_string_equal(c->type, type);
	assert_string_equal(c->size, size);
	assert_string_equal(c->map, map);
}

static void test_cpucache_read_shared_cache_once_sorted_by_level_as_perf_prints(void **state)
{
	(void)state;
	vm_caches();
	struct cpucache_list l;
	assert_int_equal(cpucache_read(th_root, 2, &l), 0);
	/* perf's header on the VM: L1d [0], L1i [0], L1d [1], L1i [1],
	 * L2 [0], L2 [1], L3 [0-1] */
	assert_int_equal(l.nr, 7);
	expect(&l.c[0], 1, "Data", "32K", "0");
	expect(&l.c[1], 1, "Instruction", "32K", "0");
	expect(&l.c[2], 1, "Data", "32K", "1");
	expect(&l.c[3], 1, "Instruction", "32K", "1");
	expect(&l.c[4], 2, "Unified", "512K", "0");
	expect(&l.c[5], 2, "Unified", "512K", "1");
	expect(&l.c[6], 3, "Unified", "32768K", "0-1");
	assert_int_equal(l.c[6].sets, 32768);
	assert_int_equal(l.c[6].ways, 16);
	cpucache_free(&l);
}

static void test_cpucache_read_skips_offline_cpu_and_unreadable_cache(void **state)
{
	(void)state;
	vm_caches();
	/* cpu1 has no cache directory (offline); cpu0's L2 lost a field */
	th_rm_rf(th_root);
	assert_int_equal(mkdir(th_root, 0755), 0);
	cache(0, 0, 1, "Data", "32K", 64, 8, "0");
	cache(0, 1, 2, "Unified", "512K", 1024, 8, "0");
	cache(0, 2, 3, "Unified", "32768K", 32768, 16, "0-1");
	char path[512];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cache/index1/number_of_sets", th_root);
	assert_int_equal(unlink(path), 0);
	struct cpucache_list l;
	assert_int_equal(cpucache_read(th_root, 2, &l), 0);
	assert_int_equal(l.nr, 2);
	expect(&l.c[0], 1, "Data", "32K", "0");
	expect(&l.c[1], 3, "Unified", "32768K", "0-1");
	cpucache_free(&l);
}

static void test_cpucache_read_no_sysfs_is_empty(void **state)
{
	(void)state;
	struct cpucache_list l;
	assert_int_equal(cpucache_read(th_root, 4, &l), 0);
	assert_int_equal(l.nr, 0);
	cpucache_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_cpucache_read_shared_cache_once_sorted_by_level_as_perf_prints),
		TH_FAKE(test_cpucache_read_skips_offline_cpu_and_unreadable_cache),
		TH_FAKE(test_cpucache_read_no_sysfs_is_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
