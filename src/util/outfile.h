/*
 * outfile.h - writing an output file so that a failed run never leaves a
 * partial file at its name, and never replaces what must not be replaced.
 * Shared by the recording (record/output.c), psrec archive and psrec fold
 * and flamegraph.
 *
 * A regular file, or a name nothing holds yet, is written as a temporary
 * in the target's directory (a rename cannot cross filesystems), mode
 * 0600, and outfile_commit() renames it over the name, which replaces an
 * existing file atomically; outfile_close() without a commit removes it.
 * The temporary is DIR/.psrec-TAG plus 12 random letters and digits,
 * never derived from the target's name: a long name cannot overflow
 * NAME_MAX, and nobody can pre-create it. With OUTFILE_UNNAMED it is an
 * O_TMPFILE that only the commit gives a name, so not even a kill leaves
 * it behind (the named form stands in where the filesystem has none).
 *
 * Anything else that exists at the name is written in place and never
 * renamed over, which would replace it: a device (/dev/null), a FIFO, a
 * socket, or a path leading into /proc/PID/fd such as /dev/stdout (an
 * open file of some process). With OUTFILE_STDOUT, "-" is standard
 * output. A directory is refused.
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

struct outfile {
	const char *path;       /* the target, as given */
	int fd;                 /* -1: not open */
	bool direct;            /* written in place (see above) */
	bool is_stdout;         /* fd is STDOUT_FILENO, never closed here */
	bool unnamed;           /* an O_TMPFILE the commit has yet to name */
	char *dir;              /* the target's directory; NULL when direct */
	char *tmp;              /* the named temporary, until the commit */
};

/* For a struct that outfile_close() may see before outfile_open(). */
#define OUTFILE_INIT { .fd = -1 }

/*
 * Open path for writing (see above); tag names the temporary. 0, or
 * -errno: -EISDIR when path is a directory; otherwise o->direct says
 * whether opening path itself or creating the temporary in o->dir failed.
 * Call outfile_close() in either case.
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
