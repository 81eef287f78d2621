/*
 * chunks.c - the cuts of --switch-output (see chunks.h).
 */
#include "chunks.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/sysfile.h"

/* The bound of pids, for the side-band cache's marks. */
static size_t pid_max(void)
{
	int64_t v = 0;
	return sysfile_read_s64("/proc/sys/kernel/pid_max", &v) == 0 && v > 0 && v <= (1 << 22) ? (size_t)v : 1u << 22;
}

/* This thread's CPU time (psrec has one), for -v's account of the cuts. */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int chunks_init(struct chunks *ch, struct target *tgt, const struct target_env *env, const struct sampler *smp,
		struct recfile *file, struct err *e)
{
	const struct record_config *c = env->cfg;
	memset(ch, 0, sizeof(*ch));
	ch->on = c->switch_output.mode != ROTATE_NONE;
	ch->cfg = c;
	ch->say = env->say;
	ch->tgt = tgt;
	ch->env = env;
	ch->smp = smp;
	ch->file = file;
	rotate_kept_init(&ch->kept, c->switch_output.max_files);
	spawn_init(&ch->cmds);
	int err = ch->on ? sidecache_init(&ch->cache, pid_max()) : 0;
	if (err)
		return err_set(e, err, "cannot set up the chunks' process cache: %s", strerror(-err));
	return 0;
}

/* The chunks' commands run on after the recording; psrec's exit waits
 * for them (their chunks are complete). */
void chunks_free(struct chunks *ch)
{
	spawn_wait_all(&ch->cmds);
	if (ch->cmds.failed)
		notify_say(&ch->say, NOTIFY_WARN, "--switch-output-command failed for %zu of %zu chunks",
			   ch->cmds.failed, ch->cmds.started);
	spawn_free(&ch->cmds);
	rotate_kept_free(&ch->kept);
	buf_free(&ch->kernel_rec);
	buf_free(&ch->next_synth);
	sidecache_free(&ch->cache);
}

int chunks_keep_kernel(struct chunks *ch, const void *rec, size_t len)
{
	return ch->on ? buf_append(&ch->kernel_rec, rec, len) : 0;
}

/* What the target handed the cache describes every process it follows
 * (attach); none (a command not yet run): the first cut reads them all. */
void chunks_seeded(struct chunks *ch)
{
	if (ch->cache.n)
		sidecache_seeded(&ch->cache);
}

/*
 * A finished chunk gets its name OUTPUT.<timestamp> (the time it ended,
 * as perf names it; never over another chunk: two cuts within a
 * hundredth of a second take the next hundredth), the oldest beyond
 * --switch-max-files goes, and the command starts.
 */
static int name_chunk(struct chunks *ch, const struct ring_tally *t, struct err *e)
{
	const struct record_config *c = ch->cfg;
	const struct rotate_spec *rs = &c->switch_output;
	char name[4096];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int err = -EEXIST;
	for (int tries = 0; tries < 100 && err == -EEXIST; tries++) {
		err = rotate_chunk_name(name, sizeof(name), c->output, &now);
		if (err)
			return err_set(e, err, "cannot name a chunk of %s: the name is too long", c->output);
		err = renameat2(AT_FDCWD, c->output, AT_FDCWD, name, RENAME_NOREPLACE) < 0 ? -errno : 0;
		now.tv_nsec += 10000000;
		if (now.tv_nsec >= 1000000000) {
			now.tv_sec++;
			now.tv_nsec -= 1000000000;
		}
	}
	if (err)
		return err_set(e, err, "cannot rename %s to %s: %s", c->output, name, strerror(-err));
	char *evicted;
	err = rotate_kept_add(&ch->kept, name, &evicted);
	if (err)
		return err;
	if (evicted && unlink(evicted) < 0 && errno != ENOENT)
		notify_say(&ch->say, NOTIFY_WARN, "cannot remove the old chunk %s: %s", evicted, strerror(errno));
	free(evicted);
	notify_say(&ch->say, NOTIFY_WARN, "chunk %s (%" PRIu64 " samples, %" PRIu64 " lost)", name,
		   t->samples, loop_lost(t));
	int serr = rs->command ? spawn_command(&ch->cmds, rs->command, name, ch->env->child_mask) : 0;
	if (serr)
		notify_say(&ch->say, NOTIFY_WARN, "cannot run --switch-output-command for %s: %s", name,
			   strerror(-serr));
	return 0;
}

static int chunk_live(void *ctx, pid_t **pids, size_t *n)
{
	struct chunks *ch = ctx;
	return ch->tgt->ops->live(ch->tgt, ch->env, pids, n);
}

static int chunk_synth(void *ctx, pid_t pid, struct buf *b)
{
	struct chunks *ch = ctx;
	return target_synth_process(ch->env, ch->smp, pid, b);
}

/* loop_switch.prepare: the live threads and maps, for the next chunk
 * (only the processes that changed are read again). */
static int chunk_prepare(void *ctx)
{
	struct chunks *ch = ctx;
	double t0 = cpu_ms();
	buf_reset(&ch->next_synth);
	int err = sidecache_refresh(&ch->cache, chunk_live, chunk_synth, ch, &ch->next_synth);
	double ms = cpu_ms() - t0;
	if (ch->st->chunks == 0)
		ch->resynth_first_ms = ms;
	ch->resynth_ms += ms;
	ch->cut_ms += ms;
	return err;
}

/* loop_switch.cut: the chunk's last pass is in (and its side band in
 * next_synth): finish it, name it, begin the next. */
static int chunk_cut(void *ctx)
{
	struct chunks *ch = ctx;
	struct err e = { { 0 } };
	const struct ring_tally *t = &ch->st->chunk;
	double t0 = cpu_ms();
	int err = recfile_finish(ch->file, t, &e);
	if (!err)
		err = name_chunk(ch, t, &e);
	if (!err) {
		struct iovec side[2] = { { ch->kernel_rec.data, ch->kernel_rec.len },
					 { ch->next_synth.data, ch->next_synth.len } };
		err = recfile_next(ch->file, side, 2, &e);
	}
	ch->cut_ms += cpu_ms() - t0;
	if (err && err_is_set(&e))
		notify_say(&ch->say, NOTIFY_WARN, "%s", e.msg);
	return err;
}

/* loop_switch.tick */
static void chunk_tick(void *ctx)
{
	struct chunks *ch = ctx;
	spawn_reap(&ch->cmds);
}

const struct loop_switch *chunks_switch(struct chunks *ch, const struct loop_stats *st)
{
	if (!ch->on)
		return NULL;
	const struct rotate_spec *rs = &ch->cfg->switch_output;
	ch->st = st;
	ch->sw = (struct loop_switch){
		.on_signal = rs->mode == ROTATE_SIGNAL,
		.ms = rs->mode == ROTATE_TIME ? rs->ms : 0,
		.bytes = rs->mode == ROTATE_SIZE ? rs->bytes : 0,
		.carry = &ch->next_synth,
		.marks = &ch->cache,
		.prepare = chunk_prepare, .cut = chunk_cut, .tick = chunk_tick, .ctx = ch,
	};
	return &ch->sw;
}

int chunks_end(struct chunks *ch, struct loop_stats *st, struct err *e)
{
	const struct recfile *f = ch->file;
	/* A stream, or a file written in place, was never named OUTPUT. */
	if (!ch->on || f->pipe || !f->out.committed || f->out.file.direct)
		return 0;
	int err = name_chunk(ch, &st->chunk, e);
	st->chunks++;
	return err;
}
