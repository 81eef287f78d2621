/*
 * sampler.c - the per-CPU sampler set (see sampler.h).
 */
#include "sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/vec.h"

static int sys_perf_event_open(struct pd_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static void build_attr(struct pd_attr *a, const struct evspec *ev, const struct sampler_config *c,
		       bool tracking, bool build_id)
{
	memset(a, 0, sizeof(*a));
	a->type = ev->type;
	a->size = PD_ATTR_SIZE;
	a->config = ev->config;
	a->sample_type = SAMPLER_SAMPLE_BASE;
	if (c->nr_events > 1 || c->identifier)
		a->sample_type |= PD_SAMPLE_IDENTIFIER;
	if (c->sample_cpu)
		a->sample_type |= PD_SAMPLE_CPU;
	a->flags = PD_ATTR_SAMPLE_ID_ALL | PD_ATTR_USE_CLOCKID;
	if (!c->open_enabled)
		a->flags |= PD_ATTR_DISABLED;
	if (c->period) {
		a->sample_period = c->period;
	} else {
		a->sample_period = c->freq;
		a->flags |= PD_ATTR_FREQ;
	}
	if (c->inherit)
		a->flags |= PD_ATTR_INHERIT;
	if (c->enable_on_exec)
		a->flags |= PD_ATTR_ENABLE_ON_EXEC;
	if (tracking)
		a->flags |= PD_ATTR_MMAP | PD_ATTR_COMM | PD_ATTR_TASK | PD_ATTR_MMAP2 | PD_ATTR_COMM_EXEC;
	if (tracking && build_id)
		a->flags |= PD_ATTR_BUILD_ID;
	if (ev->exclude_user)
		a->flags |= PD_ATTR_EXCLUDE_USER;
	if (ev->exclude_kernel)
		a->flags |= PD_ATTR_EXCLUDE_KERNEL;
	if (ev->exclude_hv)
		a->flags |= PD_ATTR_EXCLUDE_HV;
	a->clockid = c->clockid;
	callgraph_apply(&c->callgraph, a, ev->exclude_kernel, tracking);
}

static void close_all(struct sampler *s)
{
	for (size_t i = 0; s->maps && i < s->nr_cpus; i++)
		if (s->maps[i])
			munmap(s->maps[i], s->map_len);
	for (size_t i = 0; i < s->nr_fds; i++)
		close(s->fds[i]);
	for (size_t i = 0; s->ev && i < s->nr_events; i++)
		free(s->ev[i].ids);
	free(s->ev);
	free(s->fds);
	free(s->fd_cpu);
	free(s->rings);
	free(s->ring_fds);
	free(s->maps);
}

static int push_fd(struct sampler *s, int fd, size_t ci)
{
	/* Two arrays of one capacity: it grows only once both have. */
	size_t cap_fd = s->cap_fds, cap_cpu = s->cap_fds;
	if (VEC_RESERVE(s->fds, cap_fd, s->nr_fds, 1, 64) || VEC_RESERVE(s->fd_cpu, cap_cpu, s->nr_fds, 1, 64))
		return -ENOMEM;
	s->cap_fds = cap_fd;
	s->fds[s->nr_fds] = fd;
	s->fd_cpu[s->nr_fds] = ci;
	s->nr_fds++;
	return 0;
}

static int push_id(struct sampler_event *se, uint64_t id)
{
	uint64_t *n = realloc(se->ids, (se->nr_ids + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	se->ids = n;
	se->ids[se->nr_ids++] = id;
	return 0;
}

/* Ask sampler_open for another attempt with adjusted settings. */
#define RETRY_USER_ONLY   1
#define RETRY_CPU_CLOCK   2
#define RETRY_SMALLER_RING 3
#define RETRY_NO_BUILD_ID 4

static void fail_at(struct perm_failure *f, int code, const struct evspec *ev, pid_t pid, int cpu,
		    const struct sampler_config *c)
{
	memset(f, 0, sizeof(*f));
	f->code = code;
	if (ev) {
		f->ev = *ev;
		f->has_ev = true;
	}
	f->pid = pid;
	f->cpu = cpu;
	f->system_wide = pid == -1;
	f->fds_needed = c->nr_cpus * c->nr_events * c->nr_pids;
}

/* Map fd as CPU ci's ring. 0, RETRY_SMALLER_RING, or -errno. */
static int map_ring(struct sampler *s, size_t ci, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int code = errno;
		if (code == EPERM && s->ring_pages > 1)
			return RETRY_SMALLER_RING;
		return -code;
	}
	s->maps[ci] = m;
	s->ring_fds[ci] = fd;
	ring_init(&s->rings[ci], m, (uint8_t *)m + page, (uint64_t)s->ring_pages * page);
	return 0;
}

/*
 * Open every event for pids[0..n) on every CPU. Returns 0, -errno (with
 * *f), or a RETRY_* code. vanished[i] is set for threads that exited.
 */
static int open_pids(struct sampler *s, const struct sampler_config *c, const pid_t *pids,
		     size_t n, bool *vanished, struct perm_failure *f)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t ci = 0; ci < c->nr_cpus; ci++) {
		int cpu = c->cpus[ci];
		for (size_t ei = 0; ei < c->nr_events; ei++) {
			const struct evspec *ev = &s->spec[ei];
			for (size_t pi = 0; pi < n; pi++) {
				if (vanished[pi])
					continue;
				int fd = sys_perf_event_open(&s->ev[ei].attr, pids[pi], cpu, -1,
							     PERF_FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int code = errno;
					bool unsupported = code == ENOENT || code == EOPNOTSUPP || code == ENODEV;
					if (code == ESRCH && c->skip_vanished) {
						vanished[pi] = true;
						s->nr_skipped++;
						continue;
					}
					if (unsupported && ev->is_default && ev->type == PD_TYPE_HARDWARE)
						return RETRY_CPU_CLOCK;
					if ((code == EACCES || code == EPERM) && !ev->has_modifier && !ev->exclude_kernel)
						return RETRY_USER_ONLY;
					/* Before 5.12 the bit is reserved: EINVAL. */
					if (code == EINVAL && (s->ev[ei].attr.flags & PD_ATTR_BUILD_ID))
						return RETRY_NO_BUILD_ID;
					fail_at(f, code, ev, pids[pi], cpu, c);
					return -code;
				}
				if (push_fd(s, fd, ci)) {
					close(fd);
					return -ENOMEM;
				}
				if (s->ring_fds[ci] < 0) {
					int r = map_ring(s, ci, fd);
					if (r > 0)
						return r;
					if (r < 0) {
						fail_at(f, -r, ev, pids[pi], cpu, c);
						f->at_mmap = true;
						f->ring_kb = s->ring_pages * page / 1024;
						return r;
					}
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ring_fds[ci]) < 0) {
					fail_at(f, errno, ev, pids[pi], cpu, c);
					return -f->code;
				}
				/* Ids tell events apart; a lone event needs just one
				 * (pipe mode names it by id), not one per fd. */
				if (c->nr_events == 1 && !c->identifier && s->ev[ei].nr_ids > 0)
					continue;
				uint64_t id;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
					fail_at(f, errno, ev, pids[pi], cpu, c);
					return -f->code;
				}
				if (push_id(&s->ev[ei], id))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

static int try_open(struct sampler *s, const struct sampler_config *c, struct evspec *spec, size_t pages,
		    bool build_id, struct perm_failure *f)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	s->spec = spec;
	s->nr_events = c->nr_events;
	s->nr_cpus = c->nr_cpus;
	s->cpus = c->cpus;
	s->ring_pages = pages;
	s->map_len = (1 + pages) * page;
	s->ev = calloc(c->nr_events, sizeof(*s->ev));
	s->rings = calloc(c->nr_cpus, sizeof(*s->rings));
	s->ring_fds = calloc(c->nr_cpus, sizeof(*s->ring_fds));
	s->maps = calloc(c->nr_cpus, sizeof(*s->maps));
	bool *vanished = calloc(c->nr_pids, sizeof(*vanished));
	if (!s->ev || !s->rings || !s->ring_fds || !s->maps || !vanished) {
		free(vanished);
		return -ENOMEM;
	}
	for (size_t ci = 0; ci < c->nr_cpus; ci++)
		s->ring_fds[ci] = -1;
	s->kernel_samples = false;
	for (size_t i = 0; i < c->nr_events; i++) {
		build_attr(&s->ev[i].attr, &spec[i], c, i == 0, build_id);
		s->ev[i].name = spec[i].name;
		if (!spec[i].exclude_kernel)
			s->kernel_samples = true;
	}
	/* Without call-graph bits: what the sample_id trailer and the TIME
	 * offset are computed from. */
	s->sample_type = s->ev[0].attr.sample_type & ~(PD_SAMPLE_CALLCHAIN | PD_SAMPLE_REGS_USER |
						       PD_SAMPLE_STACK_USER | PD_SAMPLE_BRANCH_STACK);
	int r = open_pids(s, c, c->pids, c->nr_pids, vanished, f);
	free(vanished);
	if (r == 0 && s->nr_skipped == c->nr_pids) {
		fail_at(f, ESRCH, &spec[0], c->pids[0], c->cpus[0], c);
		return -ESRCH;
	}
	return r;
}

int sampler_open(struct sampler *s, const struct sampler_config *c, struct perm_failure *f)
{
	bool kx = false, fb = false, shrunk = false, build_id = c->build_id;
	size_t pages = c->mmap_pages;

	memset(s, 0, sizeof(*s));
	memset(f, 0, sizeof(*f));
	if (c->nr_events == 0 || c->nr_cpus == 0 || c->nr_pids == 0)
		return -EINVAL;
	/* The fallbacks change the sampler's own copy, never the config. */
	struct evspec *spec = malloc(c->nr_events * sizeof(*spec));
	if (!spec)
		return -ENOMEM;
	memcpy(spec, c->events, c->nr_events * sizeof(*spec));
	for (int attempt = 0; attempt < 32; attempt++) {
		int r = try_open(s, c, spec, pages, build_id, f);
		if (r == 0) {
			s->build_id_mmap = build_id;
			s->build_id_refused = c->build_id && !build_id;
			s->kernel_excluded = kx;
			s->default_fell_back = fb;
			s->ring_shrunk = shrunk;
			return 0;
		}
		close_all(s);
		memset(s, 0, sizeof(*s));
		if (r < 0) {
			free(spec);
			return r;
		}
		if (r == RETRY_CPU_CLOCK) {
			for (size_t i = 0; i < c->nr_events; i++)
				if (spec[i].is_default && spec[i].type == PD_TYPE_HARDWARE)
					evspec_use_cpu_clock(&spec[i]);
			fb = true;
		} else if (r == RETRY_NO_BUILD_ID) {
			build_id = false;
		} else if (r == RETRY_SMALLER_RING) {
			pages /= 2;
			shrunk = true;
		} else if (r == RETRY_USER_ONLY) {
			for (size_t i = 0; i < c->nr_events; i++) {
				struct evspec *ev = &spec[i];
				if (ev->has_modifier)
					continue;
				ev->exclude_kernel = true;
				ev->exclude_hv = true;
				size_t n = strlen(ev->name);
				if (n + 3 <= sizeof(ev->name))
					memcpy(ev->name + n, ":u", 3);
			}
			kx = true;
		}
	}
	free(spec);
	return -EAGAIN;
}

int sampler_add(struct sampler *s, const struct sampler_config *c, const pid_t *pids,
		size_t n, size_t *added, struct perm_failure *f)
{
	*added = 0;
	if (n == 0)
		return 0;
	bool *vanished = calloc(n, sizeof(*vanished));
	if (!vanished)
		return -ENOMEM;
	size_t skipped = s->nr_skipped;
	int r = open_pids(s, c, pids, n, vanished, f);
	free(vanished);
	if (r > 0) {
		/* Settings were fixed by sampler_open; a retry now means the
		 * kernel changed its mind. Report it plainly. */
		fail_at(f, EPERM, &s->spec[0], pids[0], c->cpus[0], c);
		return -EPERM;
	}
	if (r == 0)
		*added = n - (s->nr_skipped - skipped);
	return r;
}

static int for_each_fd(struct sampler *s, unsigned long req)
{
	for (size_t i = 0; i < s->nr_fds; i++)
		if (ioctl(s->fds[i], req, 0) < 0)
			return -errno;
	return 0;
}

int sampler_enable(struct sampler *s)
{
	return for_each_fd(s, PERF_EVENT_IOC_ENABLE);
}

int sampler_disable(struct sampler *s)
{
	return for_each_fd(s, PERF_EVENT_IOC_DISABLE);
}

void sampler_close(struct sampler *s)
{
	close_all(s);
	free(s->spec);
	memset(s, 0, sizeof(*s));
}

void sampler_announce(const struct sampler *s, size_t pages_asked, bool pages_given, const struct notify *n)
{
	if (s->build_id_refused)
		notify_say(n, NOTIFY_VERBOSE,
			   "the kernel predates attr.build_id (Linux 5.12): build-ids are read from the mapped files after recording");
	if (s->default_fell_back)
		notify_say(n, NOTIFY_VERBOSE, "no hardware PMU: default event cycles replaced by cpu-clock");
	if (s->kernel_excluded)
		notify_say(n, NOTIFY_WARN, "kernel samples not permitted (perf_event_paranoid is %d); recording user space only",
			   perm_paranoid());
	if (s->ring_shrunk)
		notify_say(n, pages_given ? NOTIFY_WARN : NOTIFY_VERBOSE,
			   "a %zu KiB ring per CPU exceeds the locked-memory limit (perf_event_mlock_kb, ulimit -l); using %zu KiB",
			   pages_asked * (size_t)sysconf(_SC_PAGESIZE) / 1024, (size_t)s->rings[0].size / 1024);
}
