/* test_callgraph.c - call graph modes (src/record/callgraph.c). */
#include "test_helpers.h"

#include "record/callgraph.h"

#define NO_LBR "/nonexistent/psrec-no-lbr"

static void parse_ok(const char *arg, const char *lbr, struct callgraph *cg)
{
	struct err e = { "" };
	memset(cg, 0, sizeof(*cg));
	int rc = callgraph_parse(cg, arg, lbr, &e);
	if (rc != 0)
		fail_msg("callgraph_parse(%s) = %d: %s", arg, rc, e.msg);
}

static void parse_bad(const char *arg, const char *want)
{
	struct err e = { "" };
	struct callgraph cg = { 0 };
	assert_int_equal(callgraph_parse(&cg, arg, NO_LBR, &e), -EINVAL);
	if (!strstr(e.msg, want))
		fail_msg("callgraph_parse(%s): '%s' lacks '%s'", arg, e.msg, want);
}

static void test_callgraph_fp_and_dwarf_default_size(void **state)
{
	(void)state;
	struct callgraph cg;
	parse_ok("fp", NO_LBR, &cg);
	assert_int_equal(cg.mode, CALLGRAPH_FP);
	parse_ok("dwarf", NO_LBR, &cg);
	assert_int_equal(cg.mode, CALLGRAPH_DWARF);
	assert_int_equal(cg.stack_size, 8192);
}

static void test_callgraph_dwarf_size_rounds_up_to_8(void **state)
{
	(void)state;
	struct callgraph cg;
	parse_ok("dwarf,16384", NO_LBR, &cg);
	assert_int_equal(cg.stack_size, 16384);
	parse_ok("dwarf,1001", NO_LBR, &cg);
	assert_int_equal(cg.stack_size, 1008);
	parse_ok("dwarf,64", NO_LBR, &cg);
	assert_int_equal(cg.stack_size, 64);
	parse_ok("dwarf,65528", NO_LBR, &cg);
	assert_int_equal(cg.stack_size, 65528);
}

static void test_callgraph_bad_sizes_and_modes_are_usage_errors(void **state)
{
	(void)state;
	parse_bad("dwarf,7", "too small");
	parse_bad("dwarf,0", "too small");
	parse_bad("dwarf,65529", "too large");
	parse_bad("dwarf,999999", "too large");
	parse_bad("dwarf,", "expected a stack size");
	parse_bad("dwarf,12k", "expected a stack size");
	parse_bad("dwarf,-8", "expected a stack size");
	parse_bad("nonsense", "expected fp, dwarf[,SIZE] or lbr");
	parse_bad("", "expected fp");
	parse_bad("fp,10", "expected fp");
	parse_bad("dwarfish", "expected fp");
}

static void test_callgraph_lbr_needs_the_cpu_capability(void **state)
{
	(void)state;
	parse_bad("lbr", "no last branch records");
	/* A readable caps file stands for a CPU with LBR. */
	char path[64];
	int fd = th_tmpfile(path);
	close(fd);
	struct callgraph cg;
	parse_ok("lbr", path, &cg);
	assert_int_equal(cg.mode, CALLGRAPH_LBR);
	unlink(path);
}

static void test_callgraph_regs_mask_table(void **state)
{
	(void)state;
	assert_int_equal(callgraph_regs_mask("x86_64"), 0xff0fff);
	assert_int_equal(callgraph_regs_mask("aarch64"), (1ULL << 33) - 1);
	assert_int_equal(callgraph_regs_mask("mips"), 0);
	assert_int_equal(callgraph_regs_mask(""), 0);
	assert_true(callgraph_regs_mask(callgraph_build_arch()) != 0);
	assert_string_equal(callgraph_name(CALLGRAPH_DWARF), "dwarf");
}

static void test_callgraph_apply_fp_adds_callchain_only(void **state)
{
	(void)state;
	struct callgraph cg = { CALLGRAPH_FP, 0, 0 };
	struct pd_attr a;
	memset(&a, 0, sizeof(a));
	a.sample_type = PD_SAMPLE_IP;
	callgraph_apply(&cg, &a, false, true);
	assert_int_equal(a.sample_type, PD_SAMPLE_IP | PD_SAMPLE_CALLCHAIN);
	assert_int_equal(a.flags, 0);
	assert_int_equal(a.sample_max_stack, 0);

	/* Kernel samples refused: the kernel part of chains must go too. */
	memset(&a, 0, sizeof(a));
	cg.max_stack = 20;
	callgraph_apply(&cg, &a, true, false);
	assert_true(a.flags & PD_ATTR_EXCLUDE_CALLCHAIN_KERNEL);
	assert_int_equal(a.sample_max_stack, 20);
}

static void test_callgraph_apply_dwarf_regs_stack_and_mmap_data(void **state)
{
	(void)state;
	struct callgraph cg = { CALLGRAPH_DWARF, 16384, 0 };
	struct pd_attr a;
	memset(&a, 0, sizeof(a));
	callgraph_apply(&cg, &a, false, true);
	assert_int_equal(a.sample_type, PD_SAMPLE_CALLCHAIN | PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER);
	assert_int_equal(a.sample_regs_user, callgraph_regs_mask(callgraph_build_arch()));
	assert_int_equal(a.sample_stack_user, 16384);
	assert_true(a.flags & PD_ATTR_EXCLUDE_CALLCHAIN_USER);
	assert_true(a.flags & PD_ATTR_MMAP_DATA);
	assert_false(a.flags & PD_ATTR_EXCLUDE_CALLCHAIN_KERNEL);

	/* Only the tracking attr asks for data mappings. */
	memset(&a, 0, sizeof(a));
	callgraph_apply(&cg, &a, false, false);
	assert_false(a.flags & PD_ATTR_MMAP_DATA);
}

static void test_callgraph_apply_none_changes_nothing(void **state)
{
	(void)state;
	struct callgraph cg = { CALLGRAPH_NONE, 0, 7 };
	struct pd_attr a, before;
	memset(&a, 0x5a, sizeof(a));
	before = a;
	callgraph_apply(&cg, &a, true, true);
	assert_memory_equal(&a, &before, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callgraph_fp_and_dwarf_default_size),
		cmocka_unit_test(test_callgraph_dwarf_size_rounds_up_to_8),
		cmocka_unit_test(test_callgraph_bad_sizes_and_modes_are_usage_errors),
		cmocka_unit_test(test_callgraph_lbr_needs_the_cpu_capability),
		cmocka_unit_test(test_callgraph_regs_mask_table),
		cmocka_unit_test(test_callgraph_apply_fp_adds_callchain_only),
		cmocka_unit_test(test_callgraph_apply_dwarf_regs_stack_and_mmap_data),
		cmocka_unit_test(test_callgraph_apply_none_changes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
