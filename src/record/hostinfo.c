/*
 * hostinfo.c - machine facts for the feature sections (see hostinfo.h).
 *
 * Sources match what perf 6.1 records (perf-data-format.md 2.3): CPUDESC
 * is /proc/cpuinfo's model name with whitespace squashed, CPUID on x86 is
 * "vendor,family,model,stepping", NRCPUS is {present, online}, TOTAL_MEM
 * is MemTotal in kB, topology comes from /sys/devices/system/cpu.
 */
#include "hostinfo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/sysfile.h"

#define CPU_SYSFS "/sys/devices/system/cpu"

/* The first CPU's block of /proc/cpuinfo (up to the first blank line):
 * read once, and only that far, however many CPUs there are. */
static void read_cpuinfo_block(char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	size_t n = 0;
	char line[1024];
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		size_t l = strlen(line);
		if (n + l + 1 > len)
			break;
		memcpy(buf + n, line, l + 1);
		n += l;
	}
	fclose(f);
}

/* Value of the "key : value" line of a cpuinfo block, whitespace squashed. */
static int cpuinfo_value(const char *block, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	for (const char *line = block, *next; *line; line = next) {
		const char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (strncmp(line, key, klen) != 0)
			continue;
		const char *p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		size_t o = 0;
		int space = 1; /* drops leading blanks too */
		for (; *p && *p != '\n' && o + 1 < len; p++) {
			int is_space = *p == ' ' || *p == '\t';
			if (is_space && space)
				continue;
			out[o++] = is_space ? ' ' : *p;
			space = is_space;
		}
		while (o > 0 && out[o - 1] == ' ')
			o--;
		out[o] = '\0';
		return 0;
	}
	return -ENOENT;
}

static void read_cpuid(struct hostinfo *h, const char *block)
{
#if defined(__x86_64__) || defined(__i386__)
	char vendor[64], family[16], model[16], stepping[16];
	if (cpuinfo_value(block, "vendor_id", vendor, sizeof(vendor)) == 0 &&
	    cpuinfo_value(block, "cpu family", family, sizeof(family)) == 0 &&
	    cpuinfo_value(block, "model", model, sizeof(model)) == 0 &&
	    cpuinfo_value(block, "stepping", stepping, sizeof(stepping)) == 0)
		snprintf(h->cpuid, sizeof(h->cpuid), "%s,%s,%s,%s", vendor, family, model, stepping);
#elif defined(__aarch64__)
	(void)block;
	char midr[64];
	if (sysfile_read_str(CPU_SYSFS "/cpu0/regs/identification/midr_el1", midr, sizeof(midr)) == 0)
		snprintf(h->cpuid, sizeof(h->cpuid), "%s", midr);
#else
	(void)h;
	(void)block;
#endif
}

static uint64_t meminfo_total_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	if (!f)
		return 0;
	char line[256];
	uint64_t kb = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static uint32_t count_cpus(const char *path)
{
	char s[4096];
	int *cpus;
	int n;
	if (sysfile_read_str(path, s, sizeof(s)) || cpulist_parse(s, &cpus, &n))
		return 0;
	/* Count up to the highest id: perf sizes per-CPU arrays this way. */
	uint32_t max = n ? (uint32_t)cpus[n - 1] + 1 : 0;
	free(cpus);
	return max;
}

