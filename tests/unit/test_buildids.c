/*
 * test_buildids.c - the build-id pass over a finished recording
 * (src/record/buildids.c): which DSOs samples hit, at the sample's time,
 * through IPs and call chains, and the BUILD_ID payload made of them.
 */
#include "test_helpers.h"

#include <sys/mman.h>

#include "format/feature.h"
#include "format/writer.h"
#include "buildid/elfid.h"
#include "record/buildids.h"

#define ST (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_CALLCHAIN)
#define KBASE 0xffffffff81000000ULL

/* The sample_id trailer of ST: pid, tid, time. */
static void put_trailer(uint8_t *p, uint32_t pid, uint64_t time)
{
	th_put_u32(p, 0, pid);
	th_put_u32(p, 4, pid);
	th_put_u64(p, 8, time);
}

/* MMAP2 of [start, start + len) in pid at time, with an id (hex, or NULL
 * for the classic form), misc USER or KERNEL. */
static void put_mmap2(struct buf *b, uint32_t pid, uint16_t mode, uint64_t start, uint64_t len, const char *hex,
		      const char *name, uint64_t time)
{
	uint8_t r[256] = { 0 };
	size_t n = strlen(name) + 1;
	size_t size = 72 + ((n + 7) & ~(size_t)7) + 16;
	uint16_t misc = mode;
	if (hex) {
		struct build_id id;
		assert_int_equal(build_id_from_hex(hex, &id), 0);
		r[40] = id.size;
		memcpy(r + 44, id.data, id.size);
		misc |= PD_MISC_MMAP_BUILD_ID;
	} else {
		th_put_u32(r, 40, 8);      /* maj */
		th_put_u64(r, 48, 77);     /* ino */
	}
	struct pd_event_header h = { PD_RECORD_MMAP2, misc, (uint16_t)size };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, pid);
	th_put_u64(r, 16, start);
	th_put_u64(r, 24, len);
	th_put_u32(r, 64, 5); /* PROT_READ | PROT_EXEC */
	memcpy(r + 72, name, n);
	put_trailer(r + size - 16, pid, time);
	assert_int_equal(buf_append(b, r, size), 0);
}

static void put_exec(struct buf *b, uint32_t pid, uint64_t time)
{
	uint8_t r[8 + 8 + 8 + 16] = { 0 };
	struct pd_event_header h = { PD_RECORD_COMM, PD_MISC_COMM_EXEC, sizeof(r) };
	memcpy(r, &h, sizeof(h));
	th_put_u32(r, 8, pid);
	th_put_u32(r, 12, pid);
	memcpy(r + 16, "app", 4);
	put_trailer(r + 24, pid, time);
	assert_int_equal(buf_append(b, r, sizeof(r)), 0);
}

/* A SAMPLE of ST: ip, pid/tid, time, then the chain. */
static void put_sample(struct buf *b, uint16_t mode, uint32_t pid, uint64_t time, uint64_t ip, const uint64_t *chain,
		       size_t nr)
{
	uint8_t r[256] = { 0 };
	size_t size = 8 + 8 + 8 + 8 + 8 + 8 * nr;
	struct pd_event_header h = { PD_RECORD_SAMPLE, mode, (uint16_t)size };
	memcpy(r, &h, sizeof(h));
	th_put_u64(r, 8, ip);
	th_put_u32(r, 16, pid);
	th_put_u32(r, 20, pid);
	th_put_u64(r, 24, time);
	th_put_u64(r, 32, nr);
	for (size_t i = 0; i < nr; i++)
		th_put_u64(r, 40 + 8 * i, chain[i]);
	assert_int_equal(buf_append(b, r, size), 0);
}

#define APP_OLD "aa00000000000000000000000000000000000001"
#define APP_NEW "aa00000000000000000000000000000000000002"
#define LIBC "bb00000000000000000000000000000000000003"
#define UNUSED "cc00000000000000000000000000000000000004"
#define KERNEL "dd00000000000000000000000000000000000005"
#define USER_MARK ((uint64_t)-512)
#define KERNEL_MARK ((uint64_t)-128)

