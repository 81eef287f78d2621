/*
 * oldkernel.c - LD_PRELOAD shim that makes perf_event_open refuse
 * attr.build_id with EINVAL, as a kernel before 5.12 does (the bit was
 * reserved), so the tests reach psrec's fallback on a newer kernel.
 *
 * psrec opens events through libc's syscall(); this library's syscall()
 * answers SYS_perf_event_open itself when the attr has the bit (34 of the
 * flags word at offset 40) and hands every other call to libc's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

long syscall(long number, ...);

long syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_perf_event_open && a[0]) {
		uint64_t flags;
		memcpy(&flags, (const char *)a[0] + 40, sizeof(flags));
		if (flags & (1ULL << 34)) {
			errno = EINVAL;
			return -1;
		}
	}
	long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
