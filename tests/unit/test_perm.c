/*
 * test_perm.c - the permission and limits doctor (src/record/perm.c):
 * raising RLIMIT_NOFILE, and the messages for refused opens and mmaps.
 */
#include "test_helpers.h"

#include <sys/resource.h>

#include "record/evspec.h"
#include "record/perm.h"
#include "util/sysfile.h"

/* ---- perm_ensure_fds ----------------------------------------------------- */

static struct rlimit saved_nofile;

static int save_nofile(void **state)
{
	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved_nofile), 0);
	return 0;
}

static int restore_nofile(void **state)
{
	(void)state;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved_nofile), 0);
	return 0;
}

static void set_soft(rlim_t soft)
{
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = soft;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

static void test_perm_ensure_fds_small_need_returns_0_without_raising(void **state)
{
	(void)state;
	struct rlimit before, after;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &before), 0);
	size_t raised = 12345;
	struct err e = { "" };
	assert_int_equal(perm_ensure_fds(3, &raised, &e), 0);
	assert_int_equal(raised, 0);
	assert_false(err_is_set(&e));
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	assert_int_equal(after.rlim_cur, before.rlim_cur);
	assert_int_equal(after.rlim_max, before.rlim_max);
}

static void test_perm_ensure_fds_need_equal_to_soft_limit_is_not_raised(void **state)
{
	(void)state;
	set_soft(64);
	size_t raised = 12345;
	struct err e = { "" };
	assert_int_equal(perm_ensure_fds(64, &raised, &e), 0);
	assert_int_equal(raised, 0);
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(rl.rlim_cur, 64);
}

static void test_perm_ensure_fds_raises_soft_limit_to_the_need_within_hard_limit(void **state)
{
	(void)state;
	if (saved_nofile.rlim_max != RLIM_INFINITY && saved_nofile.rlim_max < 200)
		skip();
	set_soft(64);
	size_t raised = 0;
	struct err e = { "" };
	assert_int_equal(perm_ensure_fds(200, &raised, &e), 0);
	assert_int_equal(raised, 200);
	assert_false(err_is_set(&e));
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(rl.rlim_cur, 200);
	assert_int_equal(rl.rlim_max, saved_nofile.rlim_max);   /* the hard limit is kept */
}

/* What perm_ensure_fds did in a child with its own limits. */
struct child_result {
	int setup_failed;
	int rc;
	size_t raised;
	struct rlimit after;
	char msg[512];
};

struct ensure_args {
	rlim_t soft, hard;
	bool drop_root;
	size_t need;
};

static void ensure_body(void *res, void *arg)
{
	struct child_result *r = res;
	const struct ensure_args *a = arg;
	struct rlimit rl = { a->soft, a->hard };
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		r->setup_failed = 1;
	if (!r->setup_failed && a->drop_root && !th_drop_root())
		r->setup_failed = 2;
	if (!r->setup_failed) {
		struct err e = { "" };
		r->rc = perm_ensure_fds(a->need, &r->raised, &e);
		memcpy(r->msg, e.msg, sizeof(r->msg));
		getrlimit(RLIMIT_NOFILE, &r->after);
	}
}

/* Run perm_ensure_fds(need) in a child whose limits are soft/hard and which,
 * when drop_root, gave up root first (so it cannot raise the hard limit). */
static void ensure_in_child(rlim_t soft, rlim_t hard, bool drop_root, size_t need, struct child_result *res)
{
	struct ensure_args a = { soft, hard, drop_root, need };
	th_run_in_child(ensure_body, &a, res, sizeof(*res));
	if (res->setup_failed)
		skip();
}

static void test_perm_ensure_fds_above_hard_limit_unprivileged_is_emfile_naming_the_count(void **state)
{
	(void)state;
	struct child_result r;
	ensure_in_child(64, 64, true, 1000, &r);
	assert_int_equal(r.rc, -EMFILE);
	assert_non_null(strstr(r.msg, "needs 1000 file descriptors"));
	assert_non_null(strstr(r.msg, "ulimit -n"));
	assert_int_equal(r.raised, 0);
	assert_int_equal(r.after.rlim_cur, 64);
	assert_int_equal(r.after.rlim_max, 64);
}

