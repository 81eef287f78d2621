/*
 * pidfd.c - pidfd_open (see pidfd.h).
 */
#include "pidfd.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

int pidfd_open_pid(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* ENOSYS means the kernel (or a syscall emulator such as valgrind) has no
 * pidfd_open; any other errno is a resource problem the hint would hide. */
const char *pidfd_hint(int code)
{
	return code == ENOSYS ? " (the kernel, or valgrind if psrec runs under it, lacks pidfd_open; psrec needs Linux 5.3 or newer)" : "";
}
