/*
 * idcache.c - the build-ids of mapped files by device and inode (see
 * idcache.h).
 */
#include "idcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buildid/elfid.h"
#include "util/procfs_map.h"
#include "util/sysfile.h"

#define IDCACHE_MIN_CAP 64
#define IDCACHE_DELETED " (deleted)"

/* A path may name anything by now: O_NONBLOCK so a FIFO put in a file's
 * place cannot hang the recording, O_NOCTTY so a tty cannot become ours. */
#define IDCACHE_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

void idcache_init(struct idcache *c)
{
	memset(c, 0, sizeof(*c));
}

void idcache_free(struct idcache *c)
{
	free(c->tab);
	memset(c, 0, sizeof(*c));
}

static size_t idcache_hash(uint32_t maj, uint32_t min, uint64_t ino)
{
	/* Inode numbers come in runs: mix every bit into the low ones the
	 * mask keeps (the splitmix64 finalizer). */
	uint64_t h = ino * 0x9e3779b97f4a7c15ULL + ((uint64_t)maj << 32 | min);
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (size_t)h;
}

/* The slot holding the key, or the free slot where it would go. The load
 * of at most one half leaves a free slot to end every probe. */
static struct idcache_entry *idcache_slot(const struct idcache *c, uint32_t maj, uint32_t min,
					  uint64_t ino)
{
	size_t mask = c->cap - 1;
	for (size_t i = idcache_hash(maj, min, ino) & mask;; i = (i + 1) & mask) {
		struct idcache_entry *e = &c->tab[i];
		if (!e->used || (e->ino == ino && e->maj == maj && e->min == min))
			return e;
	}
}

const struct idcache_entry *idcache_find(const struct idcache *c, uint32_t maj, uint32_t min, uint64_t ino)
{
	if (c->cap == 0)
		return NULL;
	const struct idcache_entry *e = idcache_slot(c, maj, min, ino);
	return e->used ? e : NULL;
}

/* Room for one more entry. */
static int idcache_grow(struct idcache *c)
{
	if ((c->nr + 1) * 2 <= c->cap)
		return 0;
	size_t cap = c->cap ? c->cap * 2 : IDCACHE_MIN_CAP;
	if (cap < c->cap || cap > SIZE_MAX / sizeof(struct idcache_entry))
		return -ENOMEM;
	struct idcache_entry *tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	struct idcache old = *c;
	c->tab = tab;
	c->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.tab[i].used)
			*idcache_slot(c, old.tab[i].maj, old.tab[i].min, old.tab[i].ino) = old.tab[i];
	free(old.tab);
	return 0;
}

/* Anonymous memory, the kernel's [vdso], [heap], [stack], [anon:NAME],
 * and MMAP2's "//anon": no file to read. */
static bool idcache_has_file(const struct procfs_map *m)
{
	if (m->path_len == 0 || m->path[0] == '[')
		return false;
	return !(m->path_len >= 6 && memcmp(m->path, "//anon", 6) == 0);
}

static bool idcache_same_file(const struct stat *st, const struct procfs_map *m)
{
	return major(st->st_dev) == m->maj && minor(st->st_dev) == m->min && st->st_ino == m->ino;
}

/* Whether what st describes may be read: a regular file (opening a device
 * runs its driver), and with m, the very inode m maps. */
static int idcache_check(const struct stat *st, const struct procfs_map *m)
{
	if (!S_ISREG(st->st_mode))
		return -ENOEXEC;
	return m && !idcache_same_file(st, m) ? -ESTALE : 0;
}

/* An fd for path after idcache_check. Checked before open too, so that a
 * device or a replaced file is never opened at all, and after, because the
 * path may have changed in between. */
static int idcache_open(const char *path, const struct procfs_map *m)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	int err = idcache_check(&st, m);
	if (err)
		return err;
	int fd = open(path, IDCACHE_OPEN_FLAGS);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) < 0 ? -errno : idcache_check(&st, m);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static bool idcache_deleted(const struct procfs_map *m)
{
	size_t n = sizeof(IDCACHE_DELETED) - 1;
	return m->path_len >= n && memcmp(m->path + m->path_len - n, IDCACHE_DELETED, n) == 0;
}

/* An fd for the file mapping m maps, or -errno (map_files' when the path
 * could not stand in for it). */
static int idcache_open_map(const char *root, pid_t pid, const struct procfs_map *m)
{
	char path[PATH_MAX];
	int err = sysfile_path(path, sizeof(path), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, root,
			       (int)pid, m->start, m->end);
	if (err)
		return err;
	int fd = idcache_open(path, NULL);
	/* ESTALE, ESRCH: the process is exiting (its mm going), as a
	 * launched command may be when the recording ends. */
	if (fd != -EPERM && fd != -EACCES && fd != -ENOENT && fd != -ESTALE && fd != -ESRCH)
		return fd;
	/* The path is only a name: of another file now, if it was deleted,
	 * and relative to nothing we know if it is not absolute. */
	if (m->path[0] != '/' || idcache_deleted(m) || m->path_len >= sizeof(path) ||
	    memchr(m->path, '\0', m->path_len))
		return fd;
	memcpy(path, m->path, m->path_len);
	path[m->path_len] = '\0';
	int alt = idcache_open(path, m);
	/* a path that cannot be had says less than why map_files could not */
	return alt == -ENOENT ? fd : alt;
}

int idcache_map(struct idcache *c, const char *root, pid_t pid, const struct procfs_map *m,
		struct build_id *id)
{
	if (!idcache_has_file(m))
		return -ENOENT;
	const struct idcache_entry *e = idcache_find(c, m->maj, m->min, m->ino);
	if (!e) {
		/* Grow first: an id read and then dropped for want of memory
		 * would be read again. */
		if (idcache_grow(c) < 0)
			return -ENOMEM;
		struct build_id got = { 0 };
		int err = idcache_open_map(root, pid, m);
		if (err >= 0) {
			int fd = err;
			c->files_read++;
			err = elfid_from_fd(fd, &got);
			close(fd);
		}
		/* not for want of an id: the next try may have the memory */
		if (err == -ENOMEM)
			return -ENOMEM;
		struct idcache_entry *ne = idcache_slot(c, m->maj, m->min, m->ino);
		*ne = (struct idcache_entry){
			.maj = m->maj, .min = m->min, .ino = m->ino,
			.id = err ? (struct build_id){ 0 } : got,
			.err = err, .used = true,
		};
		c->nr++;
		e = ne;
	}
	if (e->err)
		return -ENOENT;
	*id = e->id;
	return 0;
}
