/*
 * test_archive.c - psrec archive (src/archive/archive.c): a hand-made
 * perf.data whose BUILD_ID feature lists a binary at its path, one only
 * in the cache, a kernel whose id is not the running one and names with
 * ".."; read back with libarchive: perf's cache layout, relative member
 * names only, what is missing counted, perf-PID.map files of its COMM
 * pids (not through a symlink). Also the MMAP2 ids of a stream without the
 * feature, a recording without ids, and outputs that must stay untouched.
 * Each test runs in a fresh directory (th_root).
 */
#include "test_helpers.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <limits.h>

#include "archive/archive.h"
#include "buildid/elfid.h"
#include "buildid/store.h"
#include "format/feature.h"
#include "format/writer.h"
#include "util/buf.h"

#define MAX_MEMBERS 32
#define HEX_CACHED "c0ffee00112233445566778899aabbccddeeff01"
#define HEX_WRONG_KERNEL "0badc0de0badc0de0badc0de0badc0de0badc0de"
#define HEX_DOTDOT "d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0"
#define CACHED_NAME "/opt/gone/libcached.so"
#define CACHED_BYTES "not really ELF: the cache's copy is taken as it is"
#define MAP_TEXT "7f0000001000 40 jitted_fn\n"
/* Above any pid_max: no process can have it, so no test elsewhere writes
 * /tmp/perf-<it>.map. */
#define NO_SUCH_PID 5000000

struct member {
	char name[PATH_MAX];
	char link[PATH_MAX];        /* "" unless a symlink */
	unsigned type;
	mode_t perm;
	int64_t size, uid, gid;
	uint8_t *data;              /* regular files: the contents */
};

struct members {
	struct member m[MAX_MEMBERS];
	size_t nr;
};

/* th_root/rel, valid until the test's end (th_root's teardown frees). */
static char paths[16][PATH_MAX];
static size_t nr_paths;

static const char *at(const char *rel)
{
	assert_true(nr_paths < 16);
	char *p = paths[nr_paths++];
	snprintf(p, sizeof(paths[0]), "%s/%s", th_root, rel);
	return p;
}

static int paths_reset(void **state)
{
	nr_paths = 0;
	return th_root_make(state);
}

#define FRESH(t) cmocka_unit_test_setup_teardown(t, paths_reset, th_root_remove)

static void copy_file(const char *from, const char *to, mode_t mode)
{
	size_t len;
	uint8_t *p = th_read_file(from, &len);
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	th_write_close(fd, p, len);
	free(p);
}

static struct build_id id_of(const char *hex)
{
	struct build_id id;
	assert_int_equal(build_id_from_hex(hex, &id), 0);
	return id;
}

static void put_build_id(struct buf *b, uint16_t misc, const struct build_id *id, const char *name)
{
	assert_int_equal(feature_build_id(b, -1, misc | PD_MISC_BUILD_ID_SIZE, id->data, id->size, name), 0);
}

static void put_comm(struct buf *recs, uint32_t pid, const char *comm)
{
	uint8_t r[32] = { 0 };
	struct pd_event_header h = { PD_RECORD_COMM, 0, sizeof(r) };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, pid);
	snprintf((char *)r + 16, 16, "%s", comm);
	assert_int_equal(buf_append(recs, r, sizeof(r)), 0);
}

/* An MMAP2 with the id where maj/min/ino would be (PERF_RECORD_MISC_MMAP_BUILD_ID). */
static void put_mmap2_id(struct buf *recs, uint32_t pid, const struct build_id *id, const char *name)
{
	uint8_t r[72 + 128] = { 0 };
	size_t n = strlen(name) + 1;
	size_t size = 72 + ((n + 7) & ~(size_t)7);
	assert_true(size <= sizeof(r));
	struct pd_event_header h = { PD_RECORD_MMAP2, PD_MISC_USER | PD_MISC_MMAP_BUILD_ID, (uint16_t)size };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, pid);
	th_put_u64(r, 16, 0x400000);
	th_put_u64(r, 24, 0x1000);
	r[40] = id->size;
	memcpy(r + 44, id->data, id->size);
	th_put_u32(r, 64, 5); /* PROT_READ | PROT_EXEC */
	memcpy(r + 72, name, n);
	assert_int_equal(buf_append(recs, r, size), 0);
}

