/*
 * elfid.c - build-ids of ELF files, ELF images and note streams (see
 * elfid.h).
 */
#include "elfid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "util/io.h"
#include "util/sysfile.h"

/* A real note segment or section is a few hundred bytes. A larger one is a
 * corrupt header, and libelf would allocate and read all of it. */
#define ELFID_NOTES_MAX (1u << 20)
/* /sys/kernel/notes is a few hundred bytes (Xen and Linux notes besides
 * the build-id); a module's build-id note is 36. */
#define ELFID_SYSFS_MAX (64u << 10)
/* The vdso is a page or two; a longer computed length means the header is
 * not what the kernel wrote. */
#define ELFID_VDSO_MAX (1u << 20)

static bool note_is_build_id(uint32_t type, const void *name, size_t namesz)
{
	return type == NT_GNU_BUILD_ID && namesz == sizeof(ELF_NOTE_GNU) &&
	       memcmp(name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) == 0;
}

/* The first build-id note decides: one that does not fit perf.data's 20
 * bytes is no id, not a reason to take a later note. */
static int note_take(struct build_id *id, const void *desc, size_t len)
{
	return build_id_set(id, desc, len) == 0 ? 0 : -ENOENT;
}

int elfid_from_notes(const void *p, size_t len, struct build_id *id)
{
	const uint8_t *b = p;
	size_t off = 0;
	Elf32_Nhdr nh; /* the same three words in 64-bit files */

	while (len - off >= sizeof(nh)) {
		memcpy(&nh, b + off, sizeof(nh));
		off += sizeof(nh);
		/* 64-bit arithmetic: a bogus size near 4G must not wrap */
		uint64_t name_pad = ((uint64_t)nh.n_namesz + 3) & ~(uint64_t)3;
		uint64_t desc_pad = ((uint64_t)nh.n_descsz + 3) & ~(uint64_t)3;
		if (name_pad > len - off)
			break;
		const uint8_t *name = b + off;
		off += (size_t)name_pad;
		/* the last note's padding may be cut off; its bytes may not */
		if (nh.n_descsz > len - off)
			break;
		if (note_is_build_id(nh.n_type, name, nh.n_namesz))
			return note_take(id, b + off, nh.n_descsz);
		if (desc_pad > len - off)
			break;
		off += (size_t)desc_pad;
	}
	return -ENOENT;
}

/* Look through one block of notes libelf has put in memory order. True when
 * it held a build-id note; *err then says whether it was usable. */
static bool data_find(Elf_Data *d, struct build_id *id, int *err)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *b = d->d_buf;
		if (note_is_build_id(nh.n_type, b + name_off, nh.n_namesz)) {
			*err = note_take(id, b + desc_off, nh.n_descsz);
			return true;
		}
		off = next;
	}
	return false;
}

static int elf_find(Elf *elf, struct build_id *id)
{
	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	int err = -ENOENT;

	/* The segments first: the headers and the notes sit at the start of
	 * the file, where the loader has usually brought them into the page
	 * cache already; the section headers sit at its end. */
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		phnum = 0;
	for (size_t i = 0; i < phnum && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    ph.p_filesz > ELFID_NOTES_MAX || ph.p_offset > INT64_MAX)
			continue;
		/* GNU property notes are 8-aligned, in segments of p_align 8 */
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						   ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && data_find(d, id, &err))
			return err;
	}

	/* Relocatable objects and some odd links have no note segment. */
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || sh.sh_size > ELFID_NOTES_MAX)
			continue;
		/* libelf picks the 4- or 8-byte note layout from sh_addralign */
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && data_find(d, id, &err))
			return err;
	}
	return -ENOENT;
}

int elfid_from_fd(int fd, struct build_id *id)
{
	elf_version(EV_CURRENT);
	/* ELF_C_READ: pread what is asked for. A mapping of the file would
	 * raise SIGBUS should the file be truncated while we read it. */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		/* libelf keeps no errno: ask the fd why it cannot be read */
		char c;
		return pread(fd, &c, 1, 0) < 0 ? -errno : -ENOEXEC;
	}
	int err = elf_find(elf, id);
	elf_end(elf);
	return err;
}

int elfid_from_path(const char *path, struct build_id *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int err = elfid_from_fd(fd, id);
	close(fd);
	return err;
}

int elfid_from_mem(const void *image, size_t len, struct build_id *id)
{
	if (!image)
		return -ENOEXEC;
	elf_version(EV_CURRENT);
	/* ELF_C_READ_MMAP (what elf_memory uses) never writes to the image:
	 * the cast only suits libelf's prototype. */
	Elf *elf = elf_memory((char *)(uintptr_t)image, len);
	if (!elf)
		return -ENOEXEC;
	int err = elf_find(elf, id);
	elf_end(elf);
	return err;
}

static int notes_file(const char *path, struct build_id *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	uint8_t *buf = malloc(ELFID_SYSFS_MAX);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	size_t got;
	int err = io_read_all(fd, buf, ELFID_SYSFS_MAX, &got);
	close(fd);
	if (!err)
		err = elfid_from_notes(buf, got, id);
	free(buf);
	return err;
}

int elfid_kernel(const char *sysfs, struct build_id *id)
{
	char path[512];
	int err = sysfile_path(path, sizeof(path), "%s/kernel/notes", sysfs);
	return err ? err : notes_file(path, id);
}

int elfid_module(const char *sysfs, const char *name, struct build_id *id)
{
	/* a name is one directory of SYSFS/module, never a way out of it */
	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	char path[512];
	int err = sysfile_path(path, sizeof(path), "%s/module/%s/notes/.note.gnu.build-id", sysfs, name);
	return err ? err : notes_file(path, id);
}

int elfid_vdso(struct build_id *id, const void **image, size_t *len)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return -ENOENT;
	/* Our own vdso, so our own class and byte order. Nothing says how
	 * long the image is but its header. */
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_phentsize != sizeof(ElfW(Phdr)))
		return -ENOEXEC;
	uint64_t end = (uint64_t)eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	uint64_t ph_end = (uint64_t)eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr));
	if (ph_end > ELFID_VDSO_MAX)
		return -ENOEXEC;
	if (ph_end > end)
		end = ph_end;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint64_t seg_end = (uint64_t)ph[i].p_offset + ph[i].p_filesz;
		if (seg_end > end)
			end = seg_end;
	}
	if (end < sizeof(*eh) || end > ELFID_VDSO_MAX)
		return -ENOEXEC;
	int err = elfid_from_mem(base, (size_t)end, id);
	if (err)
		return err;
	*image = base;
	*len = (size_t)end;
	return 0;
}
