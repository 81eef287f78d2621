/*
 * tp.h - a marker as perf.data holds it: a sample of the synthetic
 * tracepoint psrec:marker (docs/markers.md).
 *
 * The event: attr type PERF_TYPE_TRACEPOINT, config MARKER_TP_CONFIG (no
 * kernel tracepoint id comes near it), sample_type
 * IDENTIFIER|IP|TID|TIME|PERIOD|RAW (+CPU when the recording's samples
 * carry it), sample_id_all and the recording's clock like every other
 * attr, one id: MARKER_TP_ID. Its format goes in HEADER_TRACING_DATA, its
 * name in EVENT_DESC.
 *
 * The RAW payload, as the format describes it:
 *   0  u16 common_type (MARKER_TP_CONFIG), u8 flags 0, u8 preempt 0
 *   4  s32 common_pid
 *   8  __data_loc char[] msg     (u32: len << 16 | offset)
 *   12 u32 kind                  (PSREC_MK_*)
 *   16 u32 type                  (BYTES: the program's type)
 *   20 u32 flags                 (PSREC_MKF_*)
 *   24 __data_loc unsigned char[] data
 *   28 msg (NUL-terminated) then data
 * msg is what perf script prints: the text with control characters,
 * backslashes and bytes that are not UTF-8 escaped (\xNN), " [truncated]"
 * after a cut payload; "begin: NAME" / "end: NAME" for spans;
 * "[type N] <hex>" for bytes. data holds the payload as sent whenever
 * msg is not exactly it (empty otherwise): readers take
 * data if data is not empty, else msg.
 */
#ifndef PSREC_MARKER_TP_H
#define PSREC_MARKER_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "marker/abi.h"
#include "psrec/perf_data.h"
#include "util/buf.h"

#define MARKER_TP_CONFIG 65000u
#define MARKER_TP_SYSTEM "psrec"
#define MARKER_TP_EVENT  "marker"
#define MARKER_TP_NAME   "psrec:marker"
/* The sample id of every marker: far above the kernel's counter. */
#define MARKER_TP_ID     0xfffffffffff00000ULL
#define MARKER_TP_SAMPLE_TYPE (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | \
			       PD_SAMPLE_PERIOD | PD_SAMPLE_RAW)

/*
 * Until a file is finished the same event is a software bpf-output
 * (config PERF_COUNT_SW_BPF_OUTPUT, config1 MARKER_TP_MAGIC), which perf
 * reads without tracing data: perf refuses outright a file with a
 * tracepoint attr and no TRACING_DATA, which is what a recording killed
 * with -9 would be (its features are written at the end). Finishing
 * rewrites the attr in place to the tracepoint. The samples are the same
 * in both forms; perf script shows a killed file's markers as bpf-output
 * dumps, psrec markers reads both.
 */
#define MARKER_TP_MAGIC  0x72656b72616d6370ULL /* "pcmarker" */
#define MARKER_SW_BPF_OUTPUT 10

/* Whether attr is the marker event, in either form. */
bool marker_tp_is(const struct pd_attr *a);

/* The marker attr, matching base (one of the recording's kernel attrs:
 * its clock, sample_id_all and whether samples carry CPU); final: the
 * tracepoint, else the bpf-output form. */
void marker_tp_attr(struct pd_attr *a, const struct pd_attr *base, bool final);

/* Append the HEADER_TRACING_DATA payload that describes psrec:marker
 * (version 0.6, a built-in header_page and header_event). -ENOMEM. */
int marker_tp_tracing_data(struct buf *b);

/* Append one PERF_RECORD_SAMPLE for rec and its payload (len already
 * clamped to PSREC_MARK_MAX by the caller) in sample_type's layout.
 * -ENOMEM. */
int marker_tp_sample(struct buf *b, uint64_t sample_type, const struct psrec_marker_rec *rec,
		     const uint8_t *payload);

/* A decoded RAW payload; pointers into it. */
struct marker_view {
	uint32_t kind, type, flags;
	int32_t pid;
	const char *msg;        /* not NUL-terminated by contract: use msg_len */
	size_t msg_len;
	const uint8_t *data;
	size_t data_len;
};

/* Decode a sample's RAW bytes. -EINVAL when they are not a marker's. */
int marker_tp_decode(const uint8_t *raw, size_t len, struct marker_view *v);

/* The payload as sent: data if any, else msg. */
static inline const uint8_t *marker_payload(const struct marker_view *v, size_t *len)
{
	if (v->data_len) {
		*len = v->data_len;
		return v->data;
	}
	*len = v->msg_len;
	return (const uint8_t *)v->msg;
}

#endif
