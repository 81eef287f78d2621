/*
 * test_procfs.c - /proc readers (src/record/procfs.c): the maps line parser,
 * and status/threads/processes/maps against a fake proc root built under a
 * temporary directory, plus a sanity check on the real /proc.
 */
#include "test_helpers.h"

#include <sys/mman.h>

#include "record/procfs.h"

/* ---- procfs_parse_map_line ---------------------------------------------- */

static void expect_path(const struct procfs_map *m, const char *want)
{
	if (m->path_len != strlen(want) || memcmp(m->path, want, m->path_len) != 0)
		fail_msg("path '%.*s' (len %zu), expected '%s'", (int)m->path_len, m->path, m->path_len, want);
}

static void test_procfs_parse_map_line_reads_every_field_of_a_private_exec_file_mapping(void **state)
{
	(void)state;
	const char *line = "55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234567   /usr/bin/spin\n";
	struct procfs_map m;
	memset(&m, 0xaa, sizeof(m));
	assert_int_equal(procfs_parse_map_line(line, &m), 0);
	assert_int_equal(m.start, 0x55d0c0a00000ULL);
	assert_int_equal(m.end, 0x55d0c0a21000ULL);
	assert_int_equal(m.pgoff, 0x2000);
	assert_int_equal(m.maj, 0xfd);
	assert_int_equal(m.min, 1);
	assert_int_equal(m.ino, 1234567);
	assert_int_equal(m.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(m.flags, MAP_PRIVATE);
	expect_path(&m, "/usr/bin/spin");
	/* the path points into the line, and stops before the newline */
	assert_true(m.path >= line && m.path < line + strlen(line));
	assert_int_equal(m.path[m.path_len], '\n');
}

static void test_procfs_parse_map_line_s_in_perms_means_map_shared(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line(
		"7f1234560000-7f1234570000 rw-s 00000000 00:05 98765   /dev/shm/ring (deleted)\n", &m), 0);
	assert_int_equal(m.flags, MAP_SHARED);
	assert_int_equal(m.prot, PROT_READ | PROT_WRITE);
	assert_int_equal(m.maj, 0);
	assert_int_equal(m.min, 5);
	assert_int_equal(m.ino, 98765);

	assert_int_equal(procfs_parse_map_line(
		"7f1234560000-7f1234570000 r--s 00010000 08:02 11   /data/file\n", &m), 0);
	assert_int_equal(m.flags, MAP_SHARED);
	assert_int_equal(m.prot, PROT_READ);
	assert_int_equal(m.pgoff, 0x10000);
	assert_int_equal(m.maj, 8);
	assert_int_equal(m.min, 2);
}

static void test_procfs_parse_map_line_anonymous_mapping_has_empty_path(void **state)
{
	(void)state;
	struct procfs_map m;
	/* what the kernel writes for an unnamed mapping: no padding, no name */
	assert_int_equal(procfs_parse_map_line("7f0000000000-7f0000001000 rwxp 00000000 00:00 0\n", &m), 0);
	assert_int_equal(m.prot, PROT_READ | PROT_WRITE | PROT_EXEC);
	assert_int_equal(m.flags, MAP_PRIVATE);
	assert_int_equal(m.ino, 0);
	assert_int_equal(m.path_len, 0);
	assert_non_null(m.path);

	/* trailing spaces, no newline */
	assert_int_equal(procfs_parse_map_line("7f0000000000-7f0000001000 --xp 00000000 00:00 0      ", &m), 0);
	assert_int_equal(m.prot, PROT_EXEC);
	assert_int_equal(m.path_len, 0);

	/* ---p: no access at all (a guard page) */
	assert_int_equal(procfs_parse_map_line("7f0000000000-7f0000001000 ---p 00000000 00:00 0 \n", &m), 0);
	assert_int_equal(m.prot, 0);
	assert_int_equal(m.path_len, 0);
}

