/*
 * sysfile.h - reading the small text files of /proc and /sys.
 *
 * These files are read whole (util/io); values are parsed strictly.
 * Functions return 0 or -errno and never print.
 */
#ifndef PSREC_UTIL_SYSFILE_H
#define PSREC_UTIL_SYSFILE_H

#include <stddef.h>
#include <stdint.h>

/* snprintf for a path: -ENAMETOOLONG instead of a cut path. */
int sysfile_path(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Read the whole file into buf (NUL-terminated, trailing newline removed).
 * -EFBIG if it does not fit in len-1 bytes. */
int sysfile_read_str(const char *path, char *buf, size_t len);
/* Read a file holding one signed decimal integer. */
int sysfile_read_s64(const char *path, int64_t *out);

/*
 * Parse a CPU list such as "0-3,6" into a sorted, duplicate-free array of
 * CPU numbers (caller frees *cpus). -EINVAL on malformed input, on a CPU
 * above 1048576, or on ranges that overlap so much they would expand to
 * more than 2097154 entries before duplicates are dropped.
 */
int cpulist_parse(const char *s, int **cpus, int *n);

#endif
