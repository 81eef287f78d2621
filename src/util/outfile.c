/*
 * outfile.c - an output written through a temporary, or in place, or
 * refused (see outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Links followed when looking for /proc behind a path: the kernel's
 * MAXSYMLINKS, so that what it would resolve, psrec follows too. */
#define MAX_HOPS 40
/* Random names tried before giving up: a clash means someone else made
 * the name, and eight in a row means something is wrong. */
#define MAX_TRIES 8

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return strdup(".");
	if (s == path)
		return strdup("/");
	return strndup(path, (size_t)(s - path));
}

/* -EPERM, with o->refused the whole line: path, why, the fix (each cut
 * to fit). */
static int refuse(struct outfile *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct outfile *o, const char *fmt, ...)
{
	char why[291];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(o->refused, sizeof(o->refused), "refusing to write %.160s: %s; remove it or give -o another name",
		 o->path, why);
	return -EPERM;
}

/* The names a user writes for a descriptor psrec inherited. Only these
 * are followed into /proc: written literally, they can only mean it. */
static bool names_inherited_fd(const char *path)
{
	if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0)
		return true;
	const char *n = NULL;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		n = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		n = path + 14;
	return n && *n && strspn(n, "0123456789") == strlen(n);
}

static bool on_procfs(const char *dir)
{
	struct statfs sf;
	return statfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* Whether the symlink at path leads into /proc at some hop (where
 * /proc/PID/fd holds open files of processes): 1, 0, or -1 when its
 * chain is longer than psrec follows by name. */
static int leads_into_proc(const char *path)
{
	char cur[PATH_MAX], next[PATH_MAX];
	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return -1;
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		char *dir = dir_of(cur);
		bool in_proc = !dir || on_procfs(dir);
		free(dir);
		if (in_proc)
			return 1;
		struct stat st;
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return 0;
		ssize_t n = readlink(cur, next, sizeof(next) - 1);
		if (n < 0)
			return 0;
		next[n] = '\0';
		if (next[0] != '/') {
			/* relative to the link's directory */
			char *d = dir_of(cur);
			char joined[PATH_MAX];
			int k = d ? snprintf(joined, sizeof(joined), "%s/%s", d, next) : -1;
			free(d);
			if (k < 0 || k >= (int)sizeof(joined))
				return -1;
			memcpy(next, joined, (size_t)k + 1);
		}
		memcpy(cur, next, strlen(next) + 1);
	}
	/* The kernel gives up at as many: the open would fail (ELOOP). */
	return 0;
}

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a link" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "a device";
}

/* For messages: " (-> TARGET)" of a link, "" for anything else. */
static void link_target(const char *path, const struct stat *lst, char *out, size_t len)
{
	char t[PATH_MAX];
	ssize_t n = S_ISLNK(lst->st_mode) ? readlink(path, t, sizeof(t) - 1) : -1;
	if (n < 0) {
		out[0] = '\0';
		return;
	}
	t[n] = '\0';
	snprintf(out, len, " (-> %.200s)", t);
}

/* fs.protected_symlinks' and protected_fifos' rule for what would be
 * followed or written through: in a sticky or world-writable directory
 * it must be psrec's user's or the directory owner's. */
static int check_owner(struct outfile *o, const struct stat *lst)
{
	char *dir = dir_of(o->path);
	if (!dir)
		return -ENOMEM;
	struct stat ds;
	int err = stat(dir, &ds) < 0 ? -errno : 0;
	free(dir);
	if (err)
		return err;
	bool sticky = ds.st_mode & S_ISVTX, world = ds.st_mode & S_IWOTH;
	if ((!sticky && !world) || lst->st_uid == geteuid() || lst->st_uid == ds.st_uid)
		return 0;
	char target[PATH_MAX + 8];
	link_target(o->path, lst, target, sizeof(target));
	return refuse(o, "it is %s%s owned by uid %u in a %s directory of uid %u (someone else may have put it there)",
		      kind_of(lst->st_mode), target, (unsigned)lst->st_uid,
		      sticky && world ? "sticky, world-writable" : sticky ? "sticky" : "world-writable",
		      (unsigned)ds.st_uid);
}

char *outfile_temp_name(const char *dir, const char *tag)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[12];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	char letters[sizeof(rnd) + 1];
	for (size_t i = 0; i < sizeof(rnd); i++)
		letters[i] = set[rnd[i] % (sizeof(set) - 1)];
	letters[sizeof(rnd)] = '\0';
	char *p;
	if (asprintf(&p, "%s/.psrec-%s%s", dir, tag, letters) < 0)
		return NULL;
	return p;
}

/* Open for writing; nowait: a FIFO with no reader is -ENXIO, not a wait
 * (OUTFILE_FIFO_NOWAIT); once open, writes block as usual. */
static int open_write(const char *path, bool nowait)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (nowait ? O_NONBLOCK : 0));
	if (fd >= 0 && nowait && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int code = errno;
		close(fd);
		errno = code;
		return -1;
	}
	return fd;
}

/* An inherited descriptor by its name: a regular file behind it is
 * truncated, as a shell's > would; a pipe or device has nothing to. */
static int open_inherited(struct outfile *o, bool nowait)
{
	o->fd = open_write(o->path, nowait);
	if (o->fd < 0)
		return -errno;
	struct stat st;
	if (fstat(o->fd, &st) < 0 || (S_ISREG(st.st_mode) && ftruncate(o->fd, 0) < 0))
		return -errno;
	return 0;
}

