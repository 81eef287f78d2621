/*
 * recfile.c - the perf.data a recording writes, in order (see recfile.h).
 */
#include "recfile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int recfile_create(struct recfile *f, const struct record_config *cfg, bool chunked, int sigfd,
		   int *stop_signal, const struct notify *say, struct err *e)
{
	f->cfg = cfg;
	f->chunked = chunked;
	f->fd = STDOUT_FILENO;
	f->pipe = cfg->pipe;
	if (cfg->pipe)
		return 0;
	int err = output_create(&f->out, cfg->output, chunked, e);
	if (err == -ENXIO) {
		notify_say(say, NOTIFY_WARN, "waiting for a reader of the FIFO %s (perf report -i - <%s)",
			   cfg->output, cfg->output);
		err = output_wait_reader(&f->out, cfg->output, sigfd, stop_signal, e);
	}
	f->fd = f->out.file.fd;
	/* A FIFO or a pipe behind -o: the stream needs no seeking. */
	f->pipe = !f->out.seekable;
	return err;
}

/* A new file's feature inputs, its events psrec:marker included (the
 * tracepoint form in a stream; a file's becomes one as it ends). */
static void inputs_init(struct recfile *f)
{
	features_inputs_init(&f->fin, f->host, f->cfg, f->pipe, f->smp, f->comp);
	if (f->mk)
		markers_event(f->mk, &f->smp->ev[0].attr, f->pipe);
	f->fin.marker = f->mk ? &f->mk->ev : NULL;
}

void recfile_set_inputs(struct recfile *f, const struct hostinfo *host, const struct sampler *smp,
			struct compressor *comp, struct markers *mk, struct buildids_pass *ids)
{
	f->host = host;
	f->smp = smp;
	f->comp = comp;
	f->mk = mk;
	f->ids = ids;
	inputs_init(f);
}

int recfile_header(struct recfile *f, struct err *e)
{
	int err = features_write_header(&f->w, f->fd, &f->fin);
	if (err == -E2BIG)
		return err_set(e, err, "too many events (%zu); at most %d", f->smp->nr_events, FEATURES_MAX_EVENTS);
	return err ? output_failed(f->cfg->output, f->cfg->pipe, err, e) : 0;
}

int recfile_commit(struct recfile *f, struct err *e)
{
	return f->cfg->pipe ? 0 : output_commit(&f->out, e);
}

int recfile_append(struct recfile *f, const struct iovec *iov, int n, struct err *e)
{
	int err = writer_append(&f->w, iov, n);
	if (!err)
		err = writer_checkpoint(&f->w);
	return err ? output_failed(f->cfg->output, f->cfg->pipe, err, e) : 0;
}

void recfile_started(struct recfile *f)
{
	f->open = true;
	if (!f->cfg->pipe)
		output_started(&f->out);
}

int recfile_finish(struct recfile *f, const struct ring_tally *t, struct err *e)
{
	f->open = false;
	if (f->chunked && !f->machine_ok)
		f->machine_ok = features_machine_read(&f->fin, &f->machine) == 0;
	f->fin.machine = f->machine_ok ? &f->machine : NULL;
	f->fin.first_time = t->first_time;
	f->fin.last_time = t->last_time;
	f->fin.build_ids = buildids_pass_collect(f->ids, f->pipe ? -1 : f->fd, &f->w);
	bool failed = false;
	bool marker_tp = f->mk && !f->pipe;
	if (marker_tp)
		markers_event(f->mk, &f->smp->ev[0].attr, true);
	int err = features_finish(&f->w, &f->fin, &failed);
	f->features_failed |= failed;
	if (err)
		return err_set(e, err, "cannot finish %s: %s", f->cfg->output, strerror(-err));
	/* Only now that TRACING_DATA is in: a tracepoint without it makes
	 * perf refuse the whole file. Failing, the event stays bpf-output. */
	if (marker_tp && !failed)
		writer_rewrite_attr(&f->w, f->smp->nr_events, &f->mk->ev.attr);
	buildids_pass_cache(f->ids);
	struct stat sb;
	if (f->pipe)
		f->bytes += f->w.end;
	else if (fstat(f->out.file.fd, &sb) == 0)
		f->bytes += (uint64_t)sb.st_size;
	return 0;
}

int recfile_next(struct recfile *f, const struct iovec *side, int n, struct err *e)
{
	output_close(&f->out);
	int err = output_create(&f->out, f->cfg->output, true, e);
	f->fd = f->out.file.fd;
	if (err)
		return err;
	inputs_init(f);
	/* zstd's window must not reach into the previous file. */
	if (f->comp)
		compress_reset(f->comp);
	err = recfile_header(f, e);
	if (!err)
		err = recfile_commit(f, e);
	if (!err)
		err = recfile_append(f, side, n, e);
	f->open = !err;
	return err;
}

void recfile_abort(struct recfile *f)
{
	output_abort(&f->out);
}

void recfile_close(struct recfile *f)
{
	output_close(&f->out);
	if (f->machine_ok)
		features_machine_free(&f->machine);
	f->machine_ok = false;
}
