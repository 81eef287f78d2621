/*
 * test_elfid.c - reading build-ids (src/buildid/elfid.c): hand-built ELF
 * images of both classes and byte orders, through memory and files, cut
 * at every length and with bytes flipped; note streams as /sys/kernel/notes
 * holds them; the test's own executable, the running kernel and the vdso.
 */
#include "test_helpers.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

#include "buildid/elfid.h"

/* ---- hand-built ELF images ------------------------------------------------ */

#define IMG_MAX 512

struct img_spec {
	bool is64, be;
	bool phdr, shdr;          /* the note in a PT_NOTE segment, an SHT_NOTE section */
	bool lead_note;           /* a "Xen" note before the build-id */
	const char *name;         /* the build-id note's name ("GNU") */
	uint32_t type;            /* NT_GNU_BUILD_ID */
	size_t id_len;
};

static const struct img_spec gnu64 = { .is64 = true, .phdr = true, .name = "GNU",
				       .type = NT_GNU_BUILD_ID, .id_len = 20 };

static void put(uint8_t *b, bool be, size_t off, size_t size, uint64_t v)
{
	for (size_t i = 0; i < size; i++)
		b[off + (be ? size - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* id bytes 0xa0, 0xa1, ... */
static void expect_id(const struct build_id *id, size_t len)
{
	assert_int_equal(id->size, len);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(id->data[i], 0xa0 + i);
}

static size_t put_note(uint8_t *b, bool be, size_t off, const char *name, uint32_t type,
		       size_t desc_len, uint8_t desc0)
{
	size_t namesz = strlen(name) + 1;
	put(b, be, off, 4, namesz);
	put(b, be, off + 4, 4, desc_len);
	put(b, be, off + 8, 4, type);
	off += 12;
	memcpy(b + off, name, namesz);
	off += (namesz + 3) & ~(size_t)3;
	for (size_t i = 0; i < desc_len; i++)
		b[off + i] = (uint8_t)(desc0 + i);
	return off + ((desc_len + 3) & ~(size_t)3);
}

/* The image of s into b[IMG_MAX]; its length. */
static size_t img_build(uint8_t *b, const struct img_spec *s)
{
	bool be = s->be, is64 = s->is64;
	size_t ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32, shentsize = is64 ? 64 : 40;
	size_t w = is64 ? 8 : 4;
	memset(b, 0, IMG_MAX);

	size_t notes = ehsize + (s->phdr ? phentsize : 0), off = notes;
	if (s->lead_note)
		off = put_note(b, be, off, "Xen", 1, 5, 0x10);
	off = put_note(b, be, off, s->name, s->type, s->id_len, 0xa0);
	size_t notes_len = off - notes;
	size_t shoff = (off + 7) & ~(size_t)7;
	size_t len = s->shdr ? shoff + 2 * shentsize : off;
	assert_true(len <= IMG_MAX);

	memcpy(b, ELFMAG, SELFMAG);
	b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	b[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
	b[EI_VERSION] = EV_CURRENT;
	put(b, be, 16, 2, ET_DYN);
	put(b, be, 18, 2, is64 ? EM_X86_64 : EM_PPC);
	put(b, be, 20, 4, EV_CURRENT);
	put(b, be, is64 ? 32 : 28, w, s->phdr ? ehsize : 0);   /* e_phoff */
	put(b, be, is64 ? 40 : 32, w, s->shdr ? shoff : 0);    /* e_shoff */
	size_t h = is64 ? 52 : 40;                             /* e_ehsize... */
	put(b, be, h, 2, ehsize);
	put(b, be, h + 2, 2, phentsize);
	put(b, be, h + 4, 2, s->phdr ? 1 : 0);
	put(b, be, h + 6, 2, shentsize);
	put(b, be, h + 8, 2, s->shdr ? 2 : 0);
	put(b, be, h + 10, 2, SHN_UNDEF);

	if (s->phdr) {
		uint8_t *p = b + ehsize;
		put(p, be, 0, 4, PT_NOTE);
		put(p, be, is64 ? 4 : 24, 4, PF_R);
		put(p, be, is64 ? 8 : 4, w, notes);                /* p_offset */
		put(p, be, is64 ? 32 : 16, w, notes_len);          /* p_filesz */
		put(p, be, is64 ? 40 : 20, w, notes_len);          /* p_memsz */
		put(p, be, is64 ? 48 : 28, w, 4);                  /* p_align */
	}
	if (s->shdr) {
		uint8_t *p = b + shoff + shentsize;                /* [1]; [0] is all zero */
		put(p, be, 4, 4, SHT_NOTE);
		put(p, be, 8, w, SHF_ALLOC);
		put(p, be, is64 ? 24 : 16, w, notes);              /* sh_offset */
		put(p, be, is64 ? 32 : 20, w, notes_len);          /* sh_size */
		put(p, be, is64 ? 48 : 32, w, 4);                  /* sh_addralign */
	}
	return len;
}

/* elfid_from_mem on an exact-size heap copy, so that ASan sees any read
 * past the end. */
static int from_mem_exact(const uint8_t *img, size_t len, struct build_id *id)
{
	uint8_t *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, img, len);
	int err = elfid_from_mem(copy, len, id);
	free(copy);
	return err;
}

static int from_spec(const struct img_spec *s, struct build_id *id)
{
	uint8_t img[IMG_MAX];
	size_t len = img_build(img, s);
	return from_mem_exact(img, len, id);
}

static void test_elfid_from_mem_pt_note_of_64_bit_little_endian(void **state)
{
	(void)state;
	struct build_id id;
	assert_int_equal(from_spec(&gnu64, &id), 0);
	expect_id(&id, 20);
}

static void test_elfid_from_mem_sht_note_without_program_headers(void **state)
{
	(void)state;
	struct img_spec s = gnu64;
	s.phdr = false;
	s.shdr = true;
	struct build_id id;
	assert_int_equal(from_spec(&s, &id), 0);
	expect_id(&id, 20);
}

static void test_elfid_from_mem_every_class_and_byte_order(void **state)
{
	(void)state;
	for (int is64 = 0; is64 < 2; is64++)
		for (int be = 0; be < 2; be++)
			for (int where = 0; where < 2; where++) {
				struct img_spec s = gnu64;
				s.is64 = is64;
				s.be = be;
				s.phdr = where == 0;
				s.shdr = where == 1;
				s.lead_note = true;
				struct build_id id;
				memset(&id, 0, sizeof(id));
				if (from_spec(&s, &id) != 0)
					fail_msg("class %d be %d where %d", is64 ? 64 : 32, be, where);
				expect_id(&id, 20);
			}
}

static void test_elfid_from_mem_short_ids_keep_their_size(void **state)
{
	(void)state;
	struct img_spec s = gnu64;
	s.id_len = 8;
	struct build_id id;
	assert_int_equal(from_spec(&s, &id), 0);
	expect_id(&id, 8);
	s.id_len = 16;
	assert_int_equal(from_spec(&s, &id), 0);
	expect_id(&id, 16);
}

static void test_elfid_from_mem_24_byte_id_is_enoent(void **state)
{
	(void)state;
	struct img_spec s = gnu64;
	s.id_len = 24;
	struct build_id id = { 0 };
	assert_int_equal(from_spec(&s, &id), -ENOENT);
	assert_int_equal(id.size, 0);
	s.id_len = 0;
	assert_int_equal(from_spec(&s, &id), -ENOENT);
}

static void test_elfid_from_mem_other_names_and_types_are_not_build_ids(void **state)
{
	(void)state;
	struct img_spec s = gnu64;
	struct build_id id;
	s.name = "GNX";
	assert_int_equal(from_spec(&s, &id), -ENOENT);
	s.name = "GN";
	assert_int_equal(from_spec(&s, &id), -ENOENT);
	s.name = "GNU";
	s.type = NT_GNU_ABI_TAG;
	assert_int_equal(from_spec(&s, &id), -ENOENT);
}

static void test_elfid_from_mem_not_elf_is_enoexec(void **state)
{
	(void)state;
	struct build_id id;
	assert_int_equal(from_mem_exact((const uint8_t *)"#!/bin/sh\necho hi\n", 18, &id), -ENOEXEC);
	assert_int_equal(from_mem_exact((const uint8_t *)"", 0, &id), -ENOEXEC);
	uint8_t img[IMG_MAX];
	size_t len = img_build(img, &gnu64);
	img[EI_CLASS] = 7;
	assert_int_equal(from_mem_exact(img, len, &id), -ENOEXEC);
	assert_int_equal(elfid_from_mem(NULL, 0, &id), -ENOEXEC);
}

/* The results any damaged image may give. */
static void expect_sane(int err, const struct build_id *id, const char *what, size_t n)
{
	if (err != 0 && err != -ENOENT && err != -ENOEXEC)
		fail_msg("%s %zu: %d", what, n, err);
	if (err == 0 && (id->size == 0 || id->size > BUILD_ID_MAX))
		fail_msg("%s %zu: size %u", what, n, id->size);
}

static void test_elfid_from_mem_cut_at_every_length_never_crashes(void **state)
{
	(void)state;
	struct img_spec specs[4] = { gnu64, gnu64, gnu64, gnu64 };
	specs[1].phdr = false;
	specs[1].shdr = true;
	specs[2].is64 = false;
	specs[2].be = true;
	specs[2].shdr = true;
	specs[3].lead_note = true;
	specs[3].shdr = true;
	for (size_t k = 0; k < 4; k++) {
		uint8_t img[IMG_MAX];
		size_t len = img_build(img, &specs[k]);
		for (size_t n = 0; n <= len; n++) {
			struct build_id id = { 0 };
			int err = from_mem_exact(img, n, &id);
			expect_sane(err, &id, "cut", n);
			if (n == len)
				assert_int_equal(err, 0);
		}
	}
}

static void test_elfid_from_mem_flipped_bytes_never_crash(void **state)
{
	(void)state;
	uint64_t rng = 0x1234567887654321ULL;
	struct img_spec s = gnu64;
	s.shdr = true;
	s.lead_note = true;
	for (int round = 0; round < 20000; round++) {
		uint8_t img[IMG_MAX];
		s.is64 = round & 1;
		s.be = round & 2;
		size_t len = img_build(img, &s);
		int flips = 1 + (int)(th_rand(&rng) % 4);
		for (int f = 0; f < flips; f++) {
			/* mostly the headers, where the offsets and sizes are */
			size_t at = th_rand(&rng) % (f == 0 ? 128 : len);
			img[at] = (uint8_t)th_rand(&rng);
		}
		struct build_id id = { 0 };
		expect_sane(from_mem_exact(img, len, &id), &id, "round", (size_t)round);
	}
}

static void test_elfid_from_mem_huge_note_segment_is_refused_not_read(void **state)
{
	(void)state;
	uint8_t img[IMG_MAX];
	size_t len = img_build(img, &gnu64);
	put(img, false, 64 + 32, 8, 0xffffffffffffff00ULL); /* p_filesz */
	struct build_id id;
	assert_int_equal(from_mem_exact(img, len, &id), -ENOENT);
	put(img, false, 64 + 32, 8, 36);
	put(img, false, 64 + 8, 8, 0x8000000000000000ULL);   /* p_offset */
	assert_int_equal(from_mem_exact(img, len, &id), -ENOENT);
}

/* ---- files ------------------------------------------------------------- */

static void test_elfid_from_path_and_fd_of_a_built_image_and_its_truncations(void **state)
{
	(void)state;
	struct img_spec s = gnu64;
	s.shdr = true;
	uint8_t img[IMG_MAX];
	size_t len = img_build(img, &s);
	char path[64];
	int fd = th_tmpfile(path);
	th_write_close(fd, img, len);

	struct build_id id = { 0 };
	assert_int_equal(elfid_from_path(path, &id), 0);
	expect_id(&id, 20);

	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	for (size_t n = len; n-- > 0;) {
		assert_int_equal(ftruncate(fd, (off_t)n), 0);
		memset(&id, 0, sizeof(id));
		expect_sane(elfid_from_fd(fd, &id), &id, "file cut", n);
	}
	assert_int_equal(elfid_from_fd(fd, &id), -ENOEXEC); /* now empty */
	close(fd);
	unlink(path);
}

static void test_elfid_from_path_errors(void **state)
{
	(void)state;
	struct build_id id;
	char path[64];
	th_write_file(path, "just text, no ELF here\n", 23);
	assert_int_equal(elfid_from_path(path, &id), -ENOEXEC);
	unlink(path);
	assert_int_equal(elfid_from_path("/nonexistent/psrec-elfid", &id), -ENOENT);
	assert_int_equal(elfid_from_path("/tmp", &id), -EISDIR);
	assert_int_equal(elfid_from_fd(-1, &id), -EBADF);
}

/* The build-id by a parse that shares nothing with elfid.c: the section
 * named .note.gnu.build-id, in our own class and byte order. */
static void own_build_id(const char *path, struct build_id *id)
{
	size_t len;
	uint8_t *f = th_read_file(path, &len);
	ElfW(Ehdr) eh;
	assert_true(len >= sizeof(eh));
	memcpy(&eh, f, sizeof(eh));
	assert_true(eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(ElfW(Shdr)) <= len);
	ElfW(Shdr) strs;
	memcpy(&strs, f + eh.e_shoff + eh.e_shstrndx * sizeof(ElfW(Shdr)), sizeof(strs));
	id->size = 0;
	for (size_t i = 0; i < eh.e_shnum; i++) {
		ElfW(Shdr) sh;
		memcpy(&sh, f + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (strcmp((const char *)f + strs.sh_offset + sh.sh_name, ".note.gnu.build-id") != 0)
			continue;
		ElfW(Nhdr) nh;
		memcpy(&nh, f + sh.sh_offset, sizeof(nh));
		assert_int_equal(nh.n_type, NT_GNU_BUILD_ID);
		assert_int_equal(nh.n_namesz, 4);
		assert_memory_equal(f + sh.sh_offset + sizeof(nh), "GNU", 4);
		assert_int_equal(build_id_set(id, f + sh.sh_offset + sizeof(nh) + 4, nh.n_descsz), 0);
	}
	free(f);
}

static void test_elfid_of_own_executable_matches_an_independent_parse(void **state)
{
	(void)state;
	struct build_id want, by_path, by_fd;
	own_build_id("/proc/self/exe", &want);
	if (want.size == 0)
		skip(); /* linked without --build-id */
	assert_int_equal(elfid_from_path("/proc/self/exe", &by_path), 0);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(elfid_from_fd(fd, &by_fd), 0);
	close(fd);
	assert_true(build_id_equal(&by_path, &want));
	assert_true(build_id_equal(&by_fd, &want));
}

/* ---- note streams, kernel and modules ------------------------------------ */

static void test_elfid_from_notes_skips_a_leading_non_gnu_note(void **state)
{
	(void)state;
	uint8_t b[256] = { 0 };
	size_t off = put_note(b, false, 0, "Xen", 1, 5, 0x10);
	off = put_note(b, false, off, "Linux", NT_GNU_BUILD_ID, 4, 0x20); /* right type, wrong name */
	off = put_note(b, false, off, "GNU", NT_GNU_BUILD_ID, 20, 0xa0);
	off = put_note(b, false, off, "GNU", NT_GNU_BUILD_ID, 8, 0x30);   /* only the first counts */
	struct build_id id = { 0 };
	assert_int_equal(elfid_from_notes(b, off, &id), 0);
	expect_id(&id, 20);

	/* every cut: no read past it, the id only once its bytes are in */
	/* Xen: 12 + 4 + 8, Linux: 12 + 8 + 4, then GNU's header and name */
	size_t id_end = 24 + 24 + 16 + 20;
	for (size_t n = 0; n <= off; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, b, n);
		memset(&id, 0, sizeof(id));
		int err = elfid_from_notes(copy, n, &id);
		free(copy);
		if (n >= id_end)
			assert_int_equal(err, 0);
		else
			assert_int_equal(err, -ENOENT);
	}
}

static void test_elfid_from_notes_bogus_sizes_and_long_ids(void **state)
{
	(void)state;
	uint8_t b[64] = { 0 };
	struct build_id id;
	put_note(b, false, 0, "GNU", NT_GNU_BUILD_ID, 20, 0xa0);
	th_put_u32(b, 0, 0xffffffffu);                 /* n_namesz */
	assert_int_equal(elfid_from_notes(b, 36, &id), -ENOENT);
	th_put_u32(b, 0, 4);
	th_put_u32(b, 4, 0xfffffffdu);                 /* n_descsz */
	assert_int_equal(elfid_from_notes(b, 36, &id), -ENOENT);
	size_t len = put_note(b, false, 0, "GNU", NT_GNU_BUILD_ID, 24, 0xa0);
	assert_int_equal(elfid_from_notes(b, len, &id), -ENOENT);
	assert_int_equal(elfid_from_notes(b, 0, &id), -ENOENT);
}

static void test_elfid_kernel_and_module_from_a_fake_sysfs(void **state)
{
	(void)state;
	uint8_t b[128] = { 0 };
	size_t off = put_note(b, false, 0, "Xen", 1, 5, 0x10);
	off = put_note(b, false, off, "GNU", NT_GNU_BUILD_ID, 20, 0xa0);
	char path[512];
	th_mkdirs("%s/kernel", th_root);
	snprintf(path, sizeof(path), "%s/kernel/notes", th_root);
	th_write_close(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), b, off);
	struct build_id id = { 0 };
	assert_int_equal(elfid_kernel(th_root, &id), 0);
	expect_id(&id, 20);

	off = put_note(b, false, 0, "GNU", NT_GNU_BUILD_ID, 20, 0xa0);
	th_mkdirs("%s/module/ext4/notes", th_root);
	snprintf(path, sizeof(path), "%s/module/ext4/notes/.note.gnu.build-id", th_root);
	th_write_close(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), b, off);
	memset(&id, 0, sizeof(id));
	assert_int_equal(elfid_module(th_root, "ext4", &id), 0);
	expect_id(&id, 20);

	assert_int_equal(elfid_module(th_root, "xfs", &id), -ENOENT);
	assert_int_equal(elfid_module(th_root, "../kernel", &id), -EINVAL);
	assert_int_equal(elfid_module(th_root, "..", &id), -EINVAL);
	assert_int_equal(elfid_module(th_root, "", &id), -EINVAL);
	char longname[600];
	memset(longname, 'm', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(elfid_module(th_root, longname, &id), -ENAMETOOLONG);
	assert_int_equal(elfid_kernel("/nonexistent", &id), -ENOENT);
}

static void test_elfid_kernel_of_this_machine_is_20_bytes(void **state)
{
	(void)state;
	int fd = open("/sys/kernel/notes", O_RDONLY);
	if (fd < 0)
		skip();
	close(fd);
	struct build_id id = { 0 };
	assert_int_equal(elfid_kernel("/sys", &id), 0);
	assert_int_equal(id.size, 20);
}

static void test_elfid_vdso_image_holds_the_same_id(void **state)
{
	(void)state;
	if (getauxval(AT_SYSINFO_EHDR) == 0)
		skip();
	struct build_id id = { 0 }, again = { 0 };
	const void *image = NULL;
	size_t len = 0;
	assert_int_equal(elfid_vdso(&id, &image, &len), 0);
	assert_true(id.size > 0);
	assert_ptr_equal(image, (const void *)getauxval(AT_SYSINFO_EHDR));
	assert_true(len >= sizeof(ElfW(Ehdr)) && len <= (1u << 20));
	/* a copy, as the build-id cache will hold it, is the same ELF */
	assert_int_equal(from_mem_exact(image, len, &again), 0);
	assert_true(build_id_equal(&id, &again));
	/* and its section headers are inside the length */
	const ElfW(Ehdr) *eh = image;
	assert_true(eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize <= len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elfid_from_mem_pt_note_of_64_bit_little_endian),
		cmocka_unit_test(test_elfid_from_mem_sht_note_without_program_headers),
		cmocka_unit_test(test_elfid_from_mem_every_class_and_byte_order),
		cmocka_unit_test(test_elfid_from_mem_short_ids_keep_their_size),
		cmocka_unit_test(test_elfid_from_mem_24_byte_id_is_enoent),
		cmocka_unit_test(test_elfid_from_mem_other_names_and_types_are_not_build_ids),
		cmocka_unit_test(test_elfid_from_mem_not_elf_is_enoexec),
		cmocka_unit_test(test_elfid_from_mem_cut_at_every_length_never_crashes),
		cmocka_unit_test(test_elfid_from_mem_flipped_bytes_never_crash),
		cmocka_unit_test(test_elfid_from_mem_huge_note_segment_is_refused_not_read),
		cmocka_unit_test(test_elfid_from_path_and_fd_of_a_built_image_and_its_truncations),
		cmocka_unit_test(test_elfid_from_path_errors),
		cmocka_unit_test(test_elfid_of_own_executable_matches_an_independent_parse),
		cmocka_unit_test(test_elfid_from_notes_skips_a_leading_non_gnu_note),
		cmocka_unit_test(test_elfid_from_notes_bogus_sizes_and_long_ids),
		TH_FAKE(test_elfid_kernel_and_module_from_a_fake_sysfs),
		cmocka_unit_test(test_elfid_kernel_of_this_machine_is_20_bytes),
		cmocka_unit_test(test_elfid_vdso_image_holds_the_same_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
