/*
 * test_idcache.c - build-ids of mappings by device and inode
 * (src/buildid/idcache.c): the path fallback under a fake proc root without
 * map_files, a map_files link under a fake root, replaced and special
 * files, misses remembered, growth, and the test's own mappings in /proc.
 */
#include "test_helpers.h"

#include <inttypes.h>
#include <limits.h>
#include <sys/sysmacros.h>

#include "buildid/elfid.h"
#include "buildid/idcache.h"
#include "util/procfs_map.h"

#define FAKE_PID 4242

/* The test's own executable: path and mapping as maps would show it. */
static char exe[PATH_MAX];

static struct procfs_map map_of(const char *path, uint64_t start)
{
	struct procfs_map m = { .start = start, .end = start + 0x1000, .prot = 5, .flags = 2,
				.path = path, .path_len = strlen(path) };
	struct stat st;
	if (stat(path, &st) == 0) {
		m.maj = major(st.st_dev);
		m.min = minor(st.st_dev);
		m.ino = st.st_ino;
	}
	return m;
}

static void own_exe(struct build_id *want)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(elfid_from_path(exe, want), 0);
}

static void test_idcache_path_fallback_reads_a_file_whose_inode_matches_once(void **state)
{
	(void)state;
	struct build_id want, id;
	own_exe(&want);
	struct idcache c;
	idcache_init(&c);
	struct procfs_map m = map_of(exe, 0x55d0c1a2b000);

	memset(&id, 0, sizeof(id));
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), 0);
	assert_true(build_id_equal(&id, &want));
	assert_int_equal(c.files_read, 1);

	/* another mapping of the same file, in another process: no read */
	struct procfs_map m2 = map_of(exe, 0x7f0000000000);
	memset(&id, 0, sizeof(id));
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID + 1, &m2, &id), 0);
	assert_true(build_id_equal(&id, &want));
	assert_int_equal(c.files_read, 1);
	assert_int_equal(c.nr, 1);

	const struct idcache_entry *e = idcache_find(&c, m.maj, m.min, m.ino);
	assert_non_null(e);
	assert_int_equal(e->err, 0);
	assert_true(build_id_equal(&e->id, &want));
	idcache_free(&c);
}

static void test_idcache_replaced_file_is_enoent_without_a_read(void **state)
{
	(void)state;
	struct build_id want, id;
	own_exe(&want);
	struct idcache c;
	idcache_init(&c);
	struct procfs_map m = map_of(exe, 0x1000);
	m.ino++; /* what was mapped is not what the path names now */
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	assert_int_equal(c.files_read, 0);
	const struct idcache_entry *e = idcache_find(&c, m.maj, m.min, m.ino);
	assert_non_null(e);
	assert_int_equal(e->id.size, 0);
	assert_int_equal(e->err, -ESTALE);

	m = map_of(exe, 0x1000);
	m.min ^= 0x40; /* another device */
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	assert_int_equal(c.files_read, 0);
	idcache_free(&c);
}

static void test_idcache_special_mappings_are_enoent_without_an_entry(void **state)
{
	(void)state;
	const char *names[] = { "", "[vdso]", "[heap]", "[stack]", "[anon:jit]", "//anon" };
	struct idcache c;
	idcache_init(&c);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct procfs_map m = { .start = 0x1000, .end = 0x2000, .ino = 0,
					.path = names[i], .path_len = strlen(names[i]) };
		struct build_id id;
		assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	}
	assert_int_equal(c.files_read, 0);
	assert_int_equal(c.nr, 0);
	idcache_free(&c);
}

static void test_idcache_deleted_and_relative_paths_are_not_opened(void **state)
{
	(void)state;
	struct build_id want, id;
	own_exe(&want);
	struct idcache c;
	idcache_init(&c);
	/* the right inode, but the name says the mapped file is gone */
	char deleted[PATH_MAX + 16];
	snprintf(deleted, sizeof(deleted), "%s (deleted)", exe);
	struct procfs_map m = map_of(exe, 0x1000);
	m.path = deleted;
	m.path_len = strlen(deleted);
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	/* a name with no root: anon_inode:[perf_event], memfd names... */
	m = map_of(exe, 0x1000);
	m.ino += 7;
	m.path = "anon_inode:[perf_event]";
	m.path_len = strlen(m.path);
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	assert_int_equal(c.files_read, 0);
	assert_int_equal(c.nr, 2);
	idcache_free(&c);
}

