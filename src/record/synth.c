/*
 * synth.c - synthesized side-band records (see synth.h).
 */
#include "synth.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psrec/perf_data.h"

#define KERNEL_MMAP_NAME "[kernel.kallsyms]_text"
#define COMM_MAX 16

int synth_find_kernel_map(const char *kallsyms, struct kernel_map *km)
{
	FILE *f = fopen(kallsyms, "re");
	if (!f)
		return -errno;
	char line[512];
	bool have_text = false, have_etext = false;
	km->start = km->end = 0;
	while ((!have_text || !have_etext) && fgets(line, sizeof(line), f)) {
		/* "ffffffff81000000 T _text\n": address, type, name [module] */
		char *sp1 = strchr(line, ' ');
		if (!sp1 || !sp1[1] || sp1[2] != ' ')
			continue;
		char *name = sp1 + 3;
		size_t n = strcspn(name, "\t\n");
		if (n == 5 && memcmp(name, "_text", 5) == 0) {
			km->start = strtoull(line, NULL, 16);
			have_text = true;
		} else if (n == 6 && memcmp(name, "_etext", 6) == 0) {
			km->end = strtoull(line, NULL, 16);
			have_etext = true;
		}
	}
	fclose(f);
	if (!have_text || !have_etext)
		return -ENOENT;
	if (km->start == 0 || km->end <= km->start)
		return -EPERM;
	return 0;
}

/* Append header + payload + zero padding to 8 + zero trailer. */
static int put_record(struct buf *b, uint32_t type, uint16_t misc, const void *payload,
		      size_t len, size_t trailer)
{
	size_t body = (len + 7) & ~(size_t)7;
	size_t size = sizeof(struct pd_event_header) + body + trailer;
	if (size > UINT16_MAX)
		return -E2BIG;
	struct pd_event_header h = { type, misc, (uint16_t)size };
	int err = buf_append(b, &h, sizeof(h));
	if (!err)
		err = buf_append(b, payload, len);
	if (!err)
		err = buf_append_zeros(b, body - len + trailer);
	return err;
}

int synth_kernel_mmap(struct buf *b, const struct kernel_map *km, size_t trailer_size)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		char name[sizeof(KERNEL_MMAP_NAME)];
	} __attribute__((packed)) p;
	p.pid = UINT32_MAX;
	p.tid = 0;
	p.addr = km->start;
	p.len = km->end - km->start;
	p.pgoff = km->start;
	memcpy(p.name, KERNEL_MMAP_NAME, sizeof(p.name));
	return put_record(b, PD_RECORD_MMAP, PD_MISC_KERNEL, &p, sizeof(p), trailer_size);
}

int synth_comm(struct buf *b, pid_t pid, pid_t tid, const char *name, size_t trailer_size)
{
	struct {
		uint32_t pid, tid;
		char comm[COMM_MAX];
	} p;
	memset(&p, 0, sizeof(p));
	p.pid = (uint32_t)pid;
	p.tid = (uint32_t)tid;
	size_t n = strnlen(name, COMM_MAX - 1);
	memcpy(p.comm, name, n);
	/* Payload = pid, tid, name and its NUL; put_record pads to 8. */
	return put_record(b, PD_RECORD_COMM, 0, &p, 8 + n + 1, trailer_size);
}
