/*
 * test_synth.c - synthesized records (src/record/synth.c): the kernel map
 * from a kallsyms file, the kernel MMAP record, COMM and MMAP2 records, and
 * whole processes described from a fake proc th_root, with no FORK
 * (perf-data-format.md 3.3, 4.1, 4.2).
 */
#include "test_helpers.h"

#include <sys/mman.h>

#include "record/procfs.h"
#include "record/synth.h"

static int find_in(const char *content, struct kernel_map *km)
{
	char path[64];
	th_write_file(path, content, strlen(content));
	int rc = synth_find_kernel_map(path, NULL, km);
	unlink(path);
	return rc;
}

/* ---- synth_find_kernel_map -------------------------------------------- */

static void test_synth_find_kernel_map_finds_text_and_etext(void **state)
{
	(void)state;
	const char *ks =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff80ff0000 t _text_decoy\n"
		"ffffffff80fe0000 t __text\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000040 T secondary_startup_64\n"
		"ffffffff8220bb08 T _etext\n"
		"ffffffffc0a00000 t foo\t[somemod]\n";
	struct kernel_map km = { 1, 2 };
	assert_int_equal(find_in(ks, &km), 0);
	assert_int_equal(km.start, 0xffffffff81000000ULL);
	assert_int_equal(km.end, 0xffffffff8220bb08ULL);
}

#if defined(__x86_64__) || defined(__i386__)
/* With iomem's "Kernel code" resource, _etext is not needed: only the lines
 * up to _text are read (a later, different _etext is ignored). */
static void test_synth_find_kernel_map_uses_iomem_kernel_code_length(void **state)
{
	(void)state;
	const char *ks =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _text\n"
		"ffffffff89999999 T _etext\n";
	const char *io =
		"00000000-00000fff : Reserved\n"
		"00100000-bffdffff : System RAM\n"
		"  01000000-02276f47 : Kernel code\n"
		"  02400000-02e0cfff : Kernel rodata\n";
	char kpath[64], ipath[64];
	th_write_file(kpath, ks, strlen(ks));
	th_write_file(ipath, io, strlen(io));
	struct kernel_map km = { 0, 0 };
	assert_int_equal(synth_find_kernel_map(kpath, ipath, &km), 0);
	assert_int_equal(km.start, 0xffffffff81000000ULL);
	assert_int_equal(km.end, 0xffffffff81000000ULL + 0x1276f48);

	/* Hidden iomem addresses (non-root reads zeros): fall back to _etext. */
	const char *hidden = "  00000000-00000000 : Kernel code\n";
	th_write_file(ipath, hidden, strlen(hidden));
	assert_int_equal(synth_find_kernel_map(kpath, ipath, &km), 0);
	assert_int_equal(km.end, 0xffffffff89999999ULL);
	unlink(kpath);
	unlink(ipath);
}
#endif

static void test_synth_find_kernel_map_accepts_etext_before_text(void **state)
{
	(void)state;
	const char *ks =
		"ffffffff82000000 T _etext\n"
		"ffffffff81000000 T _text\n";
	struct kernel_map km;
	assert_int_equal(find_in(ks, &km), 0);
	assert_int_equal(km.start, 0xffffffff81000000ULL);
	assert_int_equal(km.end, 0xffffffff82000000ULL);
}

static void test_synth_find_kernel_map_missing_symbols_is_enoent(void **state)
{
	(void)state;
	struct kernel_map km;
	assert_int_equal(find_in("ffffffff81000000 T _text\n", &km), -ENOENT);
	assert_int_equal(find_in("ffffffff82000000 T _etext\n", &km), -ENOENT);
	assert_int_equal(find_in("", &km), -ENOENT);
	assert_int_equal(find_in("garbage\nmore garbage without spaces\n\n", &km), -ENOENT);
	assert_int_equal(synth_find_kernel_map("/tmp/psrec-unit-no-such-dir/kallsyms", NULL, &km), -ENOENT);
}

static void test_synth_find_kernel_map_zero_addresses_are_eperm(void **state)
{
	(void)state;
	/* what kptr_restrict or an unprivileged reader sees */
	const char *ks =
		"0000000000000000 T startup_64\n"
		"0000000000000000 T _text\n"
		"0000000000000000 T _etext\n";
	struct kernel_map km;
	assert_int_equal(find_in(ks, &km), -EPERM);
}

static void test_synth_find_kernel_map_etext_not_above_text_is_eperm(void **state)
{
	(void)state;
	const char *ks =
		"ffffffff82000000 T _text\n"
		"ffffffff81000000 T _etext\n";
	struct kernel_map km;
	assert_int_equal(find_in(ks, &km), -EPERM);
}

/* ---- synth_kernel_mmap -------------------------------------------------- */

