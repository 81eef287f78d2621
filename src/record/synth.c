/*
 * synth.c - synthesized side-band records (see synth.h).
 */
#include "synth.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "psrec/perf_data.h"
#include "buildid/idcache.h"
#include "record/procfs.h"

#define KERNEL_MMAP_NAME "[kernel.kallsyms]_text"
#define COMM_MAX 16

/* Length of the "Kernel code" resource in iomem, 0 if unknown or hidden. */
static uint64_t kernel_code_len(const char *iomem)
{
#if defined(__x86_64__) || defined(__i386__)
	FILE *f = iomem ? fopen(iomem, "re") : NULL;
	if (!f)
		return 0;
	char line[256];
	uint64_t len = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char name[64];
		if (sscanf(line, " %llx-%llx : %63[^\n]", &a, &b, name) == 3 &&
		    strcmp(name, "Kernel code") == 0) {
			if (b > a)
				len = b - a + 1;
			break;
		}
	}
	fclose(f);
	return len;
#else
	(void)iomem;
	return 0; /* arm64's resource starts at _stext and ends elsewhere */
#endif
}

int synth_find_kernel_map(const char *kallsyms, const char *iomem, struct kernel_map *km)
{
	uint64_t code_len = kernel_code_len(iomem);
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
			if (code_len && km->start) {
				km->end = km->start + code_len;
				have_etext = true;
			}
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

/* perf record --buildid-mmap's form: MMAP2, prot 0, the id in place of
 * the device and inode. */
static int kernel_mmap2(struct buf *b, const struct kernel_map *km, const struct build_id *id,
			size_t trailer_size)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t id_size, res1;
		uint16_t res2;
		uint8_t id[20];
		uint32_t prot, flags;
		char name[sizeof(KERNEL_MMAP_NAME)];
	} __attribute__((packed)) p;
	memset(&p, 0, sizeof(p));
	p.pid = UINT32_MAX;
	p.addr = km->start;
	p.len = km->end - km->start;
	p.pgoff = km->start;
	p.id_size = id->size;
	memcpy(p.id, id->data, id->size);
	memcpy(p.name, KERNEL_MMAP_NAME, sizeof(p.name));
	return put_record(b, PD_RECORD_MMAP2, PD_MISC_KERNEL | PD_MISC_MMAP_BUILD_ID, &p, sizeof(p),
			  trailer_size);
}

int synth_kernel_mmap(struct buf *b, const struct kernel_map *km, const struct build_id *id,
		      size_t trailer_size)
{
	if (id && id->size)
		return kernel_mmap2(b, km, id, trailer_size);
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

int synth_mmap2(struct buf *b, pid_t pid, const struct procfs_map *m, const struct build_id *id,
		size_t trailer_size)
{
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} p = {
		(uint32_t)pid, (uint32_t)pid, m->start, m->end - m->start, m->pgoff,
		m->maj, m->min, m->ino, 0, m->prot, m->flags,
	};
	const char *name = m->path;
	size_t nlen = m->path_len;
	if (nlen == 0 || (nlen >= 6 && memcmp(name, "[anon:", 6) == 0)) {
		name = "//anon";
		nlen = 6;
	}
	if (nlen > 4095)
		nlen = 4095;
	uint16_t misc = PD_MISC_USER;
	if (id && id->size) {
		/* maj, min, ino, ino_generation give way to {size, 3 pad, id[20]}. */
		uint8_t u[24] = { id->size };
		memcpy(u + 4, id->data, id->size);
		memcpy(&p.maj, u, sizeof(u));
		misc |= PD_MISC_MMAP_BUILD_ID;
	}
	char payload[sizeof(p) + 4096];
	memcpy(payload, &p, sizeof(p));
	memcpy(payload + sizeof(p), name, nlen);
	payload[sizeof(p) + nlen] = '\0';
	if (!(m->prot & PROT_EXEC))
		misc |= PD_MISC_MMAP_DATA;
	return put_record(b, PD_RECORD_MMAP2, misc, payload, sizeof(p) + nlen + 1, trailer_size);
}

struct map_ctx {
	struct buf *b;
	const char *root;
	pid_t pid;
	bool data_maps;
	struct idcache *ids;
	size_t trailer;
	size_t maps;
};

