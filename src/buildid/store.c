/*
 * store.c - the build-id cache directory in perf's layout (see store.h).
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/io.h"
#include "util/sysfile.h"

/* Room kept in PATH_MAX after a name for "/<40 hex>/kallsyms" and more. */
#define NAME_ROOM 64
/* Bytes asked of one copy_file_range call: large, as the kernel caps it. */
#define COPY_CHUNK ((size_t)1 << 30)
/* The read-and-write fallback's buffer. */
#define COPY_BUF ((size_t)256 << 10)
/* Names tried for a temporary before giving up (each is 64 random bits). */
#define TMP_TRIES 16
/* The most a passwd entry may take (getpwuid_r's buffer doubles to this). */
#define PW_BUF_MAX ((size_t)1 << 20)

/* Where an entry's bytes come from: fd >= 0, else p[0..len). */
struct source {
	int fd;
	const void *p;
	size_t len;
};

/* The paths of one entry. */
struct entry_paths {
	char dir[PATH_MAX];         /* ROOT/<name>/<hex> */
	char file[PATH_MAX];        /* dir/<file> */
	char link_dir[PATH_MAX];    /* ROOT/.build-id/<2 hex> */
	char link[PATH_MAX];        /* link_dir/<rest of hex> */
	char target[PATH_MAX];      /* ../../<name>/<hex> */
};

/* A decimal user or group id from the environment; false when unset or
 * not a plain number (then it is ignored, as output.c does). */
