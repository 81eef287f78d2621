/*
 * writer.h - writing a perf.data file (file mode).
 *
 * Layout (the one perf 6.1 writes, perf-data-format.md 1.2):
 *   header (104) | ids of every attr | attrs (144 each) | data | feature
 *   section table | feature payloads
 * The header is written first with data.size 0 and no feature bits, so a
 * file cut short at any moment is still a valid, empty recording. After
 * each complete drain pass the caller may checkpoint: data.size is
 * rewritten (8 bytes at offset 48) to cover exactly the records written so
 * far, so a recorder killed with SIGKILL leaves a file perf reads. Feature
 * bits are set only by writer_finish().
 *
 * Appends never copy: the iovecs (ring spans straight from the mmap) go to
 * pwritev. The writer owns no fd: the caller opens and closes it.
 */
#ifndef PSREC_FORMAT_WRITER_H
#define PSREC_FORMAT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "psrec/perf_data.h"

struct writer {
	int fd;
	uint64_t data_offset;   /* where the record stream starts */
	uint64_t end;           /* file offset after the last complete append */
	uint64_t committed;     /* data bytes the on-disk header covers */
	int error;              /* first append error (-errno), sticky */
	struct pd_file_header hdr;
};

struct writer_event {
	const struct pd_attr *attr;
	const uint64_t *ids;
	size_t nr_ids;
};

struct writer_feature {
	uint32_t id;            /* PD_FEAT_* */
	const void *data;
	size_t len;
};

/*
 * Write the header (data.size 0, no features), the ids and the attrs at the
 * start of fd; the record stream begins right after them. -errno on error.
 */
int writer_begin(struct writer *w, int fd, const struct writer_event *ev, size_t nr);

/*
 * Append whole records (any number of iovecs) to the data section. On
 * failure (ENOSPC, EIO...) returns -errno, remembers it in w->error and
 * refuses further appends; w->end still marks the last complete append, so
 * a partially written tail is never counted.
 */
int writer_append(struct writer *w, const struct iovec *iov, int iovcnt);

/* Bytes of record data written so far (complete appends only). */
static inline uint64_t writer_data_size(const struct writer *w)
{
	return w->end - w->data_offset;
}

/* Rewrite data.size in the on-disk header to cover every complete append. */
int writer_checkpoint(struct writer *w);

/*
 * Finish the file: write the feature table and payloads after the data
 * (ascending feature id; ids >= 256 or duplicates are not written),
 * truncate anything past them (a partial append), and rewrite the header
 * with data.size and the feature bitmap. If the features cannot be written
 * (disk full), the file is finished without them (feature bitmap 0, still
 * valid) and *features_error gets the -errno. Returns 0, or -errno when
 * even the header could not be rewritten.
 */
int writer_finish(struct writer *w, const struct writer_feature *f, size_t nr,
		  int *features_error);

#endif
