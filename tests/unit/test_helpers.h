/*
 * test_helpers.h - small helpers shared by the unit tests: temporary files,
 * raw little-endian field access, hand-built records, fake /proc trees,
 * directory listings, and children that drop root and report back.
 *
 * Everything is static inline so each test file may use any subset without
 * -Wunused-function or -Wmissing-prototypes complaints.
 */
#ifndef PSREC_TEST_HELPERS_H
#define PSREC_TEST_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* cmocka wants these before its header. */
#include <setjmp.h>
#include <cmocka.h>

#include "format/writer.h"
#include "psrec/perf_data.h"

/* A temporary file in /tmp; path is filled, the fd is O_RDWR. */
static inline int th_tmpfile(char path[64])
{
	snprintf(path, 64, "/tmp/psrec-unit-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	return fd;
}

/* Write all len bytes of p to fd, then close it. */
static inline void th_write_close(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	while (len > 0) {
		ssize_t n = write(fd, b, len);
		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
	assert_int_equal(close(fd), 0);
}

/* A temporary file holding exactly len bytes of p; returns its path in path. */
static inline void th_write_file(char path[64], const void *p, size_t len)
{
	th_write_close(th_tmpfile(path), p, len);
}

/* Read a whole file into a malloc'd buffer (caller frees). */
static inline uint8_t *th_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	size_t n = (size_t)st.st_size;
	uint8_t *p = malloc(n ? n : 1);
	assert_non_null(p);
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		assert_true(r > 0);
		got += (size_t)r;
	}
	close(fd);
	*len = n;
	return p;
}

static inline uint64_t th_u64(const uint8_t *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint32_t th_u32(const uint8_t *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint16_t th_u16(const uint8_t *p, size_t off)
{
	uint16_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline void th_put_u64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static inline void th_put_u32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static inline void th_put_u16(uint8_t *p, size_t off, uint16_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

/* Whitespace runs in s as one space, so that wrapped text can be searched. */
static inline void th_squeeze(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		bool sp = isspace((unsigned char)*r);
		if (!sp || (w > s && w[-1] != ' '))
			*w++ = sp ? ' ' : *r;
	}
	*w = '\0';
}

static inline int th_all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The sample_type the round-trip tests use. */
#define TH_SAMPLE_TYPE (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID | \
			PD_SAMPLE_TIME | PD_SAMPLE_CPU | PD_SAMPLE_PERIOD)
/* 8 header + 6 fields of 8 bytes */
#define TH_SAMPLE_SIZE 56

/* A SAMPLE record for TH_SAMPLE_TYPE into out[TH_SAMPLE_SIZE]. */
static inline void th_make_sample(uint8_t out[TH_SAMPLE_SIZE], uint64_t id, uint64_t ip,
				  uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu,
				  uint64_t period)
{
	struct pd_event_header h = { PD_RECORD_SAMPLE, PD_MISC_USER, TH_SAMPLE_SIZE };
	memset(out, 0, TH_SAMPLE_SIZE);
	memcpy(out, &h, sizeof(h));
	th_put_u64(out, 8, id);
	th_put_u64(out, 16, ip);
	th_put_u32(out, 24, pid);
	th_put_u32(out, 28, tid);
	th_put_u64(out, 32, time);
	th_put_u32(out, 40, cpu);
	th_put_u64(out, 48, period);
}

/* Deterministic xorshift64* for the fuzz loops. */
static inline uint64_t th_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ---- one fake root directory per test --------------------------------------
 *
 * For the tests that point a module at a fake /proc or /sys tree:
 * TH_FAKE(test) runs test with th_root a fresh directory, removed after.
 */
static char th_root[64] __attribute__((unused));

static inline void th_mkdtemp(char path[64]);
static inline void th_rm_rf(const char *path);

static inline int th_root_make(void **state)
{
	(void)state;
	th_mkdtemp(th_root);
	return 0;
}

static inline int th_root_remove(void **state)
{
	(void)state;
	th_rm_rf(th_root);
	th_root[0] = '\0';
	return 0;
}

#define TH_FAKE(t) cmocka_unit_test_setup_teardown(t, th_root_make, th_root_remove)

/* th_root/rel; four results may be in use at once. */
static inline const char *th_at(const char *rel)
{
	static char paths[4][PATH_MAX];
	static int k;
	char *p = paths[k++ % 4];
	int n = snprintf(p, sizeof(paths[0]), "%s/%s", th_root, rel);
	assert_true(n > 0 && (size_t)n < sizeof(paths[0]));
	return p;
}

/* The names in directory dir, sorted, space separated ("" when empty);
 * valid until the next call. */
static inline const char *th_listing(const char *dir)
{
	static char out[1024];
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *d = names[i]->d_name;
		if (strcmp(d, ".") && strcmp(d, "..")) {
			if (out[0])
				strncat(out, " ", sizeof(out) - strlen(out) - 1);
			strncat(out, d, sizeof(out) - strlen(out) - 1);
		}
		free(names[i]);
	}
	free(names);
	return out;
}

/* ---- a fake proc root (procfs/synth tests) ------------------------------
 *
 * ROOT/<pid>/task/<tid>/status and stat for every thread, and
 * ROOT/<pid>/task/<pid>/maps for the process: what procfs.c reads.
 */
#define TH_PF_KTHREAD 0x00200000u

/* A fresh directory /tmp/psrec-proc-XXXXXX (mode 0755, so a child that drops
 * root can still read it). */
static inline void th_mkdtemp(char path[64])
{
	snprintf(path, 64, "/tmp/psrec-proc-XXXXXX");
	assert_non_null(mkdtemp(path));
	assert_int_equal(chmod(path, 0755), 0);
}

/* mkdir -p for a path built from a format. */
static inline void th_mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void th_mkdirs(const char *fmt, ...)
{
	char path[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(path));
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0)
			assert_int_equal(errno, EEXIST);
		*p = '/';
	}
	if (mkdir(path, 0755) < 0)
		assert_int_equal(errno, EEXIST);
}

