/*
 * pmu.c - PMUs from sysfs (see pmu.h).
 */
#include "pmu.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sysfile.h"

/* Append a copy of s to a growing string array. */
static int push_str(const char ***arr, uint32_t nr, const char *s)
{
	const char **n = realloc(*arr, (nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*arr = n;
	n[nr] = strdup(s);
	return n[nr] ? 0 : -ENOMEM;
}

static int read_caps(const char *dir, struct feature_pmu *p)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* most PMUs have no caps */
	int err = 0;
	struct dirent *de;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096], value[4096];
		if (sysfile_path(path, sizeof(path), "%s/%s", dir, de->d_name) ||
		    sysfile_read_str(path, value, sizeof(value)))
			continue;
		err = push_str((const char ***)&p->cap_names, p->nr_caps, de->d_name);
		if (err)
			break;
		err = push_str((const char ***)&p->cap_values, p->nr_caps, value);
		if (err) {
			free((char *)p->cap_names[p->nr_caps]);
			break;
		}
		p->nr_caps++;
	}
	closedir(d);
	return err;
}

static void pmu_clear(struct feature_pmu *p)
{
	for (uint32_t i = 0; i < p->nr_caps; i++) {
		free((char *)p->cap_names[i]);
		free((char *)p->cap_values[i]);
	}
	free((void *)p->cap_names);
	free((void *)p->cap_values);
	free((char *)p->name);
	memset(p, 0, sizeof(*p));
}

int pmu_list_read(const char *sysfs, struct pmu_list *l)
{
	memset(l, 0, sizeof(*l));
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", sysfs);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int err = 0;
	struct dirent *de;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		int64_t type;
		if (sysfile_path(path, sizeof(path), "%s/%s/type", dir, de->d_name) ||
		    sysfile_read_s64(path, &type) || type < 0 || type > UINT32_MAX)
			continue;
		struct feature_pmu *n = realloc(l->pmus, (l->nr + 1) * sizeof(*n));
		if (!n) {
			err = -ENOMEM;
			break;
		}
		l->pmus = n;
		struct feature_pmu *p = &n[l->nr];
		memset(p, 0, sizeof(*p));
		p->type = (uint32_t)type;
		p->name = strdup(de->d_name);
		if (!p->name)
			err = -ENOMEM;
		else if (sysfile_path(path, sizeof(path), "%s/%s/caps", dir, de->d_name) == 0)
			err = read_caps(path, p);
		l->nr++; /* kept even on error, so pmu_list_free frees it */
	}
	closedir(d);
	if (err)
		pmu_list_free(l);
	return err;
}

const struct feature_pmu *pmu_list_find(const struct pmu_list *l, const char *name)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (strcmp(l->pmus[i].name, name) == 0)
			return &l->pmus[i];
	return NULL;
}

void pmu_list_free(struct pmu_list *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		pmu_clear(&l->pmus[i]);
	free(l->pmus);
	memset(l, 0, sizeof(*l));
}
