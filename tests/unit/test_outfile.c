/*
 * test_outfile.c - an output written through a temporary or in place
 * (src/util/outfile.c): the temporary beside the target, renamed over it
 * at the commit and removed without one; the unnamed form that leaves
 * nothing in the directory; devices, FIFOs, /proc/PID/fd links and "-"
 * written in place, never replaced; a directory refused. Each test runs in
 * a fresh directory (th_root).
 */
#include "test_helpers.h"

#include "util/outfile.h"

static void open_ok(struct outfile *o, const char *path, unsigned flags)
{
	int rc = outfile_open(o, path, "t-", flags);
	if (rc)
		fail_msg("outfile_open(%s): %d %s", path, rc, strerror(-rc));
}

static void put(struct outfile *o, const char *s)
{
	size_t n = strlen(s);
	assert_int_equal(write(o->fd, s, n), (ssize_t)n);
}

/* ---- through a temporary -------------------------------------------- */

static void test_outfile_new_name_is_a_temporary_beside_it_until_the_commit(void **state)
{
	(void)state;
	struct outfile o;
	open_ok(&o, th_at("out.txt"), 0);
	assert_false(o.direct);
	assert_non_null(o.tmp);
	assert_string_equal(o.dir, th_root);
	/* DIR/.psrec-TAG and 12 characters, mode 0600 */
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/.psrec-t-", th_root);
	assert_int_equal(strncmp(o.tmp, want, strlen(want)), 0);
	assert_int_equal(strlen(o.tmp), strlen(want) + 12);
	struct stat st;
	assert_int_equal(stat(o.tmp, &st), 0);
	assert_int_equal(st.st_mode & 0077, 0);
	assert_string_equal(th_listing(th_root), strrchr(o.tmp, '/') + 1);
	put(&o, "text");
	assert_int_equal(outfile_commit(&o), 0);
	assert_null(o.tmp);
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "out.txt");
	th_assert_text(th_at("out.txt"), "text");
}

static void test_outfile_commit_replaces_an_existing_file(void **state)
{
	(void)state;
	th_put_file(th_at("out.txt"), "old");
	struct outfile o;
	open_ok(&o, th_at("out.txt"), 0);
	put(&o, "new");
	th_assert_text(th_at("out.txt"), "old");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	th_assert_text(th_at("out.txt"), "new");
	assert_string_equal(th_listing(th_root), "out.txt");
}

static void test_outfile_close_without_commit_removes_the_temporary(void **state)
{
	(void)state;
	th_put_file(th_at("out.txt"), "old");
	struct outfile o;
	open_ok(&o, th_at("out.txt"), 0);
	put(&o, "partial");
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "out.txt");
	th_assert_text(th_at("out.txt"), "old");
}

/* A stdio caller closes the fd through fclose, then commits. */
static void test_outfile_named_commit_needs_no_fd(void **state)
{
	(void)state;
	struct outfile o;
	open_ok(&o, th_at("out.txt"), 0);
	FILE *f = fdopen(o.fd, "w");
	assert_non_null(f);
	fputs("through stdio", f);
	assert_int_equal(fclose(f), 0);
	o.fd = -1;
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	th_assert_text(th_at("out.txt"), "through stdio");
}

/* The temporary's name does not grow with the target's. */
static void test_outfile_name_of_255_bytes_works(void **state)
{
	(void)state;
	char name[256];
	memset(name, 'l', 255);
	name[255] = '\0';
	struct outfile o;
	open_ok(&o, th_at(name), 0);
	put(&o, "long");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	th_assert_text(th_at(name), "long");
}

static void test_outfile_missing_directory_fails_creating_the_temporary(void **state)
{
	(void)state;
	struct outfile o;
	assert_int_equal(outfile_open(&o, th_at("no/out.txt"), "t-", 0), -ENOENT);
	assert_false(o.direct);
	assert_string_equal(o.dir, th_at("no"));
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "");
}

static void test_outfile_directory_is_refused(void **state)
{
	(void)state;
	th_mkdirs("%s", th_at("d"));
	struct outfile o;
	assert_int_equal(outfile_open(&o, th_at("d"), "t-", 0), -EISDIR);
	assert_int_equal(o.fd, -1);
	outfile_close(&o);
	assert_int_equal(outfile_open(&o, th_at("d"), "t-", OUTFILE_UNNAMED), -EISDIR);
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "d");
	assert_string_equal(th_listing(th_at("d")), "");
}

static void test_outfile_close_of_init_is_harmless(void **state)
{
	(void)state;
	struct outfile o = OUTFILE_INIT;
	outfile_close(&o);
	assert_int_equal(o.fd, -1);
}

/* ---- unnamed -------------------------------------------------------- */

static void test_outfile_unnamed_leaves_nothing_until_the_commit(void **state)
{
	(void)state;
	struct outfile o;
	open_ok(&o, th_at("out.data"), OUTFILE_UNNAMED);
	assert_true(o.unnamed);
	assert_null(o.tmp);
	put(&o, "data");
	assert_string_equal(th_listing(th_root), "");
	assert_int_equal(outfile_commit(&o), 0);
	assert_false(o.unnamed);
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "out.data");
	th_assert_text(th_at("out.data"), "data");
}