/* Append s to a list of unique strings. */
static int add_unique(char ***list, uint32_t *nr, const char *s)
{
	for (uint32_t i = 0; i < *nr; i++)
		if (strcmp((*list)[i], s) == 0)
			return 0;
	char **n = realloc(*list, (*nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*list = n;
	n[*nr] = strdup(s);
	if (!n[*nr])
		return -ENOMEM;
	(*nr)++;
	return 0;
}

static int topo_str(int cpu, const char *a, const char *b, char *out, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s", cpu, a);
	if (sysfile_read_str(path, out, len) == 0)
		return 0;
	if (!b)
		return -ENOENT;
	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s", cpu, b);
	return sysfile_read_str(path, out, len);
}

static uint32_t topo_id(int cpu, const char *name)
{
	char path[256];
	int64_t v;
	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s", cpu, name);
	if (sysfile_read_s64(path, &v))
		return UINT32_MAX;
	return (uint32_t)v;
}

static int read_topology(struct hostinfo *h)
{
	uint32_t n = h->nr_cpus_avail;
	char s[4096];
	int have_die = 1;

	h->core_id = calloc(n ? n : 1, sizeof(uint32_t));
	h->socket_id = calloc(n ? n : 1, sizeof(uint32_t));
	h->die_id = calloc(n ? n : 1, sizeof(uint32_t));
	if (!h->core_id || !h->socket_id || !h->die_id)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < n; cpu++) {
		h->core_id[cpu] = topo_id((int)cpu, "core_id");
		h->socket_id[cpu] = topo_id((int)cpu, "physical_package_id");
		h->die_id[cpu] = topo_id((int)cpu, "die_id");
		if (h->die_id[cpu] == UINT32_MAX)
			have_die = 0;
		/* Offline CPUs have no topology directory: skip their lists. */
		if (topo_str((int)cpu, "package_cpus_list", "core_siblings_list", s, sizeof(s)) == 0) {
			int err = add_unique(&h->core_sibs, &h->nr_core_sibs, s);
			if (err)
				return err;
		}
		if (topo_str((int)cpu, "core_cpus_list", "thread_siblings_list", s, sizeof(s)) == 0) {
			int err = add_unique(&h->thread_sibs, &h->nr_thread_sibs, s);
			if (err)
				return err;
		}
		if (topo_str((int)cpu, "die_cpus_list", NULL, s, sizeof(s)) == 0) {
			int err = add_unique(&h->die_sibs, &h->nr_die_sibs, s);
			if (err)
				return err;
		} else {
			have_die = 0;
		}
	}
	if (!have_die) {
		for (uint32_t i = 0; i < h->nr_die_sibs; i++)
			free(h->die_sibs[i]);
		free(h->die_sibs);
		h->die_sibs = NULL;
		h->nr_die_sibs = 0;
	}
	h->topo_ok = n > 0 && h->nr_core_sibs > 0 && h->nr_thread_sibs > 0;
	return 0;
}

int hostinfo_read(struct hostinfo *h)
{
	memset(h, 0, sizeof(*h));
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
		snprintf(h->osrelease, sizeof(h->osrelease), "%s", u.release);
		snprintf(h->arch, sizeof(h->arch), "%s", u.machine);
	}
	char block[4096];
	read_cpuinfo_block(block, sizeof(block));
	if (cpuinfo_value(block, "model name", h->cpudesc, sizeof(h->cpudesc)))
		h->cpudesc[0] = '\0';
	read_cpuid(h, block);
	h->nr_cpus_avail = count_cpus(CPU_SYSFS "/present");
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	h->nr_cpus_online = online > 0 ? (uint32_t)online : 0;
	if (h->nr_cpus_avail < h->nr_cpus_online)
		h->nr_cpus_avail = h->nr_cpus_online;
	h->mem_total_kb = meminfo_total_kb();
	return read_topology(h);
}

void hostinfo_topology(const struct hostinfo *h, struct feature_topology *t)
{
	t->nr_cpus_avail = h->nr_cpus_avail;
	t->core_sibs = (const char *const *)h->core_sibs;
	t->nr_core_sibs = h->nr_core_sibs;
	t->thread_sibs = (const char *const *)h->thread_sibs;
	t->nr_thread_sibs = h->nr_thread_sibs;
	t->core_id = h->core_id;
	t->socket_id = h->socket_id;
	t->die_sibs = (const char *const *)h->die_sibs;
	t->nr_die_sibs = h->nr_die_sibs;
	t->die_id = h->die_id;
}

static void free_list(char **l, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

void hostinfo_free(struct hostinfo *h)
{
	free_list(h->core_sibs, h->nr_core_sibs);
	free_list(h->thread_sibs, h->nr_thread_sibs);
	free_list(h->die_sibs, h->nr_die_sibs);
	free(h->core_id);
	free(h->socket_id);
	free(h->die_id);
	memset(h, 0, sizeof(*h));
}

int hostinfo_online_cpus(int **cpus, int *n)
{
	char s[4096];
	int err = sysfile_read_str("/sys/devices/system/cpu/online", s, sizeof(s));
	return err ? err : cpulist_parse(s, cpus, n);
}

int hostinfo_choose_cpus(const int *given, int n, int **cpus, int *ncpus, struct err *e)
{
	if (given) {
		*cpus = malloc((size_t)n * sizeof(**cpus));
		if (!*cpus)
			return -ENOMEM;
		memcpy(*cpus, given, (size_t)n * sizeof(**cpus));
		*ncpus = n;
		return 0;
	}
	int err = hostinfo_online_cpus(cpus, ncpus);
	if (err)
		return err_set(e, err, "cannot read the online CPUs from /sys/devices/system/cpu/online: %s", strerror(-err));
	return 0;
}
