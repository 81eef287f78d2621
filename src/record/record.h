/*
 * record.h - one recording, start to finish: launch the command, open the
 * samplers, synthesize what existed before, run the loop, write features.
 *
 * Output order guarantees: nothing appears at the output path unless every
 * event opened, and a start that fails after the file got its name (the
 * command cannot exec, a write error) puts FILE and FILE.old back; a
 * recording that started is always finished as a valid perf.data, whatever
 * ended it (command exit, signal, write error).
 */
#ifndef PSREC_RECORD_RECORD_H
#define PSREC_RECORD_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "record/config.h"
#include "record/loop.h"
#include "record/markers.h"
#include "record/notify.h"
#include "record/target.h"
#include "util/err.h"

struct record_hooks {
	/* One-line notices while recording (warnings, -v detail); main prints. */
	void (*notice)(void *ctx, int level, const char *msg);
	/* Live status, about twice a second (NULL: none). */
	void (*status)(void *ctx, const struct loop_stats *st, double elapsed_s, uint64_t bytes);
	void *ctx;
};
#define RECORD_NOTICE_WARN    NOTIFY_WARN     /* always shown (unless -q) */
#define RECORD_NOTICE_VERBOSE NOTIFY_VERBOSE  /* shown with -v */

/* What the recording's parts learnt is copied here however it ended. */
struct record_result {
	struct target_facts target; /* the command's exec and exit, the attach counts */
	struct loop_stats stats;
	uint64_t file_bytes;
	uint64_t lost;          /* the larger of LOST and LOST_SAMPLES counts */
	bool features_failed;   /* finished without feature sections */
	size_t nr_cpus;
	size_t ring_bytes;
	uint32_t compress_ratio; /* -z: original / compressed */
	size_t nr_buildids;     /* DSOs in the BUILD_ID feature */
	size_t cache_added;     /* copied into ~/.debug */
	size_t cache_missing;   /* listed, but the file with that id is gone */
	/* --switch-output: CPU time of the cuts (the last pass excluded),
	 * and of re-reading /proc for the next chunks' side band. */
	double cut_ms;
	double resynth_ms;
	double resynth_first_ms; /* the first cut's (every process, after a launch) */
	int stop_signal;        /* a stop signal ended the start (waiting for
				   the reader of a FIFO at -o): nothing recorded */
	bool markers_on;        /* a psrec:marker event was recorded */
	struct markers_stats markers;
};

/*
 * Record cfg->cmd (cmd_path is its resolved executable), or attach to the
 * -p/-t/-a targets (cmd_path NULL). Returns 0 when a valid file was written
 * (see res for how the recording ended, including a write error), or
 * -errno with *e set when nothing usable was produced.
 */
int record_run(const struct record_config *cfg, const char *cmd_path, const struct record_hooks *h,
	       struct record_result *res, struct err *e);

#endif