static void check_kernel_mmap(size_t trailer)
{
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff8220bb08ULL };
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "prefix!!", 8), 0);
	assert_int_equal(synth_kernel_mmap(&b, &km, NULL, trailer), 0);
	const uint8_t *r = b.data + 8;
	size_t size = b.len - 8;
	assert_int_equal(th_u32(r, 0), PD_RECORD_MMAP);     /* type 1 */
	assert_int_equal(th_u16(r, 4), PD_MISC_KERNEL);     /* misc 1 */
	assert_int_equal(th_u16(r, 6), size);
	assert_int_equal(size % 8, 0);
	/* 8 header + 8 pid/tid + 24 addr/len/pgoff + 24 name = 64, then the trailer */
	assert_int_equal(size, 64 + trailer);
	assert_int_equal(th_u32(r, 8), 0xffffffffu);         /* pid -1 */
	assert_int_equal(th_u32(r, 12), 0);                  /* tid */
	assert_int_equal(th_u64(r, 16), km.start);           /* addr */
	assert_int_equal(th_u64(r, 24), km.end - km.start);  /* len */
	assert_int_equal(th_u64(r, 32), km.start);           /* pgoff = _text */
	assert_string_equal((const char *)r + 40, "[kernel.kallsyms]_text");
	assert_int_equal(strlen("[kernel.kallsyms]_text"), 22);
	assert_true(th_all_zero(r + 40 + 23, 1));            /* NUL pad to 8 */
	assert_true(th_all_zero(r + size - trailer, trailer)); /* zero trailer at the end */
	assert_memory_equal(b.data, "prefix!!", 8);
	buf_free(&b);
}

/* With an id: MMAP2 in perf record --buildid-mmap's form (checked against
 * its kernel map: misc 0x4001, 112 bytes with a 16-byte trailer). */
static void test_synth_kernel_mmap_with_id_is_mmap2_carrying_it(void **state)
{
	(void)state;
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff82209988ULL };
	struct build_id id;
	assert_int_equal(build_id_from_hex("48dc540c8b76393804ca8088dbfa7d42911a9444", &id), 0);
	struct buf b = BUF_INIT;
	assert_int_equal(synth_kernel_mmap(&b, &km, &id, 16), 0);
	const uint8_t *r = b.data;
	assert_int_equal(b.len, 112);
	assert_int_equal(th_u32(r, 0), PD_RECORD_MMAP2);
	assert_int_equal(th_u16(r, 4), PD_MISC_KERNEL | PD_MISC_MMAP_BUILD_ID);
	assert_int_equal(th_u16(r, 6), 112);
	assert_int_equal(th_u32(r, 8), 0xffffffffu);
	assert_int_equal(th_u64(r, 16), km.start);
	assert_int_equal(th_u64(r, 24), km.end - km.start);
	assert_int_equal(th_u64(r, 32), km.start);
	assert_int_equal(r[40], 20);
	assert_memory_equal(r + 44, id.data, 20);
	assert_int_equal(th_u32(r, 64), 0);                  /* prot 0, as perf */
	assert_int_equal(th_u32(r, 68), 0);
	assert_string_equal((const char *)r + 72, "[kernel.kallsyms]_text");
	assert_true(th_all_zero(r + 96, 16));
	struct build_id none = { 0 };
	buf_reset(&b);
	assert_int_equal(synth_kernel_mmap(&b, &km, &none, 0), 0);
	assert_int_equal(th_u32(b.data, 0), PD_RECORD_MMAP); /* size 0: the classic form */
	buf_free(&b);
}

static void test_synth_kernel_mmap_record_layout_without_trailer(void **state)
{
	(void)state;
	check_kernel_mmap(0);
}

static void test_synth_kernel_mmap_record_layout_with_trailers(void **state)
{
	(void)state;
	check_kernel_mmap(16);  /* TID|TIME: the 80-byte record perf writes */
	check_kernel_mmap(32);
	check_kernel_mmap(48);
}

static void test_synth_kernel_mmap_trailer_too_big_is_e2big_and_appends_nothing(void **state)
{
	(void)state;
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff82000000ULL };
	struct buf b = BUF_INIT;
	assert_int_equal(synth_kernel_mmap(&b, &km, NULL, 70000), -E2BIG);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

/* ---- synth_comm ------------------------------------------------------- */

static void check_comm(const char *name, const char *want, size_t trailer)
{
	struct buf b = BUF_INIT;
	assert_int_equal(synth_comm(&b, 1234, 1235, name, trailer), 0);
	const uint8_t *r = b.data;
	size_t size = b.len;
	size_t n = strlen(want) + 1;
	size_t body = (8 + n + 7) / 8 * 8;
	assert_int_equal(th_u32(r, 0), PD_RECORD_COMM);     /* type 3 */
	assert_int_equal(th_u16(r, 4), 0);                  /* misc */
	assert_int_equal(th_u16(r, 6), size);
	assert_int_equal(size % 8, 0);
	assert_int_equal(size, 8 + body + trailer);
	assert_int_equal(th_u32(r, 8), 1234);
	assert_int_equal(th_u32(r, 12), 1235);
	assert_string_equal((const char *)r + 16, want);
	assert_true(th_all_zero(r + 16 + n - 1, body - 8 - n + 1)); /* NUL + pad */
	assert_true(th_all_zero(r + size - trailer, trailer));
	buf_free(&b);
}

static void test_synth_comm_short_name(void **state)
{
	(void)state;
	check_comm("sh", "sh", 0);
	check_comm("sh", "sh", 32);
	check_comm("spin", "spin", 16);
	check_comm("", "", 16);
}

static void test_synth_comm_name_of_7_bytes_fills_one_word_exactly(void **state)
{
	(void)state;
	/* 7 chars + NUL = 8: no extra padding word */
	check_comm("abcdefg", "abcdefg", 0);
	struct buf b = BUF_INIT;
	assert_int_equal(synth_comm(&b, 1, 1, "abcdefg", 0), 0);
	assert_int_equal(b.len, 24);
	buf_free(&b);
}

