/*
 * archive.c - psrec archive: a recording's DSOs in a .tar.zst (see archive.h).
 */
#include "archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buildid/elfid.h"
#include "format/feature.h"
#include "format/reader.h"
#include "psrec/perf_data.h"
#include "util/buf.h"
#include "util/io.h"
#include "util/outfile.h"
#include "util/vec.h"

#define CHUNK (64 * 1024)
#define KERNEL_NAME "[kernel.kallsyms]"
#define VDSO_NAME "[vdso]"
/* MMAP2 with PD_MISC_MMAP_BUILD_ID: header, pid, tid, addr, len, pgoff,
 * then {u8 size; u8, u16 reserved; u8 id[20]} where maj/min/ino were,
 * prot, flags, filename. */
#define MMAP2_ID_OFF 40
#define MMAP2_NAME_OFF 72

struct dso {
	struct build_id id;
	uint16_t misc;
	char *name;
};

/* What the recording asks for. */
struct plan {
	struct dso *dsos;
	size_t nr, cap;
	uint32_t *pids;             /* from COMM records, sorted and unique at the end */
	size_t nr_pids, cap_pids;
};

/* Where a member's bytes come from: an open file, or memory. */
struct source {
	int fd;                     /* -1: mem */
	const uint8_t *mem;
	uint64_t size;
	mode_t mode;
	struct timespec mtime;
	char *path;                 /* for messages */
	struct buf owned;           /* /proc/kallsyms, read whole: its size is
				       known only once it has been read */
};

/* The output: a temporary renamed into place, or written in place. */
struct out {
	struct outfile file;
	const char *path;           /* for messages: "standard output" for - */
};

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->dsos[i].name);
	free(p->dsos);
	free(p->pids);
}

/* One entry per id: the first name it is listed under that the cache can
 * hold (a file may be listed as /usr/bin/x and as /bin/x). */
static int plan_add_dso(struct plan *p, const uint8_t *id, uint8_t size, uint16_t misc, const char *name)
{
	struct build_id bid;
	if (build_id_set(&bid, id, size) < 0)
		return 0; /* no id: nothing could be looked up */
	for (size_t i = 0; i < p->nr; i++) {
		struct dso *d = &p->dsos[i];
		if (!build_id_equal(&d->id, &bid))
			continue;
		if (store_name_ok(d->name) || !store_name_ok(name))
			return 0;
		char *copy = strdup(name);
		if (!copy)
			return -ENOMEM;
		free(d->name);
		d->name = copy;
		d->misc = misc;
		return 0;
	}
	if (VEC_RESERVE(p->dsos, p->cap, p->nr, 1, 64))
		return -ENOMEM;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	p->dsos[p->nr++] = (struct dso){ bid, misc, copy };
	return 0;
}

