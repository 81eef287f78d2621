/*
 * abi.h - the marker channel shared by libpsrec-marker (the program) and
 * psrec (the reader): one memfd, a control page then a data ring.
 * Versioned: a reader refuses a magic or version it does not know.
 *
 * Who makes it:
 *  - `psrec -- CMD`: psrec creates and seals the memfd, sets consumer to
 *    its pid and passes the fd number in PSREC_MARKER_FD (not close-on-
 *    exec, so the command's children share it);
 *  - otherwise the library creates one when it loads, named
 *    PSREC_MARKER_MEMFD_NAME, and keeps its fd open: `psrec -p PID` finds
 *    it in /proc/PID/fd ("/memfd:psrec-marker (deleted)"), checks the
 *    magic and the seals, and claims it by CAS of consumer 0 -> its pid.
 * Either side seals it (F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL) before
 * anyone maps it, so neither can be made to fault by the other's
 * ftruncate.
 *
 * The ring (data_size bytes, a power of two, at ctl_size): free-running
 * byte counters head (producers) and tail (the consumer). Records are
 * 8-aligned and never wrap: a producer whose record would cross the end
 * first fills the rest with a PAD record. Producer:
 *    h = head; t = load-acquire tail; off = h & (size-1);
 *    pad = off + need > size ? size - off : 0;
 *    if h + pad + need - t > size: dropped++, return;
 *    CAS head h -> h + pad + need (retry from the top on failure);
 *    if pad: release-store the PAD's first word {pad, PAD, 0};
 *    store the record's pid and tid, then release-store its first word
 *    {size 0, kind PSREC_MK_STAMP, flags need / 8}: the stamp;
 *    write the rest, then release-store the first word {need, kind,
 *    flags}: the commit.
 * The first word is the record's first 8 bytes (size, kind, flags), one
 * 64-bit atomic store; a reader of 32-bit sizes sees it the same way.
 * Consumer: at tail, load-acquire the first word. A nonzero size is a
 * committed record: copy it out, zero its bytes, then release-store
 * tail += size. Zeroing before the release is what keeps "size 0 =
 * uncommitted" true when producers come round again. Size 0 is a
 * record in progress: stop there until the next pass, unless its writer
 * is gone. A stamp names the writer (pid, tid) and the length: a thread
 * that no longer exists will never commit, so the consumer zeroes the
 * reservation and moves on (abandoned). A record never stamped (an
 * older library, or a writer that died between its CAS and its stamp)
 * can only be timed out: still there after a while, the consumer skips
 * to the next nonzero word, where the next record begins (free bytes
 * are zero).
 * The consumer treats everything in the ring as untrusted: a size that
 * is not 8-aligned, below the header, or past the end stops the channel.
 *
 * The stamp came after version 1 and needs no new version: a reader that
 * knows nothing of it sees size 0 and waits, as before; a producer that
 * does not stamp is timed out instead of skipped at once.
 *
 * Producers write only while consumer != 0 (the absent path is that one
 * load). A reader that stops sets consumer 0, then drains what was
 * committed. A reader that attaches zeroes [tail, head) (committed but
 * never read by an earlier one) and sets tail = head before it claims.
 */
#ifndef PSREC_MARKER_ABI_H
#define PSREC_MARKER_ABI_H

#include <stdint.h>

#define PSREC_MARKER_ENV        "PSREC_MARKER_FD"
#define PSREC_MARKER_OFF_ENV    "PSREC_MARKER"      /* "0": the library stays off */
#define PSREC_MARKER_MEMFD_NAME "psrec-marker"
#define PSREC_MARKER_MAGIC      0x4b52414d43525350ULL /* "PSRCMARK" little-endian */
#define PSREC_MARKER_VERSION    1
#define PSREC_MARKER_CTL_SIZE   4096u
#define PSREC_MARKER_DATA_SIZE  (4u << 20)          /* default ring */

/* The control page. Atomics are accessed with __atomic builtins. */
struct psrec_marker_ctl {
	uint64_t magic;         /* written last by the creator (release) */
	uint32_t version;
	uint32_t ctl_size;      /* offset of the ring */
	uint64_t data_size;     /* power of two, >= 64 KiB */
	uint32_t creator;       /* pid that created it */
	uint32_t pad0;
	/* Read by every marker, written only when a reader comes or goes:
	 * not on tail's line, which the reader writes at every pass. */
	uint32_t consumer;      /* pid of the psrec reading; 0: none */
	uint32_t epoch;         /* +1 at each claim */
	uint8_t  line0[24];
	/* offset 64: the reader's */
	uint64_t tail;
	uint8_t  line1[56];
	/* offset 128: the producers' */
	uint64_t head;
	uint8_t  line2[56];
	/* offset 192: counters, only ever incremented by producers */
	uint64_t dropped;       /* markers lost: the ring was full */
	uint64_t truncated;     /* markers cut to PSREC_MARK_MAX */
};

/* Record kinds. A reader that meets a kind it does not know records it
 * as such ("[kind N]" and the payload): a newer library's markers show up
 * rather than vanish, and the size still frames the ring. */
#define PSREC_MK_PAD        0
#define PSREC_MK_TEXT       1
#define PSREC_MK_BYTES      2
#define PSREC_MK_SPAN_BEGIN 3
#define PSREC_MK_SPAN_END   4
/* Not a record: the kind of a reservation's stamp (size 0). */
#define PSREC_MK_STAMP      0xffff

#define PSREC_MKF_TRUNCATED 1   /* the payload was longer than PSREC_MARK_MAX */

/* One record in the ring; a PAD record uses only size and kind. */
struct psrec_marker_rec {
	uint32_t size;          /* whole record, 8-aligned; 0 = uncommitted */
	uint16_t kind;          /* PSREC_MK_* */
	uint16_t flags;         /* PSREC_MKF_* */
	uint32_t type;          /* BYTES: the program's type; else 0 */
	uint32_t len;           /* payload bytes */
	uint64_t time;          /* CLOCK_MONOTONIC ns */
	uint32_t pid, tid;
	uint64_t ip;            /* the caller's return address */
	uint32_t cpu;           /* sched_getcpu(), or ~0 */
	uint32_t res;
	/* len payload bytes follow, then zero padding to 8 */
};

#define PSREC_MARKER_REC_HDR 48u

/* A record's first word (size, kind, flags), stored and loaded as one
 * uint64_t: a stamp or a commit in one atomic access. */
union psrec_marker_word {
	struct {
		uint32_t size;
		uint16_t kind;
		uint16_t flags;
	} f;
	uint64_t w;
};

_Static_assert(sizeof(struct psrec_marker_rec) == PSREC_MARKER_REC_HDR, "marker record header");
_Static_assert(sizeof(struct psrec_marker_ctl) == 208, "marker control page layout");
_Static_assert(__builtin_offsetof(struct psrec_marker_ctl, tail) == 64 && __builtin_offsetof(struct psrec_marker_ctl, head) == 128,
	       "reader and producers on their own cache lines");

#endif