/* Write a string to the file at path (created or truncated, mode 0644). */
static inline void th_put_file(const char *path, const char *content)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	th_write_close(fd, content, strlen(content));
}

/* Write content to th_root/rel, making the directories on the way. */
static inline void th_root_put(const char *rel, const char *content)
{
	char path[512];
	int n = snprintf(path, sizeof(path), "%s/%s", th_root, rel);
	assert_true(n > 0 && (size_t)n < sizeof(path));
	char *slash = strrchr(path, '/');
	*slash = '\0';
	th_mkdirs("%s", path);
	*slash = '/';
	th_put_file(path, content);
}

/*
 * Thread tid of process pid in the fake root: status with Name/State/Tgid/
 * PPid/Uid lines, stat with the given comm and flags (field 9), and comm.
 */
static inline void th_fake_thread_ex(const char *root, int pid, int tid, const char *name,
				     const char *stat_comm, int ppid, unsigned uid, char state,
				     unsigned flags)
{
	char path[512], text[1024];
	th_mkdirs("%s/%d/task/%d", root, pid, tid);
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", root, pid, tid);
	snprintf(text, sizeof(text),
		 "Name:\t%s\n"
		 "Umask:\t0022\n"
		 "State:\t%c (%s)\n"
		 "Tgid:\t%d\n"
		 "Ngid:\t0\n"
		 "Pid:\t%d\n"
		 "PPid:\t%d\n"
		 "TracerPid:\t0\n"
		 "Uid:\t%u\t%u\t%u\t%u\n"
		 "Gid:\t%u\t%u\t%u\t%u\n"
		 "FDSize:\t64\n"
		 "Threads:\t1\n",
		 name, state, state == 'Z' ? "zombie" : state == 'R' ? "running" : "sleeping",
		 pid, tid, ppid, uid, uid + 1, uid + 2, uid + 3, uid, uid, uid, uid);
	th_put_file(path, text);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, pid, tid);
	/* pid (comm) state ppid pgrp session tty_nr tpgid flags minflt ... */
	snprintf(text, sizeof(text),
		 "%d (%s) %c %d %d %d 0 -1 %u 120 0 0 0 5 3 0 0 20 0 1 0 12345 1000000 200 "
		 "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		 tid, stat_comm, state, ppid, pid, pid, flags);
	th_put_file(path, text);
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", root, pid, tid);
	snprintf(text, sizeof(text), "%s\n", name);
	th_put_file(path, text);
}

static inline void th_fake_thread(const char *root, int pid, int tid, const char *name,
				  int ppid, unsigned flags)
{
	th_fake_thread_ex(root, pid, tid, name, name, ppid, 1000, 'S', flags);
}

