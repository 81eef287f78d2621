/*
 * tp.c - markers as samples of the tracepoint psrec:marker (see tp.h).
 */
#include "tp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/textesc.h"

bool marker_tp_is(const struct pd_attr *a)
{
	if (a->type == PD_TYPE_TRACEPOINT)
		return a->config == MARKER_TP_CONFIG;
	return a->type == PD_TYPE_SOFTWARE && a->config == MARKER_SW_BPF_OUTPUT && a->config1 == MARKER_TP_MAGIC;
}

void marker_tp_attr(struct pd_attr *a, const struct pd_attr *base, bool final)
{
	memset(a, 0, sizeof(*a));
	a->type = final ? PD_TYPE_TRACEPOINT : PD_TYPE_SOFTWARE;
	a->size = base->size;
	a->config = final ? MARKER_TP_CONFIG : MARKER_SW_BPF_OUTPUT;
	a->config1 = final ? 0 : MARKER_TP_MAGIC;
	a->sample_period = 1;
	a->sample_type = MARKER_TP_SAMPLE_TYPE | (base->sample_type & PD_SAMPLE_CPU);
	/* perf refuses attrs that disagree on sample_id_all; the clock must
	 * be the samples' for the markers to fall between them. */
	a->flags = base->flags & (PD_ATTR_SAMPLE_ID_ALL | PD_ATTR_USE_CLOCKID);
	a->clockid = base->clockid;
}

/* What tracefs says of a 4 KiB-page ring on x86_64 and arm64 (perf wants
 * a header_page; nothing here is read from it for psrec's event). */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define STR_(x) #x
#define STR(x) STR_(x)

static const char event_format[] =
	"name: " MARKER_TP_EVENT "\n"
	"ID: " STR(65000) "\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] msg;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int kind;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int type;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int flags;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned char[] data;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\", __get_str(msg)\n";

_Static_assert(MARKER_TP_CONFIG == 65000, "the format's ID");

static int put_section(struct buf *b, const char *name, const char *text, size_t len)
{
	int err = name ? buf_append(b, name, strlen(name) + 1) : 0;
	if (!err)
		err = buf_append_u64(b, len);
	if (!err)
		err = buf_append(b, text, len);
	return err;
}

int marker_tp_tracing_data(struct buf *b)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	long page = sysconf(_SC_PAGESIZE);
	int err = buf_append(b, magic, sizeof(magic));
	if (!err)
		err = buf_append(b, "0.6", 4);
	uint8_t endian_long[2] = { 0, (uint8_t)sizeof(long) };
	if (!err)
		err = buf_append(b, endian_long, 2);
	if (!err)
		err = buf_append_u32(b, (uint32_t)(page > 0 ? page : 4096));
	if (!err)
		err = put_section(b, "header_page", header_page, sizeof(header_page) - 1);
	if (!err)
		err = put_section(b, "header_event", header_event, sizeof(header_event) - 1);
	if (!err)
		err = buf_append_u32(b, 0); /* ftrace formats */
	if (!err)
		err = buf_append_u32(b, 1); /* systems */
	if (!err)
		err = buf_append(b, MARKER_TP_SYSTEM, sizeof(MARKER_TP_SYSTEM));
	if (!err)
		err = buf_append_u32(b, 1);
	if (!err)
		err = put_section(b, NULL, event_format, sizeof(event_format) - 1);
	if (!err)
		err = buf_append_u32(b, 0); /* kallsyms */
	if (!err)
		err = buf_append_u32(b, 0); /* printk formats */
	if (!err)
		err = buf_append_u64(b, 0); /* saved cmdlines */
	return err;
}

/* The msg of a marker into b (NUL-terminated); *exact: msg is the
 * payload byte for byte. */