static void test_perm_ensure_fds_above_hard_limit_unprivileged_still_raises_soft_to_hard(void **state)
{
	(void)state;
	struct child_result r;
	ensure_in_child(32, 64, true, 1000, &r);
	assert_int_equal(r.rc, -EMFILE);
	assert_non_null(strstr(r.msg, "needs 1000 file descriptors"));
	/* as far as it could go: *raised_to is the new soft limit */
	assert_int_equal(r.raised, 64);
	assert_int_equal(r.after.rlim_cur, 64);
}

/* CAP_SYS_RESOURCE (24) in the effective set: what raising a hard limit
 * takes. A container's root may lack it. */
static bool has_cap_sys_resource(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return false;
	char line[256];
	unsigned long long eff = 0;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return found && ((eff >> 24) & 1);
}

static void test_perm_ensure_fds_root_raises_hard_limit_up_to_nr_open(void **state)
{
	(void)state;
	int64_t nr_open = 0;
	if (geteuid() != 0 || !has_cap_sys_resource() ||
	    sysfile_read_s64("/proc/sys/fs/nr_open", &nr_open) || nr_open < 1000)
		skip();
	struct child_result r;
	ensure_in_child(64, 64, false, 1000, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.raised, 1000);
	assert_int_equal(r.after.rlim_cur, 1000);
	assert_int_equal(r.after.rlim_max, 1000);

	/* beyond fs.nr_open even root cannot go */
	ensure_in_child(64, 64, false, (size_t)nr_open + 1, &r);
	assert_int_equal(r.rc, -EMFILE);
	char want[64];
	snprintf(want, sizeof(want), "needs %lld file descriptors", (long long)nr_open + 1);
	assert_non_null(strstr(r.msg, want));
}

static void test_perm_ensure_fds_root_without_cap_sys_resource_is_emfile_not_a_crash(void **state)
{
	(void)state;
	if (geteuid() != 0 || has_cap_sys_resource())
		skip();
	/* root tries to raise the hard limit, is refused, and reports it */
	struct child_result r;
	ensure_in_child(64, 64, false, 1000, &r);
	assert_int_equal(r.rc, -EMFILE);
	assert_non_null(strstr(r.msg, "needs 1000 file descriptors"));
	assert_int_equal(r.after.rlim_max, 64);
}

/* ---- perm_explain -------------------------------------------------------- */

static struct evspec event(const char *name)
{
	struct evspec_list l = { NULL, 0 };
	struct err e = { "" };
	assert_int_equal(evspec_parse(&l, name, &e), 0);
	assert_int_equal(l.nr, 1);
	struct evspec ev = l.ev[0];
	evspec_list_free(&l);
	return ev;
}

static void expect_msg(const struct perm_failure *f, const char *const *want, const char *const *not_want)
{
	struct err e = { "" };
	assert_int_equal(perm_explain(f, &e), -f->code);
	assert_true(err_is_set(&e));
	for (; want && *want; want++)
		if (!strstr(e.msg, *want))
			fail_msg("message '%s' does not mention '%s'", e.msg, *want);
	for (; not_want && *not_want; not_want++)
		if (strstr(e.msg, *not_want))
			fail_msg("message '%s' should not mention '%s'", e.msg, *not_want);
}

static struct perm_failure failure(int code, const struct evspec *ev)
{
	struct perm_failure f;
	memset(&f, 0, sizeof(f));
	f.code = code;
	if (ev) {
		f.ev = *ev;
		f.has_ev = true;
	}
	f.pid = -1;
	f.cpu = 0;
	return f;
}

static void test_perm_explain_missing_hardware_event_suggests_cpu_clock(void **state)
{
	(void)state;
	struct evspec cycles = event("cycles");
	assert_int_equal(cycles.type, PD_TYPE_HARDWARE);
	static const char *const want[] = { "not supported on this machine", "use -e cpu-clock", "cycles", NULL };
	struct perm_failure f = failure(ENOENT, &cycles);
	expect_msg(&f, want, NULL);
	f.code = EOPNOTSUPP;
	expect_msg(&f, want, NULL);
	f.code = ENODEV;
	expect_msg(&f, want, NULL);
}

static void test_perm_explain_missing_software_event_blames_the_kernel_not_the_pmu(void **state)
{
	(void)state;
	struct evspec ev = event("page-faults");
	assert_int_equal(ev.type, PD_TYPE_SOFTWARE);
	static const char *const want[] = { "page-faults", "not supported by this kernel", NULL };
	static const char *const not_want[] = { "use -e cpu-clock", "hardware", NULL };
	struct perm_failure f = failure(ENOENT, &ev);
	expect_msg(&f, want, not_want);
}

