/*
 * test_pmu.c - PMUs read from a fake sysfs tree (src/record/pmu.c), the
 * facts of PMU_MAPPINGS, CPU_PMU_CAPS and PMU_CAPS.
 */
#include "test_helpers.h"

#include "record/pmu.h"

static void pmu(const char *name, const char *type)
{
	char path[512];
	th_mkdirs("%s/bus/event_source/devices/%s", th_root, name);
	if (!type)
		return;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type", th_root, name);
	th_put_file(path, type);
}

static void cap(const char *name, const char *cap_name, const char *value)
{
	char path[512];
	th_mkdirs("%s/bus/event_source/devices/%s/caps", th_root, name);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/caps/%s", th_root, name, cap_name);
	th_put_file(path, value);
}

static void test_pmu_list_read_names_types_and_caps(void **state)
{
	(void)state;
	pmu("software", "1\n");
	pmu("tracepoint", "2\n");
	pmu("cpu", "4\n");
	cap("cpu", "branches", "32\n");
	cap("cpu", "max_precise", "3\n");
	pmu("broken", NULL);            /* no type: left out */
	pmu("odd", "x\n");
	struct pmu_list l;
	assert_int_equal(pmu_list_read(th_root, &l), 0);
	assert_int_equal(l.nr, 3);
	assert_null(pmu_list_find(&l, "broken"));
	assert_null(pmu_list_find(&l, "odd"));
	const struct feature_pmu *sw = pmu_list_find(&l, "software");
	assert_non_null(sw);
	assert_int_equal(sw->type, 1);
	assert_int_equal(sw->nr_caps, 0);
	assert_int_equal(pmu_list_find(&l, "tracepoint")->type, 2);
	const struct feature_pmu *cpu = pmu_list_find(&l, "cpu");
	assert_non_null(cpu);
	assert_int_equal(cpu->type, 4);
	assert_int_equal(cpu->nr_caps, 2);
	for (uint32_t i = 0; i < 2; i++) {
		if (strcmp(cpu->cap_names[i], "branches") == 0)
			assert_string_equal(cpu->cap_values[i], "32");
		else
			assert_string_equal(cpu->cap_values[i], "3");
	}
	pmu_list_free(&l);
	assert_int_equal(l.nr, 0);
}

static void test_pmu_list_read_no_directory_is_empty(void **state)
{
	(void)state;
	struct pmu_list l;
	assert_int_equal(pmu_list_read(th_root, &l), 0);
	assert_int_equal(l.nr, 0);
	assert_null(pmu_list_find(&l, "cpu"));
	pmu_list_free(&l);
}

/* The real one: what perf 6.1 lists in PMU_MAPPINGS on this machine
 * always includes software (type 1). */
static void test_pmu_list_read_real_sysfs_has_software_pmu(void **state)
{
	(void)state;
	struct pmu_list l;
	assert_int_equal(pmu_list_read("/sys", &l), 0);
	if (l.nr == 0) {
		pmu_list_free(&l);
		skip();
	}
	const struct feature_pmu *sw = pmu_list_find(&l, "software");
	assert_non_null(sw);
	assert_int_equal(sw->type, 1);
	pmu_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_pmu_list_read_names_types_and_caps),
		TH_FAKE(test_pmu_list_read_no_directory_is_empty),
		cmocka_unit_test(test_pmu_list_read_real_sysfs_has_software_pmu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
