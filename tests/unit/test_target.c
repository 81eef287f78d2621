/*
 * test_target.c - finding the command, exit codes, and attaching to running
 * processes (src/record/target.c) with real child processes.
 */
#include "test_helpers.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "record/procfs.h"
#include "record/attach.h"
#include "record/launch.h"

/* ---- children: a process with threads, killed and reaped at teardown ---- */

#define MAX_KIDS 8
#define MAX_KID_TIDS 8

struct kid {
	pid_t pid;
	int cmd_w;              /* a byte here: the child starts one more thread */
	int tid_r;              /* each new thread writes its tid here */
	pid_t tids[MAX_KID_TIDS]; /* [0] = the leader */
	size_t nr_tids;
};

static struct kid kids[MAX_KIDS];
static size_t nr_kids;
static pid_t zombies[MAX_KIDS];
static size_t nr_zombies;

static void *kid_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	if (write(fd, &tid, sizeof(tid)) != (ssize_t)sizeof(tid))
		_exit(5);
	for (;;)
		pause();
	return NULL;
}

/* The child: two threads at once, one more per byte on cmd_r, gone when the
 * test closes the pipe (or kills it). Never returns into cmocka. */
static void kid_main(int cmd_r, int tid_w)
{
	pthread_t th;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th, NULL, kid_thread, (void *)(intptr_t)tid_w) != 0)
			_exit(6);
	char c;
	while (read(cmd_r, &c, 1) == 1)
		if (pthread_create(&th, NULL, kid_thread, (void *)(intptr_t)tid_w) != 0)
			_exit(6);
	_exit(0);
}

static pid_t read_tid(struct kid *k)
{
	struct pollfd pfd = { k->tid_r, POLLIN, 0 };
	if (poll(&pfd, 1, 10000) != 1)
		fail_msg("child %d did not report a new thread within 10 s", (int)k->pid);
	pid_t tid;
	assert_int_equal(read(k->tid_r, &tid, sizeof(tid)), (ssize_t)sizeof(tid));
	assert_true(tid > 0);
	assert_true(k->nr_tids < MAX_KID_TIDS);
	k->tids[k->nr_tids++] = tid;
	return tid;
}

/* A child process with 3 threads (leader + 2), all running. */
static struct kid *spawn_kid(void)
{
	assert_true(nr_kids < MAX_KIDS);
	int cmd[2], tid[2];
	assert_int_equal(pipe2(cmd, O_CLOEXEC), 0);
	assert_int_equal(pipe2(tid, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(cmd[1]);
		close(tid[0]);
		kid_main(cmd[0], tid[1]);
	}
	close(cmd[0]);
	close(tid[1]);
	struct kid *k = &kids[nr_kids++];
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->cmd_w = cmd[1];
	k->tid_r = tid[0];
	k->tids[k->nr_tids++] = pid;
	read_tid(k);
	read_tid(k);
	return k;
}

/* Make the child start one more thread; its tid. */
static pid_t kid_new_thread(struct kid *k)
{
	assert_int_equal(write(k->cmd_w, "n", 1), 1);
	return read_tid(k);
}

/* A child that has exited and is not reaped: a zombie. */
static pid_t spawn_zombie(void)
{
	assert_true(nr_zombies < MAX_KIDS);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	zombies[nr_zombies++] = pid;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	/* wait for the exit without reaping it */
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(si.si_pid, pid);
	return pid;
}

static int reap_all(void **state)
{
	(void)state;
	for (size_t i = 0; i < nr_kids; i++) {
		kill(kids[i].pid, SIGKILL);
		waitpid(kids[i].pid, NULL, 0);
		close(kids[i].cmd_w);
		close(kids[i].tid_r);
	}
	nr_kids = 0;
	for (size_t i = 0; i < nr_zombies; i++)
		waitpid(zombies[i], NULL, 0);
	nr_zombies = 0;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* list[0..n) holds exactly want[0..nw), in any order. */
static void expect_same_set(const pid_t *list, size_t n, const pid_t *want, size_t nw)
{
	assert_int_equal(n, nw);
	pid_t a[MAX_KID_TIDS * 2], b[MAX_KID_TIDS * 2];
	assert_true(n <= MAX_KID_TIDS * 2);
	memcpy(a, list, n * sizeof(*a));
	memcpy(b, want, n * sizeof(*b));
	qsort(a, n, sizeof(*a), cmp_pid);
	qsort(b, n, sizeof(*b), cmp_pid);
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			fail_msg("thread %zu: %d, expected %d", i, (int)a[i], (int)b[i]);
}

/* A pid with no process (and no /proc entry) right now. */
static pid_t free_pid(void)
{
	int64_t max = 32768;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		long long v;
		if (fscanf(f, "%lld", &v) == 1 && v > 300)
			max = v;
		fclose(f);
	}
	for (pid_t p = (pid_t)(max - 1); p > 300; p--) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d", (int)p);
		if (kill(p, 0) < 0 && errno == ESRCH && access(path, F_OK) < 0)
			return p;
	}
	fail_msg("no free pid found");
	return -1;
}

