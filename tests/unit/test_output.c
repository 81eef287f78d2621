/*
 * test_output.c - the output file's life (src/record/output.c): created
 * unnamed and named at commit with mode 0600, an existing file kept as
 * FILE.old, output_abort putting FILE and FILE.old back, nothing left
 * behind by a start that never committed, and FIFOs and devices written
 * in place. Each test runs in a fresh directory (th_root).
 */
#include "test_helpers.h"

#include <sys/sysmacros.h>

#include "record/output.h"
#include "util/err.h"

/* The file's whole content as a string (tests write text). */
static void assert_content(const char *path, const char *want)
{
	size_t len;
	uint8_t *p = th_read_file(path, &len);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(p, want, len);
	free(p);
}

static void put(const char *path, const char *s)
{
	th_put_file(path, s);
}

static void out_write(struct output *o, const char *s)
{
	size_t n = strlen(s);
	assert_int_equal(write(o->fd, s, n), (ssize_t)n);
}

static void create(struct output *o, const char *path)
{
	struct err e = { "" };
	int rc = output_create(o, path, &e);
	if (rc)
		fail_msg("output_create(%s): %d %s", path, rc, e.msg);
}

static void commit(struct output *o)
{
	struct err e = { "" };
	int rc = output_commit(o, &e);
	if (rc)
		fail_msg("output_commit(%s): %d %s", o->path, rc, e.msg);
}

/* ---- regular files -------------------------------------------------- */

static void test_output_commit_names_the_file_with_mode_0600(void **state)
{
	(void)state;
	mode_t old_umask = umask(0);
	struct output o;
	create(&o, th_at("perf.data"));
	umask(old_umask);
	assert_false(o.direct);
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
	assert_content(th_at("perf.data"), "recording");
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

	assert_content(th_at("perf.data"), "new");
	assert_content(th_at("perf.data.old"), "previous");
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
	assert_content(th_at("perf.data"), "new");
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
	assert_content(th_at("perf.data"), "new");
	/* the recording fails before it really started */
	output_abort(&o);
	output_close(&o);

	assert_content(th_at("perf.data"), "previous");
	assert_content(th_at("perf.data.old"), "older");
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
	assert_null(o.tmp_path);
	out_write(&o, "never named");
	assert_string_equal(th_listing(th_root), before);
	output_close(&o);

	assert_string_equal(th_listing(th_root), before);
	assert_content(th_at("perf.data"), "previous");
}

static void test_output_close_without_commit_of_a_new_name_leaves_nothing(void **state)
{
	(void)state;
	struct output o;
	create(&o, th_at("perf.data"));
	assert_null(o.tmp_path);
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
	assert_int_equal(output_create(&o, th_at("d"), &e), -EISDIR);
	assert_non_null(strstr(e.msg, "directory"));
	output_close(&o);
	assert_string_equal(th_listing(th_root), "d");
}

/* ---- written in place ----------------------------------------------- */

static void test_output_fifo_is_written_in_place(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(th_at("fifo"), 0644), 0);
	/* a reader first, so the writer's open does not block */
	int rd = open(th_at("fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	struct output o;
	create(&o, th_at("fifo"));
	assert_true(o.direct);
	assert_false(o.seekable);
	commit(&o);
	out_write(&o, "stream");
	output_started(&o);
	output_close(&o);

	char buf[16];
	assert_int_equal(read(rd, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "stream", 6);
	close(rd);
	struct stat st;
	assert_int_equal(lstat(th_at("fifo"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_string_equal(th_listing(th_root), "fifo");
}

static void test_output_device_is_written_in_place(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* mknod of a character device needs root */
	/* a /dev/null of our own */
	if (mknod(th_at("null"), S_IFCHR | 0644, makedev(1, 3)) < 0)
		skip(); /* e.g. a container without CAP_MKNOD */
	struct output o;
	create(&o, th_at("null"));
	assert_true(o.direct);
	commit(&o);
	out_write(&o, "discarded");
	output_started(&o);
	output_abort(&o); /* never removes what it did not create */
	output_close(&o);

	struct stat st;
	assert_int_equal(lstat(th_at("null"), &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(1, 3));
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
		TH_FAKE(test_output_device_is_written_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