static int plan_add_pid(struct plan *p, uint32_t pid)
{
	if (p->nr_pids && p->pids[p->nr_pids - 1] == pid)
		return 0; /* the common case: a process's threads in a row */
	if (VEC_RESERVE(p->pids, p->cap_pids, p->nr_pids, 1, 64))
		return -ENOMEM;
	p->pids[p->nr_pids++] = pid;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void plan_unique_pids(struct plan *p)
{
	if (!p->nr_pids)
		return;
	qsort(p->pids, p->nr_pids, sizeof(*p->pids), cmp_u32);
	size_t n = 1;
	for (size_t i = 1; i < p->nr_pids; i++)
		if (p->pids[i] != p->pids[n - 1])
			p->pids[n++] = p->pids[i];
	p->nr_pids = n;
}

/* The build_id records of a BUILD_ID payload or of one HEADER_BUILD_ID
 * record (the same layout). */
static int plan_add_build_ids(struct plan *p, const uint8_t *payload, size_t len, const char *data_path,
			      struct err *e)
{
	size_t off = 0;
	struct feature_build_id_entry ent;
	int k;
	while ((k = feature_build_id_next(payload, len, &off, &ent)) == 1) {
		int err = plan_add_dso(p, ent.id, ent.id_size, ent.misc, ent.name);
		if (err)
			return err;
	}
	if (k < 0)
		return err_set(e, k, "%s: a build-id record at offset %zu of its %zu bytes is malformed", data_path,
			       off, len);
	return 0;
}

/* perf names the kernel's MMAP "[kernel.kallsyms]_text"; the cache and
 * BUILD_ID call it "[kernel.kallsyms]". */
static int plan_add_mmap2(struct plan *p, const struct reader_record *rec)
{
	if (!(rec->misc & PD_MISC_MMAP_BUILD_ID) || rec->size <= MMAP2_NAME_OFF)
		return 0;
	const uint8_t *d = rec->data;
	const char *name = (const char *)d + MMAP2_NAME_OFF;
	if (!memchr(name, '\0', rec->size - MMAP2_NAME_OFF))
		return 0;
	uint8_t size = d[MMAP2_ID_OFF];
	if (size > BUILD_ID_MAX)
		return 0;
	if (strncmp(name, KERNEL_NAME, strlen(KERNEL_NAME)) == 0)
		name = KERNEL_NAME;
	return plan_add_dso(p, d + MMAP2_ID_OFF + 4, size, rec->misc, name);
}

/* Everything the recording names: its BUILD_ID feature (else the ids of
 * its records) and the pids of its COMM records. */
static int plan_read(struct plan *p, const char *data_path, struct err *e)
{
	struct reader r;
	int err = reader_open_file(&r, data_path, e);
	if (err)
		return err;
	const uint8_t *feat;
	size_t feat_len;
	err = reader_feature(&r, PD_FEAT_BUILD_ID, &feat, &feat_len, e);
	bool have_feature = err == 0;
	if (have_feature)
		err = plan_add_build_ids(p, feat, feat_len, data_path, e);
	else if (err == -ENOENT)
		err = 0;
	struct reader_record rec;
	int k = 0;
	while (!err && (k = reader_next(&r, &rec, e)) == 1) {
		if (rec.type == PD_RECORD_COMM && rec.size >= 16) {
			uint32_t pid;
			memcpy(&pid, rec.data + 8, sizeof(pid));
			if (pid != 0)
				err = plan_add_pid(p, pid);
		} else if (!have_feature && rec.type == PD_RECORD_HEADER_BUILD_ID) {
			err = plan_add_build_ids(p, rec.data, rec.size, data_path, e);
		} else if (!have_feature && rec.type == PD_RECORD_MMAP2) {
			err = plan_add_mmap2(p, &rec);
		}
	}
	if (!err && k < 0) {
		struct err inner = *e;
		err = err_set(e, k, "%s: %s", data_path, inner.msg);
	}
	bool pipe = r.pipe, compressed = r.nr_compressed > 0;
	reader_close(&r);
	if (err)
		return err;
	plan_unique_pids(p);
	/* perf record -o - and perf 6.1's -z write no build-ids unless asked
	 * to (checked). */
	if (p->nr == 0 && (pipe || compressed))
		return err_set(e, -ENOENT, "%s has no build-ids: perf record %s leaves them out; record %s, or with "
			       "perf record --buildid-mmap", data_path, pipe ? "-o -" : "-z",
			       pipe ? "to a file" : "without -z");
	if (p->nr == 0)
		return err_set(e, -ENOENT, "%s has no build-ids (recorded with -B?): record again without -B",
			       data_path);
	return 0;
}

/*
 * The one rule every member name obeys, checked as each member is
 * written whatever planned it: relative, with no empty, "." or ".."
 * component, so that extracting cannot write outside the directory given
 * to tar.
 */
static bool member_name_ok(const char *name)
{
	if (*name == '\0' || *name == '/')
		return false;
	for (const char *c = name;;) {
		const char *end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (*end == '\0')
			return true;
		c = end + 1;
	}
}

/* A .build-id link (two directories deep) must land inside the root. */
static bool link_target_ok(const char *target)
{
	return strncmp(target, "../../", 6) == 0 && member_name_ok(target + 6);
}

/* libarchive's words ("Write error") and, when it has one, the errno's. */
static int lib_error(struct archive *a, const struct out *o, struct err *e)
{
	int code = archive_errno(a);
	const char *msg = archive_error_string(a);
	if (code <= 0)
		return err_set(e, -EIO, "cannot write %s: %s", o->path, msg ? msg : "libarchive error");
	if (!msg || strcmp(msg, strerror(code)) == 0)
		return err_set(e, -code, "cannot write %s: %s", o->path, strerror(code));
	return err_set(e, -code, "cannot write %s: %s (%s)", o->path, msg, strerror(code));
}

/* A member's header: a regular file of size bytes, or (link set) a symlink. */
static int put_header(struct archive *a, const struct out *o, const char *name, const char *link,
		      uint64_t size, mode_t mode, const struct timespec *mtime, struct err *e)
{
	if (!member_name_ok(name) || (link && !link_target_ok(link)))
		return err_set(e, -EINVAL, "refusing to write the member %s%s%s into %s: it could land outside "
			       "the directory it is extracted into", name, link ? " -> " : "", link ? link : "", o->path);
	struct archive_entry *ent = archive_entry_new();
	if (!ent)
		return -ENOMEM;
	archive_entry_set_pathname(ent, name);
	if (link) {
		archive_entry_set_filetype(ent, AE_IFLNK);
		archive_entry_set_symlink(ent, link);
		archive_entry_set_perm(ent, 0777);
		archive_entry_set_size(ent, 0);
	} else {
		archive_entry_set_filetype(ent, AE_IFREG);
		archive_entry_set_perm(ent, mode & 0777);
		archive_entry_set_size(ent, (la_int64_t)size);
	}
	archive_entry_set_mtime(ent, mtime->tv_sec, mtime->tv_nsec);
	/* Owned by nobody in particular: extracting as any user gives files
	 * of that user. */
	archive_entry_set_uid(ent, 0);
	archive_entry_set_gid(ent, 0);
	int r = archive_write_header(a, ent);
	archive_entry_free(ent);
	return r == ARCHIVE_OK ? 0 : lib_error(a, o, e);
}

static int put_bytes(struct archive *a, const struct out *o, const void *p, size_t n, struct err *e)
{
	la_ssize_t w = archive_write_data(a, p, n);
	if (w < 0 || (size_t)w != n)
		return lib_error(a, o, e);
	return 0;
}

/* A regular member with the bytes of src, streamed. */
static int put_file(struct archive *a, const struct out *o, const char *name, const struct source *src,
		    uint8_t *chunk, struct err *e)
{
	int err = put_header(a, o, name, NULL, src->size, src->mode, &src->mtime, e);
	if (err)
		return err;
	if (src->fd < 0)
		err = put_bytes(a, o, src->mem, src->size, e);
	for (uint64_t off = 0; !err && src->fd >= 0 && off < src->size;) {
		size_t want = src->size - off < CHUNK ? (size_t)(src->size - off) : CHUNK;
		ssize_t got = pread(src->fd, chunk, want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return err_set(e, -errno, "cannot read %s: %s", src->path, strerror(errno));
		/* The header has promised src->size bytes. */
		if (got == 0)
			return err_set(e, -EAGAIN, "%s shrank while it was being archived; run psrec archive again",
				       src->path);
		err = put_bytes(a, o, chunk, (size_t)got, e);
		off += (uint64_t)got;
	}
	if (!err && archive_write_finish_entry(a) != ARCHIVE_OK)
		err = lib_error(a, o, e);
	return err;
}

static void source_free(struct source *src)
{
	if (src->fd >= 0)
		close(src->fd);
	free(src->path);
	buf_free(&src->owned);
	memset(src, 0, sizeof(*src));
	src->fd = -1;
}

/* Take path as the source if it is a regular file (and, when want is not
 * NULL, an ELF file with that id); O_NONBLOCK so that a FIFO there cannot
 * hang the open. false when it is not there, not readable or not the one. */
static bool source_open(struct source *src, const char *path, const struct build_id *want, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags);
	if (fd < 0)
		return false;
	struct stat st;
	struct build_id got;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (want && (elfid_from_fd(fd, &got) < 0 || !build_id_equal(&got, want)))) {
		close(fd);
		return false;
	}
	char *copy = strdup(path);
	if (!copy) {
		close(fd);
		return false;
	}
	src->fd = fd;
	src->path = copy;
	src->size = (uint64_t)st.st_size;
	src->mode = st.st_mode;
	src->mtime = st.st_mtim;
	return true;
}

