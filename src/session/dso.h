/*
 * dso.h - the binaries a recording names (DSOs: executables, libraries,
 * the kernel, the vdso), each once.
 *
 * A DSO is its name plus its identity: the build-id when the MMAP2 record
 * carried one (attr.build_id, or psrec's synthesized records), else the
 * device and inode. Two builds mapped at one path (a binary replaced while
 * recording) are two DSOs; a library mapped by a thousand processes is
 * one.
 */
#ifndef PSREC_SESSION_DSO_H
#define PSREC_SESSION_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buildid/buildid.h"

struct dso {
	char *name;                 /* NUL-terminated copy */
	struct build_id id;         /* size 0: not in the records */
	uint32_t maj, min;          /* classic MMAP2 only */
	uint64_t ino;
	bool kernel;                /* mapped in kernel mode (pid -1) */
	uint64_t hits;              /* sample IPs and call-chain entries in it */
	/* One mapping of it, for reading the mapped file while it lives
	 * (/proc/PID/map_files/START-END). */
	pid_t pid;
	uint64_t start, end;
};

struct dsos {
	struct dso *v;
	size_t n, cap;
	uint32_t *tab;              /* open addressing: index + 1, 0 empty */
	size_t tab_cap;
};

void dsos_init(struct dsos *d);
void dsos_free(struct dsos *d);

struct dso_key {
	const char *name;
	size_t name_len;
	const struct build_id *id;  /* NULL or size 0: identity by maj/min/ino */
	uint32_t maj, min;
	uint64_t ino;
	bool kernel;
};

/* The index of the DSO with key k, added when new (name copied).
 * 0 or -ENOMEM. */
int dsos_intern(struct dsos *d, const struct dso_key *k, uint32_t *index);

#endif
