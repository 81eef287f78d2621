/*
 * psrec/marker.h - let a program annotate its own profile.
 *
 * Markers ("request 42 start", "GC begin") land in a psrec recording as
 * samples of the event psrec:marker, time-ordered with the CPU samples:
 * perf script prints them between the samples, psrec markers lists them,
 * psrec flamegraph --between draws the samples between two of them.
 *
 * Link with pkg-config psrec-marker (libpsrec-marker, static or shared).
 *
 * Every call:
 *  - is thread-safe and never blocks: with no room in the channel the
 *    marker is dropped and counted (psrec reports drops);
 *  - never allocates (the channel is set up when the library loads),
 *    never changes errno, never fails the program;
 *  - costs a load and a branch when no psrec listens.
 * psrec_mark_str, psrec_mark_bytes and the spans are also
 * async-signal-safe; psrec_mark (it formats with vsnprintf) is not.
 * A payload longer than PSREC_MARK_MAX bytes is truncated, and the
 * marker flagged so, never rejected.
 *
 * The channel: under `psrec -- CMD` the command inherits it (the
 * environment variable PSREC_MARKER_FD); otherwise the library offers
 * one that `psrec -p PID` finds. PSREC_MARKER=0 in the environment turns
 * the library off entirely. docs/markers.md has the details.
 */
#ifndef PSREC_MARKER_H
#define PSREC_MARKER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSREC_MARK_MAX 4096

/* printf-style text. */
void psrec_mark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* len bytes of text (need not be NUL-terminated; may hold NULs). */
void psrec_mark_str(const char *s, size_t len);

/* A typed binary payload; type is the program's own (shown as a number). */
void psrec_mark_bytes(uint32_t type, const void *data, size_t len);

/* The start and end of a named span on this thread (spans may nest;
 * psrec markers pairs each end with the latest open begin of that name). */
void psrec_span_begin(const char *name);
void psrec_span_end(const char *name);

/* Whether a psrec reads the markers now (cheap: a load). Lets a program
 * skip building an expensive message nobody receives. */
int psrec_marker_listening(void);

/*
 * The calls above test, inline, whether anyone listens before they call
 * the library: with no psrec a marker costs two loads and a branch and no
 * call (no PLT jump, no argument setup), and its arguments are not
 * evaluated, as with assert(): keep side effects out of them. Define
 * PSREC_MARKER_NO_INLINE before including this header for plain calls
 * (their address can be taken either way). Not API: the library
 * keeps psrec_marker__consumer pointing at a word that is nonzero when a
 * psrec reads (or before the library is set up: the call sets it up).
 */
extern const uint32_t *psrec_marker__consumer;

#ifndef PSREC_MARKER_NO_INLINE
#define psrec_marker__gate() __builtin_expect(*(const volatile uint32_t *)psrec_marker__consumer != 0, 0)
#define psrec_mark(...) (psrec_marker__gate() ? psrec_mark(__VA_ARGS__) : (void)0)
#define psrec_mark_str(s, len) (psrec_marker__gate() ? psrec_mark_str((s), (len)) : (void)0)
#define psrec_mark_bytes(type, data, len) \
	(psrec_marker__gate() ? psrec_mark_bytes((type), (data), (len)) : (void)0)
#define psrec_span_begin(name) (psrec_marker__gate() ? psrec_span_begin(name) : (void)0)
#define psrec_span_end(name) (psrec_marker__gate() ? psrec_span_end(name) : (void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
