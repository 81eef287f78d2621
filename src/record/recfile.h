/*
 * recfile.h - the perf.data a recording writes: one file or stream, or
 * with --switch-output one file after another at the output path
 * (chunks.h). Its placement is output.h's, its bytes the writer's
 * (format/writer.h) and its sections features.h's; this is their order:
 *
 *   create   before any event is opened (an unwritable path fails first);
 *            a FIFO with no reader yet is waited for, the stop signals
 *            heard; a FIFO or pipe behind -o is written as a stream;
 *   inputs   once the events are open: what every file is made of;
 *   header   ids and attrs (psrec:marker's too), -z's parameters (a
 *            stream: every feature), then commit (the file takes its
 *            name), append the records that describe the past, started;
 *   finish   after the last records: BUILD_ID from the file's own data
 *            (buildids.h), the features, the final header, psrec:marker
 *            made a tracepoint once TRACING_DATA is in; then the
 *            ~/.debug copies;
 *   next     (chunks) the next file begun as the first was.
 * A failure to write says what it wrote to (its path, or standard output).
 */
#ifndef PSREC_RECORD_RECFILE_H
#define PSREC_RECORD_RECFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "format/compress.h"
#include "format/writer.h"
#include "record/buildids.h"
#include "record/config.h"
#include "record/features.h"
#include "record/hostinfo.h"
#include "record/markers.h"
#include "record/notify.h"
#include "record/output.h"
#include "record/ring.h"
#include "record/sampler.h"
#include "util/err.h"

struct recfile {
	const struct record_config *cfg;
	struct output out;
	int fd;                 /* the output's, or standard output */
	bool pipe;              /* pipe format: -o -, or a FIFO behind -o */
	bool chunked;           /* one file after another (--switch-output) */
	bool open;              /* a file is begun and not finished */
	struct writer w;
	struct feature_inputs fin;
	struct features_machine machine; /* chunked: sysfs facts, read once for all files */
	bool machine_ok;
	uint64_t bytes;         /* of the files finished */
	bool features_failed;   /* a file was finished without its feature sections */
	/* The recording's, from recfile_set_inputs on. */
	const struct hostinfo *host;
	const struct sampler *smp;
	struct compressor *comp;        /* -z, or NULL */
	struct markers *mk;             /* psrec:marker is recorded, or NULL */
	struct buildids_pass *ids;
};

/* f->out before anything (output_create) */
#define RECFILE_INIT { .fd = -1, .out = { .file = OUTFILE_INIT, .aside_fd = -1 } }

/*
 * Create the output of cfg (a stream at standard output with -o -). A
 * FIFO nobody reads is waited for (said through say), until sigfd has a
 * stop signal: -EINTR, its number in *stop_signal. -errno with *e.
 */
int recfile_create(struct recfile *f, const struct record_config *cfg, bool chunked, int sigfd,
		   int *stop_signal, const struct notify *say, struct err *e);

/* The events are open (smp): the inputs of the first file. */
void recfile_set_inputs(struct recfile *f, const struct hostinfo *host, const struct sampler *smp,
			struct compressor *comp, struct markers *mk, struct buildids_pass *ids);

/* The first file's header; -E2BIG: more events than a file takes. */
int recfile_header(struct recfile *f, struct err *e);

/* Give the file its name (output_commit; nothing for -o -). */
int recfile_commit(struct recfile *f, struct err *e);

/* Append whole records after the header, and checkpoint. */
int recfile_append(struct recfile *f, const struct iovec *iov, int n, struct err *e);

/* The recording has started: the file is kept (output_started), open. */
void recfile_started(struct recfile *f);

/* Finish the open file; t: the tally of its records (SAMPLE_TIME). */
int recfile_finish(struct recfile *f, const struct ring_tally *t, struct err *e);

/* Create the next file at the output path and begin it as the first:
 * header, name, then the n records of side. */
int recfile_next(struct recfile *f, const struct iovec *side, int n, struct err *e);

/* A start that failed: no file, and FILE and FILE.old as they were. */
void recfile_abort(struct recfile *f);
void recfile_close(struct recfile *f);

#endif
