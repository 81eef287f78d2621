/*
 * maps.h - the address spaces of a recording's processes over time, from
 * its side-band records, for resolving a sample address at the sample's
 * time.
 *
 * The records of a perf.data file are in time order only within a ring;
 * a sample can precede, in the file, the MMAP2 of the code it hit (another
 * CPU's ring, drained first). So the side band is loaded whole first
 * (maps_add, maps_exec, maps_fork), maps_finish() sorts it, and lookups
 * (maps_find) go by time, in any order:
 *  - each process has lives: the first starts at time 0 (what existed
 *    when recording began), a fork starts one that inherits its parent's
 *    maps as they were at the fork, an exec starts an empty one;
 *  - within a life, a lookup at time t sees the maps added at or before
 *    t, the latest covering the address winning (a remap).
 * pid -1 holds the kernel's maps.
 */
#ifndef PSREC_SESSION_MAPS_H
#define PSREC_SESSION_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct maps_entry {
	uint64_t start, end;        /* [start, end) */
	uint64_t pgoff;
	uint64_t time;
	uint32_t dso;               /* index in the recording's dsos */
};

struct maps_life;

struct maps_proc {
	int32_t pid;
	struct maps_life *lives;
	size_t nr_lives, cap_lives;
};

struct maps {
	struct maps_proc *procs;
	size_t nr_procs, cap_procs;
	uint32_t *tab;              /* pid hash: index + 1, 0 empty */
	size_t tab_cap;
	size_t nr_maps;
};

void maps_init(struct maps *m);
void maps_free(struct maps *m);

/* 0 or -ENOMEM for each. */
int maps_add(struct maps *m, int32_t pid, uint64_t time, uint64_t start, uint64_t len, uint64_t pgoff,
	     uint32_t dso);
/* pid forked from ppid at time (a new process, not a thread). */
int maps_fork(struct maps *m, int32_t pid, int32_t ppid, uint64_t time);
/* pid exec'd at time: its earlier maps are gone from then on. */
int maps_exec(struct maps *m, int32_t pid, uint64_t time);

/* Sort everything added; call once, before maps_find. */
void maps_finish(struct maps *m);

/* The map of pid covering addr at time, or NULL. */
const struct maps_entry *maps_find(const struct maps *m, int32_t pid, uint64_t addr, uint64_t time);

#endif
