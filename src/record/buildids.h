/*
 * buildids.h - which binaries a recording used, with the build-ids they had
 * when mapped: the BUILD_ID feature and the ~/.debug copies.
 *
 * Done once sampling has stopped, from the file itself (what perf record
 * calls process_buildids), so none of it costs samples: the side band
 * (MMAP, MMAP2, COMM exec, FORK) is loaded into maps over time, then every
 * sample IP and call-chain entry is resolved at its time and marks the DSO
 * it falls in as hit. Ids come from the MMAP2 records (the kernel's with
 * attr.build_id, psrec's synthesized ones); a DSO mapped without one (a
 * kernel before 5.12) gets it from the file that is mapped while the
 * process lives, else from its path when device and inode still match,
 * never from a different file at the same path.
 *
 * struct buildids_pass (at the end) is that work for a whole recording,
 * file by file: what record.c and a chunk's cut call.
 */
#ifndef PSREC_RECORD_BUILDIDS_H
#define PSREC_RECORD_BUILDIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid/buildid.h"
#include "buildid/idcache.h"
#include "buildid/store.h"
#include "format/writer.h"
#include "psrec/perf_data.h"
#include "record/config.h"
#include "record/notify.h"
#include "session/sideband.h"
#include "util/buf.h"
#include "util/err.h"

struct buildids {
	struct sideband sb;         /* the DSOs (with hit counts) and maps */
	uint64_t samples;
	uint64_t unresolved;        /* addresses in no known map */
	uint64_t decoded;           /* COMPRESSED records decoded (each once: one pass) */
};

void buildids_init(struct buildids *b);
void buildids_free(struct buildids *b);

/*
 * Scan the records of a file (p, len: the whole file; hdr: its header as
 * it stands once finished). file_mapped: p maps the file, and the pages
 * the scan has read are dropped behind it (a big recording must not stand
 * in the recorder's RSS whole); never for other memory, which that would
 * zero. -errno with *e when the data does not read.
 */
int buildids_scan(struct buildids *b, const void *p, size_t len, const struct pd_file_header *hdr,
		  bool file_mapped, struct err *e);

/*
 * Give ids to the DSOs that will be listed (hit ones, or all) and have
 * none: the kernel's (kernel_id, read when recording started), psrec's own
 * vdso's for [vdso], the mapped file's through ids. -ENOMEM only.
 */
int buildids_resolve(struct buildids *b, bool all, const struct build_id *kernel_id, struct idcache *ids);

/* The BUILD_ID feature payload: every listed DSO with an id, the kernel
 * first as perf writes it. *listed counts them. */
int buildids_feature(const struct buildids *b, bool all, struct buf *out, size_t *listed);

struct buildids_cached {
	size_t added, present, missing;  /* missing: the file with that id is gone */
	uint64_t bytes;
};

/*
 * Copy every listed DSO into the build-id cache: from the mapped file
 * (/proc/PID/map_files) while the process lives, else from its path when
 * the id there still matches; the kernel's kallsyms when the running
 * kernel is the recorded one; psrec's vdso image. Entries already present
 * are left alone. -errno with *e only when the cache itself cannot be
 * written (one message; the rest of the copies are skipped).
 */
int buildids_cache(const struct buildids *b, bool all, const struct build_id *kernel_id,
		   const struct store *s, struct buildids_cached *res, struct err *e);

/*
 * One recording's build-ids, file by file (each chunk of --switch-output
 * is one): the ids of mapped files, read once for all of them; the
 * running kernel's; the DSOs of the file being finished and its BUILD_ID
 * payload. Nothing with -B. What fails costs the feature or the copies,
 * said through say, never the recording.
 */
struct buildids_pass {
	const struct record_config *cfg;
	struct notify say;
	struct idcache ids;
	struct build_id kernel_id;  /* the running kernel's, size 0 if unknown */
	struct buildids dsos;       /* the file's */
	struct buf feature;         /* its BUILD_ID payload */
	bool made;                  /* feature is the current file's */
	size_t listed;              /* DSOs in the last feature made */
	size_t cache_added;         /* the last copy into ~/.debug's */
	size_t cache_missing;
};

void buildids_pass_init(struct buildids_pass *p, const struct record_config *cfg, const struct notify *say);
void buildids_pass_free(struct buildids_pass *p);

/* As the events are opened: the running kernel's id is read, and the
 * idcache the synthesized maps take their ids from returned (NULL: -B). */
struct idcache *buildids_pass_start(struct buildids_pass *p);

/*
 * The BUILD_ID payload of the file whose records w wrote to fd (-1: a
 * stream, which cannot be read back; its MMAP2 records carry the ids),
 * once its data is complete: read back through /proc/self/fd (the output
 * is open write-only), every sample resolved. NULL when there is none
 * (-B, no data, or a failure, said). Forgets the previous file's.
 */
const struct buf *buildids_pass_collect(struct buildids_pass *p, int fd, const struct writer *w);

/* Once the file is complete: copy its listed DSOs into ~/.debug (not with
 * -N, nor without a payload from buildids_pass_collect). A slow or failing
 * copy never costs the recording. */
void buildids_pass_cache(struct buildids_pass *p);

#endif