static void test_synth_comm_truncates_name_to_15_chars(void **state)
{
	(void)state;
	check_comm("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmno", 0);
	check_comm("abcdefghijklmnop", "abcdefghijklmno", 32); /* 16 chars */
	check_comm("abcdefghijklmno", "abcdefghijklmno", 24);  /* 15 chars: kept */
	struct buf b = BUF_INIT;
	assert_int_equal(synth_comm(&b, 1, 1, "abcdefghijklmnopqrstuvwxyz", 32), 0);
	assert_int_equal(b.len, 8 + 24 + 32);
	buf_free(&b);
}

static void test_synth_records_append_back_to_back(void **state)
{
	(void)state;
	struct kernel_map km = { 0xffffffff81000000ULL, 0xffffffff82000000ULL };
	struct buf b = BUF_INIT;
	assert_int_equal(synth_kernel_mmap(&b, &km, NULL, 32), 0);
	assert_int_equal(synth_comm(&b, 5, 5, "spin", 32), 0);
	assert_int_equal(synth_comm(&b, 5, 6, "worker", 32), 0);
	size_t off = 0;
	int n = 0;
	static const uint32_t types[] = { PD_RECORD_MMAP, PD_RECORD_COMM, PD_RECORD_COMM };
	while (off < b.len) {
		assert_int_equal(th_u32(b.data, off), types[n]);
		uint16_t size = th_u16(b.data, off + 6);
		assert_true(size >= 8);
		off += size;
		n++;
	}
	assert_int_equal(off, b.len);
	assert_int_equal(n, 3);
	buf_free(&b);
}

/* ---- record walking ------------------------------------------------------ */

struct rec {
	const uint8_t *p;
	uint32_t type;
	uint16_t misc, size;
};

#define MAX_RECS 32

/* Split b->data[start..len) into records; their sizes must add up exactly. */
static size_t walk(const struct buf *b, size_t start, struct rec *out)
{
	size_t off = start, n = 0;
	while (off < b->len) {
		if (b->len - off < sizeof(struct pd_event_header))
			fail_msg("%zu stray bytes at offset %zu", b->len - off, off);
		uint16_t size = th_u16(b->data, off + 6);
		if (size < 8 || size % 8 != 0 || size > b->len - off)
			fail_msg("record %zu at offset %zu: bad size %u (buffer %zu)", n, off, size, b->len);
		assert_true(n < MAX_RECS);
		out[n].p = b->data + off;
		out[n].type = th_u32(b->data, off);
		out[n].misc = th_u16(b->data, off + 4);
		out[n].size = size;
		off += size;
		n++;
	}
	assert_int_equal(off, b->len);
	return n;
}

static void check_comm_rec(const struct rec *r, pid_t pid, pid_t tid, const char *name)
{
	assert_int_equal(r->type, PD_RECORD_COMM);
	assert_int_equal(r->misc, 0);
	assert_int_equal(th_u32(r->p, 8), (uint32_t)pid);
	assert_int_equal(th_u32(r->p, 12), (uint32_t)tid);
	assert_string_equal((const char *)r->p + 16, name);
}

struct want_map {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	const char *name;           /* the filename in the record */
	uint16_t misc;
};

static void check_mmap2(const struct rec *r, pid_t pid, const struct want_map *w, size_t trailer)
{
	assert_int_equal(r->type, PD_RECORD_MMAP2);
	assert_int_equal(r->misc, w->misc);
	size_t nlen = strlen(w->name);
	size_t name_area = (nlen + 1 + 7) / 8 * 8;
	assert_int_equal(r->size, 8 + 64 + name_area + trailer);
	assert_int_equal(th_u32(r->p, 8), (uint32_t)pid);     /* pid */
	assert_int_equal(th_u32(r->p, 12), (uint32_t)pid);    /* tid */
	assert_int_equal(th_u64(r->p, 16), w->start);         /* addr */
	assert_int_equal(th_u64(r->p, 24), w->end - w->start); /* len */
	assert_int_equal(th_u64(r->p, 32), w->pgoff);
	assert_int_equal(th_u32(r->p, 40), w->maj);
	assert_int_equal(th_u32(r->p, 44), w->min);
	assert_int_equal(th_u64(r->p, 48), w->ino);
	assert_int_equal(th_u64(r->p, 56), 0);                /* ino_generation */
	assert_int_equal(th_u32(r->p, 64), w->prot);
	assert_int_equal(th_u32(r->p, 68), w->flags);
	assert_memory_equal(r->p + 72, w->name, nlen);
	assert_true(th_all_zero(r->p + 72 + nlen, name_area - nlen)); /* NUL + pad */
	assert_true(th_all_zero(r->p + r->size - trailer, trailer));
}

/* ---- synth_mmap2 --------------------------------------------------------- */

static void mmap2_of_line(const char *line, size_t trailer, struct buf *b, struct rec *r)
{
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line(line, &m), 0);
	assert_int_equal(synth_mmap2(b, 4321, &m, NULL, trailer), 0);
	assert_int_equal(walk(b, 0, r), 1);
}