static int map_cb(void *ctx, const struct procfs_map *m)
{
	struct map_ctx *c = ctx;
	bool exec = (m->prot & PROT_EXEC) != 0;
	/* perf's unwinder needs the readable file mappings too, where
	 * .eh_frame lives in -z separate-code binaries (format doc 9.2). */
	bool data = c->data_maps && !exec && (m->prot & PROT_READ) && m->path_len > 0 && m->path[0] == '/';
	if (!exec && !data)
		return 0;
	c->maps++;
	struct build_id id = { 0 };
	if (c->ids) {
		int err = idcache_map(c->ids, c->root, c->pid, m, &id);
		if (err == -ENOMEM)
			return err;
	}
	return synth_mmap2(c->b, c->pid, m, &id, c->trailer);
}

/* COMM for each of tids[0..n) but the leader; a thread that exited
 * meanwhile is skipped, the process goes on. */
static int comm_threads(struct buf *b, const char *root, pid_t pid, const pid_t *tids, size_t n,
			size_t trailer_size, size_t *threads)
{
	int err = 0;
	for (size_t i = 0; !err && i < n; i++) {
		char name[PROCFS_COMM_MAX];
		if (tids[i] == pid || procfs_comm(root, pid, tids[i], name))
			continue;
		err = synth_comm(b, pid, tids[i], name, trailer_size);
		if (!err)
			(*threads)++;
	}
	return err;
}

static bool has_tid(const pid_t *tids, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

int synth_process(struct buf *b, const char *root, pid_t pid, const pid_t *tids, size_t nr_tids,
		  bool data_maps, struct idcache *ids, size_t trailer_size, struct synth_counts *cnt)
{
	size_t mark = b->len;
	pid_t *all = NULL;
	size_t n = nr_tids;
	size_t threads = 0;
	struct map_ctx mc = { b, root, pid, data_maps, ids, trailer_size, 0 };

	struct procfs_status leader;
	int err = procfs_status(root, pid, pid, &leader);
	if (!err && !tids) {
		err = procfs_threads(root, pid, &all, &n);
		tids = all;
	}
	/* The order perf record -p writes: the leader's COMM, the process's
	 * maps, then a COMM per other thread (threads share the leader's
	 * maps in every reader). */
	if (!err && has_tid(tids, n, pid)) {
		err = synth_comm(b, pid, pid, leader.name, trailer_size);
		threads++;
	}
	if (!err && !leader.kthread) {
		size_t before_maps = b->len;
		err = procfs_for_each_map(root, pid, map_cb, &mc);
		/* A leader that called pthread_exit is a zombie with no mm while
		 * the other threads run: their maps are the process's. */
		bool leader_gone = leader.state == 'Z' || leader.state == 'X';
		for (size_t i = 0; leader_gone && (!err || err == -ESRCH) && mc.maps == 0 && i < n; i++)
			if (tids[i] != pid)
				err = procfs_for_each_task_map(root, pid, tids[i], map_cb, &mc);
		/* Maps hidden from us (a sandbox's init, say) or unreadable:
		 * keep the thread names, the samples show as unresolved. */
		if (err && err != -ESRCH && err != -ENOMEM && err != -E2BIG) {
			b->len = before_maps;
			mc.maps = 0;
			cnt->unreadable++;
			err = 0;
		}
	}
	if (!err)
		err = comm_threads(b, root, pid, tids, n, trailer_size, &threads);
	free(all);
	if (err == -ESRCH) {
		b->len = mark;
		cnt->vanished++;
		return 0;
	}
	if (err == -ENOMEM || err == -E2BIG)
		return err;
	if (err) {
		b->len = mark;
		cnt->unreadable++;
		return 0;
	}
	cnt->processes++;
	cnt->threads += threads;
	cnt->maps += mc.maps;
	return 0;
}

int synth_kernel(struct buf *b, const struct build_id *id, size_t trailer_size, int *why)
{
	struct kernel_map km;
	*why = synth_find_kernel_map("/proc/kallsyms", "/proc/iomem", &km);
	return *why ? 0 : synth_kernel_mmap(b, &km, id, trailer_size);
}
