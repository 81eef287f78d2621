/*
 * idcache.h - the build-ids of mapped files, each file read once per
 * recording.
 *
 * Keyed by the mapping's device and inode (maj, min, ino as /proc/PID/maps
 * and MMAP2 give them), so a library mapped by a thousand processes is read
 * once, and a path replaced after it was mapped is never confused with the
 * file that was mapped. A miss (no id, unreadable) is remembered too.
 */
#ifndef PSREC_BUILDID_IDCACHE_H
#define PSREC_BUILDID_IDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buildid/buildid.h"

struct procfs_map;               /* util/procfs_map.h */

struct idcache_entry {
	uint32_t maj, min;
	uint64_t ino;
	struct build_id id;         /* size 0: the file has no readable id */
	int err;                    /* why not: elfid's -ENOENT, -ENOEXEC, an
				     * open's -EACCES..., -ESTALE when the
				     * path now names another file */
	bool used;
};

struct idcache {
	struct idcache_entry *tab;  /* open addressing, cap a power of two */
	size_t cap, nr;
	uint64_t files_read;        /* ELF files opened (for -v and the bench) */
};

void idcache_init(struct idcache *c);
void idcache_free(struct idcache *c);

/*
 * The id of mapping m of process pid. Read (once per dev+ino) from
 * ROOT/PID/map_files/START-END, the very file that is mapped even if its
 * path was replaced or deleted (root is "/proc"); where that is refused or
 * missing (following map_files needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE in the initial user namespace), from m->path,
 * but only when the path is absolute, not "... (deleted)", and its
 * st_dev/st_ino still are the mapping's. Only regular files are opened
 * (stat first: a device's open runs its driver, a FIFO's waits).
 * 0 with *id, -ENOENT when no id can be had (the cause is kept in the
 * entry), -ENOMEM (nothing stored). Anonymous and special mappings
 * ("[vdso]", "[heap]", "//anon", no path) are -ENOENT without any system
 * call and without an entry.
 */
int idcache_map(struct idcache *c, const char *root, pid_t pid, const struct procfs_map *m,
		struct build_id *id);

/* The entry for a dev+ino if one was stored (NULL otherwise). */
const struct idcache_entry *idcache_find(const struct idcache *c, uint32_t maj, uint32_t min, uint64_t ino);

#endif