static void test_synth_mmap2_exec_map_is_user_with_every_field_at_its_offset(void **state)
{
	(void)state;
	static const size_t trailers[] = { 0, 16, 32 };
	for (size_t i = 0; i < sizeof(trailers) / sizeof(trailers[0]); i++) {
		struct buf b = BUF_INIT;
		struct rec r[MAX_RECS];
		mmap2_of_line("55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234567   /usr/bin/spin\n",
			      trailers[i], &b, r);
		struct want_map w = { 0x55d0c0a00000ULL, 0x55d0c0a21000ULL, 0x2000, 0xfd, 1, 1234567,
				      PROT_READ | PROT_EXEC, MAP_PRIVATE, "/usr/bin/spin", PD_MISC_USER };
		check_mmap2(&r[0], 4321, &w, trailers[i]);
		assert_int_equal(r[0].misc, 2);
		buf_free(&b);
	}
}

/* With an id the 24 bytes of maj, min, ino, ino_generation hold {size, 3
 * pad, id[20]} and misc has MMAP_BUILD_ID; the rest is unchanged. */
static void test_synth_mmap2_with_id_carries_it_in_place_of_dev_and_inode(void **state)
{
	(void)state;
	struct procfs_map m;
	assert_int_equal(procfs_parse_map_line("55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234567   /usr/bin/spin\n", &m), 0);
	struct build_id id;
	assert_int_equal(build_id_from_hex("f22d3b11f2a58375d0dce4b3746810356cae98f7", &id), 0);
	struct buf b = BUF_INIT;
	assert_int_equal(synth_mmap2(&b, 4321, &m, &id, 16), 0);
	const uint8_t *r = b.data;
	assert_int_equal(th_u32(r, 0), PD_RECORD_MMAP2);
	assert_int_equal(th_u16(r, 4), PD_MISC_USER | PD_MISC_MMAP_BUILD_ID);
	assert_int_equal(th_u32(r, 8), 4321);
	assert_int_equal(th_u64(r, 16), 0x55d0c0a00000ULL);
	assert_int_equal(th_u64(r, 32), 0x2000);
	assert_int_equal(r[40], 20);
	assert_true(th_all_zero(r + 41, 3));
	assert_memory_equal(r + 44, id.data, 20);
	assert_int_equal(th_u32(r, 64), PROT_READ | PROT_EXEC);
	assert_int_equal(th_u32(r, 68), MAP_PRIVATE);
	assert_string_equal((const char *)r + 72, "/usr/bin/spin");
	assert_int_equal(th_u16(r, 6), b.len);
	buf_free(&b);
}

static void test_synth_mmap2_non_exec_map_is_user_plus_mmap_data(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	struct rec r[MAX_RECS];
	mmap2_of_line("55d0c0a21000-55d0c0a30000 r--p 00023000 fd:01 1234567   /usr/bin/spin\n", 16, &b, r);
	struct want_map w = { 0x55d0c0a21000ULL, 0x55d0c0a30000ULL, 0x23000, 0xfd, 1, 1234567,
			      PROT_READ, MAP_PRIVATE, "/usr/bin/spin", PD_MISC_USER | PD_MISC_MMAP_DATA };
	check_mmap2(&r[0], 4321, &w, 16);
	assert_int_equal(r[0].misc, 2 | (1 << 13));
	buf_free(&b);

	/* a shared writable mapping: prot and flags carried as they are */
	struct buf b2 = BUF_INIT;
	mmap2_of_line("7f0000000000-7f0000002000 rw-s 00000000 00:05 99   /dev/shm/x\n", 8, &b2, r);
	struct want_map w2 = { 0x7f0000000000ULL, 0x7f0000002000ULL, 0, 0, 5, 99,
			       PROT_READ | PROT_WRITE, MAP_SHARED, "/dev/shm/x", PD_MISC_USER | PD_MISC_MMAP_DATA };
	check_mmap2(&r[0], 4321, &w2, 8);
	buf_free(&b2);
}

static void test_synth_mmap2_empty_and_anon_names_become_slash_slash_anon(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0\n",
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n",
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0   [anon:foo]\n",
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0   [anon:glibc malloc]\n",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct buf b = BUF_INIT;
		struct rec r[MAX_RECS];
		mmap2_of_line(lines[i], 16, &b, r);
		struct want_map w = { 0x7f0000000000ULL, 0x7f0000001000ULL, 0, 0, 0, 0,
				      PROT_READ | PROT_EXEC, MAP_PRIVATE, "//anon", PD_MISC_USER };
		check_mmap2(&r[0], 4321, &w, 16);
		/* "//anon" + NUL = 7 bytes, padded to 8 */
		assert_int_equal(r[0].size, 8 + 64 + 8 + 16);
		buf_free(&b);
	}
}

static void test_synth_mmap2_other_bracketed_names_are_kept(void **state)
{
	(void)state;
	static const char *const names[] = { "[vdso]", "[heap]", "[stack]", "[anon_shmem:x]" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char line[256];
		snprintf(line, sizeof(line), "7ffd3a5f3000-7ffd3a5f5000 r-xp 00000000 00:00 0   %s\n", names[i]);
		struct buf b = BUF_INIT;
		struct rec r[MAX_RECS];
		mmap2_of_line(line, 0, &b, r);
		struct want_map w = { 0x7ffd3a5f3000ULL, 0x7ffd3a5f5000ULL, 0, 0, 0, 0,
				      PROT_READ | PROT_EXEC, MAP_PRIVATE, names[i], PD_MISC_USER };
		check_mmap2(&r[0], 4321, &w, 0);
		buf_free(&b);
	}
}

