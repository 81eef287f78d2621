/*
 * buildids.c - the DSOs a recording hit and their build-ids (see
 * buildids.h).
 */
#include "buildids.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid/elfid.h"
#include "format/feature.h"
#include "marker/tp.h"
#include "format/reader.h"
#include "format/sample.h"
#include "record/procfs.h"
#include "session/session.h"

#define KERNEL_NAME SIDEBAND_KERNEL_NAME
#define VDSO_NAME SIDEBAND_VDSO_NAME

void buildids_init(struct buildids *b)
{
	memset(b, 0, sizeof(*b));
	sideband_init(&b->sb);
}

void buildids_free(struct buildids *b)
{
	sideband_free(&b->sb);
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void hit(struct buildids *b, int32_t pid, uint64_t addr, uint64_t time, int mode)
{
	if (mode != PD_MISC_KERNEL && mode != PD_MISC_GUEST_KERNEL && mode != PD_MISC_USER && mode != PD_MISC_GUEST_USER)
		return; /* hypervisor, unknown: nothing of ours */
	const struct maps_entry *m = sideband_map(&b->sb, pid, addr, time, mode);
	if (m)
		b->sb.dsos.v[m->dso].hits++;
	else
		b->unresolved++;
}

/* Markers name their call site's binary, which perf report needs too; but
 * a flood comes from a few sites: each (pid, ip) is looked up once, as
 * far as this direct-mapped memo remembers (a miss only costs a lookup). */
#define MARKER_SITES 256

static bool marker_site_seen(uint64_t (*seen)[2], int32_t pid, uint64_t ip)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 ^ ip;
	uint64_t *slot = seen[(key ^ key >> 17) % MARKER_SITES];
	if (slot[0] == key && slot[1] == 1)
		return true;
	slot[0] = key;
	slot[1] = 1;
	return false;
}

struct scan {
	struct buildids *b;
	uint64_t sites[MARKER_SITES][2];
};

/* A sample: the DSOs of its IP and chain entries are hit. */
static int mark_hits(void *arg, const struct session_sample *ss)
{
	struct scan *sc = arg;
	struct buildids *b = sc->b;
	const struct reader_record *rec = ss->rec;
	/* A marker's IDENTIFIER, IP, TID lead (marker/tp.h): a site seen
	 * before is not looked up again. */
	if (marker_tp_is(&ss->attr->attr) && rec->size >= 32 &&
	    marker_site_seen(sc->sites, (int32_t)get_u64(rec->data + 24), get_u64(rec->data + 16)))
		return 0;
	if (!ss->parsed)
		return 0;
	const struct sample *s = &ss->s;
	b->samples++;
	int mode = rec->misc & PD_MISC_CPUMODE_MASK;
	int32_t pid = (int32_t)s->pid;
	if (ss->attr->attr.sample_type & PD_SAMPLE_IP)
		hit(b, pid, s->ip, s->time, mode);
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = get_u64(s->callchain + 8 * i);
		if (sample_chain_marker(ip, &mode))
			continue;
		/* The first entry repeats the sample IP. */
		if (i <= 1 && ip == s->ip)
			continue;
		hit(b, pid, ip, s->time, mode);
	}
	return 0;
}

int buildids_scan(struct buildids *b, const void *p, size_t len, const struct pd_file_header *hdr,
		  bool file_mapped, struct err *e)
{
	struct reader r;
	int err = reader_open_mem_as(&r, p, len, hdr, e);
	if (err)
		return err;
	r.release = file_mapped;
	/* one pass: a -z file's records are decoded once */
	struct session s;
	struct scan sc = { b, { { 0 } } };
	err = session_take(&s, &r, e);
	if (!err)
		err = session_load(&s, &b->sb, e);
	if (!err)
		err = session_samples(&s, mark_hits, &sc);
	b->decoded = session_decoded(&s);
	session_close(&s);
	return err;
}

static bool listed(const struct dso *d, bool all)
{
	return d->hits || all;
}

int buildids_resolve(struct buildids *b, bool all, const struct build_id *kernel_id, struct idcache *ids)
{
	struct build_id vdso = { 0 };
	const void *image;
	size_t image_len;
	bool vdso_read = false;
	for (size_t i = 0; i < b->sb.dsos.n; i++) {
		struct dso *d = &b->sb.dsos.v[i];
		if (d->id.size || !listed(d, all))
			continue;
		if (d->kernel) {
			if (kernel_id && strcmp(d->name, KERNEL_NAME) == 0)
				d->id = *kernel_id;
			continue;
		}
		if (strcmp(d->name, VDSO_NAME) == 0) {
			if (!vdso_read && elfid_vdso(&vdso, &image, &image_len) != 0)
				vdso.size = 0;
			vdso_read = true;
			d->id = vdso;
			continue;
		}
		if (d->name[0] != '/' || !ids || d->pid < 0)
			continue;
		struct procfs_map m = {
			.start = d->start, .end = d->end, .maj = d->maj, .min = d->min, .ino = d->ino,
			.path = d->name, .path_len = strlen(d->name),
		};
		struct build_id id;
		int err = idcache_map(ids, "/proc", d->pid, &m, &id);
		if (err == -ENOMEM)
			return err;
		if (!err)
			d->id = id;
	}
	return 0;
}

