/*
 * perm.c - permission and limits doctor (see perm.h).
 *
 * The kernel's rules (kernel/events/core.c, perf_event_open(2)):
 * paranoid -1 allows everything; 0 forbids raw tracepoint access; 1 also
 * forbids CPU-wide events; 2 also forbids kernel-mode samples. CAP_PERFMON
 * (or CAP_SYS_ADMIN before 5.8) overrides. Sampling another task needs
 * ptrace read access to it. Ring buffers are charged to
 * perf_event_mlock_kb per CPU, then to RLIMIT_MEMLOCK.
 */
#include "perm.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "psrec/perf_data.h"
#include "record/procfs.h"
#include "util/sysfile.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

int perm_paranoid(void)
{
	int64_t v;
	if (sysfile_read_s64(PERM_PARANOID_PATH, &v))
		return 2;
	return (int)v;
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

bool perm_privileged(void)
{
	return geteuid() == 0 || has_cap(CAP_PERFMON) || has_cap(CAP_SYS_ADMIN);
}

bool perm_can_sample_kernel(void)
{
	return perm_paranoid() <= 1 || perm_privileged();
}

bool perm_can_sample_cpus(void)
{
	return perm_paranoid() <= 0 || perm_privileged();
}

int perm_ensure_fds(size_t needed, size_t *raised_to, struct err *e)
{
	struct rlimit rl;
	*raised_to = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && needed <= rl.rlim_cur)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && needed > rl.rlim_max && geteuid() == 0) {
		int64_t nr_open = 0;
		sysfile_read_s64("/proc/sys/fs/nr_open", &nr_open);
		if (nr_open > 0 && needed <= (uint64_t)nr_open) {
			struct rlimit want = { needed, needed };
			if (setrlimit(RLIMIT_NOFILE, &want) == 0) {
				*raised_to = needed;
				return 0;
			}
		}
	}
	rlim_t target = needed;
	if (rl.rlim_max != RLIM_INFINITY && target > rl.rlim_max)
		target = rl.rlim_max;
	if (target > rl.rlim_cur) {
		struct rlimit want = { target, rl.rlim_max };
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			*raised_to = target;
	}
	if (target < needed)
		return err_set(e, -EMFILE, "this recording needs %zu file descriptors (CPUs x threads x events) but the limit is %llu: "
			       "raise it with ulimit -n %zu (or record fewer threads or CPUs with -t/-C)",
			       needed, (unsigned long long)rl.rlim_max, needed);
	return 0;
}

static int explain_access(const struct perm_failure *f, struct err *e)
{
	int par = perm_paranoid();
	if (f->system_wide)
		return err_set(e, -f->code, "not allowed to sample all CPUs (-a/-C system-wide needs perf_event_paranoid <= 0, it is %d): "
			       "run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid", par);
	if (f->pid > 0) {
		struct procfs_status st;
		if (procfs_status("/proc", f->pid, f->pid, &st) == 0 && st.uid != getuid() && !perm_privileged())
			return err_set(e, -f->code, "cannot attach to process %d (%s, owned by uid %u): sampling another user's process "
				       "needs root or CAP_PERFMON, and ptrace access (see /proc/sys/kernel/yama/ptrace_scope)",
				       (int)f->pid, st.name, (unsigned)st.uid);
		int64_t yama = 0;
		if (!perm_privileged() && sysfile_read_s64("/proc/sys/kernel/yama/ptrace_scope", &yama) == 0 && yama >= 2)
			return err_set(e, -f->code, "cannot attach to process %d: kernel.yama.ptrace_scope is %" PRId64
				       " and forbids it; run as root or grant CAP_PERFMON", (int)f->pid, yama);
	}
	if (f->has_ev && !f->ev.exclude_kernel && !perm_can_sample_kernel())
		return err_set(e, -f->code, "not allowed to sample '%s' in kernel mode (perf_event_paranoid is %d): use :u, "
			       "run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid", f->ev.name, par);
	return err_set(e, -f->code, "not allowed to sample '%s' (perf_event_paranoid is %d): run as root, grant CAP_PERFMON, "
		       "or lower /proc/sys/kernel/perf_event_paranoid", f->has_ev ? f->ev.name : "?", par);
}

int perm_explain(const struct perm_failure *f, struct err *e)
{
	const char *name = f->has_ev ? f->ev.name : "?";
	if (f->at_mmap) {
		int64_t mlock = 0;
		sysfile_read_s64(PERM_MLOCK_PATH, &mlock);
		return err_set(e, -f->code, "cannot map a %zu KiB ring buffer on CPU %d: %s (perf_event_mlock_kb is %" PRId64
			       " per CPU, then RLIMIT_MEMLOCK): use a smaller -m or raise ulimit -l",
			       f->ring_kb, f->cpu, strerror(f->code), mlock);
	}
	switch (f->code) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (f->has_ev && (f->ev.type == PD_TYPE_HARDWARE || f->ev.type == PD_TYPE_HW_CACHE))
			return err_set(e, -f->code, "event '%s' is not supported on this machine (no hardware PMU: %s); use -e cpu-clock",
				       name, strerror(f->code));
		return err_set(e, -f->code, "event '%s' is not supported by this kernel: %s", name, strerror(f->code));
	case EACCES:
	case EPERM:
		return explain_access(f, e);
	case ESRCH:
		return err_set(e, -f->code, "process %d exited before recording started", (int)f->pid);
	case EMFILE:
	case ENFILE:
		return err_set(e, -f->code, "out of file descriptors opening '%s' (this recording needs about %zu): raise ulimit -n",
			       name, f->fds_needed);
	case EINVAL:
		return err_set(e, -f->code, "the kernel rejected event '%s' on CPU %d (invalid argument): check -F/-c and -k",
			       name, f->cpu);
	default:
		return err_set(e, -f->code, "cannot open event '%s' on CPU %d: %s", name, f->cpu, strerror(f->code));
	}
}