static void test_procfs_parse_map_line_keeps_bracketed_names_like_vdso(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line(
		"7ffd3a5f3000-7ffd3a5f5000 r-xp 00000000 00:00 0                          [vdso]\n", &m), 0);
	expect_path(&m, "[vdso]");
	assert_int_equal(m.prot, PROT_READ | PROT_EXEC);

	/* 64-bit kernel-half addresses parse in full */
	assert_int_equal(procfs_parse_map_line(
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n", &m), 0);
	assert_int_equal(m.start, 0xffffffffff600000ULL);
	assert_int_equal(m.end, 0xffffffffff601000ULL);
	assert_int_equal(m.prot, PROT_EXEC);
	expect_path(&m, "[vsyscall]");

	assert_int_equal(procfs_parse_map_line(
		"7f0000000000-7f0000001000 rw-p 00000000 00:00 0   [anon:glibc malloc]\n", &m), 0);
	expect_path(&m, "[anon:glibc malloc]");
}

static void test_procfs_parse_map_line_path_with_spaces_is_kept_whole(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line(
		"7f0000000000-7f0000010000 r-xp 00001000 fd:01 42    /opt/My App/lib  two  spaces.so\n", &m), 0);
	expect_path(&m, "/opt/My App/lib  two  spaces.so");
	assert_int_equal(m.ino, 42);
	assert_int_equal(m.pgoff, 0x1000);
}

static void test_procfs_parse_map_line_keeps_deleted_suffix(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line(
		"55d0c0a00000-55d0c0a21000 r-xp 00000000 fd:01 777   /tmp/spin (deleted)\n", &m), 0);
	expect_path(&m, "/tmp/spin (deleted)");
}

static void test_procfs_parse_map_line_without_newline_takes_rest_of_line_as_path(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line("1000-2000 r-xp 00000000 fd:01 5 /bin/true", &m), 0);
	assert_int_equal(m.start, 0x1000);
	assert_int_equal(m.end, 0x2000);
	expect_path(&m, "/bin/true");
}

static void test_procfs_parse_map_line_malformed_lines_are_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",                                                        /* empty */
		"\n",
		"55d0c0a00000 55d0c0a21000 r-xp 00002000 fd:01 1 /x\n",    /* missing dash */
		"55d0c0a0000055d0c0a21000 r-xp 00002000 fd:01 1 /x\n",
		"55d0c0a00000- r-xp 00002000 fd:01 1 /x\n",                /* missing end */
		"55d0c0a00000-55d0c0a21000 r-x 00002000 fd:01 1 /x\n",     /* perms too short */
		"55d0c0a00000-55d0c0a21000 r-xpp 00002000 fd:01 1 /x\n",   /* perms too long */
		"55d0c0a00000-55d0c0a21000 r-xp\n",                        /* truncated after perms */
		"55d0c0a00000-55d0c0a21000 r-",                            /* truncated in perms */
		"xyz-55d0c0a21000 r-xp 00002000 fd:01 1 /x\n",             /* non-hex start */
		"55d0c0a00000-zz r-xp 00002000 fd:01 1 /x\n",              /* non-hex end */
		"55d0c0a00000-55d0c0a21000 r-xp 0000200g fd:01 1 /x\n",    /* non-hex offset */
		"55d0c0a00000-55d0c0a21000 r-xp offset fd:01 1 /x\n",
		"55d0c0a00000-55d0c0a21000 r-xp 00002000 fx:01 1 /x\n",    /* non-hex major */
		"55d0c0a00000-55d0c0a21000 r-xp 00002000 fd-01 1 /x\n",    /* no colon */
		"55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 /x\n",      /* no inode */
		"55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 x1 /x\n",   /* non-decimal inode */
		"55d0c0a21000-55d0c0a00000 r-xp 00002000 fd:01 1 /x\n",    /* end < start */
		" 55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1 /x\n",   /* leading space */
		"-1000-2000 r-xp 00000000 00:00 0\n",                      /* sign */
		"1000--2000 r-xp 00000000 00:00 0\n",
		"1000-2000  r-xp 00000000 00:00 0\n",                      /* two spaces */
		"1000-fffffffffffffffff r-xp 00000000 00:00 0\n",          /* > 64 bits */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct procfs_map m;
		int rc = procfs_parse_map_line(bad[i], &m);
		if (rc != -EINVAL)
			fail_msg("line %zu '%s': %d, expected -EINVAL", i, bad[i], rc);
	}
}