/* Of several DSOs sharing a name (a binary replaced while recording), the
 * feature can name one: perf keeps one id per name. The most hit wins. */
static bool shadowed(const struct buildids *b, size_t i)
{
	const struct dso *d = &b->sb.dsos.v[i];
	for (size_t j = 0; j < b->sb.dsos.n; j++) {
		const struct dso *o = &b->sb.dsos.v[j];
		if (j == i || !o->id.size || o->kernel != d->kernel || strcmp(o->name, d->name))
			continue;
		if (o->hits > d->hits || (o->hits == d->hits && j < i))
			return true;
	}
	return false;
}

static bool feature_worthy(const struct buildids *b, size_t i, bool all)
{
	const struct dso *d = &b->sb.dsos.v[i];
	return d->id.size && listed(d, all) && (d->name[0] == '/' || d->name[0] == '[') && !shadowed(b, i);
}

int buildids_feature(const struct buildids *b, bool all, struct buf *out, size_t *nr)
{
	*nr = 0;
	/* The kernel first, as perf record writes it. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < b->sb.dsos.n; i++) {
			const struct dso *d = &b->sb.dsos.v[i];
			if (d->kernel != (pass == 0) || !feature_worthy(b, i, all))
				continue;
			uint16_t misc = (d->kernel ? PD_MISC_KERNEL : PD_MISC_USER) | PD_MISC_BUILD_ID_SIZE;
			int err = feature_build_id(out, -1, misc, d->id.data, d->id.size, d->name);
			if (err == -E2BIG)
				continue;
			if (err)
				return err;
			(*nr)++;
		}
	}
	return 0;
}

/* An fd of the file with id d->id: the mapped file while the process
 * lives, else the path if it still holds that build. -ENOENT otherwise. */
static int open_dso(const struct dso *d)
{
	char path[96];
	struct build_id id;
	if (d->pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, d->pid, d->start, d->end);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (elfid_from_fd(fd, &id) == 0 && build_id_equal(&id, &d->id))
				return fd;
			close(fd);
		}
	}
	int fd = open(d->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (elfid_from_fd(fd, &id) == 0 && build_id_equal(&id, &d->id))
		return fd;
	close(fd);
	return -ENOENT;
}

/* /proc/kallsyms is worth copying only with real addresses (not hidden by
 * kptr_restrict) and only for the kernel that was recorded. */
static int open_kallsyms(const struct dso *d, const struct build_id *kernel_id)
{
	if (!kernel_id || !build_id_equal(kernel_id, &d->id))
		return -ENOENT;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char line[32];
	ssize_t n = pread(fd, line, sizeof(line), 0);
	if (n < 17 || strspn(line, "0") >= 16) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The distribution's separate debug file of d, beside its elf as perf
 * keeps it ("debug": what symbolizes a stripped system library on
 * another machine). Absent is fine; 0, 1 (was there) or -errno. */
static int add_debuginfo(const struct dso *d, const struct store *s, struct buildids_cached *res, struct err *e)
{
	char path[PATH_MAX];
	struct build_id id;
	if (build_id_debuginfo_path(&d->id, path, sizeof(path)))
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	int err = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && elfid_from_fd(fd, &id) == 0 && build_id_equal(&id, &d->id)) {
		err = store_add_fd(s, d->name, &d->id, fd, "debug", e);
		if (err == 0)
			res->bytes += (uint64_t)st.st_size;
	}
	close(fd);
	return err;
}

int buildids_cache(const struct buildids *b, bool all, const struct build_id *kernel_id,
		   const struct store *s, struct buildids_cached *res, struct err *e)
{
	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < b->sb.dsos.n; i++) {
		const struct dso *d = &b->sb.dsos.v[i];
		if (!feature_worthy(b, i, all) || !store_name_ok(d->name))
			continue;
		if (store_has(s, &d->id)) {
			res->present++;
			continue;
		}
		int err;
		if (d->kernel && strcmp(d->name, KERNEL_NAME) == 0) {
			int fd = open_kallsyms(d, kernel_id);
			if (fd < 0) {
				res->missing++;
				continue;
			}
			err = store_add_fd(s, d->name, &d->id, fd, "kallsyms", e);
			close(fd);
		} else if (d->kernel) {
			continue; /* modules: not cached yet */
		} else if (strcmp(d->name, VDSO_NAME) == 0) {
			struct build_id id;
			const void *image;
			size_t len;
			if (elfid_vdso(&id, &image, &len) || !build_id_equal(&id, &d->id)) {
				res->missing++;
				continue;
			}
			err = store_add_mem(s, d->name, &d->id, image, len, "vdso", e);
		} else {
			int fd = open_dso(d);
			if (fd < 0) {
				res->missing++;
				continue;
			}
			struct stat st;
			if (fstat(fd, &st) == 0)
				res->bytes += (uint64_t)st.st_size;
			err = store_add_fd(s, d->name, &d->id, fd, "elf", e);
			close(fd);
			if (err >= 0) {
				int derr = add_debuginfo(d, s, res, e);
				if (derr < 0)
					return derr;
			}
		}
		if (err < 0)
			return err;
		if (err == 1)
			res->present++;
		else
			res->added++;
	}
	return 0;
}