static void test_synth_mmap2_filename_nul_terminated_and_padded_to_8(void **state)
{
	(void)state;
	/* name length -> name area: 7 -> 8 (NUL fills the word), 8 -> 16 */
	static const struct { const char *name; size_t area; } cases[] = {
		{ "/a", 8 }, { "/abcdef", 8 }, { "/abcdefg", 16 }, { "/abcdefghijklmn", 16 },
		{ "/abcdefghijklmno", 24 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char line[256];
		snprintf(line, sizeof(line), "1000-2000 r-xp 00000000 fd:01 7 %s\n", cases[i].name);
		struct buf b = BUF_INIT;
		struct rec r[MAX_RECS];
		mmap2_of_line(line, 16, &b, r);
		assert_int_equal(r[0].size, 8 + 64 + cases[i].area + 16);
		struct want_map w = { 0x1000, 0x2000, 0, 0xfd, 1, 7, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				      cases[i].name, PD_MISC_USER };
		check_mmap2(&r[0], 4321, &w, 16);
		buf_free(&b);
	}
	/* perf's MMAP2 for /usr/bin/sleep with a TID|TIME trailer is 104 bytes */
	struct buf b = BUF_INIT;
	struct rec r[MAX_RECS];
	mmap2_of_line("1000-2000 r-xp 00000000 fd:01 7 /usr/bin/sleep\n", 16, &b, r);
	assert_int_equal(b.len, 104);
	buf_free(&b);
}

static void test_synth_mmap2_takes_path_len_bytes_not_up_to_nul(void **state)
{
	(void)state;
	struct procfs_map m;
	memset(&m, 0, sizeof(m));
	m.start = 0x1000;
	m.end = 0x3000;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.path = "/usr/bin/spin\n55d0-55d1 trailing junk";
	m.path_len = 13;
	struct buf b = BUF_INIT;
	assert_int_equal(synth_mmap2(&b, 9, &m, NULL, 0), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 1);
	struct want_map w = { 0x1000, 0x3000, 0, 0, 0, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			      "/usr/bin/spin", PD_MISC_USER };
	check_mmap2(&r[0], 9, &w, 0);
	buf_free(&b);
}

static void test_synth_mmap2_path_longer_than_path_max_is_cut_to_4095_bytes(void **state)
{
	(void)state;
	size_t len = 5000;
	char *path = malloc(len + 1);
	assert_non_null(path);
	path[0] = '/';
	memset(path + 1, 'p', len - 1);
	path[len] = '\0';
	struct procfs_map m;
	memset(&m, 0, sizeof(m));
	m.start = 0x1000;
	m.end = 0x2000;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.path = path;
	m.path_len = len;
	struct buf b = BUF_INIT;
	assert_int_equal(synth_mmap2(&b, 9, &m, NULL, 16), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 1);
	assert_int_equal(r[0].size, 8 + 64 + 4096 + 16);
	assert_int_equal(strnlen((const char *)r[0].p + 72, 4096), 4095);
	assert_memory_equal(r[0].p + 72, path, 4095);
	assert_true(th_all_zero(r[0].p + r[0].size - 16, 16));
	free(path);
	buf_free(&b);
}

/* ---- synth_process on a fake proc root ----------------------------------- */

#define PID 100
#define PPID 42
#define TR 16   /* trailer: TID|TIME */

static const char maps4[] =
	"55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234567   /usr/bin/spin\n"
	"55d0c0a21000-55d0c0a30000 r--p 00023000 fd:01 1234567   /usr/bin/spin\n"
	"55d0c0c00000-55d0c0c21000 rw-p 00000000 00:00 0 \n"
	"7f0000000000-7f0000100000 r-xp 00010000 fd:01 7654321   /usr/lib/libc.so.6\n";

static const struct want_map spin_text = {
	0x55d0c0a00000ULL, 0x55d0c0a21000ULL, 0x2000, 0xfd, 1, 1234567,
	PROT_READ | PROT_EXEC, MAP_PRIVATE, "/usr/bin/spin", PD_MISC_USER };
static const struct want_map spin_rodata = {
	0x55d0c0a21000ULL, 0x55d0c0a30000ULL, 0x23000, 0xfd, 1, 1234567,
	PROT_READ, MAP_PRIVATE, "/usr/bin/spin", PD_MISC_USER | PD_MISC_MMAP_DATA };
static const struct want_map libc_text = {
	0x7f0000000000ULL, 0x7f0000100000ULL, 0x10000, 0xfd, 1, 7654321,
	PROT_READ | PROT_EXEC, MAP_PRIVATE, "/usr/lib/libc.so.6", PD_MISC_USER };

/* Process PID (parent PPID) with threads PID, PID+1, PID+2 and maps4. Every
 * thread's status says PPid PPID, as the kernel's does. */
static void make_spin(void)
{
	th_fake_thread(th_root, PID, PID, "spin", PPID, 0);
	th_fake_thread(th_root, PID, PID + 1, "worker-1", PPID, 0);
	th_fake_thread(th_root, PID, PID + 2, "worker-2", PPID, 0);
	th_fake_maps(th_root, PID, maps4);
}

/* No record of any type but COMM and MMAP2: in particular no FORK, whose
 * parent hotspot's perfparser would copy over the process (issue 9). */
static void check_only_comm_and_mmap2(const struct rec *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_true(r[i].type == PD_RECORD_COMM || r[i].type == PD_RECORD_MMAP2);
}

/* The leader's COMM comes first, the maps next, the other threads last:
 * the order perf record -p writes (perf-data-format.md 4.1). */
static void check_spin_leader(const struct rec *r)
{
	check_comm_rec(&r[0], PID, PID, "spin");
}

static void check_spin_workers(const struct rec *r)
{
	check_comm_rec(&r[0], PID, PID + 1, "worker-1");
	check_comm_rec(&r[1], PID, PID + 2, "worker-2");
}

static void test_synth_process_emits_leader_comm_maps_then_thread_comms_and_no_fork(void **state)
{
	(void)state;
	make_spin();
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "prefix!!", 8), 0);
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, PID, NULL, 0, false, NULL, TR, &cnt), 0);
	assert_memory_equal(b.data, "prefix!!", 8);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 8, r), 5);
	check_only_comm_and_mmap2(r, 5);
	check_spin_leader(r);
	check_mmap2(&r[1], PID, &spin_text, TR);
	check_mmap2(&r[2], PID, &libc_text, TR);
	check_spin_workers(&r[3]);
	assert_int_equal(cnt.processes, 1);
	assert_int_equal(cnt.threads, 3);
	assert_int_equal(cnt.maps, 2);
	assert_int_equal(cnt.vanished, 0);
	assert_int_equal(cnt.unreadable, 0);
	buf_free(&b);
}

