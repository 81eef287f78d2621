/*
 * outfile.h - writing an output file so that a failed run never leaves a
 * partial file at its name, never replaces what must not be replaced, and
 * never writes through what someone else planted at the name. Shared by
 * the recording and its chunks (record/output.c), psrec archive, fold,
 * flamegraph and pprof: every writer of a name the user gave.
 *
 * What is at the name is looked at with lstat, a link not followed:
 *
 * - Nothing, a regular file (a hard link too), or a symlink to a regular
 *   file or to nothing: written as a temporary in the target's directory
 *   (a rename cannot cross filesystems), mode 0600, and outfile_commit()
 *   renames it over the name, which replaces the file or the link
 *   atomically: what it pointed to is never opened. outfile_close()
 *   without a commit removes it. The temporary is DIR/.psrec-TAG plus 12
 *   random letters and digits, never derived from the target's name: a
 *   long name cannot overflow NAME_MAX, and nobody can pre-create it.
 *   With OUTFILE_UNNAMED it is an O_TMPFILE that only the commit gives a
 *   name, so not even a kill leaves it behind (the named form stands in
 *   where the filesystem has none).
 * - A device (/dev/null), a FIFO or a socket, or a symlink to a FIFO or a
 *   socket: written in place, never renamed over (which would replace
 *   it). It is opened as what was looked at: O_PATH first, its device
 *   and inode compared, then opened for writing through that fd, so that
 *   a swap in between is refused, not written.
 * - A directory, or a symlink to one: -EISDIR.
 * - A name of an inherited descriptor, exactly as written: "-" with
 *   OUTFILE_STDOUT (standard output itself), /dev/stdout, /dev/stderr,
 *   /dev/fd/N and /proc/self/fd/N (opened anew): written in place, a
 *   regular file truncated first, as a shell's > would. Only these
 *   literal names lead into /proc.
 *
 * Refused before anything is opened, -EPERM with o->refused one line
 * naming the path, what is there, its owner and the fix:
 *
 * - a symlink leading into /proc at any hop (/proc/PID/fd/N is an open
 *   file of some process: opened by name it would be written with
 *   psrec's rights, not the rights it was opened with);
 * - a symlink to a device (only a device at the name itself is one the
 *   user named);
 * - in a sticky or world-writable directory, a symlink, FIFO, socket or
 *   device that belongs neither to psrec's user nor to the directory's
 *   owner: someone else planted it. This is the rule of the kernel's
 *   fs.protected_symlinks and protected_fifos (a little stricter: sticky
 *   or world-writable, not both), applied whatever the sysctls say.
 *
 * A regular file is not subject to the owner rule: it is never opened,
 * only renamed over.
 */
#ifndef PSREC_UTIL_OUTFILE_H
#define PSREC_UTIL_OUTFILE_H

#include <stdbool.h>

/* "-" is standard output. */
#define OUTFILE_STDOUT 0x1u
/* The temporary is an O_TMPFILE where the filesystem has them. */
#define OUTFILE_UNNAMED 0x2u
/* A FIFO with no reader fails at once with -ENXIO instead of blocking
 * until one comes (for a caller that must stay responsive meanwhile). */
#define OUTFILE_FIFO_NOWAIT 0x4u
/* Only a name the commit replaces will do: what would be written in place
 * is -ESPIPE (o->direct set), and is not opened. */
#define OUTFILE_REPLACE 0x8u

struct outfile {
	const char *path;       /* the target, as given */
	int fd;                 /* -1: not open */
	bool direct;            /* written in place (see above) */
	bool is_stdout;         /* fd is STDOUT_FILENO, never closed here */
	bool unnamed;           /* an O_TMPFILE the commit has yet to name */
	char *dir;              /* the target's directory; NULL when direct */
	char *tmp;              /* the named temporary, until the commit */
	char refused[512];      /* why the name was refused (-EPERM), or "" */
};

/* For a struct that outfile_close() may see before outfile_open(). */
#define OUTFILE_INIT { .fd = -1 }

/*
 * Open path for writing (see above); tag names the temporary. 0, or
 * -errno: -EPERM with o->refused set when the name is refused; -EISDIR
 * when it is a directory; -ENOENT for ""; -ESPIPE under OUTFILE_REPLACE;
 * otherwise o->direct says whether opening path itself or creating the
 * temporary in o->dir failed. Call outfile_close() in either case.
 */
int outfile_open(struct outfile *o, const char *path, const char *tag, unsigned flags);

/* Put the temporary in place, replacing what holds the name; nothing to
 * do when direct. 0 or -errno; on failure the temporary stays until
 * outfile_close(). Only an unnamed temporary needs o->fd here: a caller
 * that closed it through stdio sets o->fd to -1 and may still commit. */
int outfile_commit(struct outfile *o);

/* Close the fd (not standard output) and remove a temporary that was
 * never committed. Takes OUTFILE_INIT and a failed outfile_open(). */
void outfile_close(struct outfile *o);

/* A fresh name DIR/.psrec-TAG plus 12 random letters and digits, for
 * anything a caller must put beside the target (malloc'd; NULL when
 * memory or randomness runs out). It is not created. */
char *outfile_temp_name(const char *dir, const char *tag);

#endif
