/*
 * store.h - the build-id cache directory (~/.debug), in perf's layout, so
 * perf report, perf buildid-cache and psrec find the same files:
 *
 *   ROOT/<name>/<hex id>/elf        a copy of the binary (name: its absolute path)
 *   ROOT/[vdso]/<hex id>/vdso       the vdso image
 *   ROOT/[kernel.kallsyms]/<hex id>/kallsyms   a copy of /proc/kallsyms
 *   ROOT/.build-id/<2 hex>/<rest>   symlink -> ../../<name>/<hex id>
 *
 * The symlink points at the entry's directory, as perf 6.1 writes it
 * (checked: perf record on this machine). Entries are made atomically (a
 * temporary name, then rename), so a reader never sees half a file and an
 * interrupted copy leaves at most a stray temporary. An entry that exists
 * is never copied again.
 */
#ifndef PSREC_BUILDID_STORE_H
#define PSREC_BUILDID_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buildid/buildid.h"
#include "util/err.h"

struct store {
	char *root;                 /* ".../.debug", no trailing slash */
	bool set_owner;             /* chown what is created to uid:gid */
	uid_t uid;
	gid_t gid;
};

/*
 * The cache root: dir when not NULL; else ~/.debug of the user who ran
 * psrec: under sudo (euid 0, SUDO_UID set and not 0) the home directory of
 * SUDO_UID from the passwd database, with every new directory, file and
 * link owned by SUDO_UID:SUDO_GID, and written with that user's
 * file-system identity (setfsuid): a link the user planted in their
 * ~/.debug cannot make root write elsewhere (EACCES instead); otherwise $HOME (the passwd entry of
 * the euid when HOME is unset or empty). Nothing is created yet. -errno
 * with *e set when no home can be found.
 */
int store_open(struct store *s, const char *dir, struct err *e);
void store_close(struct store *s);

/* Whether the name is one the cache can hold: an absolute path without
 * "." or ".." components, "[kernel.kallsyms]" or "[vdso]". */
bool store_name_ok(const char *name);

/* Whether ROOT/.build-id/xx/rest exists and resolves to a directory. */
bool store_has(const struct store *s, const struct build_id *id);

/*
 * Add an entry: ROOT/<name>/<hex>/<file> with the contents of src_fd (read
 * from offset 0 to its end; copy_file_range where it works) or of
 * image[0..len) for store_add_mem, and its .build-id link. file is "elf",
 * "vdso" or "kallsyms". The copy keeps the source's execute bits (0755 or
 * 0644). 0 when added, 1 when the entry was already there (nothing
 * written), -EINVAL for a name store_name_ok refuses, or -errno (with *e:
 * one line naming the path).
 */
int store_add_fd(const struct store *s, const char *name, const struct build_id *id, int src_fd,
		 const char *file, struct err *e);
int store_add_mem(const struct store *s, const char *name, const struct build_id *id, const void *image,
		  size_t len, const char *file, struct err *e);

/*
 * The entry of id: *rel is "<name>/<hex>" relative to the root (the link's
 * target without "../../"; caller frees). -ENOENT when there is none,
 * -EINVAL when the link leads outside the root.
 */
int store_find(const struct store *s, const struct build_id *id, char **rel);

#endif