/* Whether a kallsyms text has a non-zero address: with kptr_restrict (or
 * without CAP_SYSLOG) every address reads 0, which symbolizes nothing. */
static bool kallsyms_has_addresses(const uint8_t *p, size_t len)
{
	bool in_address = true;     /* each line starts with one */
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\n')
			in_address = true;
		else if (p[i] == ' ')
			in_address = false;
		else if (in_address && p[i] != '0')
			return true;
	}
	return false;
}

/* The running kernel's /proc/kallsyms, when the kernel is the recorded one. */
static int source_kallsyms(struct source *src, const struct build_id *want, bool *found, struct err *e)
{
	struct build_id kid;
	*found = false;
	if (elfid_kernel("/sys", &kid) < 0 || !build_id_equal(&kid, want))
		return 0;
	const char *path = "/proc/kallsyms";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int err = 0;
	for (;;) {
		if (buf_reserve(&src->owned, CHUNK) < 0) {
			err = -ENOMEM;
			break;
		}
		size_t got;
		err = io_read_all(fd, src->owned.data + src->owned.len, CHUNK, &got);
		src->owned.len += got;
		if (err || got < CHUNK)
			break;
	}
	close(fd);
	if (err) {
		buf_free(&src->owned);
		return err_set(e, err, "cannot read %s: %s", path, strerror(-err));
	}
	if (!kallsyms_has_addresses(src->owned.data, src->owned.len)) {
		buf_free(&src->owned);
		return 0;
	}
	src->path = strdup(path);
	if (!src->path) {
		buf_free(&src->owned);
		return -ENOMEM;
	}
	src->mem = src->owned.data;
	src->size = src->owned.len;
	src->mode = st.st_mode;
	src->mtime = st.st_mtim;
	*found = true;
	return 0;
}