/* ---- target_attach_* ---------------------------------------------------- */

static void test_attach_pid_resolves_one_whole_process_with_all_its_threads(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &k->pid, 1, NULL, 0, false, true, &e), 0);
	assert_false(err_is_set(&e));
	assert_false(t.system_wide);
	assert_int_equal(t.nr_procs, 1);
	assert_int_equal(t.procs[0].pid, k->pid);
	assert_true(t.procs[0].whole);
	assert_false(t.procs[0].kthread);
	assert_true(t.procs[0].pidfd >= 0);
	expect_same_set(t.procs[0].tids, t.procs[0].nr_tids, k->tids, 3);

	pid_t *all;
	size_t n;
	assert_int_equal(attach_threads(&t, &all, &n), 0);
	expect_same_set(all, n, k->tids, 3);
	free(all);
	attach_free(&t);
}

static void test_attach_pidfd_becomes_readable_when_the_process_exits(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &k->pid, 1, NULL, 0, false, true, &e), 0);
	struct pollfd pfd = { t.procs[0].pidfd, POLLIN, 0 };
	assert_int_equal(poll(&pfd, 1, 0), 0);          /* still running */
	assert_int_equal(kill(k->pid, SIGKILL), 0);
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_true(pfd.revents & POLLIN);
	attach_free(&t);
}

static void test_attach_rescan_returns_exactly_the_new_thread_and_adds_it(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &k->pid, 1, NULL, 0, false, true, &e), 0);

	/* nothing new yet */
	pid_t *fresh = (pid_t *)1;
	size_t n = 99;
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 0);
	free(fresh);

	pid_t tid = kid_new_thread(k);
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(fresh[0], tid);
	free(fresh);
	expect_same_set(t.procs[0].tids, t.procs[0].nr_tids, k->tids, 4);

	pid_t *all;
	assert_int_equal(attach_threads(&t, &all, &n), 0);
	expect_same_set(all, n, k->tids, 4);
	free(all);

	/* and it is not reported twice */
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 0);
	free(fresh);
	attach_free(&t);
}

static void test_attach_rescan_of_exited_process_reports_nothing(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &k->pid, 1, NULL, 0, false, true, &e), 0);
	assert_int_equal(kill(k->pid, SIGKILL), 0);
	assert_int_equal(waitpid(k->pid, NULL, 0), k->pid);
	pid_t *fresh;
	size_t n = 99;
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 0);
	free(fresh);
	attach_free(&t);
}

static void test_attach_nonexistent_pid_says_it_does_not_exist(void **state)
{
	(void)state;
	pid_t p = free_pid();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &p, 1, NULL, 0, false, true, &e), -ESRCH);
	assert_non_null(strstr(e.msg, "does not exist"));
	char num[16];
	snprintf(num, sizeof(num), "%d", (int)p);
	assert_non_null(strstr(e.msg, num));
	attach_free(&t);

	/* the same for -t */
	memset(&e, 0, sizeof(e));
	assert_int_equal(attach_resolve(&t, NULL, 0, &p, 1, false, true, &e), -ESRCH);
	assert_non_null(strstr(e.msg, "does not exist"));
	assert_non_null(strstr(e.msg, "thread"));
	attach_free(&t);
}