/* ---- one recording's pass, file by file -------------------------------- */

void buildids_pass_init(struct buildids_pass *p, const struct record_config *cfg, const struct notify *say)
{
	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->say = *say;
	idcache_init(&p->ids);
	buildids_init(&p->dsos);
}

void buildids_pass_free(struct buildids_pass *p)
{
	buf_free(&p->feature);
	buildids_free(&p->dsos);
	idcache_free(&p->ids);
}

struct idcache *buildids_pass_start(struct buildids_pass *p)
{
	if (p->cfg->no_buildid)
		return NULL;
	elfid_kernel("/sys", &p->kernel_id); /* unreadable: the kernel goes unnamed */
	return &p->ids;
}

/* The file's records scanned from the mapping p..len, its DSOs resolved,
 * the payload made. */
static int collect_mapped(struct buildids_pass *p, const void *map, size_t len, const struct writer *w, struct err *e)
{
	struct pd_file_header hdr = w->hdr;
	hdr.data.offset = w->data_offset;
	hdr.data.size = writer_data_size(w);
	memset(hdr.features, 0, sizeof(hdr.features));
	size_t listed = 0;
	bool all = p->cfg->buildid_all;
	int err = buildids_scan(&p->dsos, map, len, &hdr, true, e);
	if (!err)
		err = buildids_resolve(&p->dsos, all, &p->kernel_id, &p->ids);
	if (!err)
		err = buildids_feature(&p->dsos, all, &p->feature, &listed);
	if (!err)
		p->listed = listed;
	return err;
}

const struct buf *buildids_pass_collect(struct buildids_pass *p, int fd, const struct writer *w)
{
	const struct record_config *c = p->cfg;
	buildids_free(&p->dsos);
	buildids_init(&p->dsos);
	buf_reset(&p->feature);
	p->made = false;
	if (c->no_buildid || fd < 0 || w->end <= w->data_offset)
		return NULL;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rfd = open(path, O_RDONLY | O_CLOEXEC);
	void *map = rfd < 0 ? MAP_FAILED : mmap(NULL, w->end, PROT_READ, MAP_SHARED, rfd, 0);
	int map_errno = errno;
	if (rfd >= 0)
		close(rfd);
	if (map == MAP_FAILED) {
		notify_say(&p->say, NOTIFY_WARN, "no build-ids: cannot read back %s: %s", c->output, strerror(map_errno));
		return NULL;
	}
	struct err e = { { 0 } };
	int err = collect_mapped(p, map, w->end, w, &e);
	munmap(map, w->end);
	if (err) {
		notify_say(&p->say, NOTIFY_WARN, "no build-ids: %s", e.msg[0] ? e.msg : strerror(-err));
		return NULL;
	}
	p->made = true;
	notify_say(&p->say, NOTIFY_VERBOSE,
		   "build-ids: %zu DSOs listed (of %zu mapped), %" PRIu64 " addresses in no known map, %" PRIu64 " files read",
		   p->listed, p->dsos.sb.dsos.n, p->dsos.unresolved, p->ids.files_read);
	return &p->feature;
}

void buildids_pass_cache(struct buildids_pass *p)
{
	if (!p->made || p->cfg->no_buildid_cache)
		return;
	struct store s;
	struct err e = { { 0 } };
	if (store_open(&s, NULL, &e)) {
		notify_say(&p->say, NOTIFY_WARN, "build-id cache skipped: %s", e.msg);
		return;
	}
	struct buildids_cached res;
	int err = buildids_cache(&p->dsos, p->cfg->buildid_all, &p->kernel_id, &s, &res, &e);
	if (err)
		notify_say(&p->say, NOTIFY_WARN, "build-id cache %s: %s (record with -N to skip it)", s.root, e.msg);
	else
		notify_say(&p->say, NOTIFY_VERBOSE, "build-id cache %s: %zu added (%.1f MB), %zu present, %zu not found",
			   s.root, res.added, (double)res.bytes / 1e6, res.present, res.missing);
	p->cache_added = res.added;
	p->cache_missing = res.missing;
	store_close(&s);
}
