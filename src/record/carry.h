/*
 * carry.h - the side band of the pass that closes a chunk, carried into
 * the next one (--switch-output).
 *
 * A chunk begins with COMM and MMAP2 records re-read from /proc, and that
 * scan runs before the chunk's last pass, so a thread that starts (or
 * execs, or maps a library) between the scan and the pass is in neither
 * the scan nor the new chunk's rings: its FORK, COMM and MMAP2 records
 * went to the old chunk. Copying that pass's side-band records into the
 * new chunk closes the gap; the scan covers everything older. Only done
 * at a switch, never on the ordinary drain path.
 */
#ifndef PSREC_RECORD_CARRY_H
#define PSREC_RECORD_CARRY_H

#include <stddef.h>

#include "record/ring.h"
#include "util/buf.h"

/*
 * Append to out a copy of every MMAP, COMM, EXIT, FORK and MMAP2 record
 * lying wholly in the first len bytes of the span r handed out last
 * (before ring_release). -ENOMEM, or -EBADMSG at a broken header (what
 * came before it is kept).
 */
int carry_sideband(const struct ring *r, size_t len, struct buf *out);

#endif