/* Every perms letter is checked, not just the field's length. */
static void test_procfs_parse_map_line_perms_with_invalid_letters_is_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"1000-2000 zzzz 00000000 00:00 0\n",
		"1000-2000 xwrp 00000000 00:00 0\n",   /* letters in the wrong places */
		"1000-2000 r-xq 00000000 00:00 0\n",   /* neither p nor s */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct procfs_map m;
		int rc = procfs_parse_map_line(bad[i], &m);
		if (rc != -EINVAL)
			fail_msg("line '%s': %d, expected -EINVAL", bad[i], rc);
	}
}

static void test_procfs_parse_map_line_zero_length_range_is_accepted(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line("1000-1000 r--p 00000000 00:00 0\n", &m), 0);
	assert_int_equal(m.start, m.end);
}

/* ---- a fake proc root ---------------------------------------------------- */

static void test_procfs_status_parses_name_tgid_ppid_uid_state_from_fake_root(void **state)
{
	(void)state;
	th_fake_thread_ex(th_root, 4242, 4242, "foo", "foo", 1, 1000, 'S', 0x00400100);
	struct procfs_status st;
	memset(&st, 0x55, sizeof(st));
	assert_int_equal(procfs_status(th_root, 4242, 4242, &st), 0);
	assert_string_equal(st.name, "foo");
	assert_int_equal(st.tgid, 4242);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.uid, 1000);   /* the real uid: first of the four */
	assert_int_equal(st.state, 'S');
	assert_false(st.kthread);
}

static void test_procfs_status_of_a_thread_reads_its_task_directory(void **state)
{
	(void)state;
	th_fake_thread_ex(th_root, 300, 300, "leader", "leader", 7, 0, 'S', 0);
	th_fake_thread_ex(th_root, 300, 301, "worker", "worker", 7, 0, 'R', 0);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 300, 301, &st), 0);
	assert_string_equal(st.name, "worker");
	assert_int_equal(st.tgid, 300);
	assert_int_equal(st.ppid, 7);
	assert_int_equal(st.uid, 0);
	assert_int_equal(st.state, 'R');
}

static void test_procfs_status_name_with_spaces_is_kept(void **state)
{
	(void)state;
	th_fake_thread_ex(th_root, 50, 50, "foo bar", "foo bar", 1, 1000, 'S', 0);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 50, 50, &st), 0);
	assert_string_equal(st.name, "foo bar");
}

static void test_procfs_status_kthread_from_pf_kthread_in_stat_flags(void **state)
{
	(void)state;
	th_fake_thread_ex(th_root, 2, 2, "kthreadd", "kthreadd", 0, 0, 'S', TH_PF_KTHREAD | 0x40);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 2, 2, &st), 0);
	assert_true(st.kthread);
	assert_string_equal(st.name, "kthreadd");
	assert_int_equal(st.ppid, 0);

	th_fake_thread_ex(th_root, 3, 3, "user", "user", 1, 0, 'S', ~TH_PF_KTHREAD);
	assert_int_equal(procfs_status(th_root, 3, 3, &st), 0);
	assert_false(st.kthread);
}

