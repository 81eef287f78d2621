/*
 * record.h - one recording, start to finish: launch the command, open the
 * samplers, synthesize what existed before, run the loop, write features.
 *
 * Output order guarantees: nothing is created at the output path unless
 * every event opened and the command started; a file that was moved into
 * place is always finished as a valid perf.data, whatever ended the
 * recording (command exit, signal, write error).
 */
#ifndef PSREC_RECORD_RECORD_H
#define PSREC_RECORD_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "record/loop.h"
#include "util/err.h"

struct record_hooks {
	/* One-line notices while recording (warnings, -v detail); main prints. */
	void (*notice)(void *ctx, int level, const char *msg);
	void *ctx;
};
#define RECORD_NOTICE_WARN    0  /* always shown (unless -q) */
#define RECORD_NOTICE_VERBOSE 1  /* shown with -v */

struct record_result {
	bool exec_failed;       /* the command could not be executed */
	int exec_errno;
	bool target_exited;
	int target_status;      /* wait status when target_exited */
	struct loop_stats stats;
	uint64_t file_bytes;
	uint64_t lost;          /* the larger of LOST and LOST_SAMPLES counts */
	bool features_failed;   /* finished without feature sections */
	size_t nr_cpus;
	size_t ring_bytes;
	double setup_ms;        /* from start to the command released */
};

/*
 * Record opts->cmd (cmd_path is its resolved executable). Returns 0 when a
 * valid file was written (see res for how the recording ended, including a
 * write error), or -errno with *e set when nothing usable was produced.
 */
int record_run(struct record_opts *opts, const char *cmd_path, const struct record_hooks *h,
	       struct record_result *res, struct err *e);

#endif