static void test_idcache_path_is_not_nul_terminated(void **state)
{
	(void)state;
	struct build_id want, id;
	own_exe(&want);
	/* as procfs_parse_map_line leaves it: the path runs on into the line */
	char line[PATH_MAX + 8];
	snprintf(line, sizeof(line), "%s\nXYZ", exe);
	struct procfs_map m = map_of(exe, 0x1000);
	m.path = line;
	struct idcache c;
	idcache_init(&c);
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), 0);
	assert_true(build_id_equal(&id, &want));
	idcache_free(&c);
}

static void test_idcache_a_miss_is_remembered(void **state)
{
	(void)state;
	char path[64];
	th_write_file(path, "not an ELF file\n", 16);
	struct idcache c;
	idcache_init(&c);
	struct procfs_map m = map_of(path, 0x1000);
	struct build_id id;
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	assert_int_equal(c.files_read, 1);
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	assert_int_equal(c.files_read, 1);
	const struct idcache_entry *e = idcache_find(&c, m.maj, m.min, m.ino);
	assert_non_null(e);
	assert_int_equal(e->err, -ENOEXEC);
	assert_int_equal(e->id.size, 0);
	unlink(path);
	idcache_free(&c);
}

static void test_idcache_a_fifo_in_the_files_place_is_not_opened(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/fifo", th_root);
	assert_int_equal(mkfifo(path, 0600), 0);
	struct idcache c;
	idcache_init(&c);
	struct procfs_map m = map_of(path, 0x1000);
	struct build_id id;
	/* an open of a FIFO with no writer would wait for one forever */
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	assert_int_equal(c.files_read, 0);
	assert_int_equal(idcache_find(&c, m.maj, m.min, m.ino)->err, -ENOEXEC);
	idcache_free(&c);
}

static void test_idcache_map_files_link_is_used_even_if_the_path_is_gone(void **state)
{
	(void)state;
	struct build_id want, id;
	own_exe(&want);
	/* named as the kernel names them: lower-case hex, no 0x, no padding */
	th_mkdirs("%s/%d/map_files", th_root, FAKE_PID);
	char link[512];
	snprintf(link, sizeof(link), "%s/%d/map_files/55d0c1a2b000-55d0c1a2c000", th_root, FAKE_PID);
	assert_int_equal(symlink(exe, link), 0);
	struct procfs_map m = { .start = 0x55d0c1a2b000, .end = 0x55d0c1a2c000, .maj = 1, .min = 2,
				.ino = 3, .path = "/gone/libfoo.so (deleted)" };
	m.path_len = strlen(m.path);
	struct idcache c;
	idcache_init(&c);
	assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), 0);
	assert_true(build_id_equal(&id, &want));
	assert_int_equal(c.files_read, 1);
	idcache_free(&c);
}

static void test_idcache_grows_past_thousands_of_entries(void **state)
{
	(void)state;
	struct idcache c;
	idcache_init(&c);
	const char *path = "/nonexistent/psrec-idcache/lib.so";
	for (uint64_t ino = 1; ino <= 5000; ino++) {
		struct procfs_map m = { .start = ino << 12, .end = (ino + 1) << 12, .maj = 8,
					.min = (uint32_t)(ino % 3), .ino = ino * 4096,
					.path = path, .path_len = strlen(path) };
		struct build_id id;
		assert_int_equal(idcache_map(&c, th_root, FAKE_PID, &m, &id), -ENOENT);
	}
	assert_int_equal(c.nr, 5000);
	assert_int_equal(c.files_read, 0);
	assert_true(c.cap >= 2 * c.nr);
	assert_int_equal(c.cap & (c.cap - 1), 0);
	for (uint64_t ino = 1; ino <= 5000; ino++) {
		const struct idcache_entry *e = idcache_find(&c, 8, (uint32_t)(ino % 3), ino * 4096);
		assert_non_null(e);
		assert_int_equal(e->err, -ENOENT);
	}
	assert_null(idcache_find(&c, 8, 0, 4096 + 1));
	assert_null(idcache_find(&c, 9, 1, 4096));
	idcache_free(&c);
	assert_null(idcache_find(&c, 8, 1, 4096));
}

