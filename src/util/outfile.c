/*
 * outfile.c - an output written through a temporary, or in place (see
 * outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed when looking for a /proc fd link behind a path. */
#define MAX_HOPS 16
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

/* The path is, or leads through symlinks to, a /proc/PID/fd entry: an
 * open file of some process, which must be written, never replaced. */
static bool is_fd_link(const char *path)
{
	char cur[PATH_MAX], next[PATH_MAX];
	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return false;
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		char *dir = dir_of(cur), *real = dir ? realpath(dir, NULL) : NULL;
		bool in_proc = real && strncmp(real, "/proc/", 6) == 0;
		free(dir);
		free(real);
		if (in_proc)
			return true;
		struct stat st;
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return false;
		ssize_t n = readlink(cur, next, sizeof(next) - 1);
		if (n < 0)
			return false;
		next[n] = '\0';
		if (next[0] != '/') {
			/* relative to the link's directory */
			char *d = dir_of(cur);
			char joined[PATH_MAX];
			int k = d ? snprintf(joined, sizeof(joined), "%s/%s", d, next) : -1;
			free(d);
			if (k < 0 || k >= (int)sizeof(joined))
				return false;
			memcpy(next, joined, (size_t)k + 1);
		}
		memcpy(cur, next, strlen(next) + 1);
	}
	return false;
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

/* A regular file reached through /proc/PID/fd is truncated, as a shell's
 * > would; a device or FIFO has nothing to truncate. nowait: a FIFO with
 * no reader is -ENXIO, not a wait; once open it blocks as usual. */
static int open_direct(struct outfile *o, bool regular, bool nowait)
{
	o->direct = true;
	o->fd = open(o->path, O_WRONLY | O_CLOEXEC | (regular ? O_TRUNC : 0) | (nowait ? O_NONBLOCK : 0));
	if (o->fd >= 0 && nowait && fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK) < 0)
		return -errno;
	return o->fd < 0 ? -errno : 0;
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

int outfile_open(struct outfile *o, const char *path, const char *tag, unsigned flags)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	if ((flags & OUTFILE_STDOUT) && strcmp(path, "-") == 0) {
		o->direct = o->is_stdout = true;
		o->fd = STDOUT_FILENO;
		return 0;
	}
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return -EISDIR;
	if ((exists && !S_ISREG(st.st_mode)) || is_fd_link(path))
		return open_direct(o, !exists || S_ISREG(st.st_mode),
				   (flags & OUTFILE_FIFO_NOWAIT) && exists && S_ISFIFO(st.st_mode));
	o->dir = dir_of(path);
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