static bool env_id(const char *var, unsigned long *out)
{
	const char *v = getenv(var);
	if (!v || v[0] < '0' || v[0] > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (errno || *end || n > UINT32_MAX - 1)
		return false;
	*out = n;
	return true;
}

/* The home directory (malloc'd) and group of uid in the passwd database:
 * -ENOENT when there is no entry or it names no home. */
static int passwd_home(uid_t uid, char **home, gid_t *gid)
{
	long max = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t len = max > 0 ? (size_t)max : 16384;
	for (;;) {
		char *buf = malloc(len);
		if (!buf)
			return -ENOMEM;
		struct passwd pw, *res = NULL;
		int r = getpwuid_r(uid, &pw, buf, len, &res);
		if (r == ERANGE && len < PW_BUF_MAX) {
			free(buf);
			len *= 2;
			continue;
		}
		int err = r ? -r : !res || !pw.pw_dir || !pw.pw_dir[0] ? -ENOENT : 0;
		if (!err) {
			*home = strdup(pw.pw_dir);
			*gid = pw.pw_gid;
			if (!*home)
				err = -ENOMEM;
		}
		free(buf);
		return err;
	}
}

/* ROOT = home/.debug; a home of "/" gives "/.debug", not "//.debug". */
static int root_in(struct store *s, const char *home)
{
	size_t n = strlen(home);
	while (n > 0 && home[n - 1] == '/')
		n--;
	if (asprintf(&s->root, "%.*s/.debug", (int)n, home) < 0) {
		s->root = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int open_sudo(struct store *s, uid_t uid, struct err *e)
{
	char *home;
	gid_t pw_gid;
	int err = passwd_home(uid, &home, &pw_gid);
	if (err == -ENOENT)
		/* HOME is root's under sudo, so setting it would not help. */
		return err_set(e, err, "cannot find the home directory of SUDO_UID %u (no passwd entry); "
			       "unset SUDO_UID to use $HOME/.debug", (unsigned)uid);
	if (err)
		return err_set(e, err, "cannot read the passwd entry of SUDO_UID %u: %s", (unsigned)uid,
			       strerror(-err));
	unsigned long g;
	s->set_owner = true;
	s->uid = uid;
	s->gid = env_id("SUDO_GID", &g) ? (gid_t)g : pw_gid;
	err = root_in(s, home);
	free(home);
	return err;
}

int store_open(struct store *s, const char *dir, struct err *e)
{
	memset(s, 0, sizeof(*s));
	if (dir) {
		if (!dir[0])
			return err_set(e, -EINVAL, "the build-id directory is an empty name; give a directory");
		s->root = strdup(dir);
		if (!s->root)
			return -ENOMEM;
		size_t n = strlen(s->root);
		while (n > 1 && s->root[n - 1] == '/')
			s->root[--n] = '\0';
		return 0;
	}
	unsigned long sudo_uid;
	if (geteuid() == 0 && env_id("SUDO_UID", &sudo_uid) && sudo_uid != 0)
		return open_sudo(s, (uid_t)sudo_uid, e);
	const char *home = getenv("HOME");
	if (home && home[0])
		return root_in(s, home);

	char *pw_home;
	gid_t gid;
	int err = passwd_home(geteuid(), &pw_home, &gid);
	if (err == -ENOENT)
		return err_set(e, err, "cannot find the home directory of uid %u (HOME is unset and there is no "
			       "passwd entry); set HOME", (unsigned)geteuid());
	if (err)
		return err_set(e, err, "cannot read the passwd entry of uid %u (HOME is unset): %s; set HOME",
			       (unsigned)geteuid(), strerror(-err));
	err = root_in(s, pw_home);
	free(pw_home);
	return err;
}

void store_close(struct store *s)
{
	free(s->root);
	s->root = NULL;
}

/* Every '/'-separated component of p is there and is not "." or "..":
 * what keeps a name (or a link's target) from leaving the root. */
static bool components_ok(const char *p)
{
	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

bool store_name_ok(const char *name)
{
	if (strcmp(name, "[kernel.kallsyms]") == 0 || strcmp(name, "[vdso]") == 0)
		return true;
	return name[0] == '/' && strlen(name) < PATH_MAX - NAME_ROOM && components_ok(name + 1);
}

/* The file in an entry: one component, and never a dot name, which are
 * the temporaries'. */
static bool file_ok(const char *file)
{
	return file && file[0] && file[0] != '.' && !strchr(file, '/');
}

/* ROOT/.build-id/<2 hex>, and /<rest> after it when link is not NULL. */
static int link_paths(const struct store *s, const struct build_id *id, char *link_dir, char *link)
{
	if (id->size < 2 || id->size > BUILD_ID_MAX)
		return -EINVAL;
	char hex[BUILD_ID_HEX_MAX];
	build_id_hex(id, hex);
	int err = sysfile_path(link_dir, PATH_MAX, "%s/.build-id/%.2s", s->root, hex);
	if (!err && link)
		err = sysfile_path(link, PATH_MAX, "%s/%s", link_dir, hex + 2);
	return err;
}

static int entry_paths(const struct store *s, const char *name, const struct build_id *id, const char *file,
		       struct entry_paths *p)
{
	char hex[BUILD_ID_HEX_MAX];
	build_id_hex(id, hex);
	/* A path's leading '/' is the separator after ROOT, and goes from the
	 * link target, which is relative. */
	bool abs = name[0] == '/';
	int err = sysfile_path(p->dir, sizeof(p->dir), "%s%s%s/%s", s->root, abs ? "" : "/", name, hex);
	if (!err)
		err = sysfile_path(p->file, sizeof(p->file), "%s/%s", p->dir, file);
	if (!err)
		err = sysfile_path(p->target, sizeof(p->target), "../../%s/%s", name + abs, hex);
	if (!err)
		err = link_paths(s, id, p->link_dir, p->link);
	return err;
}

int store_find(const struct store *s, const struct build_id *id, char **rel)
{
	char link_dir[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	*rel = NULL;
	int err = link_paths(s, id, link_dir, link);
	if (err)
		return err;
	ssize_t n = readlink(link, target, sizeof(target));
	if (n < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	if (strncmp(target, "../../", 6) != 0 || !components_ok(target + 6))
		return -EINVAL;
	*rel = strdup(target + 6);
	return *rel ? 0 : -ENOMEM;
}

bool store_has(const struct store *s, const struct build_id *id)
{
	char *rel;
	if (store_find(s, id, &rel) != 0)
		return false;
	char path[PATH_MAX];
	struct stat st;
	bool ok = sysfile_path(path, sizeof(path), "%s/%s", s->root, rel) == 0 && stat(path, &st) == 0 &&
		  S_ISDIR(st.st_mode);
	free(rel);
	return ok;
}

/* Under sudo what is made goes to the user, or their perf could not
 * add to their own cache. */
static int give(const struct store *s, const char *path, struct err *e)
{
	if (!s->set_owner || lchown(path, s->uid, s->gid) == 0)
		return 0;
	int code = errno;
	return err_set(e, -code, "cannot give %s to uid %u: %s", path, (unsigned)s->uid, strerror(code));
}

/* mkdir -p. Only the directories made here are given away: one that
 * exists keeps its owner, whoever that is. */
static int make_dirs(const struct store *s, const char *path, struct err *e)
{
	char p[PATH_MAX];
	int err = sysfile_path(p, sizeof(p), "%s", path);
	if (err)
		return err_set(e, err, "cannot create %s: %s", path, strerror(-err));
	/* Up until a directory is made or found, then back down, putting
	 * back each '/' cut on the way up (the first NUL is the last cut). */
	int depth = 0;
	for (;;) {
		if (mkdir(p, 0755) == 0) {
			err = give(s, p, e);
			break;
		}
		int code = errno;
		if (code == EEXIST)
			break;
		char *slash = strrchr(p, '/');
		if (code != ENOENT || !slash || slash == p)
			return err_set(e, -code, "cannot create %s: %s", p, strerror(code));
		*slash = '\0';
		depth++;
	}
	while (!err && depth-- > 0) {
		p[strlen(p)] = '/';
		if (mkdir(p, 0755) == 0) {
			err = give(s, p, e);
		} else if (errno != EEXIST) { /* EEXIST: another psrec made it first */
			int code = errno;
			return err_set(e, -code, "cannot create %s: %s", p, strerror(code));
		}
	}
	return err;
}

/* dir/.psrec-<16 hex>: random, so two writers of one entry never pick
 * the same; the pid and clock stand in when getrandom cannot. */
static int tmp_name(char tmp[PATH_MAX], const char *dir)
{
	uint64_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_sec << 20 ^ (uint64_t)ts.tv_nsec;
	}
	return sysfile_path(tmp, PATH_MAX, "%s/.psrec-%016" PRIx64, dir, r);
}

/* A new temporary in dir: a symlink to target, or when target is NULL
 * a file opened into *fd. */
static int create_tmp(const char *dir, const char *target, char tmp[PATH_MAX], int *fd)
{
	for (int i = 0; i < TMP_TRIES; i++) {
		int err = tmp_name(tmp, dir);
		if (err)
			return err;
		if (target ? symlink(target, tmp) == 0
			   : (*fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* All of src from offset 0 into dst. Explicit offsets: the caller's fd
 * keeps its position, wherever that is. */
static int copy_fd(int src, int dst)
{
	off_t in = 0, out = 0;
	for (;;) {
		ssize_t n = copy_file_range(src, &in, dst, &out, COPY_CHUNK, 0);
		if (n > 0)
			continue;
		if (n == 0 || errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
			break;
		if (errno != EINTR)
			return -errno;
	}
	/* Read the rest, which is all of it where copy_file_range does not
	 * work, and nothing after it reached the end, but for a /proc or
	 * /sys file (size 0): kernels 5.3 to 5.18 copied none of it and
	 * returned 0. */
	uint8_t *buf = malloc(COPY_BUF);
	if (!buf)
		return -ENOMEM;
	int err = 0;
	for (;;) {
		ssize_t n = pread(src, buf, COPY_BUF, in);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		err = io_pwrite_all(dst, buf, (size_t)n, (uint64_t)out);
		if (err)
			break;
		in += n;
		out += n;
	}
	free(buf);
	return err;
}

/* The entry's file: written under a temporary name, then renamed into
 * place, so the name only ever holds a whole copy. */
static int write_file(const struct store *s, const struct entry_paths *p, const struct source *src,
		      struct err *e)
{
	char tmp[PATH_MAX];
	int fd = -1;
	int err = create_tmp(p->dir, NULL, tmp, &fd);
	if (err)
		return err_set(e, err, "cannot create a temporary file in %s: %s", p->dir, strerror(-err));
	/* perf's modes: an executable stays one (perf report does not care,
	 * but perf buildid-cache copies keep them). Not left to the umask. */
	mode_t mode = 0644;
	if (src->fd >= 0) {
		struct stat st;
		err = fstat(src->fd, &st) < 0 ? -errno : copy_fd(src->fd, fd);
		if (!err && (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
			mode = 0755;
	} else {
		err = io_pwrite_all(fd, src->p, src->len, 0);
	}
	if (!err && s->set_owner && fchown(fd, s->uid, s->gid) < 0)
		err = -errno;
	if (!err && fchmod(fd, mode) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, p->file) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return err_set(e, err, "cannot write %s: %s", p->file, strerror(-err));
	}
	return 0;
}

/* The .build-id link, made beside its name and renamed over it: a stale
 * link is replaced in one step, never missing in between. */
static int write_link(const struct store *s, const struct entry_paths *p, struct err *e)
{
	char tmp[PATH_MAX];
	int err = create_tmp(p->link_dir, p->target, tmp, NULL);
	if (err)
		return err_set(e, err, "cannot create a link in %s: %s", p->link_dir, strerror(-err));
	err = give(s, tmp, e);
	if (!err && rename(tmp, p->link) < 0) {
		int code = errno;
		err = err_set(e, -code, "cannot link %s to %s: %s", p->link, p->target, strerror(code));
	}
	if (err)
		unlink(tmp);
	return err;
}

static int add_entry(const struct store *s, const char *name, const struct build_id *id,
		     const struct source *src, const char *file, struct err *e)
{
	if (!store_name_ok(name))
		return err_set(e, -EINVAL, "cannot cache %s: the build-id cache holds absolute paths "
			       "without . or .. components, [kernel.kallsyms] and [vdso]", name);
	if (!file_ok(file))
		return err_set(e, -EINVAL, "cannot cache %s as \"%s\": not a file name", name, file ? file : "");
	if (id->size < 2 || id->size > BUILD_ID_MAX)
		return err_set(e, -EINVAL, "cannot cache %s: a build-id of %u bytes has no .build-id link "
			       "(2 to %d bytes)", name, (unsigned)id->size, BUILD_ID_MAX);
	struct entry_paths *p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* Under sudo, write with the user's file-system identity: root never
	 * follows a link the user planted in their ~/.debug to a place only
	 * root may write (the source is already open). */
	uid_t old_uid = 0;
	gid_t old_gid = 0;
	if (s->set_owner) {
		old_gid = (gid_t)setfsgid(s->gid);
		old_uid = (uid_t)setfsuid(s->uid);
	}
	int err = entry_paths(s, name, id, file, p);
	if (err) {
		err_set(e, err, "cannot cache %s in %s: the path is too long", name, s->root);
		goto out;
	}
	/* A link that leads to a directory is kept even when it is another
	 * name's (the same build in two places), as perf keeps it. */
	struct stat st;
	bool have_file = lstat(p->file, &st) == 0 && S_ISREG(st.st_mode);
	bool linked = store_has(s, id);
	if (have_file && linked) {
		err = 1;
		goto out;
	}
	if (!have_file) {
		err = make_dirs(s, p->dir, e);
		if (!err)
			err = write_file(s, p, src, e);
	}
	if (!err && !linked) {
		err = make_dirs(s, p->link_dir, e);
		if (!err)
			err = write_link(s, p, e);
	}
out:
	if (s->set_owner) {
		setfsuid(old_uid);
		setfsgid(old_gid);
	}
	free(p);
	return err;
}

int store_add_fd(const struct store *s, const char *name, const struct build_id *id, int src_fd,
		 const char *file, struct err *e)
{
	if (src_fd < 0)
		return err_set(e, -EBADF, "cannot cache %s: no file to copy", name);
	return add_entry(s, name, id, &(struct source){ .fd = src_fd }, file, e);
}

int store_add_mem(const struct store *s, const char *name, const struct build_id *id, const void *image,
		  size_t len, const char *file, struct err *e)
{
	return add_entry(s, name, id, &(struct source){ .fd = -1, .p = image, .len = len }, file, e);
}