/* A perf.data file at path: the records, then the BUILD_ID feature when
 * feat is not NULL. */
static void make_data(const char *path, const struct buf *recs, const struct buf *feat)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = TH_SAMPLE_TYPE;
	uint64_t id = 7;
	struct writer_event ev = { &attr, &id, 1, "cpu-clock" };
	struct writer w;
	assert_int_equal(writer_begin(&w, fd, &ev, 1), 0);
	struct iovec iov = { recs->data, recs->len };
	if (recs->len)
		assert_int_equal(writer_append(&w, &iov, 1), 0);
	struct writer_feature f = { PD_FEAT_BUILD_ID, feat ? feat->data : NULL, feat ? feat->len : 0 };
	int ferr = 0;
	assert_int_equal(writer_finish(&w, &f, feat ? 1 : 0, &ferr), 0);
	assert_int_equal(ferr, 0);
	close(fd);
}

static void read_members(const char *path, struct members *ms)
{
	struct archive *a = archive_read_new();
	assert_non_null(a);
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 10240) != ARCHIVE_OK)
		fail_msg("%s: %s", path, archive_error_string(a));
	assert_int_equal(archive_filter_code(a, 0), ARCHIVE_FILTER_ZSTD);
	struct archive_entry *ent;
	ms->nr = 0;
	int r;
	while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK) {
		assert_true(ms->nr < MAX_MEMBERS);
		struct member *m = &ms->m[ms->nr++];
		memset(m, 0, sizeof(*m));
		snprintf(m->name, sizeof(m->name), "%s", archive_entry_pathname(ent));
		const char *l = archive_entry_symlink(ent);
		snprintf(m->link, sizeof(m->link), "%s", l ? l : "");
		m->type = archive_entry_filetype(ent);
		m->perm = archive_entry_perm(ent);
		m->size = archive_entry_size(ent);
		m->uid = archive_entry_uid(ent);
		m->gid = archive_entry_gid(ent);
		if (m->type == AE_IFREG) {
			m->data = malloc((size_t)m->size + 1);
			assert_non_null(m->data);
			assert_int_equal(archive_read_data(a, m->data, (size_t)m->size), m->size);
		}
	}
	if (r != ARCHIVE_EOF)
		fail_msg("%s: %s", path, archive_error_string(a));
	archive_read_free(a);
}

static void free_members(struct members *ms)
{
	for (size_t i = 0; i < ms->nr; i++)
		free(ms->m[i].data);
	ms->nr = 0;
}

static const struct member *find(const struct members *ms, const char *name)
{
	for (size_t i = 0; i < ms->nr; i++)
		if (strcmp(ms->m[i].name, name) == 0)
			return &ms->m[i];
	return NULL;
}

/* Nothing can be extracted outside the directory: no absolute name, no
 * "..", and every link two levels down climbs exactly to the top. */
static void assert_contained(const struct members *ms)
{
	for (size_t i = 0; i < ms->nr; i++) {
		const struct member *m = &ms->m[i];
		if (m->name[0] == '/' || strstr(m->name, ".."))
			fail_msg("member %s would leave the directory", m->name);
		assert_int_equal(m->uid, 0);
		assert_int_equal(m->gid, 0);
		if (m->type != AE_IFLNK)
			continue;
		assert_int_equal(strncmp(m->name, ".build-id/", 10), 0);
		assert_int_equal(strncmp(m->link, "../../", 6), 0);
		if (m->link[6] == '/' || strstr(m->link + 6, ".."))
			fail_msg("link %s -> %s leaves the directory", m->name, m->link);
	}
}

/* The entry of a DSO the archive holds: <rel>/<file> with the bytes of
 * want, and .build-id/xx/rest -> ../../<rel>. */
