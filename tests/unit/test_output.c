/*
 * test_output.c - the output file's life (src/record/output.c): created
 * unnamed and named at commit with mode 0600, an existing file kept as
 * FILE.old, output_abort putting FILE and FILE.old back, nothing left
 * behind by a start that never committed, and FIFOs and devices written
 * in place, a FIFO with no reader waited for without blocking the open. Each test runs in a fresh directory (th_root).
 */
#include "test_helpers.h"

#include <signal.h>
#include <sys/signalfd.h>

#include "record/output.h"
#include "util/err.h"

static void put(const char *path, const char *s)
{
	th_put_file(path, s);
}

static void out_write(struct output *o, const char *s)
{
	size_t n = strlen(s);
	assert_int_equal(write(o->file.fd, s, n), (ssize_t)n);
}

/* The fd handed back blocks, as writes of a stream expect. */
static void assert_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	assert_true(fl >= 0);
	assert_false(fl & O_NONBLOCK);
}

static void create(struct output *o, const char *path)
{
	struct err e = { "" };
	int rc = output_create(o, path, false, &e);
	if (rc)
		fail_msg("output_create(%s): %d %s", path, rc, e.msg);
}

static void commit(struct output *o)
{
	struct err e = { "" };
	int rc = output_commit(o, &e);
	if (rc)
		fail_msg("output_commit(%s): %d %s", o->file.path, rc, e.msg);
}

/* ---- regular files -------------------------------------------------- */