static void test_attach_pid_of_a_non_leader_thread_names_its_process(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	pid_t tid = k->tids[1];
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &tid, 1, NULL, 0, false, true, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "is a thread of process"));
	char num[16];
	snprintf(num, sizeof(num), "%d", (int)k->pid);
	assert_non_null(strstr(e.msg, num));
	attach_free(&t);
}

static void test_attach_zombie_is_refused_as_zombie(void **state)
{
	(void)state;
	pid_t z = spawn_zombie();
	struct attach t;
	struct err e = { "" };
	int rc = attach_resolve(&t, &z, 1, NULL, 0, false, true, &e);
	assert_true(rc < 0);
	assert_non_null(strstr(e.msg, "zombie"));
	attach_free(&t);

	memset(&e, 0, sizeof(e));
	rc = attach_resolve(&t, NULL, 0, &z, 1, false, true, &e);
	assert_true(rc < 0);
	assert_non_null(strstr(e.msg, "zombie"));
	attach_free(&t);
}

/* The child of spawn_zombie_leader: one thread that waits forever, then
 * the main thread exits alone. */
static void zombie_leader_main(int tid_w)
{
	pthread_t th;
	if (pthread_create(&th, NULL, kid_thread, (void *)(intptr_t)tid_w) != 0)
		_exit(6);
	pthread_exit(NULL);
}

/* A process whose leader has exited (a zombie in /proc) while its second
 * thread lives on; killed and reaped at teardown like the other kids. */
static struct kid *spawn_zombie_leader(void)
{
	assert_true(nr_kids < MAX_KIDS);
	int tid[2];
	assert_int_equal(pipe2(tid, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(tid[0]);
		zombie_leader_main(tid[1]);
	}
	close(tid[1]);
	struct kid *k = &kids[nr_kids++];
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->cmd_w = -1;
	k->tid_r = tid[0];
	k->tids[k->nr_tids++] = pid;
	read_tid(k);
	for (int i = 0; i < 1000; i++) {
		struct procfs_status st;
		if (procfs_status("/proc", pid, pid, &st) == 0 && st.state == 'Z')
			return k;
		usleep(10000);
	}
	fail_msg("the leader of %d did not exit within 10 s", (int)pid);
	return NULL;
}

static void test_attach_pid_whose_leader_exited_resolves_its_live_threads(void **state)
{
	(void)state;
	struct kid *k = spawn_zombie_leader();
	struct attach t;
	struct err e = { "" };
	int rc = attach_resolve(&t, &k->pid, 1, NULL, 0, false, true, &e);
	if (rc != 0)
		fail_msg("-p %d (leader exited, one thread running): %d (%s)", (int)k->pid, rc, e.msg);
	assert_int_equal(t.nr_procs, 1);
	assert_int_equal(t.procs[0].pid, k->pid);
	assert_true(t.procs[0].whole);
	assert_true(t.procs[0].pidfd >= 0);
	bool found = false;
	for (size_t i = 0; i < t.procs[0].nr_tids; i++)
		found |= t.procs[0].tids[i] == k->tids[1];
	assert_true(found);
	/* the process is alive: its pidfd is not readable */
	struct pollfd p = { t.procs[0].pidfd, POLLIN, 0 };
	assert_int_equal(poll(&p, 1, 0), 0);
	attach_free(&t);

	/* the leader thread itself is a zombie: nothing to record with -t */
	memset(&e, 0, sizeof(e));
	rc = attach_resolve(&t, NULL, 0, &k->pid, 1, false, true, &e);
	assert_true(rc < 0);
	assert_non_null(strstr(e.msg, "zombie"));
	attach_free(&t);
	/* its live thread is fine */
	rc = attach_resolve(&t, NULL, 0, &k->tids[1], 1, false, true, &e);
	assert_int_equal(rc, 0);
	attach_free(&t);
}

static void test_attach_tid_resolves_a_partial_process_with_just_that_thread(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	pid_t tid = k->tids[2];
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, NULL, 0, &tid, 1, false, true, &e), 0);
	assert_int_equal(t.nr_procs, 1);
	assert_int_equal(t.procs[0].pid, k->pid);   /* the thread's process */
	assert_false(t.procs[0].whole);
	assert_true(t.procs[0].pidfd >= 0);
	assert_int_equal(t.procs[0].nr_tids, 1);
	assert_int_equal(t.procs[0].tids[0], tid);

	pid_t *all;
	size_t n;
	assert_int_equal(attach_threads(&t, &all, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(all[0], tid);
	free(all);

	/* new threads of a -t process are not picked up */
	kid_new_thread(k);
	pid_t *fresh;
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 0);
	free(fresh);
	assert_int_equal(t.procs[0].nr_tids, 1);
	attach_free(&t);
}