static void test_synth_process_data_maps_adds_readable_file_maps_but_not_anonymous_ones(void **state)
{
	(void)state;
	make_spin();
	struct buf b = BUF_INIT;
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, PID, NULL, 0, true, NULL, TR, &cnt), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 6);
	check_only_comm_and_mmap2(r, 6);
	check_spin_leader(r);
	check_mmap2(&r[1], PID, &spin_text, TR);
	check_mmap2(&r[2], PID, &spin_rodata, TR);   /* misc USER|MMAP_DATA */
	check_mmap2(&r[3], PID, &libc_text, TR);
	check_spin_workers(&r[4]);
	assert_int_equal(cnt.processes, 1);
	assert_int_equal(cnt.threads, 3);
	assert_int_equal(cnt.maps, 3);
	buf_free(&b);
}

static void test_synth_process_with_tids_describes_only_those_threads(void **state)
{
	(void)state;
	make_spin();
	struct buf b = BUF_INIT;
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	const pid_t tids[] = { PID + 2 };
	assert_int_equal(synth_process(&b, th_root, PID, tids, 1, false, NULL, TR, &cnt), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 3);
	/* the maps are the process's, needed whichever threads are sampled */
	check_mmap2(&r[0], PID, &spin_text, TR);
	check_mmap2(&r[1], PID, &libc_text, TR);
	check_comm_rec(&r[2], PID, PID + 2, "worker-2");
	assert_int_equal(cnt.processes, 1);
	assert_int_equal(cnt.threads, 1);
	assert_int_equal(cnt.maps, 2);
	buf_free(&b);

	/* the leader among the tids comes first; a tid that has exited is
	 * skipped */
	struct buf b2 = BUF_INIT;
	memset(&cnt, 0, sizeof(cnt));
	const pid_t tids2[] = { PID, PID + 7 };
	assert_int_equal(synth_process(&b2, th_root, PID, tids2, 2, false, NULL, TR, &cnt), 0);
	assert_int_equal(walk(&b2, 0, r), 3);
	check_only_comm_and_mmap2(r, 3);
	check_comm_rec(&r[0], PID, PID, "spin");
	check_mmap2(&r[1], PID, &spin_text, TR);
	check_mmap2(&r[2], PID, &libc_text, TR);
	assert_int_equal(cnt.threads, 1);
	assert_int_equal(cnt.processes, 1);
	buf_free(&b2);
}

/*
 * A leader that called pthread_exit: a zombie whose maps file is empty,
 * as the kernel shows it, while a worker runs on. The worker's maps are
 * the process's; without them none of its samples would resolve.
 */
static void test_synth_process_zombie_leader_takes_the_maps_of_a_live_thread(void **state)
{
	(void)state;
	th_fake_thread_ex(th_root, PID, PID, "spin", "spin", PPID, 1000, 'Z', 0);
	th_fake_maps(th_root, PID, "");
	th_fake_thread(th_root, PID, PID + 1, "worker-1", PPID, 0);
	char path[512];
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", th_root, PID, PID + 1);
	th_put_file(path, maps4);

	for (int with_tids = 0; with_tids < 2; with_tids++) {
		struct buf b = BUF_INIT;
		struct synth_counts cnt;
		memset(&cnt, 0, sizeof(cnt));
		const pid_t tids[] = { PID, PID + 1 };
		assert_int_equal(synth_process(&b, th_root, PID, with_tids ? tids : NULL, with_tids ? 2 : 0,
					       false, NULL, TR, &cnt), 0);
		struct rec r[MAX_RECS];
		assert_int_equal(walk(&b, 0, r), 4);
		check_only_comm_and_mmap2(r, 4);
		check_spin_leader(r);
		check_mmap2(&r[1], PID, &spin_text, TR);  /* the process's pid, as ever */
		check_mmap2(&r[2], PID, &libc_text, TR);
		check_comm_rec(&r[3], PID, PID + 1, "worker-1");
		assert_int_equal(cnt.processes, 1);
		assert_int_equal(cnt.maps, 2);
		assert_int_equal(cnt.vanished, 0);
		assert_int_equal(cnt.unreadable, 0);
		buf_free(&b);
	}

	/* a live leader's empty maps stay empty: no other thread is asked */
	th_fake_thread(th_root, PID, PID, "spin", PPID, 0);
	struct buf b = BUF_INIT;
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, PID, NULL, 0, false, NULL, TR, &cnt), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 2);
	assert_int_equal(cnt.maps, 0);
	buf_free(&b);
}