static bool source_vdso(struct source *src, const struct build_id *want)
{
	struct build_id vid;
	const void *image;
	size_t len;
	if (elfid_vdso(&vid, &image, &len) < 0 || !build_id_equal(&vid, want))
		return false;
	src->path = strdup(VDSO_NAME);
	if (!src->path)
		return false;
	src->mem = image;
	src->size = len;
	src->mode = S_IFREG | 0755;
	clock_gettime(CLOCK_REALTIME, &src->mtime);
	return true;
}

/* asprintf, NULL on failure (when asprintf leaves its pointer undefined). */
static char *str_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_fmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* The cache's file of the entry, then the DSO where it was recorded. */
static int source_find(struct source *src, const struct store *s, const struct dso *d, const char *file,
		       bool *found, struct err *e)
{
	*found = false;
	char *rel = NULL;
	if (s && store_find(s, &d->id, &rel) == 0) {
		char *path = str_fmt("%s/%s/%s", s->root, rel, file);
		free(rel);
		if (!path)
			return -ENOMEM;
		*found = source_open(src, path, NULL, 0);
		free(path);
		if (*found)
			return 0;
	}
	if (strcmp(d->name, KERNEL_NAME) == 0)
		return source_kallsyms(src, &d->id, found, e);
	if (strcmp(d->name, VDSO_NAME) == 0)
		*found = source_vdso(src, &d->id);
	else if (d->name[0] == '/')
		*found = source_open(src, d->name, &d->id, 0);
	return 0;
}

