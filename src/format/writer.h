/*
 * writer.h - writing a perf.data file, or a perf.data stream to a pipe.
 *
 * File layout (the one perf 6.1 writes, perf-data-format.md 1.2):
 *   header (104) | ids of every attr | attrs (144 each) | data |
 *   feature section table | feature payloads
 * The header is written last of these, with no feature bits and data.size
 * covering one FINISHED_ROUND (perf 6.1 refuses data.size 0), so a file
 * cut short at any moment is a valid, empty recording. Between complete
 * drain passes the caller checkpoints (after the first pass with samples,
 * then every 500 ms): data.size is rewritten (8 bytes at offset 48) to
 * cover exactly the records written so far, so a recorder killed with
 * SIGKILL leaves a file perf reads. Feature bits are
 * set only by writer_finish(), in the same pwrite as the final data.size.
 *
 * Until then the data the header covers is always followed by an end
 * mark, a 16-byte ID_INDEX record with no entries: writer_begin() writes
 * one after the opening round, and each checkpoint appends one and moves
 * data.size up to it. hotspot's perfparser reads a feature section entry
 * at the data's end even from a header without feature bits, and takes
 * the mark's zero entry count for that section's size (docs/writer.md,
 * W1). Appends go after the mark; a covered mark is a record perf and
 * perfparser skip.
 *
 * A feature perf cannot read the data without (COMPRESSED: its mmap_len
 * sizes the decompression buffer) goes in as a HEADER_FEATURE record at
 * the start of the data too (writer_append_feature), which perf 6.1
 * processes in file mode as in pipe mode: a killed -z recording is
 * readable, and the header never carries a feature table before
 * writer_finish() (docs/writer.md says why this beats keeping a live
 * table after the data).
 *
 * Pipe mode (perf record -o -, perf-data-format.md 6): a 16-byte header,
 * one HEADER_ATTR record per event, an EVENT_UPDATE naming it, then
 * HEADER_FEATURE records and the data; nothing is ever rewritten.
 *
 * Appends never copy: the iovecs (ring spans straight from the mmap) go to
 * pwritev/writev. The writer owns no fd: the caller opens and closes it.
 */
#ifndef PSREC_FORMAT_WRITER_H
#define PSREC_FORMAT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "psrec/perf_data.h"

struct writer {
	int fd;
	bool pipe;
	uint64_t data_offset;   /* where the record stream starts */
	uint64_t end;           /* file offset after the last complete record */
	uint64_t committed;     /* data bytes the on-disk header covers */
	int error;              /* first append error (-errno), sticky */
	struct pd_file_header hdr;
};

struct writer_event {
	const struct pd_attr *attr;
	const uint64_t *ids;
	size_t nr_ids;
	const char *name;       /* pipe mode: sent as an EVENT_UPDATE */
};

struct writer_feature {
	uint32_t id;            /* PD_FEAT_* */
	const void *data;
	size_t len;
};

/*
 * Write the header (data.size 8, no features), the ids and the attrs at the
 * start of fd; the record stream begins right after them, with the
 * opening FINISHED_ROUND (covered) and an end mark (not). -errno on error.
 */
int writer_begin(struct writer *w, int fd, const struct writer_event *ev, size_t nr);

/*
 * Overwrite the i-th attr in place (file mode; same size, so nothing
 * moves): an event whose final form needs a feature section only the
 * end of the file carries. -errno.
 */
int writer_rewrite_attr(struct writer *w, size_t i, const struct pd_attr *attr);

/*
 * Pipe mode: write the pipe header, a HEADER_ATTR and an EVENT_UPDATE
 * (name) per event, and a HEADER_FEATURE record per feature (ids < 32
 * only; perf 6.1 rejects larger ones), but TRACING_DATA, which goes as a
 * HEADER_TRACING_DATA record followed by its data, as perf writes it. No
 * end marker is written.
 */
int writer_begin_pipe(struct writer *w, int fd, const struct writer_event *ev, size_t nr,
		      const struct writer_feature *f, size_t nr_features);

/*
 * Append whole records (the iovecs hold complete records back to back).
 * On failure (ENOSPC, EIO, EPIPE...) returns -errno, remembers it in
 * w->error and refuses further appends. In file mode, the complete records
 * that reached the disk before the error are kept (w->end covers them); a
 * partial record never counts.
 */
int writer_append(struct writer *w, const struct iovec *iov, int iovcnt);

/* Bytes of record data written so far (complete records only, the end
 * marks included). */
static inline uint64_t writer_data_size(const struct writer *w)
{
	return w->end - w->data_offset;
}

/* Append a HEADER_FEATURE record (u64 id, the payload), as a pipe
 * stream carries its features, in either mode. -EINVAL if it cannot fit
 * a record. */
int writer_append_feature(struct writer *w, const struct writer_feature *f);

/* The FINISHED_ROUND record, for a caller that puts it in its own
 * writer_append() (one pwritev for a whole pass). */
extern const struct pd_event_header writer_round_record;

/* End a round (one drain pass): append a FINISHED_ROUND record. */
int writer_round(struct writer *w);

/* Make the on-disk header cover every complete append: an end mark is
 * appended, then data.size is rewritten to end right before it (one
 * 8-byte pwrite, so it is never half written); a no-op in pipe mode and
 * when nothing was appended since the last checkpoint. -errno (the
 * mark's append error sticks as any append's). */
int writer_checkpoint(struct writer *w);

/*
 * Finish the file: write the feature table and payloads after the data
 * (ascending feature ids below 256; a set with an id out of order, a
 * duplicate or an id >= 256 is refused whole, -EINVAL, and the file is
 * finished without features), then
 * rewrite the header (data.size and the feature bitmap in one pwrite),
 * then truncate anything past the features (a partial append). If the
 * features cannot be written (disk full), the file is finished without
 * them (still valid: cut at the data's end first, or, where it cannot be
 * cut, with an end mark after the data) and *features_error gets the
 * -errno. Returns 0, or
 * -errno when even the header could not be rewritten. Pipe mode: nothing
 * to do.
 */
int writer_finish(struct writer *w, const struct writer_feature *f, size_t nr,
		  int *features_error);

#endif
