/*
 * test_store.c - the build-id cache (src/buildid/store.c): perf's layout
 * for a binary, [kernel.kallsyms] and [vdso]; an entry that exists left
 * alone; a stale link replaced; names and link targets that would leave
 * the root refused; the root from HOME, the passwd database and sudo's
 * SUDO_UID; ownership under sudo; modes. Each test runs in a fresh
 * directory (th_root).
 */
#include "test_helpers.h"

#include <sys/fsuid.h>

#include <limits.h>
#include <pwd.h>

#include "buildid/store.h"
#include "util/err.h"

#define HEX_ELF "f22d3b11f2a58375d0dce4b3746810356cae98f7"
#define HEX_KERNEL "48dc54a1b2c3d4e5f60718293a4b5c6d7e8f9012"
#define HEX_VDSO "e02512ffeeddccbbaa99887766554433221100aa"
/* The uid and gid sudo tests give things to: nobody's on Debian. */
#define NOBODY 65534

static struct build_id id_of(const char *hex)
{
	struct build_id id;
	assert_int_equal(build_id_from_hex(hex, &id), 0);
	return id;
}

static void open_root(struct store *s)
{
	struct err e = { "" };
	int rc = store_open(s, th_root, &e);
	if (rc)
		fail_msg("store_open(%s): %d %s", th_root, rc, e.msg);
}

static int add_fd(const struct store *s, const char *name, const char *hex, int fd, const char *file)
{
	struct err e = { "" };
	struct build_id id = id_of(hex);
	int rc = store_add_fd(s, name, &id, fd, file, &e);
	if (rc < 0)
		fail_msg("store_add_fd(%s): %d %s", name, rc, e.msg);
	return rc;
}

static int add_mem(const struct store *s, const char *name, const char *hex, const char *text,
		   const char *file)
{
	struct err e = { "" };
	struct build_id id = id_of(hex);
	int rc = store_add_mem(s, name, &id, text, strlen(text), file, &e);
	if (rc < 0)
		fail_msg("store_add_mem(%s): %d %s", name, rc, e.msg);
	return rc;
}

