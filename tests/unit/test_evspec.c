/* test_evspec.c - "-e" event strings (src/record/evspec.c). */
#include "test_helpers.h"

#include "record/evspec.h"

static void expect_one(const char *arg, uint32_t type, uint64_t config, const char *name)
{
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	int rc = evspec_parse(&l, arg, &e);
	if (rc != 0)
		fail_msg("evspec_parse(\"%s\") = %d: %s", arg, rc, e.msg);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.ev[0].type, type);
	assert_int_equal(l.ev[0].config, config);
	assert_string_equal(l.ev[0].name, name);
	assert_false(l.ev[0].is_default);
	evspec_list_free(&l);
}

/* -EINVAL with a message containing want (if not NULL). */
static void expect_bad(const char *arg, const char *want)
{
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	int rc = evspec_parse(&l, arg, &e);
	if (rc != -EINVAL)
		fail_msg("evspec_parse(\"%s\") = %d, expected -EINVAL", arg, rc);
	if (!err_is_set(&e))
		fail_msg("evspec_parse(\"%s\"): no message", arg);
	if (want && !strstr(e.msg, want))
		fail_msg("evspec_parse(\"%s\"): message '%s' does not mention '%s'", arg, e.msg, want);
	evspec_list_free(&l);
}

static void test_evspec_known_software_events(void **state)
{
	(void)state;
	expect_one("cpu-clock", PD_TYPE_SOFTWARE, PD_SW_CPU_CLOCK, "cpu-clock");
	expect_one("task-clock", PD_TYPE_SOFTWARE, PD_SW_TASK_CLOCK, "task-clock");
	expect_one("page-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS, "page-faults");
	expect_one("minor-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS_MIN, "minor-faults");
	expect_one("major-faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS_MAJ, "major-faults");
	expect_one("context-switches", PD_TYPE_SOFTWARE, PD_SW_CONTEXT_SWITCHES, "context-switches");
	expect_one("cpu-migrations", PD_TYPE_SOFTWARE, PD_SW_CPU_MIGRATIONS, "cpu-migrations");
}

static void test_evspec_known_hardware_events(void **state)
{
	(void)state;
	expect_one("cycles", PD_TYPE_HARDWARE, PD_HW_CPU_CYCLES, "cycles");
	expect_one("instructions", PD_TYPE_HARDWARE, PD_HW_INSTRUCTIONS, "instructions");
	expect_one("cache-references", PD_TYPE_HARDWARE, PD_HW_CACHE_REFERENCES, "cache-references");
	expect_one("cache-misses", PD_TYPE_HARDWARE, PD_HW_CACHE_MISSES, "cache-misses");
	expect_one("branches", PD_TYPE_HARDWARE, PD_HW_BRANCH_INSTRUCTIONS, "branches");
	expect_one("branch-misses", PD_TYPE_HARDWARE, PD_HW_BRANCH_MISSES, "branch-misses");
	expect_one("bus-cycles", PD_TYPE_HARDWARE, PD_HW_BUS_CYCLES, "bus-cycles");
	expect_one("ref-cycles", PD_TYPE_HARDWARE, PD_HW_REF_CPU_CYCLES, "ref-cycles");
}

static void test_evspec_aliases_resolve_to_canonical_names(void **state)
{
	(void)state;
	expect_one("cs", PD_TYPE_SOFTWARE, PD_SW_CONTEXT_SWITCHES, "context-switches");
	expect_one("faults", PD_TYPE_SOFTWARE, PD_SW_PAGE_FAULTS, "page-faults");
	expect_one("migrations", PD_TYPE_SOFTWARE, PD_SW_CPU_MIGRATIONS, "cpu-migrations");
	expect_one("cpu-cycles", PD_TYPE_HARDWARE, PD_HW_CPU_CYCLES, "cycles");
	expect_one("branch-instructions", PD_TYPE_HARDWARE, PD_HW_BRANCH_INSTRUCTIONS, "branches");
}

static void test_evspec_without_modifier_excludes_nothing(void **state)
{
	(void)state;
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	assert_int_equal(evspec_parse(&l, "cpu-clock", &e), 0);
	assert_false(l.ev[0].has_modifier);
	assert_false(l.ev[0].exclude_user);
	assert_false(l.ev[0].exclude_kernel);
	assert_false(l.ev[0].exclude_hv);
	evspec_list_free(&l);
}

/* parse arg, expect the exclude bits and name */
static void expect_mods(const char *arg, bool xu, bool xk, bool xh, const char *name)
{
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	int rc = evspec_parse(&l, arg, &e);
	if (rc != 0)
		fail_msg("evspec_parse(\"%s\") = %d: %s", arg, rc, e.msg);
	assert_int_equal(l.nr, 1);
	assert_true(l.ev[0].has_modifier);
	assert_int_equal(l.ev[0].exclude_user, xu);
	assert_int_equal(l.ev[0].exclude_kernel, xk);
	assert_int_equal(l.ev[0].exclude_hv, xh);
	assert_string_equal(l.ev[0].name, name);
	evspec_list_free(&l);
}

static void test_evspec_modifiers_set_exclude_bits(void **state)
{
	(void)state;
	/* like perf: the listed levels are counted, the others excluded */
	expect_mods("cpu-clock:u", false, true, true, "cpu-clock:u");
	expect_mods("cpu-clock:k", true, false, true, "cpu-clock:k");
	expect_mods("cpu-clock:h", true, true, false, "cpu-clock:h");
	expect_mods("task-clock:uk", false, false, true, "task-clock:uk");
	expect_mods("cycles:ukh", false, false, false, "cycles:ukh");
	expect_mods("cs:u", false, true, true, "context-switches:u");
}

static void test_evspec_comma_list_and_repeated_calls_accumulate(void **state)
{
	(void)state;
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	assert_int_equal(evspec_parse(&l, "cpu-clock,task-clock:u", &e), 0);
	assert_int_equal(evspec_parse(&l, "faults", &e), 0);
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.ev[0].name, "cpu-clock");
	assert_string_equal(l.ev[1].name, "task-clock:u");
	assert_true(l.ev[1].exclude_kernel);
	assert_false(l.ev[0].exclude_kernel);
	assert_string_equal(l.ev[2].name, "page-faults");
	evspec_list_free(&l);
	assert_null(l.ev);
	assert_int_equal(l.nr, 0);
}

static void test_evspec_unknown_event_is_einval_naming_it(void **state)
{
	(void)state;
	expect_bad("bogus", "bogus");
	expect_bad("cpu-clock,nosuchevent", "nosuchevent");
	expect_bad("CPU-CLOCK", "CPU-CLOCK");
	expect_bad("cpu-clock ", "cpu-clock ");
	/* the message lists what is valid */
	expect_bad("bogus", "cpu-clock");
}

static void test_evspec_overlong_name_is_einval(void **state)
{
	(void)state;
	char name[200];
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	expect_bad(name, "xxxx");
}

static void test_evspec_unknown_modifier_is_einval_naming_the_event(void **state)
{
	(void)state;
	expect_bad("cpu-clock:x", "cpu-clock:x");
	expect_bad("cpu-clock:ux", "cpu-clock:ux");
	expect_bad("cycles:p", "cycles:p");
	expect_bad("cpu-clock:u:k", "cpu-clock:u:k");
}

static void test_evspec_empty_modifier_is_einval(void **state)
{
	(void)state;
	expect_bad("cpu-clock:", "cpu-clock");
}

static void test_evspec_empty_names_are_einval(void **state)
{
	(void)state;
	expect_bad("", NULL);
	expect_bad(",", NULL);
	expect_bad(",,", NULL);
	expect_bad("cpu-clock,,task-clock", "cpu-clock,,task-clock");
	expect_bad("cpu-clock,", "cpu-clock,");
	expect_bad(",cpu-clock", ",cpu-clock");
	expect_bad(":u", NULL);
}

static void test_evspec_add_default_is_cycles_marked_default(void **state)
{
	(void)state;
	struct evspec_list l = { NULL, 0 };
	assert_int_equal(evspec_add_default(&l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.ev[0].type, PD_TYPE_HARDWARE);
	assert_int_equal(l.ev[0].config, PD_HW_CPU_CYCLES);
	assert_true(l.ev[0].is_default);
	assert_false(l.ev[0].has_modifier);
	assert_false(l.ev[0].exclude_user);
	assert_false(l.ev[0].exclude_kernel);
	assert_string_equal(l.ev[0].name, "cycles");
	evspec_list_free(&l);
}

static void test_evspec_use_cpu_clock_turns_default_into_cpu_clock(void **state)
{
	(void)state;
	struct evspec_list l = { NULL, 0 };
	assert_int_equal(evspec_add_default(&l), 0);
	evspec_use_cpu_clock(&l.ev[0]);
	assert_int_equal(l.ev[0].type, PD_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].config, PD_SW_CPU_CLOCK);
	assert_string_equal(l.ev[0].name, "cpu-clock");
	assert_true(l.ev[0].is_default);
	evspec_list_free(&l);
}

static void test_evspec_use_cpu_clock_keeps_the_modifier(void **state)
{
	(void)state;
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	assert_int_equal(evspec_parse(&l, "cycles:u", &e), 0);
	evspec_use_cpu_clock(&l.ev[0]);
	assert_int_equal(l.ev[0].type, PD_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].config, PD_SW_CPU_CLOCK);
	assert_string_equal(l.ev[0].name, "cpu-clock:u");
	assert_true(l.ev[0].has_modifier);
	assert_false(l.ev[0].exclude_user);
	assert_true(l.ev[0].exclude_kernel);
	assert_true(l.ev[0].exclude_hv);
	evspec_list_free(&l);
}

static void test_evspec_known_names_lists_every_event(void **state)
{
	(void)state;
	const char *k = evspec_known_names();
	static const char *const names[] = {
		"cpu-clock", "task-clock", "page-faults", "faults", "minor-faults", "major-faults",
		"context-switches", "cs", "cpu-migrations", "migrations", "cycles", "instructions",
		"cache-references", "cache-misses", "branches", "branch-misses", "bus-cycles", "ref-cycles",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strstr(k, names[i]))
			fail_msg("evspec_known_names() lacks %s", names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evspec_known_software_events),
		cmocka_unit_test(test_evspec_known_hardware_events),
		cmocka_unit_test(test_evspec_aliases_resolve_to_canonical_names),
		cmocka_unit_test(test_evspec_without_modifier_excludes_nothing),
		cmocka_unit_test(test_evspec_modifiers_set_exclude_bits),
		cmocka_unit_test(test_evspec_comma_list_and_repeated_calls_accumulate),
		cmocka_unit_test(test_evspec_unknown_event_is_einval_naming_it),
		cmocka_unit_test(test_evspec_overlong_name_is_einval),
		cmocka_unit_test(test_evspec_unknown_modifier_is_einval_naming_the_event),
		cmocka_unit_test(test_evspec_empty_modifier_is_einval),
		cmocka_unit_test(test_evspec_empty_names_are_einval),
		cmocka_unit_test(test_evspec_add_default_is_cycles_marked_default),
		cmocka_unit_test(test_evspec_use_cpu_clock_turns_default_into_cpu_clock),
		cmocka_unit_test(test_evspec_use_cpu_clock_keeps_the_modifier),
		cmocka_unit_test(test_evspec_known_names_lists_every_event),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