static void test_attach_repeated_pid_and_tid_of_same_process_do_not_duplicate_threads(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	const pid_t pids[] = { k->pid, k->pid };
	const pid_t tids[] = { k->tids[1], k->tids[1] };
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, pids, 2, tids, 2, false, true, &e), 0);
	assert_int_equal(t.nr_procs, 1);
	assert_true(t.procs[0].whole);
	expect_same_set(t.procs[0].tids, t.procs[0].nr_tids, k->tids, 3);
	attach_free(&t);

	/* -t first, then -p of the same process: whole after all */
	assert_int_equal(attach_resolve(&t, &k->pid, 1, &k->tids[2], 1, false, true, &e), 0);
	assert_int_equal(t.nr_procs, 1);
	assert_true(t.procs[0].whole);
	expect_same_set(t.procs[0].tids, t.procs[0].nr_tids, k->tids, 3);
	attach_free(&t);
}

static void test_attach_two_processes_threads_are_concatenated(void **state)
{
	(void)state;
	struct kid *a = spawn_kid();
	struct kid *b = spawn_kid();
	const pid_t pids[] = { a->pid, b->pid };
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, pids, 2, NULL, 0, false, true, &e), 0);
	assert_int_equal(t.nr_procs, 2);
	pid_t *all;
	size_t n;
	assert_int_equal(attach_threads(&t, &all, &n), 0);
	pid_t want[6];
	memcpy(want, a->tids, 3 * sizeof(pid_t));
	memcpy(want + 3, b->tids, 3 * sizeof(pid_t));
	expect_same_set(all, n, want, 6);
	free(all);

	/* a new thread in the second one only */
	pid_t tid = kid_new_thread(b);
	pid_t *fresh;
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(fresh[0], tid);
	free(fresh);
	assert_int_equal(t.procs[0].nr_tids, 3);
	assert_int_equal(t.procs[1].nr_tids, 4);
	attach_free(&t);
}

static void test_attach_system_wide_threads_are_minus_one(void **state)
{
	(void)state;
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, NULL, 0, NULL, 0, true, true, &e), 0);
	assert_true(t.system_wide);
	assert_int_equal(t.nr_procs, 0);
	pid_t *all;
	size_t n;
	assert_int_equal(attach_threads(&t, &all, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(all[0], -1);
	free(all);
	pid_t *fresh;
	assert_int_equal(attach_rescan(&t, &fresh, &n), 0);
	assert_int_equal(n, 0);
	free(fresh);
	attach_free(&t);
}

static void test_attach_free_closes_pidfds_and_empties_the_target(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &k->pid, 1, NULL, 0, false, true, &e), 0);
	int fd = t.procs[0].pidfd;
	assert_true(fcntl(fd, F_GETFD) >= 0);
	attach_free(&t);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	assert_null(t.procs);
	assert_int_equal(t.nr_procs, 0);
	/* freeing twice (or an empty one) is harmless */
	attach_free(&t);
}

static void test_attach_error_after_a_good_pid_leaves_a_freeable_target(void **state)
{
	(void)state;
	struct kid *k = spawn_kid();
	const pid_t pids[] = { k->pid, free_pid() };
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, pids, 2, NULL, 0, false, true, &e), -ESRCH);
	assert_non_null(strstr(e.msg, "does not exist"));
	attach_free(&t);     /* ASan: no leak, no double close */
	assert_int_equal(t.nr_procs, 0);
}

