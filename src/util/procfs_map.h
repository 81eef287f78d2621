/*
 * procfs_map.h - one line of /proc/PID/maps, parsed: the mapping's range,
 * file offset, device and inode, protection and path.
 *
 * Below record/ so that what only needs a mapping (the build-id cache,
 * buildid/idcache.h, keyed by its device and inode) does not depend on the
 * recorder's /proc readers (record/procfs.h, which reads the lines).
 * A pure function: no file is read here.
 */
#ifndef PSREC_UTIL_PROCFS_MAP_H
#define PSREC_UTIL_PROCFS_MAP_H

#include <stddef.h>
#include <stdint.h>

struct procfs_map {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot;              /* PROT_READ/WRITE/EXEC bits */
	uint32_t flags;             /* MAP_SHARED or MAP_PRIVATE */
	const char *path;           /* points into the line; "" when none */
	size_t path_len;
};

/*
 * Parse one /proc/PID/maps line ("start-end perms offset maj:min inode
 * path"). The path may contain spaces and ends at the newline. Returns 0 or
 * -EINVAL.
 */
int procfs_parse_map_line(const char *line, struct procfs_map *m);

#endif