static void test_perm_explain_emfile_says_out_of_fds_and_how_many(void **state)
{
	(void)state;
	struct evspec ev = event("cpu-clock");
	struct perm_failure f = failure(EMFILE, &ev);
	f.fds_needed = 5000;
	static const char *const want[] = { "out of file descriptors", "5000", "ulimit -n", "cpu-clock", NULL };
	expect_msg(&f, want, NULL);
	f.code = ENFILE;
	expect_msg(&f, want, NULL);
}

static void test_perm_explain_esrch_names_the_pid(void **state)
{
	(void)state;
	struct evspec ev = event("cpu-clock");
	struct perm_failure f = failure(ESRCH, &ev);
	f.pid = 4242;
	static const char *const want[] = { "4242", "exited", NULL };
	expect_msg(&f, want, NULL);
}

static void test_perm_explain_failed_mmap_mentions_ring_buffer_and_smaller_m(void **state)
{
	(void)state;
	struct evspec ev = event("cpu-clock");
	struct perm_failure f = failure(EPERM, &ev);
	f.at_mmap = true;
	f.ring_kb = 512;
	f.cpu = 3;
	static const char *const want[] = { "ring buffer", "-m", "512 KiB", "CPU 3", "ulimit -l", NULL };
	/* not the open-permission explanation, though the code is EPERM */
	static const char *const not_want[] = { "not allowed", NULL };
	expect_msg(&f, want, not_want);
	f.code = ENOMEM;
	expect_msg(&f, want, not_want);
}

static void test_perm_explain_system_wide_eacces_mentions_dash_a(void **state)
{
	(void)state;
	struct evspec ev = event("cpu-clock");
	struct perm_failure f = failure(EACCES, &ev);
	f.system_wide = true;
	static const char *const want[] = { "-a", "perf_event_paranoid", NULL };
	expect_msg(&f, want, NULL);
	f.code = EPERM;
	expect_msg(&f, want, NULL);
}

static void test_perm_explain_unknown_code_names_event_cpu_and_strerror(void **state)
{
	(void)state;
	struct evspec ev = event("task-clock");
	struct perm_failure f = failure(EBUSY, &ev);
	f.cpu = 1;
	char se[128];
	snprintf(se, sizeof(se), "%s", strerror(EBUSY));
	const char *want[] = { "task-clock", "CPU 1", se, NULL };
	expect_msg(&f, want, NULL);
}

static void test_perm_explain_without_an_event_does_not_crash(void **state)
{
	(void)state;
	static const int codes[] = { ENOENT, EACCES, EPERM, ESRCH, EMFILE, EINVAL, EBUSY };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct perm_failure f = failure(codes[i], NULL);
		expect_msg(&f, NULL, NULL);
	}
}

#define NOFILE(t) cmocka_unit_test_setup_teardown(t, save_nofile, restore_nofile)

int main(void)
{
	const struct CMUnitTest tests[] = {
		NOFILE(test_perm_ensure_fds_small_need_returns_0_without_raising),
		NOFILE(test_perm_ensure_fds_need_equal_to_soft_limit_is_not_raised),
		NOFILE(test_perm_ensure_fds_raises_soft_limit_to_the_need_within_hard_limit),
		NOFILE(test_perm_ensure_fds_above_hard_limit_unprivileged_is_emfile_naming_the_count),
		NOFILE(test_perm_ensure_fds_above_hard_limit_unprivileged_still_raises_soft_to_hard),
		NOFILE(test_perm_ensure_fds_root_raises_hard_limit_up_to_nr_open),
		NOFILE(test_perm_ensure_fds_root_without_cap_sys_resource_is_emfile_not_a_crash),
		cmocka_unit_test(test_perm_explain_missing_hardware_event_suggests_cpu_clock),
		cmocka_unit_test(test_perm_explain_missing_software_event_blames_the_kernel_not_the_pmu),
		cmocka_unit_test(test_perm_explain_emfile_says_out_of_fds_and_how_many),
		cmocka_unit_test(test_perm_explain_esrch_names_the_pid),
		cmocka_unit_test(test_perm_explain_failed_mmap_mentions_ring_buffer_and_smaller_m),
		cmocka_unit_test(test_perm_explain_system_wide_eacces_mentions_dash_a),
		cmocka_unit_test(test_perm_explain_unknown_code_names_event_cpu_and_strerror),
		cmocka_unit_test(test_perm_explain_without_an_event_does_not_crash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
