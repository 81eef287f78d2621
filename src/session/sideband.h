/*
 * sideband.h - a recording's side band, loaded whole before its samples:
 * the DSOs, the address spaces over time (maps.h) and the thread names
 * over time, from MMAP, MMAP2, COMM (exec or not) and FORK records.
 *
 * Shared by everything that resolves samples offline: the build-id pass
 * after recording (record/buildids.c) and psrec fold / flamegraph.
 */
#ifndef PSREC_SESSION_SIDEBAND_H
#define PSREC_SESSION_SIDEBAND_H

#include <stdint.h>

#include "format/reader.h"
#include "session/dso.h"
#include "session/maps.h"
#include "util/err.h"
#include "util/strpool.h"

#define SIDEBAND_KERNEL_NAME "[kernel.kallsyms]"
#define SIDEBAND_VDSO_NAME "[vdso]"

struct sideband_comm;

struct sideband {
	struct dsos dsos;
	struct maps maps;
	int32_t kernel_dso;         /* index of [kernel.kallsyms], -1 */
	int32_t vdso_dso;           /* index of the first [vdso], -1 */
	/* thread names: per tid, (time, name) in time order */
	struct sideband_comm *comms;
	size_t nr_comms, cap_comms;
	uint32_t *comm_tab;
	size_t comm_tab_cap;
	/* comm strings, each distinct one stored once and found by hash: a
	 * recording of many short-lived processes or named threads has tens
	 * of thousands, and a scan of them per COMM made loading quadratic */
	struct strpool names;
	uint64_t records;           /* side-band records loaded */
};

void sideband_init(struct sideband *sb);
void sideband_free(struct sideband *sb);

/* Read every record of r (then rewind it) and sort what was loaded.
 * -errno with *e when the data does not read or memory runs out. */
int sideband_load(struct sideband *sb, struct reader *r, struct err *e);

/* The same a record at a time, for a pass that reads the records for
 * more than the side band (session.h): 1 when rec was side band and is
 * taken, 0 when it is not side band, -ENOMEM (SIDEBAND_NOMEM says so).
 * sideband_finish() after the last record, before any lookup. */
int sideband_add(struct sideband *sb, const struct reader *r, const struct reader_record *rec);
void sideband_finish(struct sideband *sb);

#define SIDEBAND_NOMEM "out of memory reading the recording's maps"

/* The map covering addr in pid at time, by cpumode (kernel modes look in
 * the kernel's maps); NULL for none or a mode without maps (hypervisor). */
const struct maps_entry *sideband_map(const struct sideband *sb, int32_t pid, uint64_t addr, uint64_t time,
				      int cpumode);

/* The name thread tid had at time: the last COMM at or before it; before
 * its first, its parent's at the FORK that made it (perf's rule), else its
 * first; NULL if it never had one. Stable until sideband_free. */
const char *sideband_comm(const struct sideband *sb, int32_t tid, uint64_t time);

/* The time of a non-sample record, from its sample_id trailer (0 without). */
uint64_t sideband_record_time(const struct reader *r, const struct reader_record *rec);

#endif