static void assert_link(const char *rel, const char *want)
{
	char got[PATH_MAX];
	ssize_t n = readlink(th_at(rel), got, sizeof(got) - 1);
	if (n < 0)
		fail_msg("readlink %s: %s", rel, strerror(errno));
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void assert_mode(const char *rel, mode_t want)
{
	struct stat st;
	if (lstat(th_at(rel), &st) < 0)
		fail_msg("lstat %s: %s", rel, strerror(errno));
	assert_int_equal(st.st_mode & 07777, want);
}

/* The file at path holds exactly want[0..len). */
static void assert_content(const char *path, const void *want, size_t len)
{
	size_t got;
	uint8_t *p = th_read_file(path, &got);
	assert_int_equal(got, len);
	assert_memory_equal(p, want, len);
	free(p);
}

static void assert_same_bytes(const char *a, const char *b)
{
	size_t len;
	uint8_t *p = th_read_file(b, &len);
	assert_content(a, p, len);
	free(p);
}

/* store_find of hex gives want. */
static void assert_find(const struct store *s, const char *hex, const char *want)
{
	struct build_id id = id_of(hex);
	char *rel = NULL;
	assert_int_equal(store_find(s, &id, &rel), 0);
	assert_string_equal(rel, want);
	free(rel);
}

/* The names in the directory th_root/rel. */
static const char *listing(const char *rel)
{
	return th_listing(th_at(rel));
}

/* A file th_root/sources/name of the given mode holding text, open for
 * reading. */
static int source(const char *name, const char *text, mode_t mode)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "sources/%s", name);
	th_mkdirs("%s/sources", th_root);
	th_put_file(th_at(rel), text);
	assert_int_equal(chmod(th_at(rel), mode), 0);
	int fd = open(th_at(rel), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* ---- layout ---------------------------------------------------------- */

static void test_store_elf_entry_in_perfs_layout(void **state)
{
	(void)state;
	mode_t old_umask = umask(022);
	struct store s;
	open_root(&s);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	/* the position of the caller's fd does not matter */
	assert_true(lseek(fd, 100, SEEK_SET) == 100);
	assert_int_equal(add_fd(&s, "/tmp/h1/spin", HEX_ELF, fd, "elf"), 0);
	assert_true(lseek(fd, 0, SEEK_CUR) == 100);
	close(fd);
	umask(old_umask);

	assert_link(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7", "../../tmp/h1/spin/" HEX_ELF);
	assert_same_bytes(th_at("tmp/h1/spin/" HEX_ELF "/elf"), "/proc/self/exe");
	assert_mode("tmp/h1/spin/" HEX_ELF "/elf", 0755);
	assert_mode("tmp", 0755);
	assert_mode("tmp/h1/spin/" HEX_ELF, 0755);
	assert_mode(".build-id/f2", 0755);
	/* no temporaries left */
	assert_string_equal(listing("tmp/h1/spin/" HEX_ELF), "elf");
	assert_string_equal(listing(".build-id/f2"), "2d3b11f2a58375d0dce4b3746810356cae98f7");
	assert_string_equal(listing(""), ".build-id tmp");

	struct build_id id = id_of(HEX_ELF);
	assert_true(store_has(&s, &id));
	assert_find(&s, HEX_ELF, "tmp/h1/spin/" HEX_ELF);
	store_close(&s);
}

static void test_store_kallsyms_and_vdso_entries(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	assert_int_equal(add_mem(&s, "[kernel.kallsyms]", HEX_KERNEL, "ffffffff81000000 T _text\n", "kallsyms"),
			 0);
	assert_int_equal(add_mem(&s, "[vdso]", HEX_VDSO, "\177ELF vdso", "vdso"), 0);

	assert_link(".build-id/48/dc54a1b2c3d4e5f60718293a4b5c6d7e8f9012", "../../[kernel.kallsyms]/" HEX_KERNEL);
	assert_link(".build-id/e0/2512ffeeddccbbaa99887766554433221100aa", "../../[vdso]/" HEX_VDSO);
	assert_content(th_at("[kernel.kallsyms]/" HEX_KERNEL "/kallsyms"), "ffffffff81000000 T _text\n", 25);
	assert_mode("[kernel.kallsyms]/" HEX_KERNEL "/kallsyms", 0644);
	assert_mode("[vdso]/" HEX_VDSO "/vdso", 0644);

	assert_find(&s, HEX_VDSO, "[vdso]/" HEX_VDSO);
	assert_find(&s, HEX_KERNEL, "[kernel.kallsyms]/" HEX_KERNEL);
	store_close(&s);
}

/* An id shorter than 20 bytes: the same split of its (shorter) hex. */
static void test_store_short_id(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	assert_int_equal(add_mem(&s, "/usr/bin/fast", "0123456789abcdef", "x", "elf"), 0);
	assert_link(".build-id/01/23456789abcdef", "../../usr/bin/fast/0123456789abcdef");
	assert_find(&s, "0123456789abcdef", "usr/bin/fast/0123456789abcdef");
	assert_true(lstat(th_at("usr/bin/fast/0123456789abcdef/elf"), &(struct stat){ 0 }) == 0);
	store_close(&s);
}

/* /proc files are not copy_file_range's (another file system, size 0). */
static void test_store_copies_a_proc_file(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	int fd = open("/proc/version", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(add_fd(&s, "/proc/version", HEX_ELF, fd, "elf"), 0);
	/* read as th_read_file cannot: the size says 0 */
	char want[4096];
	ssize_t n = pread(fd, want, sizeof(want), 0);
	assert_true(n > 0);
	close(fd);
	assert_content(th_at("proc/version/" HEX_ELF "/elf"), want, (size_t)n);
	assert_mode("proc/version/" HEX_ELF "/elf", 0644);
	store_close(&s);
}

/* ---- entries that exist ---------------------------------------------- */

static void test_store_second_add_writes_nothing(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	int fd = source("bin", "first", 0755);
	assert_int_equal(add_fd(&s, "/usr/bin/x", HEX_ELF, fd, "elf"), 0);
	close(fd);
	struct stat file1, link1;
	assert_int_equal(lstat(th_at("usr/bin/x/" HEX_ELF "/elf"), &file1), 0);
	assert_int_equal(lstat(th_at(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7"), &link1), 0);

	fd = source("bin2", "second", 0755);
	assert_int_equal(add_fd(&s, "/usr/bin/x", HEX_ELF, fd, "elf"), 1);
	close(fd);
	struct stat file2, link2;
	assert_int_equal(lstat(th_at("usr/bin/x/" HEX_ELF "/elf"), &file2), 0);
	assert_int_equal(lstat(th_at(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7"), &link2), 0);
	assert_int_equal(file1.st_ino, file2.st_ino);
	assert_int_equal(file1.st_mtim.tv_sec, file2.st_mtim.tv_sec);
	assert_int_equal(file1.st_mtim.tv_nsec, file2.st_mtim.tv_nsec);
	assert_int_equal(link1.st_ino, link2.st_ino);
	assert_content(th_at("usr/bin/x/" HEX_ELF "/elf"), "first", 5);
	store_close(&s);
}

static void test_store_file_without_link_gets_only_the_link(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	assert_int_equal(add_mem(&s, "/usr/bin/x", HEX_ELF, "first", "elf"), 0);
	struct stat before, after;
	assert_int_equal(lstat(th_at("usr/bin/x/" HEX_ELF "/elf"), &before), 0);
	assert_int_equal(unlink(th_at(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7")), 0);

	assert_int_equal(add_mem(&s, "/usr/bin/x", HEX_ELF, "second", "elf"), 0);
	assert_int_equal(lstat(th_at("usr/bin/x/" HEX_ELF "/elf"), &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_link(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7", "../../usr/bin/x/" HEX_ELF);
	store_close(&s);
}

static void test_store_stale_link_is_replaced(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	th_mkdirs("%s/.build-id/f2", th_root);
	assert_int_equal(symlink("../../gone/away/" HEX_ELF, th_at(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7")),
			 0);
	struct build_id id = id_of(HEX_ELF);
	assert_false(store_has(&s, &id));

	assert_int_equal(add_mem(&s, "/usr/bin/x", HEX_ELF, "bytes", "elf"), 0);
	assert_link(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7", "../../usr/bin/x/" HEX_ELF);
	assert_string_equal(listing(".build-id/f2"), "2d3b11f2a58375d0dce4b3746810356cae98f7");
	assert_true(store_has(&s, &id));
	store_close(&s);
}

/* The same build at another path: perf keeps the link it has. */
static void test_store_link_to_another_entry_is_kept(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	assert_int_equal(add_mem(&s, "/usr/bin/x", HEX_ELF, "bytes", "elf"), 0);
	assert_int_equal(add_mem(&s, "/opt/x", HEX_ELF, "bytes", "elf"), 0);
	assert_link(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7", "../../usr/bin/x/" HEX_ELF);
	assert_string_equal(listing("opt/x/" HEX_ELF), "elf");
	/* now both are there */
	assert_int_equal(add_mem(&s, "/opt/x", HEX_ELF, "bytes", "elf"), 1);
	store_close(&s);
}

/* A failure after the temporary was made leaves nothing behind. */
static void test_store_failed_rename_removes_the_temporary(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	/* a directory where the file should go */
	th_mkdirs("%s/usr/bin/x/%s/elf", th_root, HEX_ELF);
	struct build_id id = id_of(HEX_ELF);
	struct err e = { "" };
	int rc = store_add_mem(&s, "/usr/bin/x", &id, "bytes", 5, "elf", &e);
	assert_true(rc < 0);
	assert_non_null(strstr(e.msg, "usr/bin/x/" HEX_ELF "/elf"));
	assert_string_equal(listing("usr/bin/x/" HEX_ELF), "elf");
	store_close(&s);
}

static void test_store_root_that_is_a_file_names_the_path(void **state)
{
	(void)state;
	th_put_file(th_at("file"), "");
	struct store s;
	struct err e = { "" };
	assert_int_equal(store_open(&s, th_at("file"), &e), 0);
	struct build_id id = id_of(HEX_ELF);
	int rc = store_add_mem(&s, "/usr/bin/x", &id, "bytes", 5, "elf", &e);
	assert_int_equal(rc, -ENOTDIR);
	assert_non_null(strstr(e.msg, th_at("file")));
	store_close(&s);
}

/* ---- names and links ------------------------------------------------- */

static void test_store_name_ok(void **state)
{
	(void)state;
	assert_true(store_name_ok("/usr/bin/ls"));
	assert_true(store_name_ok("/a"));
	assert_true(store_name_ok("/a/.hidden/b..c"));
	assert_true(store_name_ok("[kernel.kallsyms]"));
	assert_true(store_name_ok("[vdso]"));

	const char *bad[] = { "", "/", "rel/path", "./a", "/a/../b", "/..", "/a/./b", "/a/.", "/a/",
			      "//a", "/a//b", "[heap]", "[vdso]x", "[kernel.kallsyms]/x", "/[vdso]x/../.." };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (store_name_ok(bad[i]))
			fail_msg("store_name_ok(\"%s\") is true", bad[i]);

	char *longname = malloc(PATH_MAX);
	assert_non_null(longname);
	memset(longname, 'a', PATH_MAX - 1);
	longname[0] = '/';
	longname[PATH_MAX - 1] = '\0';
	assert_false(store_name_ok(longname));
	free(longname);
}

static void test_store_add_refuses_bad_names(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	struct build_id id = id_of(HEX_ELF);
	const char *bad[] = { "rel/path", "/a/../b", "/a/./b", "[heap]" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err e = { "" };
		assert_int_equal(store_add_mem(&s, bad[i], &id, "x", 1, "elf", &e), -EINVAL);
		assert_non_null(strstr(e.msg, bad[i]));
	}
	struct err e = { "" };
	assert_int_equal(store_add_mem(&s, "/usr/bin/x", &id, "x", 1, "../elf", &e), -EINVAL);
	assert_true(err_is_set(&e));
	struct build_id one = id_of("ab");
	assert_int_equal(store_add_mem(&s, "/usr/bin/x", &one, "x", 1, "elf", &e), -EINVAL);
	/* nothing was made */
	assert_string_equal(listing(""), "");
	store_close(&s);
}

static void test_store_find_refuses_links_out_of_the_root(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	struct build_id id = id_of(HEX_ELF);
	char *rel = (char *)"unchanged";
	assert_int_equal(store_find(&s, &id, &rel), -ENOENT);
	assert_null(rel);
	assert_false(store_has(&s, &id));

	th_mkdirs("%s/.build-id/f2", th_root);
	const char *link = th_at(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7");
	const char *outside[] = { "../../../etc", "/etc", "../../a/../../../etc", "../../", "../../a//b",
				  "../etc/x" };
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		unlink(link);
		assert_int_equal(symlink(outside[i], link), 0);
		if (store_find(&s, &id, &rel) != -EINVAL)
			fail_msg("store_find accepts a link to %s", outside[i]);
		assert_false(store_has(&s, &id));
	}
	store_close(&s);
}

/* ---- the root ---------------------------------------------------------- */

/* The environment store_open reads, put back after each test. */
struct env_save {
	char *home, *sudo_uid, *sudo_gid;
};

static char *dup_env(const char *name)
{
	const char *v = getenv(name);
	return v ? strdup(v) : NULL;
}

static void env_save(struct env_save *v)
{
	v->home = dup_env("HOME");
	v->sudo_uid = dup_env("SUDO_UID");
	v->sudo_gid = dup_env("SUDO_GID");
}

static void put_env(const char *name, char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	free(value);
}

static void env_restore(struct env_save *v)
{
	put_env("HOME", v->home);
	put_env("SUDO_UID", v->sudo_uid);
	put_env("SUDO_GID", v->sudo_gid);
}

static void assert_root(const char *want)
{
	struct store s;
	struct err e = { "" };
	int rc = store_open(&s, NULL, &e);
	if (rc)
		fail_msg("store_open: %d %s", rc, e.msg);
	assert_string_equal(s.root, want);
	assert_false(s.set_owner);
	store_close(&s);
}

static void test_store_root_from_home_or_passwd(void **state)
{
	(void)state;
	struct env_save v;
	env_save(&v);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	char want[PATH_MAX];

	setenv("HOME", th_root, 1);
	snprintf(want, sizeof(want), "%s/.debug", th_root);
	assert_root(want);
	snprintf(want, sizeof(want), "%s//", th_root);
	setenv("HOME", want, 1);
	snprintf(want, sizeof(want), "%s/.debug", th_root);
	assert_root(want);
	setenv("HOME", "/", 1);
	assert_root("/.debug");

	struct passwd *pw = getpwuid(geteuid());
	if (pw && pw->pw_dir[0]) {
		snprintf(want, sizeof(want), "%s/.debug", strcmp(pw->pw_dir, "/") ? pw->pw_dir : "");
		unsetenv("HOME");
		assert_root(want);
		setenv("HOME", "", 1);
		assert_root(want);
	}
	/* SUDO_UID means nothing when not root, and 0 means root's own */
	setenv("HOME", th_root, 1);
	setenv("SUDO_UID", geteuid() == 0 ? "0" : "65534", 1);
	snprintf(want, sizeof(want), "%s/.debug", th_root);
	assert_root(want);
	env_restore(&v);
}

static void test_store_root_given(void **state)
{
	(void)state;
	struct store s;
	struct err e = { "" };
	assert_int_equal(store_open(&s, "/tmp/cache///", &e), 0);
	assert_string_equal(s.root, "/tmp/cache");
	assert_false(s.set_owner);
	store_close(&s);
	assert_int_equal(store_open(&s, "", &e), -EINVAL);
	assert_true(err_is_set(&e));
	store_close(&s);
}

static void test_store_root_under_sudo(void **state)
{
	(void)state;
	struct passwd *pw = getpwuid(NOBODY);
	if (geteuid() != 0 || !pw)
		skip();
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/.debug", pw->pw_dir);
	gid_t pw_gid = pw->pw_gid;
	struct env_save v;
	env_save(&v);
	setenv("HOME", "/root", 1);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "1234", 1);

	struct store s;
	struct err e = { "" };
	assert_int_equal(store_open(&s, NULL, &e), 0);
	assert_string_equal(s.root, want);
	assert_true(s.set_owner);
	assert_int_equal(s.uid, NOBODY);
	assert_int_equal(s.gid, 1234);
	store_close(&s);

	/* no SUDO_GID: the passwd entry's group */
	unsetenv("SUDO_GID");
	assert_int_equal(store_open(&s, NULL, &e), 0);
	assert_int_equal(s.gid, pw_gid);
	store_close(&s);

	/* a SUDO_UID without a passwd entry: said, with the way out */
	uid_t missing = 3999999;
	if (!getpwuid(missing)) {
		setenv("SUDO_UID", "3999999", 1);
		assert_int_equal(store_open(&s, NULL, &e), -ENOENT);
		assert_non_null(strstr(e.msg, "SUDO_UID 3999999"));
		assert_null(strchr(e.msg, '\n'));
		store_close(&s);
	}
	env_restore(&v);
}

static void assert_owner(const char *rel, uid_t uid)
{
	struct stat st;
	if (lstat(th_at(rel), &st) < 0)
		fail_msg("lstat %s: %s", rel, strerror(errno));
	if (st.st_uid != uid || st.st_gid != (gid_t)uid)
		fail_msg("%s is %u:%u, not %u", rel, (unsigned)st.st_uid, (unsigned)st.st_gid, (unsigned)uid);
}

static void test_store_gives_what_it_makes_to_the_sudo_user(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	/* The user's home is theirs; one directory on the way exists and
	 * keeps its owner (the user's too: root's would refuse, below). */
	assert_int_equal(chown(th_root, NOBODY, NOBODY), 0);
	th_mkdirs("%s/usr", th_root);
	assert_int_equal(chown(th_at("usr"), NOBODY, 0), 0);
	struct store s;
	open_root(&s);
	s.set_owner = true;
	s.uid = NOBODY;
	s.gid = NOBODY;
	int fd = source("bin", "bytes", 0755);
	assert_int_equal(add_fd(&s, "/usr/bin/x", HEX_ELF, fd, "elf"), 0);
	close(fd);

	struct stat st;
	assert_int_equal(lstat(th_at("usr"), &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	assert_int_equal(st.st_gid, 0);
	assert_owner("usr/bin", NOBODY);
	assert_owner("usr/bin/x", NOBODY);
	assert_owner("usr/bin/x/" HEX_ELF, NOBODY);
	assert_owner("usr/bin/x/" HEX_ELF "/elf", NOBODY);
	assert_owner(".build-id", NOBODY);
	assert_owner(".build-id/f2", NOBODY);
	assert_owner(".build-id/f2/2d3b11f2a58375d0dce4b3746810356cae98f7", NOBODY);
	/* the chown did not take the execute bits */
	assert_mode("usr/bin/x/" HEX_ELF "/elf", 0755);
	/* psrec's own identity is back */
	assert_int_equal(setfsuid((uid_t)-1), 0);
	store_close(&s);
}

/* Under sudo the writes are the user's: a link the user planted towards a
 * directory only root may write, or a root-owned directory in the way, is
 * refused (EACCES), never written through as root. */
static void test_store_under_sudo_never_writes_as_root(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chown(th_root, NOBODY, NOBODY), 0);
	th_mkdirs("%s/rootonly", th_root);
	assert_int_equal(chmod(th_at("rootonly"), 0755), 0);
	assert_int_equal(symlink("rootonly", th_at("usr")), 0);
	assert_int_equal(lchown(th_at("usr"), NOBODY, NOBODY), 0);
	struct store s;
	open_root(&s);
	s.set_owner = true;
	s.uid = NOBODY;
	s.gid = NOBODY;
	int fd = source("bin", "bytes", 0755);
	struct err e = { "" };
	struct build_id id = id_of(HEX_ELF);
	assert_int_equal(store_add_fd(&s, "/usr/bin/x", &id, fd, "elf", &e), -EACCES);
	close(fd);
	struct stat st;
	assert_int_not_equal(lstat(th_at("rootonly/bin"), &st), 0);
	assert_int_equal(setfsuid((uid_t)-1), 0);
	store_close(&s);
}

/* ---- modes -------------------------------------------------------------- */

static void test_store_keeps_execute_bits_not_the_umask(void **state)
{
	(void)state;
	struct store s;
	open_root(&s);
	mode_t old_umask = umask(077);
	int fd = source("exe", "exe", 0755);
	assert_int_equal(add_fd(&s, "/bin/exe", HEX_ELF, fd, "elf"), 0);
	close(fd);
	fd = source("lib", "lib", 0644);
	assert_int_equal(add_fd(&s, "/lib/lib.so", HEX_KERNEL, fd, "elf"), 0);
	close(fd);
	fd = source("user-x", "x", 0700);
	assert_int_equal(add_fd(&s, "/bin/user-x", HEX_VDSO, fd, "elf"), 0);
	close(fd);
	umask(old_umask);
	assert_mode("bin/exe/" HEX_ELF "/elf", 0755);
	assert_mode("lib/lib.so/" HEX_KERNEL "/elf", 0644);
	assert_mode("bin/user-x/" HEX_VDSO "/elf", 0755);
	store_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_store_elf_entry_in_perfs_layout),
		TH_FAKE(test_store_kallsyms_and_vdso_entries),
		TH_FAKE(test_store_short_id),
		TH_FAKE(test_store_copies_a_proc_file),
		TH_FAKE(test_store_second_add_writes_nothing),
		TH_FAKE(test_store_file_without_link_gets_only_the_link),
		TH_FAKE(test_store_stale_link_is_replaced),
		TH_FAKE(test_store_link_to_another_entry_is_kept),
		TH_FAKE(test_store_failed_rename_removes_the_temporary),
		TH_FAKE(test_store_root_that_is_a_file_names_the_path),
		cmocka_unit_test(test_store_name_ok),
		TH_FAKE(test_store_add_refuses_bad_names),
		TH_FAKE(test_store_find_refuses_links_out_of_the_root),
		TH_FAKE(test_store_root_from_home_or_passwd),
		cmocka_unit_test(test_store_root_given),
		TH_FAKE(test_store_root_under_sudo),
		TH_FAKE(test_store_gives_what_it_makes_to_the_sudo_user),
		TH_FAKE(test_store_under_sudo_never_writes_as_root),
		TH_FAKE(test_store_keeps_execute_bits_not_the_umask),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