/* ROOT/<pid>/task/<pid>/maps with the given content. */
static inline void th_fake_maps(const char *root, int pid, const char *content)
{
	char path[512];
	th_mkdirs("%s/%d/task/%d", root, pid, pid);
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", root, pid, pid);
	th_put_file(path, content);
}

static inline int th_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

/* rm -rf path (a tree made by the helpers above). */
static inline void th_rm_rf(const char *path)
{
	if (path[0] == '\0')
		return;
	assert_int_equal(nftw(path, th_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* ---- a recording made of hand-built records ------------------------------ */

/* Begin a perf.data file on fd with one event (id 1) of sample_type st,
 * whose non-sample records carry the sample_id trailer, and append the
 * len bytes of records. The caller checkpoints or finishes w. */
static inline void th_data_begin(struct writer *w, int fd, uint64_t st, const void *recs, size_t len)
{
	struct pd_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = PD_ATTR_SIZE;
	attr.sample_type = st;
	attr.flags = PD_ATTR_SAMPLE_ID_ALL;
	uint64_t id = 1;
	struct writer_event ev = { &attr, &id, 1, "cpu-clock" };
	assert_int_equal(writer_begin(w, fd, &ev, 1), 0);
	struct iovec iov = { (void *)recs, len };
	if (len)
		assert_int_equal(writer_append(w, &iov, 1), 0);
}

/* ---- what an output left ----------------------------------------------- */

/* The file's whole content is the string want. */
static inline void th_assert_text(const char *path, const char *want)
{
	size_t len;
	uint8_t *p = th_read_file(path, &len);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(p, want, len);
	free(p);
}

/* A /dev/null of our own at path: a test that writes one and finds it
 * replaced must not have broken the machine's. Skips the test where
 * mknod is not allowed (not root, or a container without CAP_MKNOD). */
static inline void th_mknull(const char *path)
{
	if (geteuid() != 0 || mknod(path, S_IFCHR | 0644, makedev(1, 3)) < 0)
		skip();
}

/* path is still th_mknull's device, not a file put in its place. */
static inline void th_assert_null_device(const char *path)
{
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(1, 3));
}

/* A FIFO at path (mode 0644) with a reader already open, so that a
 * writer's open does not block; the reader's fd. */
static inline int th_fifo_with_reader(const char *path)
{
	assert_int_equal(mkfifo(path, 0644), 0);
	int rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rd >= 0);
	return rd;
}

/* The reader got exactly want, and path is still a FIFO of mode 0644;
 * closes rd. */
static inline void th_assert_fifo_got(int rd, const char *path, const char *want)
{
	char buf[256];
	assert_int_equal(read(rd, buf, sizeof(buf)), (ssize_t)strlen(want));
	assert_memory_equal(buf, want, strlen(want));
	close(rd);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
}

/* ---- a child that reports back ------------------------------------------
 *
 * For code that must run with other credentials or limits than the test's
 * own: giving up root cannot be undone, so it happens in a child, which
 * sends its results back as a struct through a pipe.
 */

/* nobody's uid and gid on Debian. */
#define TH_NOBODY 65534

/* When root, become nobody: supplementary groups, gid, then uid (the
 * order in which each step is still allowed). True when the process now
 * runs unprivileged. Only in a child: the test process keeps root. */
static inline bool th_drop_root(void)
{
	if (geteuid() != 0)
		return true;
	return setgroups(0, NULL) == 0 && setgid(TH_NOBODY) == 0 && setuid(TH_NOBODY) == 0 && geteuid() != 0;
}

/*
 * Run body(res, arg) in a forked child, res zeroed first, and copy the
 * child's res[0..len) into the caller's. The test fails unless the child
 * sends all of it and exits 0. body must not use cmocka's asserts (a
 * failure would unwind into the child's copy of the test runner): it
 * records what it saw in res, and the caller asserts on that.
 */
static inline void th_run_in_child(void (*body)(void *res, void *arg), void *arg, void *res, size_t len)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		memset(res, 0, len);
		body(res, arg);
		const uint8_t *b = res;
		for (size_t left = len; left > 0;) {
			ssize_t w = write(fds[1], b, left);
			if (w <= 0)
				_exit(3);
			b += w;
			left -= (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	memset(res, 0, len);
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fds[0], (uint8_t *)res + got, len - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(got, len);
}

#endif
