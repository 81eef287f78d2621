/*
 * procfs.c - /proc readers (see procfs.h).
 */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/io.h"
#include "util/vec.h"

#define PF_KTHREAD 0x00200000

/* ENOENT/ESRCH both mean "gone" for a process directory. */
static int gone(int code)
{
	return code == ENOENT || code == ESRCH ? -ESRCH : -code;
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gone(errno);
	size_t got;
	int err = io_read_all(fd, buf, len - 1, &got);
	close(fd);
	if (err)
		return gone(-err);
	buf[got] = '\0';
	return 0;
}

int procfs_status(const char *root, pid_t pid, pid_t tid, struct procfs_status *st)
{
	char path[128], buf[4096];
	memset(st, 0, sizeof(*st));

	snprintf(path, sizeof(path), "%s/%d/task/%d/status", root, (int)pid, (int)tid);
	int err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	bool have_name = false, have_tgid = false;
	for (char *line = buf; line && *line; ) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "Name:\t", 6) == 0) {
			snprintf(st->name, sizeof(st->name), "%s", line + 6);
			have_name = true;
		} else if (sscanf(line, "Tgid: %d", &st->tgid) == 1) {
			have_tgid = true;
		} else if (strncmp(line, "PPid:", 5) == 0) {
			st->ppid = (pid_t)strtol(line + 5, NULL, 10);
		} else if (strncmp(line, "Uid:", 4) == 0) {
			unsigned u;
			if (sscanf(line + 4, "%u", &u) == 1)
				st->uid = (uid_t)u;
		} else if (strncmp(line, "State:\t", 7) == 0) {
			st->state = line[7];
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_name || !have_tgid)
		return -EINVAL;

	/* Field 9 of stat is the task flags; the comm (field 2) may hold
	 * spaces and parentheses, so parse after its last ')'. */
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, (int)pid, (int)tid);
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	char *p = strrchr(buf, ')');
	unsigned long flags = 0;
	char state;
	if (p && sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) == 2)
		st->kthread = (flags & PF_KTHREAD) != 0;
	return 0;
}

int procfs_comm(const char *root, pid_t pid, pid_t tid, char name[PROCFS_COMM_MAX])
{
	char path[128], buf[64];
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", root, (int)pid, (int)tid);
	int err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	size_t n = strcspn(buf, "\n");
	if (n >= PROCFS_COMM_MAX)
		n = PROCFS_COMM_MAX - 1;
	memcpy(name, buf, n);
	name[n] = '\0';
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Numeric entries of a directory, ascending. */
static int numeric_entries(const char *dir, pid_t **out, size_t *n)
{
	DIR *d = opendir(dir);
	*out = NULL;
	*n = 0;
	if (!d)
		return gone(errno);
	size_t cap = 0, cnt = 0;
	pid_t *arr = NULL;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		if (name[0] == '\0' || name[strspn(name, "0123456789")] != '\0')
			continue;
		long v = strtol(name, NULL, 10);
		if (v <= 0 || v > INT32_MAX)
			continue;
		if (VEC_RESERVE(arr, cap, cnt, 1, 64)) {
			free(arr);
			closedir(d);
			return -ENOMEM;
		}
		arr[cnt++] = (pid_t)v;
	}
	closedir(d);
	if (cnt > 1)
		qsort(arr, cnt, sizeof(*arr), cmp_pid);
	*out = arr;
	*n = cnt;
	return 0;
}

int procfs_threads(const char *root, pid_t pid, pid_t **tids, size_t *n)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%d/task", root, (int)pid);
	int err = numeric_entries(path, tids, n);
	if (!err && *n == 0) {
		free(*tids);
		*tids = NULL;
		return -ESRCH;
	}
	return err;
}

int procfs_processes(const char *root, pid_t **pids, size_t *n)
{
	return numeric_entries(root, pids, n);
}

int procfs_descendants(const char *root, const pid_t *roots, size_t nr, pid_t **pids, size_t *n)
{
	pid_t *all;
	size_t na;
	*pids = NULL;
	*n = 0;
	int err = procfs_processes(root, &all, &na);
	if (err)
		return err;
	pid_t *parent = calloc(na ? na : 1, sizeof(*parent));
	bool *in = calloc(na ? na : 1, sizeof(*in));
	if (!parent || !in) {
		free(all);
		free(parent);
		free(in);
		return -ENOMEM;
	}
	for (size_t i = 0; i < na; i++) {
		struct procfs_status st;
		parent[i] = procfs_status(root, all[i], all[i], &st) == 0 ? st.ppid : 0;
		for (size_t j = 0; j < nr && !in[i]; j++)
			in[i] = all[i] == roots[j];
	}
	/* Until nothing changes: a pid may be smaller than its parent's
	 * once pids wrap, so one ascending pass is not enough. */
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < na; i++) {
			if (in[i] || parent[i] <= 0)
				continue;
			for (size_t j = 0; j < na; j++)
				if (in[j] && all[j] == parent[i]) {
					in[i] = grew = true;
					break;
				}
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < na; i++)
		if (in[i])
			all[k++] = all[i];
	free(parent);
	free(in);
	*pids = all;
	*n = k;
	return 0;
}

int procfs_for_each_map(const char *root, pid_t pid,
			int (*fn)(void *ctx, const struct procfs_map *m), void *ctx)
{
	return procfs_for_each_task_map(root, pid, pid, fn, ctx);
}

int procfs_for_each_task_map(const char *root, pid_t pid, pid_t tid,
			     int (*fn)(void *ctx, const struct procfs_map *m), void *ctx)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", root, (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return gone(errno);
	/* Paths may be up to PATH_MAX; a line longer than the buffer is
	 * skipped whole rather than misparsed. */
	char line[4096 + 256];
	int ret = 0;
	bool partial = false;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool complete = (len > 0 && line[len - 1] == '\n') || feof(f);
		if (partial || !complete) {
			partial = !complete;
			continue;
		}
		struct procfs_map m;
		if (procfs_parse_map_line(line, &m))
			continue;
		ret = fn(ctx, &m);
		if (ret)
			break;
	}
	/* A read error must not pass for the end of the list. */
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	fclose(f);
	return ret;
}
