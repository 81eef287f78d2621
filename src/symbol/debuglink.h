/*
 * debuglink.h - a stripped binary's pointer to its separate debug file:
 * the .gnu_debuglink section (a file name, padding, the CRC-32 of that
 * file), and the places gdb and perf look for it.
 */
#ifndef PSREC_SYMBOL_DEBUGLINK_H
#define PSREC_SYMBOL_DEBUGLINK_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* The link of e: the file name (a plain name, never a path) and its CRC.
 * 0, -ENOENT without a usable link. */
int debuglink_read(Elf *e, char *name, size_t len, uint32_t *crc);

/*
 * The i-th place to look for the link of the binary named path (the name
 * the recording gives it), symfs ("" for none) prefixed: DIR/NAME,
 * DIR/.debug/NAME, /usr/lib/debug/DIR/NAME. 0, -ENOENT past the last,
 * -ENAMETOOLONG.
 */
int debuglink_path(const char *symfs, const char *path, const char *name, int i, char *out, size_t len);

/* The CRC-32 (IEEE, zlib's crc32) of fd's whole contents. 0 or -errno. */
int debuglink_crc_fd(int fd, uint32_t *crc);

#endif