static void test_procfs_status_stat_flags_found_after_last_paren_of_comm(void **state)
{
	(void)state;
	/* A comm built to fool a parser that stops at the first ')': read
	 * from there, field 9 would be 2097152 = PF_KTHREAD. */
	th_fake_thread_ex(th_root, 60, 60, "evil", "evil) S 1 2 3 4 5 2097152 (x", 1, 1000, 'S', 0x400000);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 60, 60, &st), 0);
	assert_false(st.kthread);

	/* and the other way round: a comm with ')' on a kernel thread */
	th_fake_thread_ex(th_root, 61, 61, "k", "a) b) c", 1, 0, 'S', TH_PF_KTHREAD);
	assert_int_equal(procfs_status(th_root, 61, 61, &st), 0);
	assert_true(st.kthread);

	/* spaces only */
	th_fake_thread_ex(th_root, 62, 62, "foo bar", "foo bar", 1, 0, 'S', TH_PF_KTHREAD);
	assert_int_equal(procfs_status(th_root, 62, 62, &st), 0);
	assert_true(st.kthread);
}

static void test_procfs_status_zombie_state(void **state)
{
	(void)state;
	th_fake_thread_ex(th_root, 70, 70, "dead", "dead", 1, 1000, 'Z', 0);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 70, 70, &st), 0);
	assert_int_equal(st.state, 'Z');
}

static void test_procfs_status_missing_pid_or_tid_is_esrch(void **state)
{
	(void)state;
	th_fake_thread(th_root, 80, 80, "here", 1, 0);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 81, 81, &st), -ESRCH);   /* no such process */
	assert_int_equal(procfs_status(th_root, 80, 99, &st), -ESRCH);   /* no such thread */
	char nowhere[128];
	snprintf(nowhere, sizeof(nowhere), "%s/not-a-dir", th_root);
	assert_int_equal(procfs_status(nowhere, 80, 80, &st), -ESRCH);
}

static void test_procfs_status_vanishing_between_status_and_stat_is_esrch(void **state)
{
	(void)state;
	th_fake_thread(th_root, 90, 90, "brief", 1, 0);
	char path[256];
	snprintf(path, sizeof(path), "%s/90/task/90/stat", th_root);
	assert_int_equal(unlink(path), 0);
	struct procfs_status st;
	assert_int_equal(procfs_status(th_root, 90, 90, &st), -ESRCH);
}

static void test_procfs_threads_sorted_ascending_ignoring_non_numeric_entries(void **state)
{
	(void)state;
	static const int tids[] = { 1000, 1010, 1002, 999, 10001, 1001 };
	for (size_t i = 0; i < sizeof(tids) / sizeof(tids[0]); i++)
		th_fake_thread(th_root, 1000, tids[i], "t", 1, 0);
	th_mkdirs("%s/1000/task/self", th_root);
	th_mkdirs("%s/1000/task/.hidden", th_root);
	char path[256];
	snprintf(path, sizeof(path), "%s/1000/task/notes", th_root);
	th_put_file(path, "x");

	pid_t *list = NULL;
	size_t n = 0;
	assert_int_equal(procfs_threads(th_root, 1000, &list, &n), 0);
	static const pid_t want[] = { 999, 1000, 1001, 1002, 1010, 10001 };
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(list[i], want[i]);
	free(list);
}

static void test_procfs_threads_missing_pid_is_esrch(void **state)
{
	(void)state;
	pid_t *list = (pid_t *)1;
	size_t n = 7;
	assert_int_equal(procfs_threads(th_root, 12345, &list, &n), -ESRCH);
	assert_null(list);
	assert_int_equal(n, 0);
}

/*
 * Regression: an empty task/ (a process being torn down) or an empty root
 * once reached qsort(NULL, 0, ...), undefined behaviour that UBSan flags.
 */