static void test_synth_process_kernel_thread_gets_no_mmap2_even_with_maps(void **state)
{
	(void)state;
	th_fake_thread(th_root, 2, 2, "kthreadd", 0, TH_PF_KTHREAD);
	th_fake_maps(th_root, 2, maps4);
	struct buf b = BUF_INIT;
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, 2, NULL, 0, true, NULL, TR, &cnt), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 1);
	check_comm_rec(&r[0], 2, 2, "kthreadd");
	assert_int_equal(cnt.processes, 1);
	assert_int_equal(cnt.threads, 1);
	assert_int_equal(cnt.maps, 0);
	buf_free(&b);
}

static void test_synth_process_counts_accumulate_over_processes(void **state)
{
	(void)state;
	make_spin();
	th_fake_thread(th_root, 2, 2, "kthreadd", 0, TH_PF_KTHREAD);
	struct buf b = BUF_INIT;
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, 2, NULL, 0, false, NULL, TR, &cnt), 0);
	assert_int_equal(synth_process(&b, th_root, PID, NULL, 0, false, NULL, TR, &cnt), 0);
	assert_int_equal(synth_process(&b, th_root, 31337, NULL, 0, false, NULL, TR, &cnt), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 1 + 5);
	assert_int_equal(cnt.processes, 2);
	assert_int_equal(cnt.threads, 4);
	assert_int_equal(cnt.maps, 2);
	assert_int_equal(cnt.vanished, 1);
	buf_free(&b);
}

static void test_synth_process_vanished_process_appends_nothing_and_counts_vanished(void **state)
{
	(void)state;
	make_spin();
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "prefix!!", 8), 0);
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, 999, NULL, 0, true, NULL, TR, &cnt), 0);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.data, "prefix!!", 8);
	assert_int_equal(cnt.vanished, 1);
	assert_int_equal(cnt.processes, 0);
	assert_int_equal(cnt.threads, 0);
	assert_int_equal(cnt.maps, 0);
	assert_int_equal(cnt.unreadable, 0);
	buf_free(&b);
}

static void test_synth_process_maps_gone_mid_scan_counts_vanished_and_drops_thread_records(void **state)
{
	(void)state;
	/* maps that read as ENOENT (a dangling symlink here): in the real
	 * /proc that means the process exited between status and maps */
	make_spin();
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", th_root, PID, PID);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/nonexistent/psrec-unit-maps", path), 0);
	struct buf b = BUF_INIT;
	assert_int_equal(buf_append(&b, "prefix!!", 8), 0);
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, PID, NULL, 0, false, NULL, TR, &cnt), 0);
	assert_int_equal(b.len, 8);
	assert_int_equal(cnt.vanished, 1);
	assert_int_equal(cnt.processes, 0);
	assert_int_equal(cnt.threads, 0);
	assert_int_equal(cnt.unreadable, 0);
	buf_free(&b);
}

/* What synth_process did in a child that dropped root. */
struct nobody_result {
	int setup_failed;
	int rc;
	struct synth_counts cnt;
	size_t len;
	uint8_t data[4096];
};

static void synth_body(void *res, void *arg)
{
	struct nobody_result *r = res;
	(void)arg;
	if (!th_drop_root()) {
		r->setup_failed = 1;
		return;
	}
	struct buf b = BUF_INIT;
	r->rc = synth_process(&b, th_root, PID, NULL, 0, false, NULL, TR, &r->cnt);
	r->len = b.len <= sizeof(r->data) ? b.len : SIZE_MAX;
	if (b.len && b.len <= sizeof(r->data))
		memcpy(r->data, b.data, b.len);
	buf_free(&b);
}

/*
 * Run synth_process(th_root, PID) as an unprivileged user, so that a mode-000
 * file really is unreadable (root reads it anyway); a non-root test's child
 * runs it as it is.
 */
static void synth_unprivileged(struct nobody_result *res)
{
	th_run_in_child(synth_body, NULL, res, sizeof(*res));
	if (res->setup_failed)
		skip();
	assert_true(res->len <= sizeof(res->data));
}