static void note_missing(struct archive_result *res, const char *name)
{
	if (res->missing++ == 0)
		snprintf(res->first_missing, sizeof(res->first_missing), "%s", name);
}

/* <rel>/debug: the separate debug file of a stripped binary, from the
 * cache, else the distribution's (/usr/lib/debug/.build-id) when it has
 * the recorded id; perf report reads it from the cache entry. */
static int put_debuginfo(struct archive *a, const struct out *o, const struct store *s, const struct dso *d,
			 const char *rel, uint8_t *chunk, struct archive_result *res, struct err *e)
{
	if (d->name[0] != '/')
		return 0;
	char dist[PATH_MAX];
	char *cached = s ? str_fmt("%s/%s/debug", s->root, rel) : NULL;
	char *member = str_fmt("%s/debug", rel);
	if (!member) {
		free(cached);
		return -ENOMEM;
	}
	struct source src = { .fd = -1 };
	bool found = cached && source_open(&src, cached, &d->id, 0);
	if (!found && build_id_debuginfo_path(&d->id, dist, sizeof(dist)) == 0)
		found = source_open(&src, dist, &d->id, 0);
	int err = 0;
	if (found && member_name_ok(member)) {
		err = put_file(a, o, member, &src, chunk, e);
		if (!err)
			res->bytes += src.size;
	}
	source_free(&src);
	free(cached);
	free(member);
	return err;
}

/* One DSO: <name>/<hex>/<file> and its .build-id link, or a miss. */
static int put_dso(struct archive *a, const struct out *o, const struct store *s, const struct dso *d,
		   uint8_t *chunk, struct archive_result *res, struct err *e)
{
	char hex[BUILD_ID_HEX_MAX];
	build_id_hex(&d->id, hex);
	const char *file = strcmp(d->name, KERNEL_NAME) == 0 ? "kallsyms"
			 : strcmp(d->name, VDSO_NAME) == 0   ? "vdso"
							     : "elf";
	char *rel = str_fmt("%s/%s", d->name[0] == '/' ? d->name + 1 : d->name, hex);
	char *member = rel ? str_fmt("%s/%s", rel, file) : NULL;
	char *link = str_fmt(".build-id/%.2s/%s", hex, hex + 2);
	char *target = rel ? str_fmt("../../%s", rel) : NULL;
	int err = rel && member && link && target ? 0 : -ENOMEM;
	/* A name the cache cannot hold ("..", a relative path) is a miss,
	 * not an error: the rest of the recording still symbolizes. */
	struct source src = { .fd = -1 };
	bool found = false;
	if (!err && store_name_ok(d->name) && member_name_ok(rel) && member_name_ok(link))
		err = source_find(&src, s, d, file, &found, e);
	if (!err && !found)
		note_missing(res, d->name);
	if (!err && found)
		err = put_file(a, o, member, &src, chunk, e);
	if (!err && found)
		err = put_header(a, o, link, target, 0, 0, &src.mtime, e);
	if (!err && found) {
		res->dsos++;
		res->bytes += src.size;
		err = put_debuginfo(a, o, s, d, rel, chunk, res, e);
	}
	source_free(&src);
	free(rel);
	free(member);
	free(link);
	free(target);
	return err;
}

/* tmp/perf-PID.map, when the process left one (JIT symbols). */
static int put_map(struct archive *a, const struct out *o, uint32_t pid, uint8_t *chunk,
		   struct archive_result *res, struct err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
	struct source src = { .fd = -1 };
	/* /tmp is anyone's: a link planted there must not make a root run
	 * archive some other file. */
	if (!source_open(&src, path, NULL, O_NOFOLLOW))
		return 0;
	int err = put_file(a, o, path + 1, &src, chunk, e);
	if (!err) {
		res->maps++;
		res->bytes += src.size;
	}
	source_free(&src);
	return err;
}