static void assert_dso(const struct members *ms, const char *name, const char *hex, const char *file,
		       const uint8_t *want, size_t len, mode_t perm)
{
	char rel[PATH_MAX], member[PATH_MAX + 16], link[64], target[PATH_MAX + 8];
	snprintf(rel, sizeof(rel), "%s/%s", name[0] == '/' ? name + 1 : name, hex);
	snprintf(member, sizeof(member), "%s/%s", rel, file);
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", hex, hex + 2);
	snprintf(target, sizeof(target), "../../%s", rel);
	const struct member *m = find(ms, member);
	if (!m)
		fail_msg("no member %s", member);
	assert_int_equal(m->type, AE_IFREG);
	assert_int_equal(m->perm, perm);
	assert_int_equal(m->size, len);
	assert_memory_equal(m->data, want, len);
	const struct member *l = find(ms, link);
	if (!l)
		fail_msg("no link %s", link);
	assert_int_equal(l->type, AE_IFLNK);
	assert_string_equal(l->link, target);
}

static void test_archive_takes_the_path_the_cache_and_maps_and_counts_the_rest(void **state)
{
	(void)state;
	th_mkdirs("%s/bin", th_root);
	const char *prog = at("bin/prog");
	copy_file("/proc/self/exe", prog, 0755);
	struct build_id prog_id;
	assert_int_equal(elfid_from_path(prog, &prog_id), 0);
	char prog_hex[BUILD_ID_HEX_MAX];
	build_id_hex(&prog_id, prog_hex);

	/* The cache holds a DSO that is no longer on disk. */
	struct store s;
	struct err e = { "" };
	if (store_open(&s, at("cache"), &e) < 0)
		fail_msg("store_open: %s", e.msg);
	struct build_id cached = id_of(HEX_CACHED);
	const char *src = at("cached-src");
	th_put_file(src, CACHED_BYTES);
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	if (store_add_fd(&s, CACHED_NAME, &cached, fd, "elf", &e) < 0)
		fail_msg("store_add_fd: %s", e.msg);
	close(fd);

	/* The feature: prog twice (one id, one entry), the cached DSO, a
	 * kernel that is not this one, a ".." name with a real file behind
	 * it and one with an id nothing has. */
	struct buf feat = BUF_INIT, recs = BUF_INIT;
	char dotdot_prog[PATH_MAX], dotdot_other[PATH_MAX];
	snprintf(dotdot_prog, sizeof(dotdot_prog), "%s/bin/../bin/prog", th_root);
	snprintf(dotdot_other, sizeof(dotdot_other), "%s/../../etc/passwd", th_root);
	struct build_id wrong_kernel = id_of(HEX_WRONG_KERNEL), dotdot = id_of(HEX_DOTDOT);
	put_build_id(&feat, PD_MISC_USER, &prog_id, dotdot_prog);
	put_build_id(&feat, PD_MISC_USER, &prog_id, prog);
	put_build_id(&feat, PD_MISC_KERNEL, &wrong_kernel, "[kernel.kallsyms]");
	put_build_id(&feat, PD_MISC_USER, &cached, CACHED_NAME);
	put_build_id(&feat, PD_MISC_USER, &dotdot, dotdot_other);

	/* COMM records: this process (a map file), a pid whose map file is a
	 * symlink (never followed), a pid without one. */
	uint32_t me = (uint32_t)getpid(), linked = NO_SUCH_PID + me;
	char map[64], map_link[64];
	snprintf(map, sizeof(map), "/tmp/perf-%u.map", me);
	snprintf(map_link, sizeof(map_link), "/tmp/perf-%u.map", linked);
	th_put_file(map, MAP_TEXT);
	unlink(map_link);
	assert_int_equal(symlink("/etc/passwd", map_link), 0);
	put_comm(&recs, me, "prog");
	put_comm(&recs, me, "prog-worker");
	put_comm(&recs, linked, "other");
	put_comm(&recs, NO_SUCH_PID - 1, "gone");
	const char *data = at("perf.data");
	make_data(data, &recs, &feat);

	const char *out = at("perf.data.tar.zst");
	struct archive_result res;
	int rc = archive_write(data, out, &s, &res, &e);
	unlink(map);
	unlink(map_link);
	if (rc < 0)
		fail_msg("archive_write: %d %s", rc, e.msg);

	size_t prog_len;
	uint8_t *prog_bytes = th_read_file(prog, &prog_len);
	assert_int_equal(res.dsos, 2);
	assert_int_equal(res.missing, 2);
	assert_string_equal(res.first_missing, "[kernel.kallsyms]");
	assert_int_equal(res.maps, 1);
	assert_int_equal(res.bytes, prog_len + strlen(CACHED_BYTES) + strlen(MAP_TEXT));
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(res.out_bytes, (uint64_t)st.st_size);

	struct members ms;
	read_members(out, &ms);
	assert_contained(&ms);
	assert_int_equal(ms.nr, 5); /* 2 DSOs, their links, 1 map */
	assert_dso(&ms, prog, prog_hex, "elf", prog_bytes, prog_len, 0755);
	assert_dso(&ms, CACHED_NAME, HEX_CACHED, "elf", (const uint8_t *)CACHED_BYTES, strlen(CACHED_BYTES), 0644);
	const struct member *m = find(&ms, map + 1);
	if (!m)
		fail_msg("no member %s", map + 1);
	assert_int_equal(m->size, strlen(MAP_TEXT));
	assert_memory_equal(m->data, MAP_TEXT, strlen(MAP_TEXT));
	assert_int_equal(m->perm, 0644);

	free_members(&ms);
	free(prog_bytes);
	buf_free(&feat);
	buf_free(&recs);
	store_close(&s);
}