static int render(struct buf *b, const struct psrec_marker_rec *rec, const uint8_t *payload, bool *exact)
{
	static const char hex[] = "0123456789abcdef";
	int err = 0;
	char pre[48];
	*exact = false;
	switch (rec->kind) {
	case PSREC_MK_TEXT: {
		bool changed;
		err = textesc_buf(b, payload, rec->len, TEXTESC_BACKSLASH, &changed);
		*exact = !changed;
		break;
	}
	case PSREC_MK_SPAN_BEGIN:
	case PSREC_MK_SPAN_END:
		err = buf_append(b, rec->kind == PSREC_MK_SPAN_BEGIN ? "begin: " : "end: ",
				 rec->kind == PSREC_MK_SPAN_BEGIN ? 7 : 5);
		if (!err)
			err = textesc_buf(b, payload, rec->len, TEXTESC_BACKSLASH, NULL);
		break;
	case PSREC_MK_BYTES: {
		int n = snprintf(pre, sizeof(pre), "[type %u] ", rec->type);
		err = buf_append(b, pre, (size_t)n);
		size_t shown = rec->len < 64 ? rec->len : 64;
		for (size_t i = 0; i < shown && !err; i++) {
			char h[2] = { hex[payload[i] >> 4], hex[payload[i] & 15] };
			err = buf_append(b, h, 2);
		}
		if (!err && shown < rec->len) {
			n = snprintf(pre, sizeof(pre), "... (%u bytes)", rec->len);
			err = buf_append(b, pre, (size_t)n);
		}
		break;
	}
	default: {
		int n = snprintf(pre, sizeof(pre), "[kind %u] ", rec->kind);
		err = buf_append(b, pre, (size_t)n);
		if (!err)
			err = textesc_buf(b, payload, rec->len, TEXTESC_BACKSLASH, NULL);
		break;
	}
	}
	if (!err && (rec->flags & PSREC_MKF_TRUNCATED)) {
		err = buf_append(b, " [truncated]", 12);
		*exact = false;
	}
	if (!err)
		err = buf_append(b, "", 1);
	return err;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

int marker_tp_sample(struct buf *b, uint64_t sample_type, const struct psrec_marker_rec *rec,
		     const uint8_t *payload)
{
	/* The fixed part in one append: the recorder converts every marker,
	 * and field-by-field appends were a sixth of its time. */
	uint8_t fixed[8 + 6 * 8 + 4 + 28];
	uint8_t *p = fixed + 8;
	if (sample_type & PD_SAMPLE_IDENTIFIER)
		p = put64(p, MARKER_TP_ID);
	if (sample_type & PD_SAMPLE_IP)
		p = put64(p, rec->ip);
	if (sample_type & PD_SAMPLE_TID) {
		p = put32(p, rec->pid);
		p = put32(p, rec->tid);
	}
	if (sample_type & PD_SAMPLE_TIME)
		p = put64(p, rec->time);
	if (sample_type & PD_SAMPLE_CPU) {
		p = put32(p, rec->cpu == ~0u ? 0 : rec->cpu);
		p = put32(p, 0);
	}
	if (sample_type & PD_SAMPLE_PERIOD)
		p = put64(p, 1);
	/* RAW: u32 size, then the fixed fields, msg, data. */
	uint8_t *raw_size = p;
	uint8_t *raw = p + 4;
	memset(raw_size, 0, 4 + 28);
	p = raw + 28;
	size_t start = b->len;
	size_t raw_at = start + (size_t)(raw_size - fixed);
	int err = buf_append(b, fixed, (size_t)(p - fixed));
	if (err)
		return err;
	size_t msg_at = b->len;
	bool exact;
	err = render(b, rec, payload, &exact);
	size_t msg_len = b->len - msg_at;
	size_t data_at = b->len, data_len = exact ? 0 : rec->len;
	if (!err && data_len)
		err = buf_append(b, payload, data_len);
	/* The kernel pads RAW so that the record stays 8-aligned. */
	if (!err)
		err = buf_append_zeros(b, (8 - (b->len - start) % 8) % 8);
	size_t total = b->len - start;
	if (!err && (total > 0xffff || msg_len > 0xffff || data_len > 0xffff))
		err = -E2BIG;
	if (err) {
		b->len = start;
		return err;
	}
	uint8_t *r = b->data + raw_at;
	put32(r, (uint32_t)(b->len - raw_at - 4));
	r += 4;
	uint16_t ctype = (uint16_t)MARKER_TP_CONFIG;
	memcpy(r, &ctype, 2);
	put32(r + 4, rec->pid);
	put32(r + 8, (uint32_t)(msg_len << 16 | (msg_at - raw_at - 4)));
	put32(r + 12, rec->kind);
	put32(r + 16, rec->type);
	put32(r + 20, rec->flags);
	put32(r + 24, (uint32_t)(data_len << 16 | (data_at - raw_at - 4)));
	struct pd_event_header h = { PD_RECORD_SAMPLE, 2 /* PERF_RECORD_MISC_USER */, (uint16_t)total };
	memcpy(b->data + start, &h, sizeof(h));
	return 0;
}

int marker_tp_decode(const uint8_t *raw, size_t len, struct marker_view *v)
{
	if (!raw || len < 28)
		return -EINVAL;
	uint16_t ctype;
	uint32_t f[6];
	memcpy(&ctype, raw, 2);
	memcpy(&v->pid, raw + 4, 4);
	memcpy(f, raw + 8, sizeof(uint32_t) * 5);
	if (ctype != (uint16_t)MARKER_TP_CONFIG)
		return -EINVAL;
	size_t moff = f[0] & 0xffff, mlen = f[0] >> 16;
	size_t doff = f[4] & 0xffff, dlen = f[4] >> 16;
	if (moff > len || mlen > len - moff || doff > len || dlen > len - doff)
		return -EINVAL;
	v->kind = f[1];
	v->type = f[2];
	v->flags = f[3];
	v->msg = (const char *)raw + moff;
	/* The stored length counts the NUL. */
	v->msg_len = mlen && raw[moff + mlen - 1] == '\0' ? mlen - 1 : mlen;
	v->data = raw + doff;
	v->data_len = dlen;
	return 0;
}