static void test_output_commit_names_the_file_with_mode_0600(void **state)
{
	(void)state;
	mode_t old_umask = umask(0);
	struct output o;
	create(&o, th_at("perf.data"));
	umask(old_umask);
	assert_false(o.file.direct);
	assert_true(o.seekable);
	/* unnamed until the commit */
	assert_string_equal(th_listing(th_root), "");
	out_write(&o, "recording");
	commit(&o);
	output_started(&o);
	output_close(&o);

	struct stat st;
	assert_int_equal(lstat(th_at("perf.data"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	th_assert_text(th_at("perf.data"), "recording");
	assert_string_equal(th_listing(th_root), "perf.data");
}

static void test_output_existing_nonempty_file_becomes_old(void **state)
{
	(void)state;
	put(th_at("perf.data"), "previous");
	put(th_at("perf.data.old"), "older");
	struct output o;
	create(&o, th_at("perf.data"));
	out_write(&o, "new");
	commit(&o);
	output_started(&o);
	output_close(&o);

	th_assert_text(th_at("perf.data"), "new");
	th_assert_text(th_at("perf.data.old"), "previous");
	/* the older FILE.old is gone, and nothing else is left */
	assert_string_equal(th_listing(th_root), "perf.data perf.data.old");
	struct stat st;
	assert_int_equal(lstat(th_at("perf.data"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_output_existing_empty_file_is_replaced_without_old(void **state)
{
	(void)state;
	put(th_at("perf.data"), "");
	struct output o;
	create(&o, th_at("perf.data"));
	out_write(&o, "new");
	commit(&o);
	output_started(&o);
	output_close(&o);
	th_assert_text(th_at("perf.data"), "new");
	assert_string_equal(th_listing(th_root), "perf.data");
}

static void test_output_abort_after_commit_restores_file_and_old(void **state)
{
	(void)state;
	put(th_at("perf.data"), "previous");
	put(th_at("perf.data.old"), "older");
	struct output o;
	create(&o, th_at("perf.data"));
	out_write(&o, "new");
	commit(&o);
	th_assert_text(th_at("perf.data"), "new");
	/* the recording fails before it really started */
	output_abort(&o);
	output_close(&o);

	th_assert_text(th_at("perf.data"), "previous");
	th_assert_text(th_at("perf.data.old"), "older");
	assert_string_equal(th_listing(th_root), "perf.data perf.data.old");
}

static void test_output_abort_after_commit_of_a_new_name_removes_it(void **state)
{
	(void)state;
	struct output o;
	create(&o, th_at("perf.data"));
	out_write(&o, "new");
	commit(&o);
	output_abort(&o);
	output_close(&o);
	assert_string_equal(th_listing(th_root), "");
}

static void test_output_close_without_commit_leaves_the_directory_unchanged(void **state)
{
	(void)state;
	put(th_at("perf.data"), "previous");
	put(th_at("other"), "x");
	char before[1024];
	snprintf(before, sizeof(before), "%s", th_listing(th_root));
	struct output o;
	create(&o, th_at("perf.data"));
	/* the O_TMPFILE path: no named stand-in */
	assert_true(o.file.unnamed);
	out_write(&o, "never named");
	assert_string_equal(th_listing(th_root), before);
	output_close(&o);

	assert_string_equal(th_listing(th_root), before);
	th_assert_text(th_at("perf.data"), "previous");
}

static void test_output_close_without_commit_of_a_new_name_leaves_nothing(void **state)
{
	(void)state;
	struct output o;
	create(&o, th_at("perf.data"));
	assert_true(o.file.unnamed);
	out_write(&o, "never named");
	output_close(&o);
	assert_string_equal(th_listing(th_root), "");
}

static void test_output_directory_is_refused(void **state)
{
	(void)state;
	th_mkdirs("%s", th_at("d"));
	struct output o;
	struct err e = { "" };
	assert_int_equal(output_create(&o, th_at("d"), false, &e), -EISDIR);
	assert_non_null(strstr(e.msg, "directory"));
	output_close(&o);
	assert_string_equal(th_listing(th_root), "d");
}

/* ---- written in place ----------------------------------------------- */

static void test_output_fifo_is_written_in_place(void **state)
{
	(void)state;
	int rd = th_fifo_with_reader(th_at("fifo"));
	struct output o;
	create(&o, th_at("fifo"));
	assert_true(o.file.direct);
	assert_false(o.seekable);
	assert_blocking(o.file.fd);
	commit(&o);
	out_write(&o, "stream");
	output_started(&o);
	output_close(&o);
	th_assert_fifo_got(rd, th_at("fifo"), "stream");
	assert_string_equal(th_listing(th_root), "fifo");
}

/* A FIFO nobody reads: -ENXIO at once, no message, nothing open; the
 * alarm only bounds the open that blocked forever before issue 22. */
static void test_output_fifo_without_reader_is_enxio_at_once(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(th_at("fifo"), 0644), 0);
	struct output o;
	struct err e = { "" };
	alarm(20);
	assert_int_equal(output_create(&o, th_at("fifo"), false, &e), -ENXIO);
	alarm(0);
	assert_string_equal(e.msg, "");
	assert_int_equal(o.file.fd, -1);
	output_close(&o);
	assert_string_equal(th_listing(th_root), "fifo");
}

/* A stop signal ends the wait for a reader: -EINTR, the signal named. */
static void test_output_wait_reader_ends_on_a_signal(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(th_at("fifo"), 0644), 0);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(sigprocmask(SIG_BLOCK, &set, &old), 0);
	int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	assert_true(sfd >= 0);
	assert_int_equal(raise(SIGUSR1), 0);
	struct output o;
	struct err e = { "" };
	int signo = 0;
	alarm(20);
	assert_int_equal(output_wait_reader(&o, th_at("fifo"), sfd, &signo, &e), -EINTR);
	alarm(0);
	assert_int_equal(signo, SIGUSR1);
	assert_non_null(strstr(e.msg, "SIGUSR1 while waiting for a reader of "));
	assert_int_equal(o.file.fd, -1);
	output_close(&o);
	close(sfd);
	assert_int_equal(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	assert_string_equal(th_listing(th_root), "fifo");
}

/* A reader there: the wait opens the FIFO, blocking, and writes reach it. */
static void test_output_wait_reader_opens_a_fifo_being_read(void **state)
{
	(void)state;
	int rd = th_fifo_with_reader(th_at("fifo"));
	int never[2];
	assert_int_equal(pipe(never), 0);
	struct output o;
	struct err e = { "" };
	int signo = 0;
	assert_int_equal(output_wait_reader(&o, th_at("fifo"), never[0], &signo, &e), 0);
	assert_int_equal(signo, 0);
	assert_true(o.file.direct);
	assert_blocking(o.file.fd);
	out_write(&o, "late");
	output_close(&o);
	close(never[0]);
	close(never[1]);
	th_assert_fifo_got(rd, th_at("fifo"), "late");
}

static void test_output_device_is_written_in_place(void **state)
{
	(void)state;
	th_mknull(th_at("null"));
	struct output o;
	create(&o, th_at("null"));
	assert_true(o.file.direct);
	commit(&o);
	out_write(&o, "discarded");
	output_started(&o);
	output_abort(&o); /* never removes what it did not create */
	output_close(&o);
	th_assert_null_device(th_at("null"));
	assert_string_equal(th_listing(th_root), "null");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_output_commit_names_the_file_with_mode_0600),
		TH_FAKE(test_output_existing_nonempty_file_becomes_old),
		TH_FAKE(test_output_existing_empty_file_is_replaced_without_old),
		TH_FAKE(test_output_abort_after_commit_restores_file_and_old),
		TH_FAKE(test_output_abort_after_commit_of_a_new_name_removes_it),
		TH_FAKE(test_output_close_without_commit_leaves_the_directory_unchanged),
		TH_FAKE(test_output_close_without_commit_of_a_new_name_leaves_nothing),
		TH_FAKE(test_output_directory_is_refused),
		TH_FAKE(test_output_fifo_is_written_in_place),
		TH_FAKE(test_output_fifo_without_reader_is_enxio_at_once),
		TH_FAKE(test_output_wait_reader_ends_on_a_signal),
		TH_FAKE(test_output_wait_reader_opens_a_fifo_being_read),
		TH_FAKE(test_output_device_is_written_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
