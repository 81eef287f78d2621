/*
 * output.c - output file creation and placement (see output.h).
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int output_create(struct output *o, const char *path, struct err *e)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;

	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return err_set(e, -EISDIR, "cannot write %s: it is a directory; give a file name with -o", path);
	if (asprintf(&o->tmp_path, "%s.psrec-%d.tmp", path, (int)getpid()) < 0) {
		o->tmp_path = NULL;
		return -ENOMEM;
	}
	o->fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (o->fd < 0) {
		int code = errno;
		free(o->tmp_path);
		o->tmp_path = NULL;
		return err_set(e, -code, "cannot create %s: %s; choose another -o", path, strerror(code));
	}
	return 0;
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

int output_commit(struct output *o, struct err *e)
{
	struct stat st;
	if (lstat(o->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char *old;
		if (asprintf(&old, "%s.old", o->path) < 0)
			return -ENOMEM;
		int r = rename(o->path, old);
		int code = errno;
		free(old);
		if (r < 0)
			return err_set(e, -code, "cannot rename %s to %s.old: %s", o->path, o->path, strerror(code));
		o->renamed_old = true;
	}
	if (rename(o->tmp_path, o->path) < 0) {
		int code = errno;
		return err_set(e, -code, "cannot create %s: %s", o->path, strerror(code));
	}
	give_to_sudo_user(o->fd);
	o->committed = true;
	return 0;
}

void output_abort(struct output *o)
{
	if (!o->committed)
		return;
	unlink(o->path);
	if (o->renamed_old) {
		char *old;
		if (asprintf(&old, "%s.old", o->path) >= 0) {
			int r = rename(old, o->path);
			(void)r; /* best effort: the data is still in FILE.old */
			free(old);
		}
	}
	o->committed = false;
	o->renamed_old = false;
}

void output_close(struct output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (!o->committed && o->tmp_path)
		unlink(o->tmp_path);
	free(o->tmp_path);
	o->tmp_path = NULL;
}