/* A kernel thread's pid from the real /proc, or -1. */
static pid_t find_kthread(void)
{
	pid_t *pids;
	size_t n;
	if (procfs_processes("/proc", &pids, &n))
		return -1;
	pid_t found = -1;
	for (size_t i = 0; i < n && found < 0; i++) {
		struct procfs_status st;
		if (procfs_status("/proc", pids[i], pids[i], &st) == 0 && st.kthread && st.state != 'Z')
			found = pids[i];
	}
	free(pids);
	return found;
}

static void test_attach_kernel_thread_refused_unless_kernel_samples_allowed(void **state)
{
	(void)state;
	pid_t k = find_kthread();
	if (k < 0)
		skip();
	struct attach t;
	struct err e = { "" };
	assert_int_equal(attach_resolve(&t, &k, 1, NULL, 0, false, false, &e), -EPERM);
	assert_non_null(strstr(e.msg, "kernel thread"));
	attach_free(&t);

	memset(&e, 0, sizeof(e));
	assert_int_equal(attach_resolve(&t, &k, 1, NULL, 0, false, true, &e), 0);
	assert_int_equal(t.nr_procs, 1);
	assert_true(t.procs[0].nr_tids >= 1);
	/* Marked, for the recording's word that only kernel samples come
	 * (issue 22), -p and -t alike. */
	struct procfs_status st;
	assert_int_equal(procfs_status("/proc", k, k, &st), 0);
	assert_true(t.procs[0].kthread);
	assert_string_equal(t.procs[0].name, st.name);
	attach_free(&t);
	assert_int_equal(attach_resolve(&t, NULL, 0, &k, 1, false, true, &e), 0);
	assert_true(t.procs[0].kthread);
	assert_false(t.procs[0].whole);
	attach_free(&t);
}

/* ---- launch_find_command ------------------------------------------------- */

static char *saved_path;
static char tmpdir[64];