/* Open for writing the very file that was checked (want): O_PATH opens
 * nothing a device would notice, and writing goes through that fd, so a
 * file swapped in after the check is refused, not written. */
static int open_checked(struct outfile *o, const struct stat *want, bool follow, bool nowait)
{
	int pfd = open(o->path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	struct stat got;
	int err = fstat(pfd, &got) < 0 ? -errno : 0;
	if (!err && (got.st_dev != want->st_dev || got.st_ino != want->st_ino ||
		     (got.st_mode & S_IFMT) != (want->st_mode & S_IFMT)))
		err = refuse(o, "it was replaced while psrec opened it");
	if (!err) {
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
		o->fd = open_write(proc, nowait && S_ISFIFO(got.st_mode));
		err = o->fd < 0 ? -errno : 0;
	}
	close(pfd);
	return err;
}

/* A name only we can have made: O_EXCL fails on anything already there. */
static int open_named(struct outfile *o, const char *tag)
{
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		free(o->tmp);
		o->tmp = outfile_temp_name(o->dir, tag);
		if (!o->tmp)
			return -ENOMEM;
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (o->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	int code = errno;
	free(o->tmp);
	o->tmp = NULL;
	return -code;
}

static int open_replacing(struct outfile *o, const char *tag, unsigned flags)
{
	o->dir = dir_of(o->path);
	if (!o->dir)
		return -ENOMEM;
	if (flags & OUTFILE_UNNAMED) {
		o->fd = open(o->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (o->fd >= 0) {
			o->unnamed = true;
			return 0;
		}
		/* Only "this filesystem has no O_TMPFILE" falls back. */
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return -errno;
	}
	return open_named(o, tag);
}

/* A symlink at the name (not an inherited descriptor's): replaced when it
 * leads to a regular file or nowhere, written through to a FIFO or a
 * socket, refused into /proc or onto a device. */
static int open_via_link(struct outfile *o, const struct stat *lst, const char *tag, unsigned flags)
{
	int err = check_owner(o, lst);
	if (err)
		return err;
	char target[PATH_MAX + 8];
	link_target(o->path, lst, target, sizeof(target));
	int proc = leads_into_proc(o->path);
	if (proc > 0)
		return refuse(o, "it is a link into /proc%s owned by uid %u, which would write an open file of "
			      "some process with psrec's rights", target, (unsigned)lst->st_uid);
	if (proc < 0)
		return refuse(o, "it is a link%s owned by uid %u whose chain of links is too long to check",
			      target, (unsigned)lst->st_uid);
	struct stat st;
	if (stat(o->path, &st) < 0 || S_ISREG(st.st_mode))
		return open_replacing(o, tag, flags);
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return refuse(o, "it is a link to a device%s owned by uid %u (name a device itself, not a link to one)",
			      target, (unsigned)lst->st_uid);
	o->direct = true;
	if (flags & OUTFILE_REPLACE)
		return -ESPIPE;
	return open_checked(o, &st, true, flags & OUTFILE_FIFO_NOWAIT);
}

int outfile_open(struct outfile *o, const char *path, const char *tag, unsigned flags)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	if ((flags & OUTFILE_STDOUT) && strcmp(path, "-") == 0) {
		o->direct = true;
		if (flags & OUTFILE_REPLACE)
			return -ESPIPE;
		o->is_stdout = true;
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (!*path)
		return -ENOENT;
	if (names_inherited_fd(path)) {
		o->direct = true;
		return flags & OUTFILE_REPLACE ? -ESPIPE : open_inherited(o, flags & OUTFILE_FIFO_NOWAIT);
	}
	struct stat lst;
	/* Nothing there (or a path that cannot be): the temporary's
	 * creation says what is wrong. */
	if (lstat(path, &lst) < 0 || S_ISREG(lst.st_mode))
		return open_replacing(o, tag, flags);
	if (S_ISLNK(lst.st_mode))
		return open_via_link(o, &lst, tag, flags);
	if (S_ISDIR(lst.st_mode))
		return -EISDIR;
	int err = check_owner(o, &lst);
	if (err)
		return err;
	o->direct = true;
	if (flags & OUTFILE_REPLACE)
		return -ESPIPE;
	return open_checked(o, &lst, false, flags & OUTFILE_FIFO_NOWAIT);
}

/* Name the unnamed file at path (which may exist: then it is replaced). */
static int link_unnamed(struct outfile *o, const char *path)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno == ENOENT && linkat(o->fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	/* Something (an empty file, a symlink) holds the name: link under a
	 * random one, then rename over it, which replaces atomically. */
	char *r = outfile_temp_name(o->dir, "");
	if (!r)
		return -ENOMEM;
	int err = link_unnamed(o, r);
	if (!err && rename(r, path) < 0) {
		err = -errno;
		unlink(r);
	}
	free(r);
	return err;
}

int outfile_commit(struct outfile *o)
{
	if (o->tmp) {
		if (rename(o->tmp, o->path) < 0)
			return -errno;
		free(o->tmp);
		o->tmp = NULL;
	} else if (o->unnamed) {
		int err = link_unnamed(o, o->path);
		if (err)
			return err;
		o->unnamed = false;
	}
	return 0;
}

void outfile_close(struct outfile *o)
{
	if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->dir);
	o->tmp = NULL;
	o->dir = NULL;
	o->unnamed = false;
}
