/*
 * sampler.c - the per-CPU sampler set (see sampler.h).
 */
#include "sampler.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/sysfile.h"

static int sys_perf_event_open(struct pd_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static void build_attr(struct pd_attr *a, const struct evspec *ev, const struct sampler_config *c,
		       bool tracking)
{
	memset(a, 0, sizeof(*a));
	a->type = ev->type;
	a->size = PD_ATTR_SIZE;
	a->config = ev->config;
	a->sample_type = SAMPLER_SAMPLE_TYPE;
	a->flags = PD_ATTR_DISABLED | PD_ATTR_INHERIT | PD_ATTR_SAMPLE_ID_ALL | PD_ATTR_USE_CLOCKID;
	if (c->period) {
		a->sample_period = c->period;
	} else {
		a->sample_period = c->freq;
		a->flags |= PD_ATTR_FREQ;
	}
	if (c->enable_on_exec)
		a->flags |= PD_ATTR_ENABLE_ON_EXEC;
	if (tracking)
		a->flags |= PD_ATTR_MMAP | PD_ATTR_COMM | PD_ATTR_TASK | PD_ATTR_MMAP2 | PD_ATTR_COMM_EXEC;
	if (ev->exclude_user)
		a->flags |= PD_ATTR_EXCLUDE_USER;
	if (ev->exclude_kernel)
		a->flags |= PD_ATTR_EXCLUDE_KERNEL;
	if (ev->exclude_hv)
		a->flags |= PD_ATTR_EXCLUDE_HV;
	a->clockid = c->clockid;
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
	free(s->rings);
	free(s->ring_fds);
	free(s->maps);
	s->ev = NULL;
	s->fds = NULL;
	s->rings = NULL;
	s->ring_fds = NULL;
	s->maps = NULL;
	s->nr_fds = 0;
}

static int paranoid_level(void)
{
	int64_t v = 2;
	sysfile_read_s64("/proc/sys/kernel/perf_event_paranoid", &v);
	return (int)v;
}

/* Why opening `ev` failed with errno `code`, as one line with the fix. */
static int explain_open_error(const struct evspec *ev, int code, pid_t pid, int cpu,
			      size_t nr_fds_needed, struct err *e)
{
	switch (code) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->type == PD_TYPE_HARDWARE || ev->type == PD_TYPE_HW_CACHE)
			return err_set(e, -code, "event '%s' is not supported on this machine (no hardware PMU: %s); use -e cpu-clock",
				       ev->name, strerror(code));
		return err_set(e, -code, "event '%s' is not supported by this kernel: %s", ev->name, strerror(code));
	case EACCES:
	case EPERM:
		return err_set(e, -code, "not allowed to sample '%s' (perf_event_paranoid is %d): run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid",
			       ev->name, paranoid_level());
	case ESRCH:
		return err_set(e, -code, "process %d exited before recording started", (int)pid);
	case EMFILE:
	case ENFILE:
		return err_set(e, -code, "out of file descriptors opening '%s' (need about %zu): raise the limit with ulimit -n",
			       ev->name, nr_fds_needed);
	case EINVAL:
		return err_set(e, -code, "the kernel rejected event '%s' on CPU %d (invalid argument): check -F/-c and -k", ev->name, cpu);
	default:
		return err_set(e, -code, "cannot open event '%s' on CPU %d: %s", ev->name, cpu, strerror(code));
	}
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

/* Result of one attempt: 0, a negative errno with *e set, or one of these
 * to ask for a retry with adjusted events. */
#define RETRY_USER_ONLY 1
#define RETRY_CPU_CLOCK 2