static void test_idcache_own_executable_through_real_proc(void **state)
{
	(void)state;
	struct build_id want, id;
	own_exe(&want);
	FILE *f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	char line[PATH_MAX + 256];
	struct idcache c;
	idcache_init(&c);
	int found = 0;
	while (fgets(line, sizeof(line), f)) {
		struct procfs_map m;
		if (procfs_parse_map_line(line, &m) != 0 || m.path_len != strlen(exe) ||
		    memcmp(m.path, exe, m.path_len) != 0)
			continue;
		memset(&id, 0, sizeof(id));
		assert_int_equal(idcache_map(&c, "/proc", getpid(), &m, &id), 0);
		assert_true(build_id_equal(&id, &want));
		found++;
	}
	fclose(f);
	assert_true(found > 0);
	/* every segment of the executable: one file, one read */
	assert_int_equal(c.files_read, 1);
	assert_int_equal(c.nr, 1);
	idcache_free(&c);
}

/* The exe mapping's id through "/proc" in a child that, when root, became
 * nobody: map_files is refused then, and the path stands in. */
struct child_result {
	int setup_failed;
	int map_files_err;          /* what stat of the map_files link said */
	int rc;
	uint64_t files_read;
	struct build_id id;
};

static void exe_body(void *res, void *arg)
{
	struct child_result *r = res;
	(void)arg;
	if (!th_drop_root()) {
		r->setup_failed = 1;
		return;
	}
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f) {
		r->setup_failed = 2;
		return;
	}
	char line[PATH_MAX + 256];
	struct idcache c;
	idcache_init(&c);
	r->rc = -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		struct procfs_map m;
		if (procfs_parse_map_line(line, &m) != 0 || m.path_len != strlen(exe) ||
		    memcmp(m.path, exe, m.path_len) != 0)
			continue;
		char link[128];
		struct stat st;
		snprintf(link, sizeof(link), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)getpid(),
			 m.start, m.end);
		r->map_files_err = stat(link, &st) < 0 ? errno : 0;
		r->rc = idcache_map(&c, "/proc", getpid(), &m, &r->id);
		break;
	}
	fclose(f);
	r->files_read = c.files_read;
	idcache_free(&c);
}

static void test_idcache_refused_map_files_falls_back_to_the_path(void **state)
{
	(void)state;
	struct build_id want;
	own_exe(&want);
	struct child_result r;
	th_run_in_child(exe_body, NULL, &r, sizeof(r));
	if (r.setup_failed || r.map_files_err == 0)
		skip(); /* cannot drop root, or map_files is open to us anyway */
	assert_int_equal(r.map_files_err, EPERM);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.files_read, 1);
	assert_true(build_id_equal(&r.id, &want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_idcache_path_fallback_reads_a_file_whose_inode_matches_once),
		TH_FAKE(test_idcache_replaced_file_is_enoent_without_a_read),
		TH_FAKE(test_idcache_special_mappings_are_enoent_without_an_entry),
		TH_FAKE(test_idcache_deleted_and_relative_paths_are_not_opened),
		TH_FAKE(test_idcache_path_is_not_nul_terminated),
		TH_FAKE(test_idcache_a_miss_is_remembered),
		TH_FAKE(test_idcache_a_fifo_in_the_files_place_is_not_opened),
		TH_FAKE(test_idcache_map_files_link_is_used_even_if_the_path_is_gone),
		TH_FAKE(test_idcache_grows_past_thousands_of_entries),
		cmocka_unit_test(test_idcache_own_executable_through_real_proc),
		cmocka_unit_test(test_idcache_refused_map_files_falls_back_to_the_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
