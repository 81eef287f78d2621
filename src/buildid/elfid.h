/*
 * elfid.h - reading the build-id of an ELF file, an ELF image in memory,
 * a bare note stream (/sys/kernel/notes), a kernel module, or psrec's own
 * vdso.
 *
 * Only the notes are read: the PT_NOTE segments through the program
 * headers first (a few hundred bytes at the start of the file), the
 * SHT_NOTE sections when the segments hold no build-id (relocatable
 * objects and split debug files have no program headers). libelf, with
 * pread, never a full read or a mapping of the file. The first build-id
 * note decides: one that is empty or longer than BUILD_ID_MAX is no id.
 *
 * Every function returns 0 with *id set, -ENOENT when the input has no
 * GNU build-id note (or one longer than BUILD_ID_MAX), -ENOEXEC when it is
 * not ELF, or another -errno from opening or reading; *id is left alone
 * on error. None prints.
 */
#ifndef PSREC_BUILDID_ELFID_H
#define PSREC_BUILDID_ELFID_H

#include <stddef.h>

#include "buildid/buildid.h"

int elfid_from_fd(int fd, struct build_id *id);
int elfid_from_path(const char *path, struct build_id *id);
int elfid_from_mem(const void *image, size_t len, struct build_id *id);
/* A sequence of ELF notes as /sys/kernel/notes holds them (4-byte aligned
 * Elf_Nhdr + name + desc); the first NT_GNU_BUILD_ID named "GNU". */
int elfid_from_notes(const void *p, size_t len, struct build_id *id);

/* The running kernel's id, from SYSFS/kernel/notes (sysfs is "/sys"). */
int elfid_kernel(const char *sysfs, struct build_id *id);
/* A loaded module's id, from SYSFS/module/NAME/notes/.note.gnu.build-id.
 * -EINVAL for a name that is not one directory ("", ".", "..", a '/'). */
int elfid_module(const char *sysfs, const char *name, struct build_id *id);

/*
 * psrec's own vdso (getauxval(AT_SYSINFO_EHDR)): its id, and the image
 * (*image, *len: up to the end of its section headers or last segment,
 * whichever is further) for copying into the build-id cache. Every 64-bit
 * process of this kernel maps the same vdso, which is how perf record
 * names the [vdso] of the processes it records. -ENOENT without a vdso.
 */
int elfid_vdso(struct build_id *id, const void **image, size_t *len);

#endif