static void test_synth_process_unreadable_maps_keep_thread_records_and_count_unreadable(void **state)
{
	(void)state;
	make_spin();
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", th_root, PID, PID);
	assert_int_equal(chmod(path, 0), 0);  /* open fails with EACCES as non-root */
	struct nobody_result res;
	synth_unprivileged(&res);
	assert_int_equal(res.rc, 0);
	struct buf b = { res.data, res.len, res.len };
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 3);    /* COMM x 3, no MMAP2 */
	check_spin_leader(r);
	check_spin_workers(&r[1]);
	assert_int_equal(res.cnt.unreadable, 1);
	assert_int_equal(res.cnt.processes, 1);
	assert_int_equal(res.cnt.threads, 3);
	assert_int_equal(res.cnt.maps, 0);
	assert_int_equal(res.cnt.vanished, 0);
}

static void test_synth_process_unreadable_status_appends_nothing_and_counts_unreadable(void **state)
{
	(void)state;
	make_spin();
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", th_root, PID, PID);
	assert_int_equal(chmod(path, 0), 0);
	struct nobody_result res;
	synth_unprivileged(&res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.len, 0);
	assert_int_equal(res.cnt.unreadable, 1);
	assert_int_equal(res.cnt.processes, 0);
	assert_int_equal(res.cnt.threads, 0);
	assert_int_equal(res.cnt.vanished, 0);
}

/*
 * Regression: a maps file that opens but cannot be read (a directory here:
 * every read fails with EISDIR) once passed for an empty one. A read error
 * must count the process as unreadable and keep its thread records.
 */
static void test_synth_process_maps_read_error_counts_unreadable_and_keeps_thread_records(void **state)
{
	(void)state;
	make_spin();
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", th_root, PID, PID);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	struct buf b = BUF_INIT;
	struct synth_counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(synth_process(&b, th_root, PID, NULL, 0, false, NULL, TR, &cnt), 0);
	struct rec r[MAX_RECS];
	assert_int_equal(walk(&b, 0, r), 3);    /* the thread records are kept */
	check_spin_leader(r);
	check_spin_workers(&r[1]);
	buf_free(&b);
	assert_int_equal(cnt.maps, 0);
	assert_int_equal(cnt.processes, 1);
	assert_int_equal(cnt.unreadable, 1);    /* fails: 0, the error is taken for EOF */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synth_find_kernel_map_finds_text_and_etext),
#if defined(__x86_64__) || defined(__i386__)
		cmocka_unit_test(test_synth_find_kernel_map_uses_iomem_kernel_code_length),
#endif
		cmocka_unit_test(test_synth_find_kernel_map_accepts_etext_before_text),
		cmocka_unit_test(test_synth_find_kernel_map_missing_symbols_is_enoent),
		cmocka_unit_test(test_synth_find_kernel_map_zero_addresses_are_eperm),
		cmocka_unit_test(test_synth_find_kernel_map_etext_not_above_text_is_eperm),
		cmocka_unit_test(test_synth_kernel_mmap_with_id_is_mmap2_carrying_it),
		cmocka_unit_test(test_synth_kernel_mmap_record_layout_without_trailer),
		cmocka_unit_test(test_synth_kernel_mmap_record_layout_with_trailers),
		cmocka_unit_test(test_synth_kernel_mmap_trailer_too_big_is_e2big_and_appends_nothing),
		cmocka_unit_test(test_synth_comm_short_name),
		cmocka_unit_test(test_synth_comm_name_of_7_bytes_fills_one_word_exactly),
		cmocka_unit_test(test_synth_comm_truncates_name_to_15_chars),
		cmocka_unit_test(test_synth_records_append_back_to_back),
		cmocka_unit_test(test_synth_mmap2_exec_map_is_user_with_every_field_at_its_offset),
		cmocka_unit_test(test_synth_mmap2_with_id_carries_it_in_place_of_dev_and_inode),
		cmocka_unit_test(test_synth_mmap2_non_exec_map_is_user_plus_mmap_data),
		cmocka_unit_test(test_synth_mmap2_empty_and_anon_names_become_slash_slash_anon),
		cmocka_unit_test(test_synth_mmap2_other_bracketed_names_are_kept),
		cmocka_unit_test(test_synth_mmap2_filename_nul_terminated_and_padded_to_8),
		cmocka_unit_test(test_synth_mmap2_takes_path_len_bytes_not_up_to_nul),
		cmocka_unit_test(test_synth_mmap2_path_longer_than_path_max_is_cut_to_4095_bytes),
		TH_FAKE(test_synth_process_emits_leader_comm_maps_then_thread_comms_and_no_fork),
		TH_FAKE(test_synth_process_data_maps_adds_readable_file_maps_but_not_anonymous_ones),
		TH_FAKE(test_synth_process_with_tids_describes_only_those_threads),
		TH_FAKE(test_synth_process_zombie_leader_takes_the_maps_of_a_live_thread),
		TH_FAKE(test_synth_process_kernel_thread_gets_no_mmap2_even_with_maps),
		TH_FAKE(test_synth_process_counts_accumulate_over_processes),
		TH_FAKE(test_synth_process_vanished_process_appends_nothing_and_counts_vanished),
		TH_FAKE(test_synth_process_maps_gone_mid_scan_counts_vanished_and_drops_thread_records),
		TH_FAKE(test_synth_process_unreadable_maps_keep_thread_records_and_count_unreadable),
		TH_FAKE(test_synth_process_unreadable_status_appends_nothing_and_counts_unreadable),
		TH_FAKE(test_synth_process_maps_read_error_counts_unreadable_and_keeps_thread_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
