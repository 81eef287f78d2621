/*
 * markers.c - claim, drain and count marker channels (see markers.h).
 */
#include "markers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "format/walk.h"
#include "marker/tp.h"
#include "psrec/marker.h"
#include "util/vec.h"

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The offset read between two CLOCK_MONOTONIC reads, the closest pair
 * of a few (a preemption in between would skew it). */
static int64_t clock_offset(int clockid)
{
	if (clockid == CLOCK_MONOTONIC)
		return 0;
	int64_t best = 0, span = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		int64_t a = ns_of(CLOCK_MONOTONIC), x = ns_of(clockid), b = ns_of(CLOCK_MONOTONIC);
		if (b - a < span) {
			span = b - a;
			best = x - (a + (b - a) / 2);
		}
	}
	return best;
}

void markers_init(struct markers *m, uint64_t sample_type, int clockid)
{
	memset(m, 0, sizeof(*m));
	m->self = getpid();
	m->sample_type = sample_type;
	m->clock_offset = clock_offset(clockid);
	m->out = (struct buf)BUF_INIT;
	m->tmp = (struct buf)BUF_INIT;
}

static void warn_once(struct markers *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn_once(struct markers *m, const char *fmt, ...)
{
	if (m->warning[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->warning, sizeof(m->warning), fmt, ap);
	va_end(ap);
}

static int push_chan(struct markers *m, const struct marker_chan *c)
{
	if (VEC_RESERVE(m->ch, m->cap, m->n, 1, 4))
		return -ENOMEM;
	m->ch[m->n++] = *c;
	m->st.channels++;
	return 0;
}

static void unmap_chan(struct markers *m, struct marker_chan *c)
{
	if (c->map) {
		munmap(c->map, c->map_len);
		m->mapped -= c->size;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->map = NULL;
	c->fd = -1;
}

/* Why a channel was not taken (map_chan), for the one warning. */
#define MAP_UNKNOWN   (-EPROTO)  /* not a control page psrec knows */
#define MAP_TOO_BIG   (-EFBIG)   /* a foreign ring past MARKERS_FOREIGN_MAX */
#define MAP_OVER      (-ENOSPC)  /* past MARKERS_MAP_BUDGET */

/* Map fd (already checked to be sealed) and check its control page;
 * foreign: a channel psrec did not make. */
static int map_chan(struct markers *m, struct marker_chan *c, int fd, const struct stat *sb, bool foreign)
{
	c->fd = fd;
	if ((uint64_t)sb->st_size < PSREC_MARKER_CTL_SIZE)
		return MAP_UNKNOWN;
	void *p = mmap(NULL, PSREC_MARKER_CTL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	const struct psrec_marker_ctl *ctl = p;
	uint64_t magic = LOAD_ACQ(&ctl->magic);
	uint64_t size = ctl->data_size;
	bool ok = magic == PSREC_MARKER_MAGIC && ctl->version == PSREC_MARKER_VERSION &&
		  ctl->ctl_size == PSREC_MARKER_CTL_SIZE && size >= (64u << 10) && size <= (1ULL << 30) &&
		  (size & (size - 1)) == 0 && (uint64_t)sb->st_size == PSREC_MARKER_CTL_SIZE + size;
	munmap(p, PSREC_MARKER_CTL_SIZE);
	if (!ok)
		return MAP_UNKNOWN;
	if (foreign && size > MARKERS_FOREIGN_MAX)
		return MAP_TOO_BIG;
	if (m->mapped + size > MARKERS_MAP_BUDGET)
		return MAP_OVER;
	c->map_len = PSREC_MARKER_CTL_SIZE + size;
	p = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->mapped += size;
	c->map = p;
	c->ctl = p;
	c->data = c->map + PSREC_MARKER_CTL_SIZE;
	c->size = size;
	c->dev = (uint64_t)sb->st_dev;
	c->ino = (uint64_t)sb->st_ino;
	return 0;
}

/* Unmap from psrec the whole pages of the ring read between free-running
 * positions from and to: they count in its RSS (and a container's memory
 * limit) until then. The memfd keeps their data; the program's mapping
 * is not touched. */
static void release_pages(struct marker_chan *c, uint64_t from, uint64_t to)
{
	const uint64_t pg = PSREC_MARKER_CTL_SIZE; /* a page: the ring starts one in */
	uint64_t a = from & ~(pg - 1), b = to & ~(pg - 1);
	while (a < b) {
		uint64_t off = a & (c->size - 1);
		uint64_t n = b - a;
		if (n > c->size - off)
			n = c->size - off;
		madvise(c->data + off, n, MADV_DONTNEED);
		a += n;
	}
}

/* Zero the ring between free-running positions from and to, a chunk at
 * a time, each unmapped from psrec once zeroed: zeroing a whole foreign
 * ring must not make it all resident here at once. */
#define ZERO_CHUNK (1u << 20)

static void zero_ring(struct marker_chan *c, uint64_t from, uint64_t to)
{
	while (from < to) {
		uint64_t off = from & (c->size - 1);
		uint64_t n = to - from;
		if (n > c->size - off)
			n = c->size - off;
		if (n > ZERO_CHUNK)
			n = ZERO_CHUNK;
		memset(c->data + off, 0, n);
		release_pages(c, from, from + n);
		from += n;
	}
}

/* Take the channel for this psrec: forget what an earlier reader left
 * (zeroed, so that "size 0 = uncommitted" holds), then let the
 * producers in. */
static int claim(struct markers *m, struct marker_chan *c)
{
	struct psrec_marker_ctl *ctl = c->ctl;
	uint32_t cur = LOAD_ACQ(&ctl->consumer);
	if (cur == (uint32_t)m->self)
		return -EALREADY; /* ours already: nothing to forget */
	if (cur) {
		if (kill((pid_t)cur, 0) == 0 || errno == EPERM)
			return -EBUSY;
		/* Its reader died (kill -9): take it over. */
		if (!__atomic_compare_exchange_n(&ctl->consumer, &cur, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return -EBUSY;
	}
	uint64_t h = LOAD_ACQ(&ctl->head), t = ctl->tail;
	zero_ring(c, h - t >= c->size ? h - c->size : t, h);
	STORE_REL(&ctl->tail, h);
	__atomic_add_fetch(&ctl->epoch, 1, __ATOMIC_RELAXED);
	c->dropped0 = LOAD_ACQ(&ctl->dropped);
	c->truncated0 = LOAD_ACQ(&ctl->truncated);
	uint32_t zero = 0;
	if (!__atomic_compare_exchange_n(&ctl->consumer, &zero, (uint32_t)m->self, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return -EBUSY;
	return 0;
}

int markers_create(struct markers *m, uint64_t data_size, int *fd_out)
{
	int fd = memfd_create(PSREC_MARKER_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	struct marker_chan c = { .fd = -1 };
	int err = 0;
	if (ftruncate(fd, (off_t)(PSREC_MARKER_CTL_SIZE + data_size)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		err = -errno;
	void *p = err ? MAP_FAILED : mmap(NULL, PSREC_MARKER_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!err && p == MAP_FAILED)
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	struct psrec_marker_ctl *ctl = p;
	ctl->version = PSREC_MARKER_VERSION;
	ctl->ctl_size = PSREC_MARKER_CTL_SIZE;
	ctl->data_size = data_size;
	ctl->creator = (uint32_t)m->self;
	STORE_REL(&ctl->magic, PSREC_MARKER_MAGIC);
	munmap(p, PSREC_MARKER_CTL_SIZE);
	struct stat sb;
	err = fstat(fd, &sb) < 0 ? -errno : map_chan(m, &c, fd, &sb, false);
	if (!err)
		err = claim(m, &c);
	if (!err)
		err = push_chan(m, &c);
	if (err) {
		unmap_chan(m, &c);
		return err == MAP_UNKNOWN ? -EPROTO : err;
	}
	*fd_out = fd;
	return 0;
}

int markers_watch(struct markers *m, const pid_t *pids, size_t n)
{
	if (n == 0)
		return 0;
	if (n > SIZE_MAX / sizeof(pid_t) - m->nr_want)
		return -ENOMEM;
	pid_t *w = realloc(m->want, (m->nr_want + n) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	m->want = w;
	for (size_t i = 0; i < n; i++)
		m->want[m->nr_want++] = pids[i];
	m->next_scan_ms = 0;
	return 0;
}

static bool known(const struct markers *m, const struct stat *sb)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->ch[i].ino == (uint64_t)sb->st_ino && m->ch[i].dev == (uint64_t)sb->st_dev)
			return true;
	return false;
}

/* Say once why the channel of process pid was not taken. */
static void refused(struct markers *m, pid_t pid, int err, uint64_t size)
{
	if (err == -EALREADY)
		return; /* this psrec's own under another inode */
	if (err == -EBUSY) {
		m->st.foreign++;
		warn_once(m, "the markers of process %d are read by another psrec", pid);
		return;
	}
	m->st.refused++;
	if (err == -EPERM)
		warn_once(m, "process %d has a marker channel that is not sealed (it could shrink under psrec): its markers are not recorded",
			  pid);
	else if (err == MAP_TOO_BIG)
		warn_once(m, "process %d offers a %" PRIu64 " MiB marker channel, more than the %u MiB psrec reads from a program: its markers are not recorded",
			  pid, size >> 20, MARKERS_FOREIGN_MAX >> 20);
	else if (err == MAP_OVER)
		warn_once(m, "marker channels already take %" PRIu64 " MiB (at most %u MiB): the markers of process %d are not recorded",
			  m->mapped >> 20, MARKERS_MAP_BUDGET >> 20, pid);
	else if (err == MAP_UNKNOWN)
		warn_once(m, "process %d has a marker channel psrec cannot read (another version of libpsrec-marker?): its markers are not recorded",
			  pid);
	else
		warn_once(m, "cannot read the marker channel of process %d: %s", pid, strerror(-err));
}

/* Open for reading and writing the memfd named want that the program's
 * fd at path was when we looked. The program may have put another file
 * there since (dup2), a device even, which an open with psrec's rights
 * would open: so the fd is taken with O_PATH first (which opens nothing
 * a device notices), checked to be a regular file that still has the
 * name, and only then reopened through psrec's own fd. -1 if not. */
static int open_memfd(const char *path, const char *want, size_t want_len)
{
	int pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	char self[64], link[128];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	struct stat sb;
	ssize_t l = readlink(self, link, sizeof(link) - 1);
	int fd = -1;
	if (fstat(pfd, &sb) == 0 && S_ISREG(sb.st_mode) && l == (ssize_t)want_len && memcmp(link, want, want_len) == 0)
		fd = open(self, O_RDWR | O_CLOEXEC | O_NOCTTY);
	close(pfd);
	return fd;
}

/* The library's channel in pid's fd table: 1 found (or already known),
 * 0 none yet, -ESRCH the process is gone. */
static int scan_pid(struct markers *m, pid_t pid)
{
	static const char want[] = "/memfd:" PSREC_MARKER_MEMFD_NAME " (deleted)";
	char dir[64], path[384], link[128];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? -ESRCH : 0;
	int found = 0;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l != (ssize_t)sizeof(want) - 1 || memcmp(link, want, sizeof(want) - 1) != 0)
			continue;
		int fd = open_memfd(path, want, sizeof(want) - 1);
		struct stat sb;
		if (fd < 0 || fstat(fd, &sb) < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (known(m, &sb)) {
			close(fd);
			found = 1;
			break;
		}
		/* Unsealed, the program could shrink it under psrec's reads. */
		int seals = fcntl(fd, F_GET_SEALS);
		bool sealed = seals >= 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW);
		struct marker_chan c = { .fd = fd, .pid = pid };
		int err = sealed ? map_chan(m, &c, fd, &sb, true) : -EPERM;
		if (!err)
			err = claim(m, &c);
		if (!err)
			err = push_chan(m, &c);
		if (err) {
			uint64_t size = c.map ? c.size : 0;
			if (!size) {
				/* Said in MiB: read once more, for the message only. */
				struct psrec_marker_ctl peek;
				size = pread(fd, &peek, sizeof(peek), 0) == (ssize_t)sizeof(peek) ? peek.data_size : 0;
			}
			unmap_chan(m, &c);
			refused(m, pid, err, size);
		}
		found = 1;
	}
	closedir(d);
	return found;
}

void markers_scan(struct markers *m, uint64_t now_ms)
{
	if (m->stopped || !m->nr_want || now_ms < m->next_scan_ms)
		return;
	m->next_scan_ms = now_ms + MARKERS_SCAN_MS;
	for (size_t i = 0; i < m->nr_want;) {
		int r = scan_pid(m, m->want[i]);
		if (r != 0)
			m->want[i] = m->want[--m->nr_want];
		else
			i++;
	}
}

static int push_slot(struct markers *m, uint64_t time, size_t off, size_t len)
{
	if (VEC_RESERVE(m->idx, m->capidx, m->nidx, 1, 1024))
		return -ENOMEM;
	m->idx[m->nidx++] = (struct marker_slot){ time, (uint32_t)off, (uint32_t)len };
	return 0;
}

/* End channel c: a record that broke the protocol (nomem: psrec ran out
 * of memory converting it). Its later markers are lost, no others. */
static void end_chan(struct markers *m, struct marker_chan *c, bool nomem)
{
	c->broken = true;
	m->st.broken++;
	const char *why = nomem ? "psrec ran out of memory for the markers" : "a bad record in the marker channel";
	if (c->pid)
		warn_once(m, "%s of process %d: its later markers are not recorded", why, c->pid);
	else
		warn_once(m, "%s of the command: its later markers are not recorded", why);
}

static union psrec_marker_word first_word(const uint8_t *p)
{
	union psrec_marker_word w;
	w.w = LOAD_ACQ((const uint64_t *)p);
	return w;
}

/* Whether thread tid of process pid still exists (it may yet commit). */
static bool writer_alive(uint32_t pid, uint32_t tid)
{
	if (pid == 0 || tid == 0 || pid > INT32_MAX || tid > INT32_MAX)
		return false;
	return syscall(SYS_tgkill, (pid_t)pid, (pid_t)tid, 0) == 0 || errno == EPERM;
}

/* The record at t (size 0) will not be committed: the bytes to skip, or
 * 0 to wait. h: head as read for this pass. */
static uint64_t abandoned_len(struct marker_chan *c, uint64_t t, uint64_t h, uint64_t now_ms,
			      bool *bad)
{
	const uint8_t *p = c->data + (t & (c->size - 1));
	union psrec_marker_word w = first_word(p);
	if (w.f.kind == PSREC_MK_STAMP) {
		uint64_t len = (uint64_t)w.f.flags * 8;
		if (len < PSREC_MARKER_REC_HDR || len > h - t || (t & (c->size - 1)) + len > c->size) {
			*bad = true;
			return 0;
		}
		/* The stamp's release store published pid and tid. */
		const struct psrec_marker_rec *r = (const struct psrec_marker_rec *)p;
		uint32_t pid = __atomic_load_n(&r->pid, __ATOMIC_RELAXED);
		uint32_t tid = __atomic_load_n(&r->tid, __ATOMIC_RELAXED);
		return writer_alive(pid, tid) ? 0 : len;
	}
	/* Not stamped: only time tells a writer that died from a slow one. */
	if (c->stall_ms == 0 || c->stall_tail != t) {
		c->stall_tail = t;
		c->stall_ms = now_ms + 1; /* 0: not stalled */
		return 0;
	}
	if (now_ms + 1 < c->stall_ms + MARKERS_STALL_MS)
		return 0;
	/* An older library fills the header in order, kind first and size
	 * last: with its kind there, its len is likely there too. */
	if (w.f.kind) {
		uint32_t len = __atomic_load_n(&((const struct psrec_marker_rec *)p)->len, __ATOMIC_RELAXED);
		uint64_t need = (PSREC_MARKER_REC_HDR + (uint64_t)len + 7) & ~(uint64_t)7;
		if (len <= PSREC_MARK_MAX && need <= h - t && (t & (c->size - 1)) + need <= c->size)
			return need;
	}
	/* Free bytes are zero: the next record begins at the next nonzero
	 * word. */
	for (uint64_t q = t + 8; q < h; q += 8)
		if (__atomic_load_n((const uint64_t *)(c->data + (q & (c->size - 1))), __ATOMIC_RELAXED))
			return q - t;
	return h - t;
}

/* A marker's time on the recording's clock, kept within what perf can
 * sort: not after now (m->ceil), not before m->floor. */
static uint64_t marker_time(const struct markers *m, uint64_t mono)
{
	uint64_t t = (uint64_t)((int64_t)mono + m->clock_offset);
	if (t > m->ceil)
		t = m->ceil;
	if (t < m->floor)
		t = m->floor;
	return t;
}

/* The committed records of c from its tail up to c->limit (its head
 * when the pass began) into m->out, until m->out holds MARKERS_PASS_OUT
 * bytes (m->more: the pass goes on). copy: room for one payload. */
static void drain_chan(struct markers *m, struct marker_chan *c, uint64_t now_ms, uint8_t *copy)
{
	struct psrec_marker_ctl *ctl = c->ctl;
	uint64_t t = ctl->tail, h = c->limit, start = t;
	uint64_t mask = c->size - 1;
	/* tail is in the program's memory too: one it left unaligned would
	 * have the first word read misaligned and, in the last bytes of the
	 * ring, past its end. */
	if (h - t > c->size || t % 8) {
		end_chan(m, c, false);
		return;
	}
	bool bad = false, nomem = false;
	while (t != h) {
		if (m->out.len >= MARKERS_PASS_OUT) {
			m->more = true;
			break;
		}
		uint64_t off = t & mask;
		uint8_t *p = c->data + off;
		union psrec_marker_word w = first_word(p);
		uint32_t sz = w.f.size;
		if (sz == 0) {
			uint64_t skip = abandoned_len(c, t, h, now_ms, &bad);
			if (!skip)
				break; /* not committed yet: the next pass */
			zero_ring(c, t, t + skip);
			m->st.abandoned++;
			c->stall_ms = 0;
			t += skip;
			continue;
		}
		if (sz % 8 || sz > h - t || off + sz > c->size || (w.f.kind != PSREC_MK_PAD && sz < PSREC_MARKER_REC_HDR)) {
			bad = true;
			break;
		}
		if (w.f.kind != PSREC_MK_PAD) {
			/* One copy out of the program's memory, checked and
			 * converted from there: the program may rewrite the
			 * ring under us, but not the copy. */
			struct psrec_marker_rec r;
			memcpy(&r, p, sizeof(r));
			r.size = sz;
			r.kind = w.f.kind;
			r.flags = w.f.flags;
			if (r.len > sz - PSREC_MARKER_REC_HDR) {
				bad = true;
				break;
			}
			if (r.len > PSREC_MARK_MAX) {
				r.len = PSREC_MARK_MAX;
				r.flags |= PSREC_MKF_TRUNCATED;
			}
			memcpy(copy, p + PSREC_MARKER_REC_HDR, r.len);
			r.time = marker_time(m, r.time);
			size_t at = m->out.len;
			int err = marker_tp_sample(&m->out, m->sample_type, &r, copy);
			if (!err)
				err = push_slot(m, r.time, at, m->out.len - at);
			if (err) {
				m->out.len = at;
				nomem = err == -ENOMEM;
				bad = !nomem;
				break;
			}
		}
		/* A PAD may be most of the ring: zeroed and let go in chunks. */
		if (sz > ZERO_CHUNK)
			zero_ring(c, t, t + sz);
		else
			memset(p, 0, sz);
		t += sz;
	}
	STORE_REL(&ctl->tail, t);
	release_pages(c, start, t);
	c->taken += t - start;
	if (bad || nomem)
		end_chan(m, c, nomem);
}

static int slot_cmp(const void *a, const void *b)
{
	const struct marker_slot *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Fill m->out from the channels, from the one the last call stopped at,
 * then sort it by time. */
static void drain_piece(struct markers *m, uint64_t now_ms)
{
	buf_reset(&m->out);
	m->nidx = 0;
	m->more = false;
	m->ceil = (uint64_t)(ns_of(CLOCK_MONOTONIC) + m->clock_offset);
	uint8_t copy[PSREC_MARK_MAX];
	for (; m->at < m->n; m->at++) {
		struct marker_chan *c = &m->ch[m->at];
		if (!c->broken)
			drain_chan(m, c, now_ms, copy);
		if (m->more)
			break;
	}
	for (size_t i = 0; i < m->nidx; i++)
		if (m->idx[i].time > m->time_max)
			m->time_max = m->idx[i].time;
	for (size_t i = 0; i < m->n && !m->more; i++)
		if (m->ch[i].taken > m->ch[i].size / 8)
			m->busy = true;
	bool sorted = true;
	for (size_t i = 1; i < m->nidx && sorted; i++)
		sorted = m->idx[i - 1].time <= m->idx[i].time;
	if (sorted)
		return;
	/* Threads and processes race for the ring: a few records come out
	 * of time order. Without the memory to sort them they go as they
	 * are: perf sorts within the round anyway. */
	qsort(m->idx, m->nidx, sizeof(*m->idx), slot_cmp);
	buf_reset(&m->tmp);
	int err = 0;
	for (size_t i = 0; i < m->nidx && !err; i++)
		err = buf_append(&m->tmp, m->out.data + m->idx[i].off, m->idx[i].len);
	if (!err) {
		struct buf s = m->out;
		m->out = m->tmp;
		m->tmp = s;
	}
}

void markers_drain(struct markers *m, uint64_t now_ms, uint64_t seen)
{
	/* Times before what perf may have delivered already (the events of
	 * two passes back) come out of order: only a program's lie puts a
	 * marker there. */
	m->floor = m->seen;
	m->seen = seen > m->time_max ? seen : m->time_max;
	m->busy = false;
	m->at = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct marker_chan *c = &m->ch[i];
		c->limit = c->broken ? 0 : LOAD_ACQ(&c->ctl->head);
		c->taken = 0;
	}
	m->now_ms = now_ms;
	drain_piece(m, now_ms);
}

void markers_drain_on(struct markers *m)
{
	if (m->more)
		drain_piece(m, m->now_ms);
	else
		buf_reset(&m->out);
}

size_t markers_piece(const struct markers *m, size_t at, size_t max)
{
	size_t end = at;
	struct pd_event_header h;
	while (walk_mem(m->out.data, m->out.len, end, &h) == WALK_WHOLE && (end - at) + h.size <= max)
		end += h.size;
	return end - at;
}

void markers_written(struct markers *m, size_t bytes)
{
	struct pd_event_header h;
	size_t end = bytes < m->out.len ? bytes : m->out.len;
	for (size_t at = 0; walk_mem(m->out.data, end, at, &h) == WALK_WHOLE; at += h.size)
		m->st.written++;
}

void markers_stop(struct markers *m)
{
	m->stopped = true;
	m->st.dropped = m->st.truncated = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct marker_chan *c = &m->ch[i];
		uint32_t self = (uint32_t)m->self;
		__atomic_compare_exchange_n(&c->ctl->consumer, &self, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		/* The program's counters: one that went down counts nothing. */
		uint64_t d = LOAD_ACQ(&c->ctl->dropped), t = LOAD_ACQ(&c->ctl->truncated);
		m->st.dropped += d > c->dropped0 ? d - c->dropped0 : 0;
		m->st.truncated += t > c->truncated0 ? t - c->truncated0 : 0;
	}
}

/* A dynamic entry or symbol of e that names the library or its API. */
static bool elf_names_markers(Elf *e)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
			continue;
		bool dyn = sh.sh_type == SHT_DYNAMIC;
		if (!dyn && sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			const char *name = NULL;
			if (dyn) {
				GElf_Dyn de;
				if (gelf_getdyn(d, (int)i, &de) && de.d_tag == DT_NEEDED)
					name = elf_strptr(e, sh.sh_link, de.d_un.d_val);
				if (name && strncmp(name, "libpsrec-marker.so", 18) == 0)
					return true;
			} else {
				GElf_Sym sym;
				if (gelf_getsym(d, (int)i, &sym))
					name = elf_strptr(e, sh.sh_link, sym.st_name);
				if (name && strncmp(name, "psrec_mark", 10) == 0)
					return true;
			}
		}
	}
	return false;
}

bool markers_program_uses(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	bool uses = e && elf_kind(e) == ELF_K_ELF && elf_names_markers(e);
	if (e)
		elf_end(e);
	close(fd);
	return uses;
}

bool markers_found(const struct markers *m)
{
	return m->n > 0;
}

void markers_event(struct markers *m, const struct pd_attr *like, bool final)
{
	m->ev_id = MARKER_TP_ID;
	marker_tp_attr(&m->ev.attr, like, final);
	m->ev.name = MARKER_TP_NAME;
	m->ev.ids = &m->ev_id;
	m->ev.nr_ids = 1;
	m->sample_type = m->ev.attr.sample_type;
}

void markers_free(struct markers *m)
{
	if (!m->stopped)
		markers_stop(m);
	for (size_t i = 0; i < m->n; i++)
		unmap_chan(m, &m->ch[i]);
	free(m->ch);
	free(m->idx);
	free(m->want);
	buf_free(&m->out);
	buf_free(&m->tmp);
	memset(m, 0, sizeof(*m));
}