/* A regular file (or a new name) is written under a temporary name beside
 * it and renamed at the end; a device or a FIFO is written in place, never
 * replaced; "-" is standard output; a link planted into /proc or onto a
 * device is refused (util/outfile.h). */
static int out_open(struct out *o, const char *path, const char *data_path, const struct store *s, struct err *e)
{
	o->path = strcmp(path, "-") == 0 ? "standard output" : path;
	struct stat st, in;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && stat(data_path, &in) == 0 &&
	    in.st_dev == st.st_dev && in.st_ino == st.st_ino)
		return err_set(e, -EINVAL, "cannot write %s: it is the recording itself; give another name with -o",
			       path);
	int err = outfile_open(&o->file, path, "archive-", OUTFILE_STDOUT);
	if (err == -EPERM && o->file.refused[0])
		return err_set(e, err, "%s", o->file.refused);
	if (err == -EISDIR)
		return err_set(e, err, "cannot write %s: it is a directory; give a file name with -o", path);
	if (err == -ENOMEM)
		return err;
	if (err && o->file.direct)
		return err_set(e, err, "cannot write %s: %s", path, strerror(-err));
	if (err)
		return err_set(e, err, "cannot create a file in %s for %s: %s", o->file.dir, path, strerror(-err));
	/* Under sudo the archive belongs to the user, like the cache. */
	if (!o->file.direct && s && s->set_owner && fchown(o->file.fd, s->uid, s->gid) < 0)
		return err_set(e, -errno, "cannot give %s to uid %u: %s", o->file.tmp, (unsigned)s->uid,
			       strerror(errno));
	return 0;
}

/* Name the finished archive; fsync first, so a crash cannot leave an
 * empty file under the name. */
static int out_commit(struct out *o, struct err *e)
{
	if (o->file.direct)
		return 0;
	if (fsync(o->file.fd) < 0)
		return err_set(e, -errno, "cannot write %s: %s", o->path, strerror(errno));
	int err = outfile_commit(&o->file);
	if (err)
		return err_set(e, err, "cannot rename %s to %s: %s", o->file.tmp, o->path, strerror(-err));
	return 0;
}

static int write_members(struct archive *a, const struct out *o, const struct store *s, const struct plan *p,
			 struct archive_result *res, struct err *e)
{
	uint8_t *chunk = malloc(CHUNK);
	if (!chunk)
		return -ENOMEM;
	int err = 0;
	for (size_t i = 0; !err && i < p->nr; i++)
		err = put_dso(a, o, s, &p->dsos[i], chunk, res, e);
	for (size_t i = 0; !err && i < p->nr_pids; i++)
		err = put_map(a, o, p->pids[i], chunk, res, e);
	free(chunk);
	return err;
}

int archive_write(const char *data_path, const char *out_path, const struct store *s,
		  struct archive_result *res, struct err *e)
{
	memset(res, 0, sizeof(*res));
	struct plan p = { 0 };
	int err = plan_read(&p, data_path, e);
	if (err) {
		plan_free(&p);
		return err;
	}
	struct out o = { OUTFILE_INIT, out_path };
	err = out_open(&o, out_path, data_path, s, e);
	struct archive *a = err ? NULL : archive_write_new();
	if (!err && !a)
		err = -ENOMEM;
	if (!err && (archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
		     archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
		     /* no padding after the zstd frame: zstd -d would read it as garbage */
		     archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
		     archive_write_open_fd(a, o.file.fd) != ARCHIVE_OK))
		err = lib_error(a, &o, e);
	if (!err)
		err = write_members(a, &o, s, &p, res, e);
	if (!err && archive_write_close(a) != ARCHIVE_OK)
		err = lib_error(a, &o, e);
	if (!err) {
		res->out_bytes = (uint64_t)archive_filter_bytes(a, -1);
		err = out_commit(&o, e);
	}
	if (a)
		archive_write_free(a);
	outfile_close(&o.file);
	plan_free(&p);
	return err;
}
