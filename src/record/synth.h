/*
 * synth.h - records psrec writes itself, for what existed before recording
 * started (the kernel map, the launched command's name).
 *
 * Every record is padded to a multiple of 8 and ends with an all-zero
 * sample_id trailer of exactly trailer_size bytes: time 0 makes perf apply
 * it at once, id 0 maps it to the first attr (perf-data-format.md 3.1, 4.2).
 * Builders append to a buf; they never print.
 */
#ifndef PSREC_RECORD_SYNTH_H
#define PSREC_RECORD_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"

struct kernel_map {
	uint64_t start;     /* _text */
	uint64_t end;       /* _etext */
};

/*
 * Find _text and _etext in a kallsyms file (normally /proc/kallsyms),
 * stopping as soon as both are seen rather than reading every symbol.
 * -ENOENT when they are missing, -EPERM when addresses read as 0
 * (kptr_restrict).
 */
int synth_find_kernel_map(const char *kallsyms, struct kernel_map *km);

/* MMAP "[kernel.kallsyms]_text", pid -1, misc KERNEL, pgoff = _text. */
int synth_kernel_mmap(struct buf *b, const struct kernel_map *km, size_t trailer_size);

/* COMM pid/tid name (name truncated to 15 bytes like the kernel's). */
int synth_comm(struct buf *b, pid_t pid, pid_t tid, const char *name, size_t trailer_size);

#endif
