/*
 * synth.h - records psrec writes itself, for what existed before recording
 * started (the kernel map, the launched command's name, the threads and
 * mappings of attached processes).
 *
 * Every record is padded to a multiple of 8 and ends with an all-zero
 * sample_id trailer of exactly trailer_size bytes: time 0 makes perf apply
 * it at once, id 0 maps it to the first attr (perf-data-format.md 3.1, 4.2).
 * Builders append to a buf; they never print.
 */
#ifndef PSREC_RECORD_SYNTH_H
#define PSREC_RECORD_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buildid/buildid.h"
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
 *
 * _etext sits near the end of kallsyms (line 117k of 122k here), and the
 * kernel formats every line before it: ~34 ms of CPU. On x86 the "Kernel
 * code" resource in iomem (when not NULL) spans exactly [_text, _etext),
 * so only the first lines of kallsyms are read, up to _text.
 */
int synth_find_kernel_map(const char *kallsyms, const char *iomem, struct kernel_map *km);

/* MMAP "[kernel.kallsyms]_text", pid -1, misc KERNEL, pgoff = _text; with
 * an id (not NULL, size > 0) an MMAP2 carrying it (misc | MMAP_BUILD_ID,
 * prot 0), as perf record --buildid-mmap writes it. */
int synth_kernel_mmap(struct buf *b, const struct kernel_map *km, const struct build_id *id,
		      size_t trailer_size);

/*
 * The kernel map from /proc/kallsyms and /proc/iomem, appended to b. Made
 * before sampling matters: the kernel takes tens of milliseconds to format
 * /proc/kallsyms up to _etext, long enough to overflow a ring that is
 * already filling. When the map cannot be found (kptr_restrict: -EPERM)
 * nothing is appended, *why gets the -errno and 0 is returned.
 */
int synth_kernel(struct buf *b, const struct build_id *id, size_t trailer_size, int *why);

/* COMM pid/tid name (name truncated to 15 bytes like the kernel's). */
int synth_comm(struct buf *b, pid_t pid, pid_t tid, const char *name, size_t trailer_size);

struct procfs_map;
/* MMAP2 of one mapping of process pid, misc USER (| MMAP_DATA when not
 * executable). An empty or "[anon:...]" name becomes "//anon". With an id
 * (not NULL, size > 0) the record carries it in place of the device and
 * inode (misc | MMAP_BUILD_ID), as the kernel writes with attr.build_id. */
int synth_mmap2(struct buf *b, pid_t pid, const struct procfs_map *m, const struct build_id *id,
		size_t trailer_size);

struct synth_counts {
	size_t processes, threads, maps;
	size_t vanished;            /* processes that exited during the scan */
	size_t unreadable;          /* processes (or their maps) /proc hid from us */
};

/*
 * Describe an existing process from /proc: a COMM for every thread and an
 * MMAP2 for every executable mapping (plus readable file mappings when
 * data_maps), the leader's COMM first, then the maps, then the other
 * threads, as perf record -p writes them. Only tids[0..nr_tids) when tids
 * is not NULL.
 *
 * No FORK: one naming the real parent points at a process the file may
 * never describe, and hotspot's perfparser then copies that parent's
 * empty address space over the child's (no sample resolves). No reader
 * needs one: perf and perfparser give every thread its process's maps.
 *
 * With ids (not NULL) every file mapping's MMAP2 carries the build-id of
 * the mapped file (idcache_map: each file read once per recording).
 *
 * A process that vanishes mid-scan leaves nothing in b and counts as
 * vanished; one whose maps or status /proc refuses to show counts as
 * unreadable. Only running out of memory is an error.
 */
struct idcache;
int synth_process(struct buf *b, const char *root, pid_t pid, const pid_t *tids, size_t nr_tids,
		  bool data_maps, struct idcache *ids, size_t trailer_size, struct synth_counts *cnt);

#endif