static void test_procfs_threads_of_empty_task_dir_and_processes_of_empty_root_without_ub(void **state)
{
	(void)state;
	pid_t *list = (pid_t *)1;
	size_t n = 7;
	/* a process directory with an empty task/ (exiting) is gone */
	th_mkdirs("%s/12346/task", th_root);
	assert_int_equal(procfs_threads(th_root, 12346, &list, &n), -ESRCH);
	assert_null(list);
	assert_int_equal(n, 0);

	char empty[128];
	snprintf(empty, sizeof(empty), "%s/empty", th_root);
	th_mkdirs("%s", empty);
	n = 7;
	assert_int_equal(procfs_processes(empty, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
}

static void test_procfs_processes_sorted_ascending_ignoring_non_numeric_entries(void **state)
{
	(void)state;
	static const int pids[] = { 300, 2, 45, 1, 100000, 7 };
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++)
		th_fake_thread(th_root, pids[i], pids[i], "p", 1, 0);
	th_mkdirs("%s/self", th_root);
	th_mkdirs("%s/sys", th_root);
	th_mkdirs("%s/acpi", th_root);
	char path[256];
	snprintf(path, sizeof(path), "%s/kallsyms", th_root);
	th_put_file(path, "");

	pid_t *list = NULL;
	size_t n = 0;
	assert_int_equal(procfs_processes(th_root, &list, &n), 0);
	static const pid_t want[] = { 1, 2, 7, 45, 300, 100000 };
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(list[i], want[i]);
	free(list);
}

/* Only all-digit names are processes or threads ("42.old" is not 42). */
static void test_procfs_threads_and_processes_ignore_names_that_only_start_with_digits(void **state)
{
	(void)state;
	th_fake_thread(th_root, 42, 42, "p", 1, 0);
	th_mkdirs("%s/42/task/1003abc", th_root);
	th_mkdirs("%s/42.old", th_root);
	th_mkdirs("%s/7x", th_root);

	pid_t *list;
	size_t n;
	assert_int_equal(procfs_threads(th_root, 42, &list, &n), 0);
	bool bogus = false;
	for (size_t i = 0; i < n; i++)
		bogus |= list[i] == 1003;
	pid_t first = n ? list[0] : 0;
	free(list);
	if (bogus)
		fail_msg("task entry '1003abc' was returned as thread 1003");
	assert_int_equal(n, 1);
	assert_int_equal(first, 42);

	assert_int_equal(procfs_processes(th_root, &list, &n), 0);
	bogus = false;
	for (size_t i = 0; i < n; i++)
		bogus |= list[i] == 7 || (i > 0 && list[i] == list[i - 1]);
	first = n ? list[0] : 0;
	free(list);
	if (bogus)
		fail_msg("entry '7x' or '42.old' was returned as a process");
	assert_int_equal(n, 1);
	assert_int_equal(first, 42);
}

static void test_procfs_processes_of_missing_root_is_esrch(void **state)
{
	(void)state;
	char nowhere[128];
	snprintf(nowhere, sizeof(nowhere), "%s/none", th_root);
	pid_t *list;
	size_t n;
	assert_int_equal(procfs_processes(nowhere, &list, &n), -ESRCH);
	assert_null(list);
	assert_int_equal(n, 0);
}

/* ---- procfs_for_each_map ------------------------------------------------- */

#define MAX_SEEN 16

struct seen {
	size_t n;
	int stop_at;            /* return non-zero on this call (1-based), 0 = never */
	int stop_value;
	struct procfs_map m[MAX_SEEN];
	char path[MAX_SEEN][128];
	size_t path_len[MAX_SEEN];
};

static int collect(void *ctx, const struct procfs_map *m)
{
	struct seen *s = ctx;
	assert_true(s->n < MAX_SEEN);
	s->m[s->n] = *m;
	s->path_len[s->n] = m->path_len;
	snprintf(s->path[s->n], sizeof(s->path[0]), "%.*s", (int)m->path_len, m->path);
	s->n++;
	return s->stop_at && (int)s->n == s->stop_at ? s->stop_value : 0;
}

static const char maps4[] =
	"55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234567   /usr/bin/spin\n"
	"55d0c0a21000-55d0c0a30000 r--p 00023000 fd:01 1234567   /usr/bin/spin\n"
	"55d0c0c00000-55d0c0c21000 rw-p 00000000 00:00 0 \n"
	"7f0000000000-7f0000100000 r-xp 00010000 fd:01 7654321   /usr/lib/libc.so.6\n";

static void test_procfs_for_each_map_calls_back_once_per_line_in_order(void **state)
{
	(void)state;
	th_fake_thread(th_root, 500, 500, "spin", 1, 0);
	th_fake_maps(th_root, 500, maps4);
	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(procfs_for_each_map(th_root, 500, collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.m[0].start, 0x55d0c0a00000ULL);
	assert_int_equal(s.m[0].prot, PROT_READ | PROT_EXEC);
	assert_string_equal(s.path[0], "/usr/bin/spin");
	assert_int_equal(s.m[1].prot, PROT_READ);
	assert_int_equal(s.m[1].pgoff, 0x23000);
	assert_int_equal(s.m[2].prot, PROT_READ | PROT_WRITE);
	assert_int_equal(s.path_len[2], 0);
	assert_int_equal(s.m[3].ino, 7654321);
	assert_string_equal(s.path[3], "/usr/lib/libc.so.6");
}

static void test_procfs_for_each_map_skips_unparseable_lines(void **state)
{
	(void)state;
	th_fake_thread(th_root, 501, 501, "spin", 1, 0);
	th_fake_maps(th_root, 501,
		     "garbage\n"
		     "1000-2000 r-xp 00000000 fd:01 1 /a\n"
		     "\n"
		     "3000-2000 r-xp 00000000 fd:01 2 /backwards\n"
		     "4000-5000 r-xp 00000000 fd:01 3 /b\n");
	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(procfs_for_each_map(th_root, 501, collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.path[0], "/a");
	assert_string_equal(s.path[1], "/b");
}

static void test_procfs_for_each_map_stops_at_first_nonzero_callback_return_and_returns_it(void **state)
{
	(void)state;
	th_fake_thread(th_root, 502, 502, "spin", 1, 0);
	th_fake_maps(th_root, 502, maps4);
	struct seen s;
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	s.stop_value = -ENOMEM;
	assert_int_equal(procfs_for_each_map(th_root, 502, collect, &s), -ENOMEM);
	assert_int_equal(s.n, 2);

	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	s.stop_value = 77;
	assert_int_equal(procfs_for_each_map(th_root, 502, collect, &s), 77);
	assert_int_equal(s.n, 1);
}

static void test_procfs_for_each_map_empty_maps_calls_nothing(void **state)
{
	(void)state;
	th_fake_thread(th_root, 503, 503, "kworker", 2, TH_PF_KTHREAD);
	th_fake_maps(th_root, 503, "");
	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(procfs_for_each_map(th_root, 503, collect, &s), 0);
	assert_int_equal(s.n, 0);
}

static void test_procfs_for_each_map_missing_process_is_esrch(void **state)
{
	(void)state;
	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(procfs_for_each_map(th_root, 504, collect, &s), -ESRCH);
	assert_int_equal(s.n, 0);
}

/* A maps line of exactly total bytes before its newline, whose path is
 * '/' then 'a's, then tail. */
static char *long_line(size_t total, const char *tail)
{
	const char *head = "10000-20000 r-xp 00000000 fd:01 9 /";
	size_t hl = strlen(head), tl = strlen(tail);
	assert_true(total > hl + tl);
	char *s = malloc(total + 2);
	assert_non_null(s);
	memcpy(s, head, hl);
	memset(s + hl, 'a', total - hl - tl);
	memcpy(s + total - tl, tail, tl);
	s[total] = '\n';
	s[total + 1] = '\0';
	return s;
}

static void test_procfs_for_each_map_skips_overlong_line_without_misparsing_its_tail(void **state)
{
	(void)state;
	/* The buffer is 4352 bytes, so fgets returns the first 4351 bytes of
	 * an overlong line and the rest as the next chunk. Make that rest a
	 * valid-looking maps line: it must not be reported. */
	const char tail_chunk[] = "666000-667000 r-xp 00000000 fd:01 6 /tail-of-long-line";
	size_t first_chunk = 4352 - 1;
	char *overlong = long_line(first_chunk + strlen(tail_chunk), tail_chunk);
	assert_memory_equal(overlong + first_chunk, tail_chunk, strlen(tail_chunk));
	/* three buffers' worth */
	char *huge = long_line(3 * 4352 + 100, "/huge");

	size_t cap = 1 << 16;
	char *content = malloc(cap);
	assert_non_null(content);
	snprintf(content, cap, "1000-2000 r-xp 00000000 fd:01 1 /before\n%s%s3000-4000 r-xp 00000000 fd:01 2 /after\n",
		 overlong, huge);
	th_fake_thread(th_root, 505, 505, "spin", 1, 0);
	th_fake_maps(th_root, 505, content);

	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(procfs_for_each_map(th_root, 505, collect, &s), 0);
	for (size_t i = 0; i < s.n; i++)
		if (strstr(s.path[i], "tail-of-long-line") || s.m[i].start == 0x666000)
			fail_msg("the tail of an overlong line was parsed as a mapping");
	assert_int_equal(s.n, 2);
	assert_string_equal(s.path[0], "/before");
	assert_string_equal(s.path[1], "/after");
	free(overlong);
	free(huge);
	free(content);
}

static void test_procfs_for_each_map_long_line_that_fits_the_buffer_is_parsed(void **state)
{
	(void)state;
	/* 4350 bytes + '\n' + NUL = the whole 4352-byte buffer */
	char *fits = long_line(4350, "/end");
	char content[8192];
	snprintf(content, sizeof(content), "%s3000-4000 r-xp 00000000 fd:01 2 /after\n", fits);
	th_fake_thread(th_root, 506, 506, "spin", 1, 0);
	th_fake_maps(th_root, 506, content);

	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(procfs_for_each_map(th_root, 506, collect, &s), 0);
	assert_int_equal(s.n, 2);
	size_t head = strlen("10000-20000 r-xp 00000000 fd:01 9 ");
	assert_int_equal(s.path_len[0], 4350 - head);
	assert_int_equal(s.m[0].start, 0x10000);
	assert_string_equal(s.path[1], "/after");
	free(fits);
}

/* ---- the real /proc ------------------------------------------------------ */

static void test_procfs_status_and_threads_of_self_on_real_proc(void **state)
{
	(void)state;
	char comm[64];
	FILE *f = fopen("/proc/self/comm", "r");   /* st_size is 0 in /proc: read, not fstat */
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	assert_true(comm[0] != '\0');

	struct procfs_status st;
	assert_int_equal(procfs_status("/proc", getpid(), getpid(), &st), 0);
	assert_string_equal(st.name, comm);
	assert_int_equal(st.tgid, getpid());
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.uid, getuid());
	assert_int_equal(st.state, 'R');
	assert_false(st.kthread);

	pid_t *tids;
	size_t n;
	assert_int_equal(procfs_threads("/proc", getpid(), &tids, &n), 0);
	assert_true(n >= 1);
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (tids[i] == getpid())
			found = true;
		if (i > 0)
			assert_true(tids[i - 1] < tids[i]);
	}
	assert_true(found);
	free(tids);

	pid_t *pids;
	assert_int_equal(procfs_processes("/proc", &pids, &n), 0);
	found = false;
	for (size_t i = 0; i < n; i++) {
		if (pids[i] == getpid())
			found = true;
		if (i > 0)
			assert_true(pids[i - 1] < pids[i]);
	}
	assert_true(found);
	free(pids);
}

struct exe_ctx {
	char exe[4096];
	size_t exec_maps, exe_maps;
};

static int find_exe(void *ctx, const struct procfs_map *m)
{
	struct exe_ctx *c = ctx;
	if (m->prot & PROT_EXEC) {
		c->exec_maps++;
		if (m->path_len == strlen(c->exe) && memcmp(m->path, c->exe, m->path_len) == 0)
			c->exe_maps++;
	}
	return 0;
}

static void test_procfs_for_each_map_on_real_proc_finds_own_executable(void **state)
{
	(void)state;
	struct exe_ctx c;
	memset(&c, 0, sizeof(c));
	ssize_t n = readlink("/proc/self/exe", c.exe, sizeof(c.exe) - 1);
	assert_true(n > 0);
	c.exe[n] = '\0';
	assert_int_equal(procfs_for_each_map("/proc", getpid(), find_exe, &c), 0);
	assert_true(c.exec_maps >= 2);   /* the test binary and at least libc or the vdso */
	assert_true(c.exe_maps >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procfs_parse_map_line_reads_every_field_of_a_private_exec_file_mapping),
		cmocka_unit_test(test_procfs_parse_map_line_s_in_perms_means_map_shared),
		cmocka_unit_test(test_procfs_parse_map_line_anonymous_mapping_has_empty_path),
		cmocka_unit_test(test_procfs_parse_map_line_keeps_bracketed_names_like_vdso),
		cmocka_unit_test(test_procfs_parse_map_line_path_with_spaces_is_kept_whole),
		cmocka_unit_test(test_procfs_parse_map_line_keeps_deleted_suffix),
		cmocka_unit_test(test_procfs_parse_map_line_without_newline_takes_rest_of_line_as_path),
		cmocka_unit_test(test_procfs_parse_map_line_malformed_lines_are_einval),
		cmocka_unit_test(test_procfs_parse_map_line_perms_with_invalid_letters_is_einval),
		cmocka_unit_test(test_procfs_parse_map_line_zero_length_range_is_accepted),
		TH_FAKE(test_procfs_status_parses_name_tgid_ppid_uid_state_from_fake_root),
		TH_FAKE(test_procfs_status_of_a_thread_reads_its_task_directory),
		TH_FAKE(test_procfs_status_name_with_spaces_is_kept),
		TH_FAKE(test_procfs_status_kthread_from_pf_kthread_in_stat_flags),
		TH_FAKE(test_procfs_status_stat_flags_found_after_last_paren_of_comm),
		TH_FAKE(test_procfs_status_zombie_state),
		TH_FAKE(test_procfs_status_missing_pid_or_tid_is_esrch),
		TH_FAKE(test_procfs_status_vanishing_between_status_and_stat_is_esrch),
		TH_FAKE(test_procfs_threads_sorted_ascending_ignoring_non_numeric_entries),
		TH_FAKE(test_procfs_threads_missing_pid_is_esrch),
		TH_FAKE(test_procfs_processes_sorted_ascending_ignoring_non_numeric_entries),
		TH_FAKE(test_procfs_threads_and_processes_ignore_names_that_only_start_with_digits),
		TH_FAKE(test_procfs_processes_of_missing_root_is_esrch),
		TH_FAKE(test_procfs_for_each_map_calls_back_once_per_line_in_order),
		TH_FAKE(test_procfs_for_each_map_skips_unparseable_lines),
		TH_FAKE(test_procfs_for_each_map_stops_at_first_nonzero_callback_return_and_returns_it),
		TH_FAKE(test_procfs_for_each_map_empty_maps_calls_nothing),
		TH_FAKE(test_procfs_for_each_map_missing_process_is_esrch),
		TH_FAKE(test_procfs_for_each_map_skips_overlong_line_without_misparsing_its_tail),
		TH_FAKE(test_procfs_for_each_map_long_line_that_fits_the_buffer_is_parsed),
		cmocka_unit_test(test_procfs_status_and_threads_of_self_on_real_proc),
		cmocka_unit_test(test_procfs_for_each_map_on_real_proc_finds_own_executable),
		TH_FAKE(test_procfs_threads_of_empty_task_dir_and_processes_of_empty_root_without_ub),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
