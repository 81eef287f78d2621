/*
 * pidfd.h - a pidfd for a process (readable once it has exited), with the
 * words that explain a failure to get one.
 */
#ifndef PSREC_RECORD_PIDFD_H
#define PSREC_RECORD_PIDFD_H

#include <sys/types.h>

/* pidfd_open(pid, 0): the fd, or -1 with errno set. */
int pidfd_open_pid(pid_t pid);

/* What to add to a pidfd_open error message for errno code ("" if nothing). */
const char *pidfd_hint(int code);

#endif