static int try_open(struct sampler *s, const struct sampler_config *c, struct err *e)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t per_cpu = c->nr_events * c->nr_pids;
	size_t total = per_cpu * c->nr_cpus;

	s->nr_events = c->nr_events;
	s->nr_cpus = c->nr_cpus;
	s->cpus = c->cpus;
	s->map_len = (1 + c->mmap_pages) * page;
	s->ev = calloc(c->nr_events, sizeof(*s->ev));
	s->fds = calloc(total, sizeof(*s->fds));
	s->rings = calloc(c->nr_cpus, sizeof(*s->rings));
	s->ring_fds = calloc(c->nr_cpus, sizeof(*s->ring_fds));
	s->maps = calloc(c->nr_cpus, sizeof(*s->maps));
	if (!s->ev || !s->fds || !s->rings || !s->ring_fds || !s->maps)
		return -ENOMEM;

	s->kernel_samples = false;
	for (size_t i = 0; i < c->nr_events; i++) {
		build_attr(&s->ev[i].attr, &c->events[i], c, i == 0);
		s->ev[i].name = c->events[i].name;
		if (!c->events[i].exclude_kernel)
			s->kernel_samples = true;
	}

	for (size_t ci = 0; ci < c->nr_cpus; ci++) {
		int cpu = c->cpus[ci];
		s->ring_fds[ci] = -1;
		for (size_t ei = 0; ei < c->nr_events; ei++) {
			struct evspec *ev = &c->events[ei];
			for (size_t pi = 0; pi < c->nr_pids; pi++) {
				int fd = sys_perf_event_open(&s->ev[ei].attr, c->pids[pi], cpu, -1,
							     PERF_FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int code = errno;
					bool unsupported = code == ENOENT || code == EOPNOTSUPP || code == ENODEV;
					if (unsupported && ev->is_default && ev->type == PD_TYPE_HARDWARE)
						return RETRY_CPU_CLOCK;
					if ((code == EACCES || code == EPERM) && !ev->has_modifier && !ev->exclude_kernel)
						return RETRY_USER_ONLY;
					return explain_open_error(ev, code, c->pids[pi], cpu, total, e);
				}
				s->fds[s->nr_fds++] = fd;
				if (s->ring_fds[ci] < 0) {
					void *m = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
					if (m == MAP_FAILED) {
						int code = errno;
						return err_set(e, -code, "cannot map a %zu KiB ring buffer on CPU %d: %s; "
							       "use a smaller -m (perf_event_mlock_kb limits unprivileged users)",
							       c->mmap_pages * page / 1024, cpu, strerror(code));
					}
					s->maps[ci] = m;
					s->ring_fds[ci] = fd;
					ring_init(&s->rings[ci], m, (uint8_t *)m + page, (uint64_t)c->mmap_pages * page);
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ring_fds[ci]) < 0) {
					int code = errno;
					return err_set(e, -code, "cannot redirect '%s' into the CPU %d ring buffer: %s",
						       ev->name, cpu, strerror(code));
				}
				uint64_t id;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
					int code = errno;
					return err_set(e, -code, "cannot read the sample id of '%s': %s (kernel too old?)",
						       ev->name, strerror(code));
				}
				if (push_id(&s->ev[ei], id))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

int sampler_open(struct sampler *s, const struct sampler_config *c, struct err *e)
{
	memset(s, 0, sizeof(*s));
	if (c->nr_events == 0 || c->nr_cpus == 0 || c->nr_pids == 0)
		return -EINVAL;
	for (int attempt = 0; attempt < 4; attempt++) {
		int r = try_open(s, c, e);
		if (r == 0)
			return 0;
		bool kx = s->kernel_excluded, fb = s->default_fell_back;
		close_all(s);
		memset(s, 0, sizeof(*s));
		s->kernel_excluded = kx;
		s->default_fell_back = fb;
		if (r == RETRY_CPU_CLOCK) {
			for (size_t i = 0; i < c->nr_events; i++)
				if (c->events[i].is_default && c->events[i].type == PD_TYPE_HARDWARE)
					evspec_use_cpu_clock(&c->events[i]);
			s->default_fell_back = true;
		} else if (r == RETRY_USER_ONLY && !s->kernel_excluded) {
			for (size_t i = 0; i < c->nr_events; i++) {
				struct evspec *ev = &c->events[i];
				if (ev->has_modifier)
					continue;
				ev->exclude_kernel = true;
				ev->exclude_hv = true;
				size_t n = strlen(ev->name);
				if (n + 2 < sizeof(ev->name))
					memcpy(ev->name + n, ":u", 3);
			}
			s->kernel_excluded = true;
		} else if (r > 0) {
			return err_set(e, -EACCES, "not allowed to sample user space either (perf_event_paranoid is %d): "
				       "run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid",
				       paranoid_level());
		} else {
			return r;
		}
	}
	return err_set(e, -EINVAL, "cannot open events: gave up after retries");
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
	memset(s, 0, sizeof(*s));
}