/* Writes the records as a file, maps it, scans it. */
static void scan(struct buf *recs, struct buildids *b)
{
	char path[64];
	int fd = th_tmpfile(path);
	struct writer w;
	th_data_begin(&w, fd, ST, recs->data, recs->len);
	struct pd_file_header hdr = w.hdr;
	hdr.data.size = writer_data_size(&w);
	void *p = mmap(NULL, w.end, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	struct err e = { "" };
	buildids_init(b);
	assert_int_equal(buildids_scan(b, p, w.end, &hdr, true, &e), 0);
	munmap(p, w.end);
	close(fd);
	unlink(path);
}

static const struct dso *dso_named(const struct buildids *b, const char *name, const char *hex)
{
	for (size_t i = 0; i < b->sb.dsos.n; i++) {
		char h[BUILD_ID_HEX_MAX];
		build_id_hex(&b->sb.dsos.v[i].id, h);
		if (strcmp(b->sb.dsos.v[i].name, name) == 0 && (!hex || strcmp(h, hex) == 0))
			return &b->sb.dsos.v[i];
	}
	fail_msg("no DSO %s %s", name, hex ? hex : "");
	return NULL;
}

/* Samples resolve at their own time: the first before the exec (written
 * after it in the file, as another ring's would be), the rest in the new
 * program; a call chain marks libc; the kernel map is found under
 * "[kernel.kallsyms]"; an address in no map is counted. */
static void test_buildids_hits_at_the_samples_time(void **state)
{
	(void)state;
	struct buf r = BUF_INIT;
	put_mmap2(&r, UINT32_MAX, PD_MISC_KERNEL, KBASE, 0x1000000, KERNEL, "[kernel.kallsyms]_text", 0);
	put_mmap2(&r, 10, PD_MISC_USER, 0x400000, 0x1000, APP_OLD, "/bin/app", 0);
	put_mmap2(&r, 10, PD_MISC_USER, 0x7f0000, 0x1000, LIBC, "/lib/libc.so.6", 0);
	put_mmap2(&r, 10, PD_MISC_USER, 0x900000, 0x1000, UNUSED, "/lib/unused.so", 0);
	put_exec(&r, 10, 200);
	put_mmap2(&r, 10, PD_MISC_USER, 0x400000, 0x1000, APP_NEW, "/bin/app", 210);
	const uint64_t chain[] = { USER_MARK, 0x400010, 0x7f0010 };
	put_sample(&r, PD_MISC_USER, 10, 100, 0x400010, chain, 3);         /* old app, libc */
	put_sample(&r, PD_MISC_USER, 10, 300, 0x400020, NULL, 0);          /* new app */
	put_sample(&r, PD_MISC_USER, 10, 310, 0x400030, NULL, 0);          /* new app */
	const uint64_t kchain[] = { KERNEL_MARK, KBASE + 0x100, USER_MARK, 0x400040 };
	put_sample(&r, PD_MISC_KERNEL, 10, 320, KBASE + 0x100, kchain, 4); /* kernel, new app */
	put_sample(&r, PD_MISC_USER, 10, 330, 0x123456, NULL, 0);          /* nowhere */
	struct buildids b;
	scan(&r, &b);
	assert_int_equal(b.samples, 5);
	assert_int_equal(b.unresolved, 1);
	assert_int_equal(dso_named(&b, "/bin/app", APP_OLD)->hits, 1);
	assert_int_equal(dso_named(&b, "/bin/app", APP_NEW)->hits, 3);
	assert_int_equal(dso_named(&b, "/lib/libc.so.6", NULL)->hits, 1);
	assert_int_equal(dso_named(&b, "/lib/unused.so", NULL)->hits, 0);
	const struct dso *k = dso_named(&b, "[kernel.kallsyms]", KERNEL);
	assert_int_equal(k->hits, 1);
	assert_true(k->kernel);
	assert_int_equal(b.sb.kernel_dso, (int32_t)(k - b.sb.dsos.v));

	/* The payload: the kernel first; one id per name, the most hit; no
	 * DSO samples missed. */
	struct buf f = BUF_INIT;
	size_t nr;
	assert_int_equal(buildids_feature(&b, false, &f, &nr), 0);
	assert_int_equal(nr, 3);
	size_t off = 0;
	struct feature_build_id_entry e;
	const char *want[] = { "[kernel.kallsyms]", "/lib/libc.so.6", "/bin/app" };
	const char *want_id[] = { KERNEL, LIBC, APP_NEW };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(feature_build_id_next(f.data, f.len, &off, &e), 1);
		char h[BUILD_ID_HEX_MAX];
		struct build_id id;
		assert_int_equal(build_id_set(&id, e.id, e.id_size), 0);
		build_id_hex(&id, h);
		int found = -1;
		for (int j = 0; j < 3; j++)
			if (strcmp(e.name, want[j]) == 0)
				found = j;
		assert_true(found >= 0);
		assert_string_equal(h, want_id[found]);
		assert_int_equal(e.pid, -1);
		assert_int_equal(e.misc & 7, found == 0 ? PD_MISC_KERNEL : PD_MISC_USER);
		if (i == 0)
			assert_string_equal(e.name, "[kernel.kallsyms]");
	}
	assert_int_equal(feature_build_id_next(f.data, f.len, &off, &e), 0);

	/* --buildid-all: the unused library too. */
	buf_reset(&f);
	assert_int_equal(buildids_feature(&b, true, &f, &nr), 0);
	assert_int_equal(nr, 4);
	buf_free(&f);
	buildids_free(&b);
	buf_free(&r);
}

/* A DSO mapped without an id gets one from the caller: the kernel's for
 * the kernel map, psrec's own vdso's for [vdso]. */
static void test_buildids_resolve_fills_kernel_and_vdso(void **state)
{
	(void)state;
	struct buf r = BUF_INIT;
	put_mmap2(&r, UINT32_MAX, PD_MISC_KERNEL, KBASE, 0x1000000, NULL, "[kernel.kallsyms]_text", 0);
	put_mmap2(&r, 10, PD_MISC_USER, 0x7ff000, 0x1000, NULL, "[vdso]", 0);
	put_sample(&r, PD_MISC_KERNEL, 10, 5, KBASE + 8, NULL, 0);
	put_sample(&r, PD_MISC_USER, 10, 6, 0x7ff010, NULL, 0);
	struct buildids b;
	scan(&r, &b);
	struct build_id kid;
	assert_int_equal(build_id_from_hex(KERNEL, &kid), 0);
	struct idcache ids;
	idcache_init(&ids);
	assert_int_equal(buildids_resolve(&b, false, &kid, &ids), 0);
	assert_true(build_id_equal(&dso_named(&b, "[kernel.kallsyms]", NULL)->id, &kid));
	const struct dso *v = dso_named(&b, "[vdso]", NULL);
	struct build_id own;
	const void *image;
	size_t len;
	if (elfid_vdso(&own, &image, &len) == 0)
		assert_true(build_id_equal(&v->id, &own));
	idcache_free(&ids);
	buildids_free(&b);
	buf_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buildids_hits_at_the_samples_time),
		cmocka_unit_test(test_buildids_resolve_fills_kernel_and_vdso),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