/* The link cannot go over a name that exists: it goes beside it and is
 * renamed over it. */
static void test_outfile_unnamed_commit_replaces_an_existing_file(void **state)
{
	(void)state;
	th_put_file(th_at("out.data"), "old");
	struct outfile o;
	open_ok(&o, th_at("out.data"), OUTFILE_UNNAMED);
	put(&o, "new");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "out.data");
	th_assert_text(th_at("out.data"), "new");
}

static void test_outfile_unnamed_close_without_commit_leaves_nothing(void **state)
{
	(void)state;
	struct outfile o;
	open_ok(&o, th_at("out.data"), OUTFILE_UNNAMED);
	put(&o, "never named");
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "");
}

/* ---- in place ------------------------------------------------------- */

static void test_outfile_device_is_written_in_place(void **state)
{
	(void)state;
	th_mknull(th_at("null"));
	for (unsigned flags = 0; flags <= OUTFILE_UNNAMED; flags += OUTFILE_UNNAMED) {
		struct outfile o;
		open_ok(&o, th_at("null"), flags);
		assert_true(o.direct);
		assert_null(o.tmp);
		assert_null(o.dir);
		put(&o, "discarded");
		assert_int_equal(outfile_commit(&o), 0);
		outfile_close(&o);
	}
	th_assert_null_device(th_at("null"));
	assert_string_equal(th_listing(th_root), "null");
}

static void test_outfile_fifo_is_written_in_place(void **state)
{
	(void)state;
	int rd = th_fifo_with_reader(th_at("fifo"));
	struct outfile o;
	open_ok(&o, th_at("fifo"), 0);
	assert_true(o.direct);
	put(&o, "stream");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	th_assert_fifo_got(rd, th_at("fifo"), "stream");
	assert_string_equal(th_listing(th_root), "fifo");
}

/* A link into /proc/PID/fd (what /dev/stdout is) names an open file of
 * some process: written through, truncated like a shell's >, and the
 * link stays a link. */
static void test_outfile_proc_fd_link_is_written_through(void **state)
{
	(void)state;
	th_put_file(th_at("target"), "a longer old content");
	int fd = open(th_at("target"), O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	assert_int_equal(symlink(proc, th_at("stdout")), 0);
	struct outfile o;
	open_ok(&o, th_at("stdout"), 0);
	assert_true(o.direct);
	put(&o, "through");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	close(fd);
	struct stat st;
	assert_int_equal(lstat(th_at("stdout"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	th_assert_text(th_at("target"), "through");
	assert_string_equal(th_listing(th_root), "stdout target");
}

static void test_outfile_dash_is_stdout_only_when_asked(void **state)
{
	(void)state;
	struct outfile o;
	open_ok(&o, "-", OUTFILE_STDOUT);
	assert_true(o.direct);
	assert_true(o.is_stdout);
	assert_int_equal(o.fd, STDOUT_FILENO);
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0); /* not closed */

	/* without OUTFILE_STDOUT, "-" is a file of that name */
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(th_root), 0);
	open_ok(&o, "-", 0);
	assert_false(o.direct);
	assert_string_equal(o.dir, ".");
	put(&o, "dash");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	assert_int_equal(chdir(cwd), 0);
	th_assert_text(th_at("-"), "dash");
}

static void test_outfile_temp_names_are_random_and_not_created(void **state)
{
	(void)state;
	char *a = outfile_temp_name(th_root, "old-"), *b = outfile_temp_name(th_root, "old-");
	assert_non_null(a);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/.psrec-old-", th_root);
	assert_int_equal(strncmp(a, want, strlen(want)), 0);
	assert_int_equal(strlen(a), strlen(want) + 12);
	assert_int_equal(strspn(a + strlen(want), "abcdefghijklmnopqrstuvwxyz0123456789"), 12);
	assert_string_equal(th_listing(th_root), "");
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_outfile_new_name_is_a_temporary_beside_it_until_the_commit),
		TH_FAKE(test_outfile_commit_replaces_an_existing_file),
		TH_FAKE(test_outfile_close_without_commit_removes_the_temporary),
		TH_FAKE(test_outfile_named_commit_needs_no_fd),
		TH_FAKE(test_outfile_name_of_255_bytes_works),
		TH_FAKE(test_outfile_missing_directory_fails_creating_the_temporary),
		TH_FAKE(test_outfile_directory_is_refused),
		TH_FAKE(test_outfile_close_of_init_is_harmless),
		TH_FAKE(test_outfile_unnamed_leaves_nothing_until_the_commit),
		TH_FAKE(test_outfile_unnamed_commit_replaces_an_existing_file),
		TH_FAKE(test_outfile_unnamed_close_without_commit_leaves_nothing),
		TH_FAKE(test_outfile_device_is_written_in_place),
		TH_FAKE(test_outfile_fifo_is_written_in_place),
		TH_FAKE(test_outfile_proc_fd_link_is_written_through),
		TH_FAKE(test_outfile_dash_is_stdout_only_when_asked),
		TH_FAKE(test_outfile_temp_names_are_random_and_not_created),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