static int save_path(void **state)
{
	(void)state;
	const char *p = getenv("PATH");
	saved_path = p ? strdup(p) : NULL;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/psrec-unit-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int restore_path(void **state)
{
	(void)state;
	if (saved_path)
		setenv("PATH", saved_path, 1);
	else
		unsetenv("PATH");
	free(saved_path);
	saved_path = NULL;
	th_rm_rf(tmpdir);
	return 0;
}

/* A file in tmpdir with the given mode; its path. */
static void make_file(const char *dir, const char *name, mode_t mode, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s/%s", dir, name);
	th_put_file(out, "#!/bin/sh\nexit 0\n");
	assert_int_equal(chmod(out, mode), 0);
}

static void test_find_command_searches_path_for_a_bare_name(void **state)
{
	(void)state;
	char *path = NULL;
	assert_int_equal(launch_find_command("sh", &path), 0);
	assert_non_null(path);
	size_t n = strlen(path);
	assert_true(n > 3 && strcmp(path + n - 3, "/sh") == 0);
	assert_int_equal(access(path, X_OK), 0);
	free(path);
}

static void test_find_command_takes_a_name_with_slash_as_is(void **state)
{
	(void)state;
	char *path = NULL;
	assert_int_equal(launch_find_command("/bin/sh", &path), 0);
	assert_string_equal(path, "/bin/sh");
	free(path);

	char exe[128];
	make_file(tmpdir, "tool", 0755, exe, sizeof(exe));
	/* a name with a slash is not looked up in PATH */
	setenv("PATH", "/nonexistent-dir", 1);
	assert_int_equal(launch_find_command(exe, &path), 0);
	assert_string_equal(path, exe);
	free(path);
}

static void test_find_command_missing_is_enoent(void **state)
{
	(void)state;
	char *path = (char *)1;
	assert_int_equal(launch_find_command("nonexistent-xyz", &path), -ENOENT);
	assert_null(path);
	assert_int_equal(launch_find_command("/nonexistent-dir/nonexistent-xyz", &path), -ENOENT);
	assert_null(path);
	assert_int_equal(launch_find_command("", &path), -ENOENT);
	assert_null(path);
}

static void test_find_command_non_executable_file_is_eacces(void **state)
{
	(void)state;
	char file[128];
	make_file(tmpdir, "psrec-noexec", 0644, file, sizeof(file));
	char *path = (char *)1;
	assert_int_equal(launch_find_command(file, &path), -EACCES);
	assert_null(path);
	/* found through PATH too */
	setenv("PATH", tmpdir, 1);
	assert_int_equal(launch_find_command("psrec-noexec", &path), -EACCES);
	assert_null(path);
}

static void test_find_command_directory_is_eacces(void **state)
{
	(void)state;
	char *path = (char *)1;
	assert_int_equal(launch_find_command(tmpdir, &path), -EACCES);
	assert_null(path);
	assert_int_equal(launch_find_command("/tmp/", &path), -EACCES);
	th_mkdirs("%s/subdir", tmpdir);
	setenv("PATH", tmpdir, 1);
	assert_int_equal(launch_find_command("subdir", &path), -EACCES);
	assert_null(path);
}

static void test_find_command_skips_non_executable_match_for_a_later_executable_one(void **state)
{
	(void)state;
	th_mkdirs("%s/a", tmpdir);
	th_mkdirs("%s/b", tmpdir);
	char dir_a[128], dir_b[128], file[160], exe[160];
	snprintf(dir_a, sizeof(dir_a), "%s/a", tmpdir);
	snprintf(dir_b, sizeof(dir_b), "%s/b", tmpdir);
	make_file(dir_a, "tool", 0644, file, sizeof(file));
	make_file(dir_b, "tool", 0755, exe, sizeof(exe));
	char pathvar[512];
	snprintf(pathvar, sizeof(pathvar), "/nonexistent-dir:%s:%s", dir_a, dir_b);
	setenv("PATH", pathvar, 1);
	char *path = NULL;
	assert_int_equal(launch_find_command("tool", &path), 0);
	assert_string_equal(path, exe);
	free(path);
}

/* ---- launch_check_interpreter --------------------------------------------- */

static void make_script(const char *name, const char *content, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s/%s", tmpdir, name);
	th_put_file(out, content);
	assert_int_equal(chmod(out, 0755), 0);
}

static void test_check_interpreter_missing_is_a_bad_interpreter_naming_it(void **state)
{
	(void)state;
	char script[128];
	make_script("bad.sh", "#!/nonexistent/sh\necho hi\n", script, sizeof(script));
	struct err e = { "" };
	assert_int_equal(launch_check_interpreter("./bad.sh", script, &e), -ENOENT);
	assert_string_equal(e.msg, "./bad.sh: bad interpreter /nonexistent/sh: No such file or directory");

	/* blanks before it and arguments after it, as the kernel reads them */
	make_script("bad2.sh", "#! \t/nonexistent/perl -w -x\n", script, sizeof(script));
	memset(&e, 0, sizeof(e));
	assert_int_equal(launch_check_interpreter("bad2.sh", script, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "bad interpreter /nonexistent/perl:"));
}

static void test_check_interpreter_not_executable_is_eacces(void **state)
{
	(void)state;
	char script[128];
	char text[200];
	snprintf(text, sizeof(text), "#!%s\n", tmpdir); /* a directory */
	make_script("dir.sh", text, script, sizeof(script));
	struct err e = { "" };
	assert_int_equal(launch_check_interpreter("dir.sh", script, &e), -EACCES);
	assert_non_null(strstr(e.msg, "bad interpreter"));
	assert_non_null(strstr(e.msg, "Permission denied"));
}

static void test_check_interpreter_accepts_good_scripts_and_non_scripts(void **state)
{
	(void)state;
	char script[128];
	struct err e = { "" };
	make_script("good.sh", "#!/bin/sh\nexit 0\n", script, sizeof(script));
	assert_int_equal(launch_check_interpreter("good.sh", script, &e), 0);
	make_script("env.sh", "#!/usr/bin/env sh\n", script, sizeof(script));
	assert_int_equal(launch_check_interpreter("env.sh", script, &e), 0);
	/* "#!" alone is execve's ENOEXEC to report, not ours */
	make_script("empty.sh", "#!\n", script, sizeof(script));
	assert_int_equal(launch_check_interpreter("empty.sh", script, &e), 0);
	make_script("plain", "echo no hash-bang\n", script, sizeof(script));
	assert_int_equal(launch_check_interpreter("plain", script, &e), 0);
	make_script("tiny", "#", script, sizeof(script));
	assert_int_equal(launch_check_interpreter("tiny", script, &e), 0);
	assert_int_equal(launch_check_interpreter("sh", "/bin/sh", &e), 0);
	assert_false(err_is_set(&e));
}

/* ---- launch_fork: what the command inherits --------------------------------- */

/*
 * psrec ignores SIGPIPE and SIGXFSZ for itself; ignored dispositions
 * survive exec, so the command must get the defaults back: under
 * ulimit -f it dies of SIGXFSZ as it would without psrec.
 */
static void test_fork_gives_the_command_the_default_sigxfsz(void **state)
{
	(void)state;
	struct rlimit no_core = { 0, 0 };
	assert_int_equal(setrlimit(RLIMIT_CORE, &no_core), 0);
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
	static const char *const scripts[] = { "kill -XFSZ $$; exit 3", "kill -PIPE $$; exit 3" };
	static const int sigs[] = { SIGXFSZ, SIGPIPE };
	for (size_t i = 0; i < 2; i++) {
		char *argv[] = { (char *)"sh", (char *)"-c", (char *)scripts[i], NULL };
		sigset_t mask;
		sigemptyset(&mask);
		struct launch c;
		struct err e = { "" };
		assert_int_equal(launch_fork(&c, "/bin/sh", argv, &mask, false, -1, &e), 0);
		assert_int_equal(launch_exec(&c), 0);
		struct pollfd p = { c.pidfd, POLLIN, 0 };
		assert_int_equal(poll(&p, 1, 10000), 1);
		assert_int_equal(launch_reap(&c), 0);
		if (!WIFSIGNALED(c.status) || WTERMSIG(c.status) != sigs[i])
			fail_msg("sh -c '%s' under psrec: wait status %#x, expected death by signal %d (inherited SIG_IGN?)",
				 scripts[i], c.status, sigs[i]);
		launch_close(&c);
	}
	signal(SIGXFSZ, old_xfsz);
	signal(SIGPIPE, old_pipe);
}

/* ---- launch_exit_code ---------------------------------------------------- */

static int status_of_child(int how)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (how < 0) {
			signal(-how, SIG_DFL);
			raise(-how);
		}
		_exit(how < 0 ? 99 : how);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void test_exit_code_is_the_exit_status(void **state)
{
	(void)state;
	assert_int_equal(launch_exit_code(status_of_child(3)), 3);
	assert_int_equal(launch_exit_code(status_of_child(0)), 0);
	assert_int_equal(launch_exit_code(status_of_child(255)), 255);
}

static void test_exit_code_of_a_signal_is_128_plus_its_number(void **state)
{
	(void)state;
	assert_int_equal(launch_exit_code(status_of_child(-SIGTERM)), 143);
	assert_int_equal(launch_exit_code(status_of_child(-SIGKILL)), 137);
	assert_int_equal(launch_exit_code(status_of_child(-SIGINT)), 130);
}

/* ---- launch_terminate: ending a command that outlived its recording ---- */

/* A child that (optionally) ignores SIGTERM and then waits forever, as a
 * launched command would; ready once it has set its disposition. */
static struct launch spawn_waiter(bool ignore_term)
{
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		if (ignore_term)
			signal(SIGTERM, SIG_IGN);
		if (write(ready[1], "x", 1) != 1)
			_exit(5);
		for (;;)
			pause();
	}
	close(ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	struct launch t = { .pid = pid, .go_fd = -1, .exec_fd = -1 };
	t.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	assert_true(t.pidfd >= 0);
	return t;
}

static void test_terminate_sends_sigterm_and_reaps(void **state)
{
	(void)state;
	struct launch t = spawn_waiter(false);
	assert_int_equal(launch_terminate(&t, -1, 5000), 0);
	assert_true(t.reaped);
	assert_true(WIFSIGNALED(t.status));
	assert_int_equal(WTERMSIG(t.status), SIGTERM);
	launch_close(&t);
}

static void test_terminate_times_out_then_a_stop_signal_kills(void **state)
{
	(void)state;
	struct launch t = spawn_waiter(true);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(sigprocmask(SIG_BLOCK, &set, &old), 0);
	int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	assert_true(sfd >= 0);

	assert_int_equal(launch_terminate(&t, sfd, 100), -ETIMEDOUT);
	assert_false(t.reaped);
	assert_int_equal(kill(t.pid, 0), 0);   /* SIGTERM was ignored */

	assert_int_equal(kill(getpid(), SIGUSR1), 0);
	assert_int_equal(launch_terminate(&t, sfd, -1), 0);
	assert_true(t.reaped);
	assert_true(WIFSIGNALED(t.status));
	assert_int_equal(WTERMSIG(t.status), SIGKILL);

	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	launch_close(&t);
}

static void test_terminate_of_a_reaped_child_does_nothing(void **state)
{
	(void)state;
	struct launch t = { .pid = 12345, .pidfd = -1, .go_fd = -1, .exec_fd = -1,
				  .reaped = true, .status = 7 };
	assert_int_equal(launch_terminate(&t, -1, 0), 0);
	assert_int_equal(t.status, 7);
	assert_false(t.term_sent);
}

#define KIDS(t) cmocka_unit_test_teardown(t, reap_all)
#define PATHENV(t) cmocka_unit_test_setup_teardown(t, save_path, restore_path)

int main(void)
{
	const struct CMUnitTest tests[] = {
		KIDS(test_attach_pid_resolves_one_whole_process_with_all_its_threads),
		KIDS(test_attach_pidfd_becomes_readable_when_the_process_exits),
		KIDS(test_attach_rescan_returns_exactly_the_new_thread_and_adds_it),
		KIDS(test_attach_rescan_of_exited_process_reports_nothing),
		KIDS(test_attach_nonexistent_pid_says_it_does_not_exist),
		KIDS(test_attach_pid_of_a_non_leader_thread_names_its_process),
		KIDS(test_attach_zombie_is_refused_as_zombie),
		KIDS(test_attach_pid_whose_leader_exited_resolves_its_live_threads),
		KIDS(test_attach_tid_resolves_a_partial_process_with_just_that_thread),
		KIDS(test_attach_repeated_pid_and_tid_of_same_process_do_not_duplicate_threads),
		KIDS(test_attach_two_processes_threads_are_concatenated),
		KIDS(test_attach_system_wide_threads_are_minus_one),
		KIDS(test_attach_free_closes_pidfds_and_empties_the_target),
		KIDS(test_attach_error_after_a_good_pid_leaves_a_freeable_target),
		KIDS(test_attach_kernel_thread_refused_unless_kernel_samples_allowed),
		PATHENV(test_find_command_searches_path_for_a_bare_name),
		PATHENV(test_find_command_takes_a_name_with_slash_as_is),
		PATHENV(test_find_command_missing_is_enoent),
		PATHENV(test_find_command_non_executable_file_is_eacces),
		PATHENV(test_find_command_directory_is_eacces),
		PATHENV(test_find_command_skips_non_executable_match_for_a_later_executable_one),
		PATHENV(test_check_interpreter_missing_is_a_bad_interpreter_naming_it),
		PATHENV(test_check_interpreter_not_executable_is_eacces),
		PATHENV(test_check_interpreter_accepts_good_scripts_and_non_scripts),
		cmocka_unit_test(test_fork_gives_the_command_the_default_sigxfsz),
		cmocka_unit_test(test_terminate_sends_sigterm_and_reaps),
		cmocka_unit_test(test_terminate_times_out_then_a_stop_signal_kills),
		cmocka_unit_test(test_terminate_of_a_reaped_child_does_nothing),
		cmocka_unit_test(test_exit_code_is_the_exit_status),
		cmocka_unit_test(test_exit_code_of_a_signal_is_128_plus_its_number),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
