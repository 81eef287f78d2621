/*
 * test_outfile.c - an output written through a temporary or in place
 * (src/util/outfile.c): the temporary beside the target, renamed over it
 * at the commit and removed without one; the unnamed form that leaves
 * nothing in the directory; devices, FIFOs, the literal names of inherited
 * descriptors and "-" written in place, never replaced; a directory
 * refused; links and regular files replaced, not followed; what someone
 * may have planted (a link into /proc or onto a device, another user's
 * link or FIFO in a sticky or world-writable directory) refused, unopened
 * (issue 22). Each test runs in a fresh directory (th_root).
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

/* The names of an inherited descriptor, written as such, are written
 * through: truncated like a shell's >, the link left a link. */
static void test_outfile_literal_fd_names_are_written_through(void **state)
{
	(void)state;
	const char *dirs[] = { "/proc/self/fd", "/dev/fd" };
	for (size_t i = 0; i < 2; i++) {
		th_put_file(th_at("target"), "a longer old content");
		int fd = open(th_at("target"), O_WRONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		char name[64];
		snprintf(name, sizeof(name), "%s/%d", dirs[i], fd);
		struct outfile o;
		open_ok(&o, name, 0);
		assert_true(o.direct);
		assert_null(o.dir);
		put(&o, "through");
		assert_int_equal(outfile_commit(&o), 0);
		outfile_close(&o);
		close(fd);
		th_assert_text(th_at("target"), "through");
		assert_string_equal(th_listing(th_root), "target");
	}
}

/* What outfile_open refused: -EPERM, nothing opened or created, and one
 * line naming the path, the words given, and the fix. */
static void assert_refused(const char *path, unsigned flags, const char *why1, const char *why2)
{
	struct outfile o;
	assert_int_equal(outfile_open(&o, path, "t-", flags), -EPERM);
	assert_int_equal(o.fd, -1);
	assert_null(o.tmp);
	assert_false(o.unnamed);
	char head[PATH_MAX + 32];
	snprintf(head, sizeof(head), "refusing to write %s: ", path);
	if (strncmp(o.refused, head, strlen(head)) != 0 || !strstr(o.refused, why1) || !strstr(o.refused, why2) ||
	    !strstr(o.refused, "; remove it or give -o another name") || strchr(o.refused, '\n'))
		fail_msg("refusal of %s: '%s'", path, o.refused);
	outfile_close(&o);
}

/* The attack of issue 22: a link planted at the name into /proc/PID/fd
 * would have the file another process holds (read-only, maybe) opened
 * anew for writing, and truncated. Refused, however many links lead
 * there and wherever the hop into /proc is. */
static void test_outfile_planted_link_into_proc_is_refused(void **state)
{
	(void)state;
	th_put_file(th_at("decoy"), "decoy");
	int fd = open(th_at("decoy"), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	char proc[64], devfd[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(devfd, sizeof(devfd), "/dev/fd/%d", fd);
	assert_int_equal(symlink(proc, th_at("perf.data")), 0);
	assert_int_equal(symlink("perf.data", th_at("hop")), 0);    /* relative, then into /proc */
	assert_int_equal(symlink(devfd, th_at("devfd")), 0);        /* /dev/fd is a link into /proc */
	assert_int_equal(symlink("/dev/stdout", th_at("stdout")), 0); /* a link to the literal name is not it */
	char pid[64];
	snprintf(pid, sizeof(pid), "/proc/%d/fd/%d", (int)getpid(), fd);
	for (unsigned flags = 0; flags <= OUTFILE_UNNAMED; flags += OUTFILE_UNNAMED) {
		assert_refused(th_at("perf.data"), flags, "a link into /proc (-> /proc/self/fd/", "owned by uid");
		assert_refused(th_at("hop"), flags, "a link into /proc (-> perf.data)", "");
		assert_refused(th_at("devfd"), flags, "a link into /proc", "");
		assert_refused(th_at("stdout"), flags, "a link into /proc", "");
		/* not the literal name: another process's, or our own by pid */
		assert_refused(pid, flags, "a link into /proc", "");
	}
	close(fd);
	th_assert_text(th_at("decoy"), "decoy");
	assert_string_equal(th_listing(th_root), "decoy devfd hop perf.data stdout");
	struct stat st;
	assert_int_equal(lstat(th_at("perf.data"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* Only a device at the name is one the user named: a link to one is
 * refused, never opened (a device may act on an open alone). */
static void test_outfile_link_to_a_device_is_refused(void **state)
{
	(void)state;
	th_mknull(th_at("null"));
	assert_int_equal(symlink(th_at("null"), th_at("out")), 0);
	for (unsigned flags = 0; flags <= OUTFILE_UNNAMED; flags += OUTFILE_UNNAMED)
		assert_refused(th_at("out"), flags, "a link to a device (-> ", "name a device itself");
	th_assert_null_device(th_at("null"));
	assert_string_equal(th_listing(th_root), "null out");
}

/* A directory where others may add names (sticky or world-writable): what
 * would be followed or written through must be psrec's user's or the
 * directory owner's, as fs.protected_symlinks and protected_fifos say. */
static void test_outfile_foreign_link_in_a_sticky_directory_is_refused(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* giving the link to another user takes root */
	th_mkdirs("%s", th_at("elsewhere"));
	th_put_file(th_at("elsewhere/file"), "kept");
	const mode_t modes[] = { 01777, 01770, 0777 };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(chmod(th_root, modes[i]), 0);
		assert_int_equal(symlink(th_at("elsewhere/file"), th_at("out")), 0);
		assert_int_equal(lchown(th_at("out"), TH_NOBODY, TH_NOBODY), 0);
		assert_refused(th_at("out"), OUTFILE_UNNAMED, "a link (-> ", "owned by uid 65534 in a");
		assert_refused(th_at("out"), 0, i == 0 ? "sticky, world-writable directory of uid 0"
							: i == 1 ? "sticky directory" : "world-writable directory", "");
		assert_int_equal(unlink(th_at("out")), 0);
	}
	th_assert_text(th_at("elsewhere/file"), "kept");
	assert_string_equal(th_listing(th_root), "elsewhere");
}

/* The same directory: a link of psrec's user, or of the directory's
 * owner, is no plant. It leads to a regular file, so it is replaced. */
static void test_outfile_own_or_dir_owners_link_in_a_sticky_directory_is_replaced(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	th_mkdirs("%s", th_at("elsewhere"));
	th_put_file(th_at("elsewhere/file"), "kept");
	assert_int_equal(chmod(th_root, 01777), 0);
	for (int owner = 0; owner < 2; owner++) {
		/* first root's own link, then nobody's in nobody's directory */
		assert_int_equal(chown(th_root, owner ? TH_NOBODY : 0, owner ? TH_NOBODY : 0), 0);
		assert_int_equal(chmod(th_root, 01777), 0);
		assert_int_equal(symlink(th_at("elsewhere/file"), th_at("out")), 0);
		if (owner)
			assert_int_equal(lchown(th_at("out"), TH_NOBODY, TH_NOBODY), 0);
		struct outfile o;
		open_ok(&o, th_at("out"), OUTFILE_UNNAMED);
		put(&o, "new");
		assert_int_equal(outfile_commit(&o), 0);
		outfile_close(&o);
		struct stat st;
		assert_int_equal(lstat(th_at("out"), &st), 0);
		assert_true(S_ISREG(st.st_mode));
		th_assert_text(th_at("out"), "new");
		assert_int_equal(unlink(th_at("out")), 0);
	}
	th_assert_text(th_at("elsewhere/file"), "kept");
}

/* A FIFO someone else made in /tmp would get the profile (and hold psrec
 * in its open until they read): refused, unopened. */
static void test_outfile_foreign_fifo_in_a_sticky_directory_is_refused(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(th_root, 01777), 0);
	int rd = th_fifo_with_reader(th_at("fifo"));
	assert_int_equal(chown(th_at("fifo"), TH_NOBODY, TH_NOBODY), 0);
	assert_refused(th_at("fifo"), 0, "a FIFO owned by uid 65534", "sticky, world-writable");
	char c;
	assert_int_equal(read(rd, &c, 1), 0); /* no writer ever opened it */
	close(rd);
	/* and a device someone else's (a hard link to one, say) */
	th_mknull(th_at("null"));
	assert_int_equal(chown(th_at("null"), TH_NOBODY, TH_NOBODY), 0);
	assert_refused(th_at("null"), 0, "a device owned by uid 65534", "");
	/* psrec's own FIFO there is written */
	assert_int_equal(unlink(th_at("fifo")), 0);
	rd = th_fifo_with_reader(th_at("fifo"));
	struct outfile o;
	open_ok(&o, th_at("fifo"), 0);
	put(&o, "mine");
	outfile_close(&o);
	th_assert_fifo_got(rd, th_at("fifo"), "mine");
}

/* A link the user made to a regular file elsewhere is replaced by the
 * commit's rename, as perf record would, never written through; a hard
 * link likewise keeps the other name's content. */
static void test_outfile_link_to_a_regular_file_is_replaced_not_followed(void **state)
{
	(void)state;
	th_mkdirs("%s", th_at("elsewhere"));
	for (unsigned flags = 0; flags <= OUTFILE_UNNAMED; flags += OUTFILE_UNNAMED) {
		th_put_file(th_at("elsewhere/file"), "kept");
		assert_int_equal(symlink(th_at("elsewhere/file"), th_at("sym")), 0);
		assert_int_equal(link(th_at("elsewhere/file"), th_at("hard")), 0);
		assert_int_equal(symlink(th_at("elsewhere/none"), th_at("dangling")), 0);
		const char *names[] = { "sym", "hard", "dangling" };
		for (size_t i = 0; i < 3; i++) {
			struct outfile o;
			open_ok(&o, th_at(names[i]), flags);
			assert_false(o.direct);
			put(&o, "new");
			assert_int_equal(outfile_commit(&o), 0);
			outfile_close(&o);
			struct stat st;
			assert_int_equal(lstat(th_at(names[i]), &st), 0);
			assert_true(S_ISREG(st.st_mode));
			assert_int_equal(st.st_nlink, 1);
			th_assert_text(th_at(names[i]), "new");
		}
		th_assert_text(th_at("elsewhere/file"), "kept");
		assert_string_equal(th_listing(th_at("elsewhere")), "file");
		assert_string_equal(th_listing(th_root), "dangling elsewhere hard sym");
		for (size_t i = 0; i < 3; i++)
			assert_int_equal(unlink(th_at(names[i])), 0);
	}
}

/* The user's own link to a FIFO is written through, as before; a link to
 * a directory is a directory. */
static void test_outfile_own_link_to_a_fifo_is_written_through(void **state)
{
	(void)state;
	int rd = th_fifo_with_reader(th_at("fifo"));
	assert_int_equal(symlink("fifo", th_at("out")), 0);
	struct outfile o;
	open_ok(&o, th_at("out"), 0);
	assert_true(o.direct);
	put(&o, "stream");
	outfile_close(&o);
	th_assert_fifo_got(rd, th_at("fifo"), "stream");
	th_mkdirs("%s", th_at("d"));
	assert_int_equal(symlink("d", th_at("dlink")), 0);
	assert_int_equal(outfile_open(&o, th_at("dlink"), "t-", 0), -EISDIR);
	outfile_close(&o);
	assert_string_equal(th_listing(th_root), "d dlink fifo out");
}

/* OUTFILE_REPLACE (--switch-output's chunks): what would be written in
 * place is -ESPIPE and never opened; a refusal stays a refusal. */
static void test_outfile_replace_only_opens_nothing_in_place(void **state)
{
	(void)state;
	int rd = th_fifo_with_reader(th_at("fifo"));
	struct outfile o;
	const char *names[] = { th_at("fifo"), "/dev/stdout", "/dev/fd/1", "-" };
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(outfile_open(&o, names[i], "t-", OUTFILE_REPLACE | OUTFILE_STDOUT), -ESPIPE);
		assert_true(o.direct);
		assert_int_equal(o.fd, -1);
		outfile_close(&o);
	}
	char c;
	assert_int_equal(read(rd, &c, 1), 0); /* never opened for writing */
	close(rd);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	assert_int_equal(symlink(proc, th_at("planted")), 0);
	assert_refused(th_at("planted"), OUTFILE_REPLACE | OUTFILE_UNNAMED, "a link into /proc", "");
	close(fd);
	open_ok(&o, th_at("file"), OUTFILE_REPLACE | OUTFILE_UNNAMED);
	put(&o, "chunk");
	assert_int_equal(outfile_commit(&o), 0);
	outfile_close(&o);
	th_assert_text(th_at("file"), "chunk");
}

/* "" names nothing: no temporary is made for a rename that must fail. */
static void test_outfile_empty_name_is_enoent(void **state)
{
	(void)state;
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(th_root), 0);
	int rc[2], fd[2];
	for (unsigned i = 0; i < 2; i++) {
		struct outfile o;
		rc[i] = outfile_open(&o, "", "t-", (i ? OUTFILE_UNNAMED : 0) | OUTFILE_STDOUT);
		fd[i] = o.fd;
		outfile_close(&o);
	}
	/* back before asserting: a failure must not leave later tests here */
	assert_int_equal(chdir(cwd), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(rc[i], -ENOENT);
		assert_int_equal(fd[i], -1);
	}
	assert_string_equal(th_listing(th_root), "");
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
		TH_FAKE(test_outfile_literal_fd_names_are_written_through),
		TH_FAKE(test_outfile_planted_link_into_proc_is_refused),
		TH_FAKE(test_outfile_link_to_a_device_is_refused),
		TH_FAKE(test_outfile_foreign_link_in_a_sticky_directory_is_refused),
		TH_FAKE(test_outfile_own_or_dir_owners_link_in_a_sticky_directory_is_replaced),
		TH_FAKE(test_outfile_foreign_fifo_in_a_sticky_directory_is_refused),
		TH_FAKE(test_outfile_link_to_a_regular_file_is_replaced_not_followed),
		TH_FAKE(test_outfile_own_link_to_a_fifo_is_written_through),
		TH_FAKE(test_outfile_replace_only_opens_nothing_in_place),
		TH_FAKE(test_outfile_empty_name_is_enoent),
		TH_FAKE(test_outfile_dash_is_stdout_only_when_asked),
		TH_FAKE(test_outfile_temp_names_are_random_and_not_created),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
