/*
 * out.c - an offline command's output file (see out.h).
 */
#include "out.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/say.h"

int cli_out_open(const char *out, const char *tag, struct outfile *of, FILE **f)
{
	*f = NULL;
	int err = outfile_open(of, out, tag, OUTFILE_STDOUT);
	if (!err) {
		*f = of->is_stdout ? stdout : fdopen(of->fd, "w");
		err = *f ? 0 : -errno;
	}
	if (!err && !of->direct)
		fchmod(of->fd, 0644);
	if (err && of->refused[0])
		cli_say("%s", of->refused);
	else if (err)
		cli_say("cannot write %s: %s", out, strerror(-err));
	return err;
}

int cli_out_finish(FILE *f, struct outfile *of, bool ok)
{
	int err;
	if (of->is_stdout) {
		err = fflush(f) == 0 ? 0 : -EIO;
	} else {
		err = fclose(f) == 0 ? 0 : -errno;
		of->fd = -1; /* fclose closed it */
	}
	if (ok && !err)
		err = outfile_commit(of);
	outfile_close(of);
	return err;
}