/* A stream without the feature (perf record --buildid-mmap, psrec -o -):
 * the ids of the MMAP2 records, one entry per id; no cache needed. */
static void test_archive_without_the_feature_takes_mmap2_ids(void **state)
{
	(void)state;
	const char *prog = at("prog");
	copy_file("/proc/self/exe", prog, 0700);
	struct build_id prog_id, other = id_of(HEX_CACHED);
	assert_int_equal(elfid_from_path(prog, &prog_id), 0);
	char hex[BUILD_ID_HEX_MAX];
	build_id_hex(&prog_id, hex);
	struct buf recs = BUF_INIT;
	put_comm(&recs, NO_SUCH_PID - 2, "prog");
	put_mmap2_id(&recs, NO_SUCH_PID - 2, &prog_id, prog);
	put_mmap2_id(&recs, NO_SUCH_PID - 2, &prog_id, prog);
	put_mmap2_id(&recs, NO_SUCH_PID - 2, &other, "/opt/gone/libother.so");
	const char *data = at("stream.data");
	make_data(data, &recs, NULL);

	struct archive_result res;
	struct err e = { "" };
	const char *out = at("stream.tar.zst");
	if (archive_write(data, out, NULL, &res, &e) < 0)
		fail_msg("archive_write: %s", e.msg);
	assert_int_equal(res.dsos, 1);
	assert_int_equal(res.missing, 1);
	assert_string_equal(res.first_missing, "/opt/gone/libother.so");
	assert_int_equal(res.maps, 0);
	struct members ms;
	read_members(out, &ms);
	assert_contained(&ms);
	assert_int_equal(ms.nr, 2);
	size_t len;
	uint8_t *bytes = th_read_file(prog, &len);
	assert_dso(&ms, prog, hex, "elf", bytes, len, 0700);
	free(bytes);
	free_members(&ms);
	buf_free(&recs);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* No ids at all (perf record -B): an error naming the fix, and an archive
 * that was there before is left as it was, with no temporary beside it. */
static void test_archive_without_ids_is_an_error_and_writes_nothing(void **state)
{
	(void)state;
	struct buf recs = BUF_INIT;
	put_comm(&recs, NO_SUCH_PID - 3, "prog");
	const char *data = at("perf.data");
	make_data(data, &recs, NULL);
	const char *out = at("old.tar.zst");
	th_put_file(out, "an older archive");

	struct archive_result res;
	struct err e = { "" };
	assert_int_equal(archive_write(data, out, NULL, &res, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no build-ids"));
	assert_non_null(strstr(e.msg, "-B"));
	size_t len;
	uint8_t *p = th_read_file(out, &len);
	assert_int_equal(len, strlen("an older archive"));
	assert_int_equal(count_entries(th_root), 2); /* perf.data, old.tar.zst */
	free(p);
	buf_free(&recs);
}

/* Outputs that must not be written: the recording itself, a directory, a
 * directory that does not exist. Each is one message naming the path,
 * and nothing is left behind. */
static void test_archive_refuses_outputs_it_must_not_write(void **state)
{
	(void)state;
	const char *prog = at("prog");
	copy_file("/proc/self/exe", prog, 0755);
	struct build_id id;
	assert_int_equal(elfid_from_path(prog, &id), 0);
	struct buf feat = BUF_INIT, recs = BUF_INIT;
	put_build_id(&feat, PD_MISC_USER, &id, prog);
	const char *data = at("perf.data");
	make_data(data, &recs, &feat);
	struct stat before;
	assert_int_equal(stat(data, &before), 0);

	struct archive_result res;
	struct err e = { "" };
	assert_int_equal(archive_write(data, data, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "the recording itself"));
	struct stat after;
	assert_int_equal(stat(data, &after), 0);
	assert_int_equal(after.st_size, before.st_size);

	assert_int_equal(archive_write(data, th_root, NULL, &res, &e), -EISDIR);
	assert_non_null(strstr(e.msg, th_root));
	assert_int_equal(archive_write(data, at("no/such/dir/x.tar.zst"), NULL, &res, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no/such/dir"));
	assert_int_equal(count_entries(th_root), 2); /* prog, perf.data */
	buf_free(&feat);
	buf_free(&recs);
}

/* The running kernel and psrec's vdso: taken from /proc/kallsyms and
 * from memory when their ids are the recorded ones. kallsyms whose
 * addresses all read 0 (not root, kptr_restrict) would symbolize nothing
 * and is a miss instead. */
static void test_archive_takes_this_kernel_and_vdso(void **state)
{
	(void)state;
	struct build_id kid, vid;
	const void *vimage;
	size_t vlen;
	if (elfid_kernel("/sys", &kid) < 0 || elfid_vdso(&vid, &vimage, &vlen) < 0)
		skip();
	char khex[BUILD_ID_HEX_MAX], vhex[BUILD_ID_HEX_MAX];
	build_id_hex(&kid, khex);
	build_id_hex(&vid, vhex);
	struct buf feat = BUF_INIT, recs = BUF_INIT;
	put_build_id(&feat, PD_MISC_KERNEL, &kid, "[kernel.kallsyms]");
	put_build_id(&feat, PD_MISC_USER, &vid, "[vdso]");
	const char *data = at("perf.data"), *out = at("k.tar.zst");
	make_data(data, &recs, &feat);

	struct archive_result res;
	struct err e = { "" };
	if (archive_write(data, out, NULL, &res, &e) < 0)
		fail_msg("archive_write: %s", e.msg);
	struct members ms;
	read_members(out, &ms);
	assert_contained(&ms);
	char kmember[128];
	snprintf(kmember, sizeof(kmember), "[kernel.kallsyms]/%s/kallsyms", khex);
	const struct member *k = find(&ms, kmember);
	if (res.missing) {
		/* Only the kernel can be missing: the vdso is in memory. */
		assert_int_equal(res.missing, 1);
		assert_string_equal(res.first_missing, "[kernel.kallsyms]");
		assert_null(k);
	} else {
		if (!k)
			fail_msg("no member %s", kmember);
		assert_true(k->size > 0);
		assert_non_null(memchr(k->data, '\n', (size_t)k->size));
		assert_int_equal(k->perm, 0444);
	}
	assert_dso(&ms, "[vdso]", vhex, "vdso", vimage, vlen, 0755);
	assert_int_equal(res.dsos, 2 - res.missing);
	free_members(&ms);
	buf_free(&feat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FRESH(test_archive_takes_the_path_the_cache_and_maps_and_counts_the_rest),
		FRESH(test_archive_without_the_feature_takes_mmap2_ids),
		FRESH(test_archive_without_ids_is_an_error_and_writes_nothing),
		FRESH(test_archive_refuses_outputs_it_must_not_write),
		FRESH(test_archive_takes_this_kernel_and_vdso),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
