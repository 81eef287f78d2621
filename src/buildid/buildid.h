/*
 * buildid.h - a GNU build-id: the note (NT_GNU_BUILD_ID, name "GNU") that
 * names one build of an ELF file. perf.data carries at most 20 bytes (the
 * kernel's BUILD_ID_SIZE_MAX, the SHA-1 length); shorter ids (md5, uuid,
 * lld's 8-byte "fast") are kept with their size.
 */
#ifndef PSREC_BUILDID_BUILDID_H
#define PSREC_BUILDID_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 20
#define BUILD_ID_HEX_MAX (2 * BUILD_ID_MAX + 1)

struct build_id {
	uint8_t size;               /* 0: none */
	uint8_t data[BUILD_ID_MAX];
};

/* Lower-case hex, NUL-terminated ("" for none). */
void build_id_hex(const struct build_id *id, char out[BUILD_ID_HEX_MAX]);
/* 0, or -EINVAL unless s is an even number (2..40) of hex digits. */
int build_id_from_hex(const char *s, struct build_id *id);
bool build_id_equal(const struct build_id *a, const struct build_id *b);
/* Set id from raw bytes; -E2BIG when len is 0 or > BUILD_ID_MAX. */
int build_id_set(struct build_id *id, const void *p, size_t len);

/* Where distributions put the separate debug file of a build
 * (Debian's -dbgsym and -dbg packages, Fedora's debuginfo):
 * /usr/lib/debug/.build-id/xx/rest.debug. -EINVAL for an id under 2 bytes. */
int build_id_debuginfo_path(const struct build_id *id, char *out, size_t size);

#endif
