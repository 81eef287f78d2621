/*
 * markers.c - claim, drain and count marker channels (see markers.h).
 */
#include "markers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "marker/tp.h"
#include "psrec/marker.h"

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
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4;
		struct marker_chan *n = realloc(m->ch, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->ch = n;
		m->cap = cap;
	}
	m->ch[m->n++] = *c;
	m->st.channels++;
	return 0;
}

static void unmap_chan(struct marker_chan *c)
{
	if (c->map)
		munmap(c->map, c->map_len);
	if (c->fd >= 0)
		close(c->fd);
	c->map = NULL;
	c->fd = -1;
}

/* Map fd (already checked to be sealed) and check its control page. */
static int map_chan(struct marker_chan *c, int fd, const struct stat *sb)
{
	c->fd = fd;
	if ((uint64_t)sb->st_size < PSREC_MARKER_CTL_SIZE)
		return -EINVAL;
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
		return -EPROTO;
	c->map_len = PSREC_MARKER_CTL_SIZE + size;
	p = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	c->map = p;
	c->ctl = p;
	c->data = c->map + PSREC_MARKER_CTL_SIZE;
	c->size = size;
	c->dev = (uint64_t)sb->st_dev;
	c->ino = (uint64_t)sb->st_ino;
	return 0;
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
	if (h - t >= c->size) {
		memset(c->data, 0, c->size);
	} else {
		for (uint64_t at = t; at < h;) {
			uint64_t off = at & (c->size - 1);
			uint64_t n = h - at < c->size - off ? h - at : c->size - off;
			memset(c->data + off, 0, n);
			at += n;
		}
	}
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
	err = fstat(fd, &sb) < 0 ? -errno : map_chan(&c, fd, &sb);
	if (!err)
		err = claim(m, &c);
	if (!err)
		err = push_chan(m, &c);
	if (err) {
		unmap_chan(&c);
		return err;
	}
	*fd_out = fd;
	return 0;
}

int markers_watch(struct markers *m, const pid_t *pids, size_t n)
{
	pid_t *w = realloc(m->want, (m->nr_want + n) * sizeof(*w));
	if (!w && n)
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
		int fd = open(path, O_RDWR | O_CLOEXEC);
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
		struct marker_chan c = { .fd = fd, .pid = pid };
		int err = seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW)
				  ? -EPROTO : map_chan(&c, fd, &sb);
		if (!err)
			err = claim(m, &c);
		if (!err)
			err = push_chan(m, &c);
		if (err) {
			unmap_chan(&c);
			if (err == -EALREADY) {
				/* This psrec's own under another inode: nothing to say. */
			} else if (err == -EBUSY) {
				m->st.foreign++;
				warn_once(m, "the markers of process %d are read by another psrec", pid);
			} else {
				warn_once(m, "process %d has a marker channel psrec cannot use (another version?)", pid);
			}
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
	if (m->nidx == m->capidx) {
		size_t cap = m->capidx ? 2 * m->capidx : 1024;
		struct marker_slot *n = realloc(m->idx, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->idx = n;
		m->capidx = cap;
	}
	m->idx[m->nidx++] = (struct marker_slot){ time, (uint32_t)off, (uint32_t)len };
	return 0;
}

static void broken(struct markers *m, struct marker_chan *c)
{
	c->broken = true;
	m->st.broken++;
	if (c->pid)
		warn_once(m, "a bad record in the marker channel of process %d: its later markers are not recorded", c->pid);
	else
		warn_once(m, "a bad record in the marker channel of the command: its later markers are not recorded");
}

/* Every committed record of c into m->out. */
static int drain_chan(struct markers *m, struct marker_chan *c)
{
	struct psrec_marker_ctl *ctl = c->ctl;
	uint64_t t = ctl->tail, h = LOAD_ACQ(&ctl->head), start = t;
	uint64_t mask = c->size - 1;
	int err = 0;
	/* tail is in the program's memory too: one it left unaligned would
	 * have the size below read misaligned and, in the last 3 bytes of
	 * the ring, past its end. */
	if (h - t > c->size || t % 8) {
		broken(m, c);
		return 0;
	}
	while (t != h && !err) {
		uint64_t off = t & mask;
		uint8_t *p = c->data + off;
		uint32_t sz = LOAD_ACQ((uint32_t *)p);
		if (sz == 0)
			break; /* not committed yet: the next pass */
		if (sz % 8 || sz > h - t || off + sz > c->size) {
			broken(m, c);
			break;
		}
		struct psrec_marker_rec r;
		memcpy(&r, p, sz < sizeof(r) ? sz : sizeof(r));
		if (r.kind != PSREC_MK_PAD) {
			if (sz < PSREC_MARKER_REC_HDR || r.len > sz - PSREC_MARKER_REC_HDR) {
				broken(m, c);
				break;
			}
			r.time = (uint64_t)((int64_t)r.time + m->clock_offset);
			if (r.len > PSREC_MARK_MAX) {
				r.len = PSREC_MARK_MAX;
				r.flags |= PSREC_MKF_TRUNCATED;
			}
			size_t at = m->out.len;
			err = marker_tp_sample(&m->out, m->sample_type, &r, p + PSREC_MARKER_REC_HDR);
			if (!err)
				err = push_slot(m, r.time, at, m->out.len - at);
		}
		memset(p, 0, sz);
		t += sz;
	}
	STORE_REL(&ctl->tail, t);
	if (t - start > c->size / 8)
		m->busy = true;
	return err;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct marker_slot *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

int markers_drain(struct markers *m)
{
	buf_reset(&m->out);
	m->nidx = 0;
	m->busy = false;
	int err = 0;
	for (size_t i = 0; i < m->n && !err; i++)
		if (!m->ch[i].broken)
			err = drain_chan(m, &m->ch[i]);
	m->st.written += m->nidx;
	bool sorted = true;
	for (size_t i = 1; i < m->nidx && sorted; i++)
		sorted = m->idx[i - 1].time <= m->idx[i].time;
	if (err || sorted)
		return err;
	/* Threads and processes race for the ring: a few records come out
	 * of time order. */
	qsort(m->idx, m->nidx, sizeof(*m->idx), slot_cmp);
	buf_reset(&m->tmp);
	for (size_t i = 0; i < m->nidx && !err; i++)
		err = buf_append(&m->tmp, m->out.data + m->idx[i].off, m->idx[i].len);
	if (!err) {
		struct buf s = m->out;
		m->out = m->tmp;
		m->tmp = s;
	}
	return err;
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

void markers_free(struct markers *m)
{
	if (!m->stopped)
		markers_stop(m);
	for (size_t i = 0; i < m->n; i++)
		unmap_chan(&m->ch[i]);
	free(m->ch);
	free(m->idx);
	free(m->want);
	buf_free(&m->out);
	buf_free(&m->tmp);
	memset(m, 0, sizeof(*m));
}
