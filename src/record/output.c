/*
 * output.c - output file creation and placement (see output.h).
 */
#include "output.h"

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

/* ".psrec-" plus 12 random letters and digits, in dir. */
static char *random_name(const char *dir, const char *what)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[12];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	char tag[sizeof(rnd) + 1];
	for (size_t i = 0; i < sizeof(rnd); i++)
		tag[i] = set[rnd[i] % (sizeof(set) - 1)];
	tag[sizeof(rnd)] = '\0';
	char *p;
	if (asprintf(&p, "%s/.psrec-%s%s", dir, what, tag) < 0)
		return NULL;
	return p;
}

static int open_direct(struct output *o, const struct stat *st, struct err *e)
{
	o->direct = true;
	o->fd = open(o->path, O_WRONLY | O_CLOEXEC | (S_ISREG(st->st_mode) ? O_TRUNC : 0));
	if (o->fd < 0)
		return err_set(e, -errno, "cannot write %s: %s; choose another -o", o->path, strerror(errno));
	o->seekable = lseek(o->fd, 0, SEEK_CUR) >= 0;
	return 0;
}

int output_create(struct output *o, const char *path, struct err *e)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->aside_fd = -1;
	o->path = path;

	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return err_set(e, -EISDIR, "cannot write %s: it is a directory; give a file name with -o", path);
	if ((exists && !S_ISREG(st.st_mode)) || is_fd_link(path))
		return open_direct(o, exists ? &st : &(struct stat){ .st_mode = S_IFREG }, e);

	o->seekable = true;
	o->dir = dir_of(path);
	if (!o->dir)
		return -ENOMEM;
	o->fd = open(o->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (o->fd >= 0)
		return 0;
	int code = errno;
	if (code == EOPNOTSUPP || code == EISDIR || code == EINVAL) {
		/* No O_TMPFILE here: a random name that only we can have made. */
		for (int tries = 0; tries < 8 && o->fd < 0; tries++) {
			free(o->tmp_path);
			o->tmp_path = random_name(o->dir, "");
			if (!o->tmp_path)
				return -ENOMEM;
			o->fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			code = errno;
			if (o->fd < 0 && code != EEXIST)
				break;
		}
		if (o->fd >= 0)
			return 0;
		free(o->tmp_path);
		o->tmp_path = NULL;
	}
	return err_set(e, -code, "cannot create %s: %s; choose another -o", path, strerror(code));
}

/* Under sudo, give the file to the user who ran sudo, or they would need
 * perf report -f to read it (perf-data-format.md 10). */
static void give_to_sudo_user(int fd)
{
	if (geteuid() != 0)
		return;
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	if (!u || !g)
		return;
	char *end1, *end2;
	long uid = strtol(u, &end1, 10), gid = strtol(g, &end2, 10);
	if (*u && *g && !*end1 && !*end2 && uid > 0 && gid >= 0) {
		int r = fchown(fd, (uid_t)uid, (gid_t)gid);
		(void)r; /* best effort: root can still read it */
	}
}

/* Name the unnamed file at path (which may exist: then it is replaced). */
static int link_tmpfile(struct output *o, const char *path)
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
	char *r = random_name(o->dir, "");
	if (!r)
		return -ENOMEM;
	int err = link_tmpfile(o, r);
	if (!err && rename(r, path) < 0) {
		err = -errno;
		unlink(r);
	}
	free(r);
	return err;
}

/* Move the previous FILE.old aside (not over anything: nothing is
 * deleted yet). Its fd keeps the data, so the unlink in output_started()
 * does not stall on freeing a big file. */
static int set_old_aside(struct output *o, const char *old)
{
	struct stat st;
	if (lstat(old, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		o->aside_fd = open(old, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	for (int tries = 0; tries < 8; tries++) {
		char *a = random_name(o->dir, "old-");
		if (!a)
			return -ENOMEM;
		if (renameat2(AT_FDCWD, old, AT_FDCWD, a, RENAME_NOREPLACE) == 0) {
			o->aside = a;
			return 0;
		}
		int code = errno;
		free(a);
		if (code != EEXIST)
			return -code;
	}
	return -EEXIST;
}

int output_commit(struct output *o, struct err *e)
{
	if (o->direct) {
		o->committed = true;
		return 0;
	}
	struct stat st;
	if (lstat(o->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char *old;
		if (asprintf(&old, "%s.old", o->path) < 0)
			return -ENOMEM;
		int err = set_old_aside(o, old);
		if (!err && rename(o->path, old) < 0)
			err = -errno;
		free(old);
		if (err) {
			output_abort(o);
			return err_set(e, err, "cannot rename %s to %s.old: %s", o->path, o->path, strerror(-err));
		}
		o->renamed_old = true;
	}
	int err = 0;
	if (o->tmp_path)
		err = rename(o->tmp_path, o->path) < 0 ? -errno : 0;
	else
		err = link_tmpfile(o, o->path);
	if (err) {
		output_abort(o);
		return err_set(e, err, "cannot create %s: %s", o->path, strerror(-err));
	}
	free(o->tmp_path);
	o->tmp_path = NULL;
	give_to_sudo_user(o->fd);
	o->committed = true;
	return 0;
}

void output_started(struct output *o)
{
	if (o->aside) {
		unlink(o->aside);
		free(o->aside);
		o->aside = NULL;
	}
}

void output_abort(struct output *o)
{
	if (o->direct || !o->path)
		return;
	char *old = NULL;
	if (asprintf(&old, "%s.old", o->path) < 0)
		old = NULL;
	/* Best effort throughout: whatever cannot be put back is still
	 * there under the name it has. */
	int r = 0;
	if (o->committed && !o->tmp_path)
		r |= unlink(o->path);
	if (o->renamed_old && old)
		r |= rename(old, o->path);
	if (o->aside && old) {
		r |= rename(o->aside, old);
		free(o->aside);
		o->aside = NULL;
	}
	(void)r;
	free(old);
	o->committed = false;
	o->renamed_old = false;
}

void output_close(struct output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp_path)
		unlink(o->tmp_path);
	if (o->aside_fd >= 0)
		close(o->aside_fd);
	o->aside_fd = -1;
	free(o->tmp_path);
	free(o->aside);
	free(o->dir);
	o->tmp_path = NULL;
	o->aside = NULL;
	o->dir = NULL;
}
