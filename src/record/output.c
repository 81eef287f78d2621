/*
 * output.c - output file creation and placement (see output.h).
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

int output_create(struct output *o, const char *path, bool chunked, struct err *e)
{
	memset(o, 0, sizeof(*o));
	o->aside_fd = -1;
	/* Unnamed: a failed or killed start leaves nothing in the directory.
	 * Each chunk is renamed away from the name, which a device, FIFO or
	 * socket would not survive (and a FIFO would block the open), nor an
	 * open file written in place. */
	int err = outfile_open(&o->file, path, "",
			       OUTFILE_UNNAMED | OUTFILE_FIFO_NOWAIT | (chunked ? OUTFILE_REPLACE : 0));
	struct stat st;
	if (err == -ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
		outfile_close(&o->file);
		return err;
	}
	if (err == -EPERM && o->file.refused[0])
		return err_set(e, err, "%s", o->file.refused);
	if (err == -ESPIPE)
		return err_set(e, -EINVAL, "--switch-output needs a file name for -o, not %s (a device, FIFO, socket "
			       "or open file); give -o FILE", path);
	if (err == -EISDIR)
		return err_set(e, err, "cannot write %s: it is a directory; give a file name with -o", path);
	if (err == -ENOMEM)
		return err;
	if (err)
		return err_set(e, err, "cannot %s %s: %s; choose another -o", o->file.direct ? "write" : "create", path,
			       strerror(-err));
	o->seekable = !o->file.direct || lseek(o->file.fd, 0, SEEK_CUR) >= 0;
	return 0;
}

int output_wait_reader(struct output *o, const char *path, int sigfd, int *signo, struct err *e)
{
	for (;;) {
		int err = output_create(o, path, false, e);
		if (err != -ENXIO)
			return err;
		struct pollfd p = { .fd = sigfd, .events = POLLIN };
		struct signalfd_siginfo si;
		int n = poll(&p, 1, OUTPUT_READER_POLL_MS);
		if (n < 0 && errno != EINTR)
			return err_set(e, -errno, "cannot wait for a reader of %s: %s", path, strerror(errno));
		if (n > 0 && read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			const char *name = sigabbrev_np((int)si.ssi_signo);
			*signo = (int)si.ssi_signo;
			return err_set(e, -EINTR, "SIG%s while waiting for a reader of %s; nothing was recorded",
				       name ? name : "?", path);
		}
	}
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
		char *a = outfile_temp_name(o->file.dir, "old-");
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
	const char *path = o->file.path;
	if (o->file.direct) {
		o->committed = true;
		return 0;
	}
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char *old;
		if (asprintf(&old, "%s.old", path) < 0)
			return -ENOMEM;
		int err = set_old_aside(o, old);
		if (!err && rename(path, old) < 0)
			err = -errno;
		free(old);
		if (err) {
			output_abort(o);
			return err_set(e, err, "cannot rename %s to %s.old: %s", path, path, strerror(-err));
		}
		o->renamed_old = true;
	}
	int err = outfile_commit(&o->file);
	if (err) {
		output_abort(o);
		return err_set(e, err, "cannot create %s: %s", path, strerror(-err));
	}
	give_to_sudo_user(o->file.fd);
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
	const char *path = o->file.path;
	if (o->file.direct || !path)
		return;
	char *old = NULL;
	if (asprintf(&old, "%s.old", path) < 0)
		old = NULL;
	/* Best effort throughout: whatever cannot be put back is still
	 * there under the name it has. */
	int r = 0;
	if (o->committed)
		r |= unlink(path);
	if (o->renamed_old && old)
		r |= rename(old, path);
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
	outfile_close(&o->file);
	if (o->aside_fd >= 0)
		close(o->aside_fd);
	o->aside_fd = -1;
	free(o->aside);
	o->aside = NULL;
}

int output_failed(const char *path, bool pipe, int err, struct err *e)
{
	const char *name = pipe ? "standard output" : path;
	if (err == -EPIPE)
		return err_set(e, err, "the reader of %s went away before recording started", name);
	return err_set(e, err, "cannot write %s: %s", name, strerror(-err));
}
