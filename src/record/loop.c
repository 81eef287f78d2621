/*
 * loop.c - the recording loop: epoll, drain passes, checkpoints (see loop.h).
 *
 * One FINISHED_ROUND per pass, never between the rings of a pass: perf
 * sorts events only within round windows, and a marker between CPUs of one
 * pass yields "out of order events" (perf-data-format.md 5.2).
 */
#include "loop.h"

#include <errno.h>
#include <sys/epoll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "psrec/perf_data.h"
#include "record/carry.h"

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Compress a span of bytes bytes (iov, n) and append its records. 0 or
 * -errno; *kept: the bytes of the span whose records reached the file (all
 * of them, or after a short write those of the whole COMPRESSED chunks
 * that made it; none if compression failed). */
static int append_compressed(struct writer *w, struct compressor *z, const struct iovec *iov, int n, size_t bytes,
			     size_t *kept)
{
	size_t len;
	*kept = 0;
	int err = compress_span(z, iov, n, &len);
	if (err)
		return err;
	uint64_t before = w->end;
	struct iovec out = { z->out, len };
	err = writer_append(w, &out, 1);
	*kept = err ? compress_input_kept(z, (size_t)(w->end - before)) : bytes;
	return err;
}

/* The pass's markers as COMPRESSED records, in spans of whole samples:
 * a burst of them outgrows one span (the ring's size). Only what reached
 * the file counts as written. */
static int write_markers_compressed(struct writer *w, struct compressor *z, struct markers *m, uint64_t seen,
				    bool *wrote)
{
	for (markers_drain(m, now_ms(), seen); m->out.len; markers_drain_on(m)) {
		for (size_t done = 0; done < m->out.len;) {
			size_t piece = markers_piece(m, done, z->max_span), kept;
			if (piece == 0)
				return -EINVAL; /* no sample exceeds COMPRESS_SPAN_MIN */
			struct iovec in = { m->out.data + done, piece };
			int err = append_compressed(w, z, &in, 1, piece, &kept);
			if (err) {
				markers_written(m, done + kept);
				return err;
			}
			*wrote = true;
			done += piece;
		}
		markers_written(m, m->out.len);
	}
	return 0;
}

/* A pass with compression: one ring at a time, then the round. */
static int drain_pass_compressed(struct sampler *s, struct writer *w, const struct loop_config *c,
				 struct loop_stats *st, struct buf *carry)
{
	struct ring_tally pass = { 0 };
	bool wrote = false;
	int err = 0;
	uint64_t seen = st->tally.last_time;
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct ring *r = &s->rings[i];
		struct iovec iov[2];
		size_t bytes, kept;
		int k = ring_read_span(r, iov, &bytes);
		if (k <= 0) {
			if (k < 0)
				st->bad_spans++;
			continue;
		}
		/* After a write error the rest are only given back: their data
		 * cannot be written anywhere else (as in the raw pass). */
		if (err) {
			ring_release(r);
			continue;
		}
		err = append_compressed(w, c->compress, iov, k, bytes, &kept);
		wrote |= !err;
		/* Only the records of whole COMPRESSED chunks that made it. */
		if (kept) {
			if (ring_scan_prefix(r, c->time_offset, kept, &pass) < 0)
				st->bad_spans++;
			if (carry && carry_sideband(r, kept, carry) == -ENOMEM)
				err = -ENOMEM;
			if (c->sw && c->sw->marks)
				sidecache_mark(c->sw->marks, r, kept);
		}
		ring_release(r);
	}
	ring_tally_add(&st->tally, &pass);
	ring_tally_add(&st->chunk, &pass);
	if (!err && c->markers)
		err = write_markers_compressed(w, c->compress, c->markers, seen, &wrote);
	if (!err && wrote)
		err = writer_round(w);
	if (err)
		return err;
	if (wrote)
		st->passes++;
	return 0;
}

/* One pass over every ring; iov has room for 2 per ring + 2. carry: the
 * pass that closes a chunk (loop_switch). */
static int drain_pass(struct sampler *s, struct writer *w, const struct loop_config *c,
		      struct loop_stats *st, struct iovec *iov, struct buf *carry)
{
	if (c->compress)
		return drain_pass_compressed(s, w, c, st, carry);
	int n = 0;
	size_t total = 0;
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct ring *r = &s->rings[i];
		size_t bytes;
		int k = ring_read_span(r, iov + n, &bytes);
		if (k < 0) {
			/* A corrupted ring cannot be parsed: skip it, keep the rest. */
			st->bad_spans++;
			continue;
		}
		n += k;
		total += bytes;
	}
	/* The markers after the rings' records, before the round: perf
	 * sorts them in among this pass's samples. */
	size_t rings = total;
	struct markers *m = c->markers;
	if (m) {
		markers_drain(m, now_ms(), st->tally.last_time);
		iov[n].iov_base = m->out.data;
		iov[n].iov_len = m->out.len;
		n += m->out.len > 0;
		total += m->out.len;
	}
	if (total == 0)
		return 0;
	/* The round goes in the same append, after every ring's span (the
	 * last pwritev when the pass needs more than one), unless more
	 * markers follow: then after their last piece. */
	if (!m || !m->more) {
		iov[n].iov_base = (void *)&writer_round_record;
		iov[n].iov_len = sizeof(writer_round_record);
		n++;
	}
	uint64_t before = w->end;
	int err = writer_append(w, iov, n);
	/* Count only what reached the file: after a short write, the
	 * complete records the writer kept, ring by ring. */
	uint64_t kept = w->end - before;
	if (m)
		markers_written(m, kept > rings ? (size_t)(kept - rings) : 0);
	struct ring_tally pass = { 0 };
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct ring *r = &s->rings[i];
		uint64_t span = r->head - r->tail;
		uint64_t k = span < kept ? span : kept;
		if (k && ring_scan_prefix(r, c->time_offset, (size_t)k, &pass) < 0)
			st->bad_spans++;
		if (k && carry && carry_sideband(r, (size_t)k, carry) == -ENOMEM && !err)
			err = -ENOMEM;
		if (k && c->sw && c->sw->marks)
			sidecache_mark(c->sw->marks, r, (size_t)k);
		kept -= k;
		/* Release even on error: the data cannot be written anywhere else. */
		ring_release(r);
	}
	ring_tally_add(&st->tally, &pass);
	ring_tally_add(&st->chunk, &pass);
	while (!err && m && m->more) {
		markers_drain_on(m);
		struct iovec more[2] = { { m->out.data, m->out.len }, { (void *)&writer_round_record, 0 } };
		if (!m->more)
			more[1].iov_len = sizeof(writer_round_record);
		before = w->end;
		err = writer_append(w, more, 2);
		markers_written(m, (size_t)(w->end - before));
	}
	if (err)
		return err;
	st->passes++;
	return 0;
}

int loop_signals_block(sigset_t *old, bool *blocked, bool usr2)
{
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	if (usr2)
		sigaddset(&stop, SIGUSR2);
	*blocked = false;
	if (sigprocmask(SIG_BLOCK, &stop, old) < 0)
		return -errno;
	*blocked = true;
	int fd = signalfd(-1, &stop, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

void loop_signals_restore(int fd, const sigset_t *old)
{
	if (fd >= 0) {
		struct signalfd_siginfo si;
		while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(fd);
	}
	if (old)
		sigprocmask(SIG_SETMASK, old, NULL);
}

uint64_t loop_lost(const struct ring_tally *t)
{
	return t->lost > t->lost_samples ? t->lost : t->lost_samples;
}

int loop_drain(struct sampler *s, struct writer *w, const struct loop_config *c,
	       struct loop_stats *st)
{
	struct iovec *iov = calloc(2 * s->nr_cpus + 2, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	int err = drain_pass(s, w, c, st, iov, NULL);
	free(iov);
	return err;
}

/* Returns true when the signal should stop the recording; *cut: a
 * SIGUSR2 asked for a new chunk. */
static bool read_signal(const struct loop_config *c, struct loop_stats *st, bool *cut)
{
	struct signalfd_siginfo si;
	bool stop = false;
	while (read(c->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		/* Blocked only with --switch-output; perf ignores it unless
		 * the chunks are cut by signal. */
		if (si.ssi_signo == SIGUSR2) {
			if (c->sw && c->sw->on_signal)
				*cut = true;
			continue;
		}
		/* A terminal's Ctrl-C (sent by the kernel to the whole
		 * foreground group) also reached the command: let the command
		 * decide, and stop when it exits. A SIGINT sent to psrec alone
		 * (kill, si_code SI_USER) stops the recording. */
		if (si.ssi_signo == SIGINT && si.ssi_code == SI_KERNEL && c->ignore_tty_sigint)
			continue;
		st->end_signal = (int)si.ssi_signo;
		stop = true;
	}
	return stop;
}

/*
 * The fd a ring is watched through reports EPOLLHUP for good once its task
 * is gone. Any other fd redirected into the same ring is woken too, so
 * watch the next one on that CPU; none left means only timed drains.
 */
static int next_fd_on_cpu(const struct sampler *s, size_t ci, int after)
{
	bool seen = false;
	for (size_t i = 0; i < s->nr_fds; i++) {
		if (s->fd_cpu[i] != ci)
			continue;
		if (seen)
			return s->fds[i];
		seen = s->fds[i] == after;
	}
	return -1;
}

/* epoll tags: what kind of fd, and its index. */
#define TAG_RING   (1ULL << 32)
#define TAG_SIGNAL (2ULL << 32)
#define TAG_TARGET (3ULL << 32)
#define TAG_KIND(t) ((t) & ~0xffffffffULL)
#define TAG_INDEX(t) ((size_t)((t) & 0xffffffffULL))

static int watch(int ep, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* One run of the loop: its epoll, what it watches, its clocks (ms). */
struct run {
	struct sampler *s;
	struct writer *w;
	const struct loop_config *c;
	struct loop_stats *st;
	int ep;
	int *polled;            /* the fd each ring is watched through, or -1 */
	struct iovec *iov;      /* a pass's: 2 per ring + 2 */
	size_t targets_left;
	uint64_t now, start, deadline;
	uint64_t last_drain, last_checkpoint, last_status, chunk_start;
	bool cut_asked;
};

/* The epoll over every ring's fd, the signalfd and the targets' pidfds. */
static int run_open(struct run *r)
{
	const struct loop_config *c = r->c;
	size_t nr = r->s->nr_cpus;
	r->polled = calloc(nr ? nr : 1, sizeof(*r->polled));
	r->iov = calloc(2 * nr + 2, sizeof(*r->iov));
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!r->iov || !r->polled || r->ep < 0)
		return r->ep < 0 ? -errno : -ENOMEM;
	int ret = 0;
	for (size_t i = 0; i < nr && !ret; i++) {
		r->polled[i] = r->s->ring_fds[i];
		ret = watch(r->ep, r->polled[i], TAG_RING | i);
	}
	if (!ret && c->signal_fd >= 0)
		ret = watch(r->ep, c->signal_fd, TAG_SIGNAL);
	for (size_t i = 0; i < c->nr_target_fds && !ret; i++)
		ret = watch(r->ep, c->target_fds[i], TAG_TARGET | i);
	r->targets_left = c->nr_target_fds;
	r->start = now_ms();
	r->last_drain = r->last_checkpoint = r->last_status = r->chunk_start = r->start;
	r->deadline = c->duration_ms ? r->start + c->duration_ms : 0;
	return ret;
}

/* How long the next wait may take: a drain interval, less while markers
 * pour in, a chunk or the deadline is due. At the deadline the loop
 * ends. */
static int wait_ms(struct run *r, uint64_t now)
{
	const struct loop_config *c = r->c;
	int timeout = LOOP_DRAIN_MS;
	if (c->markers) {
		markers_scan(c->markers, now);
		/* A flood of markers: drain before the channel fills. */
		if (c->markers->busy)
			timeout = LOOP_MARKERS_BUSY_MS;
	}
	/* Cut on time, not up to a drain interval late. */
	if (c->sw && c->sw->ms) {
		uint64_t due = r->chunk_start + c->sw->ms;
		uint64_t left = due > now ? due - now : 0;
		if (left < (uint64_t)timeout)
			timeout = (int)left;
	}
	if (r->deadline) {
		if (now >= r->deadline)
			r->st->end_reason = LOOP_END_DURATION;
		else if (r->deadline - now < (uint64_t)timeout)
			timeout = (int)(r->deadline - now);
	}
	return timeout;
}

/* What epoll_wait reported: true when a ring has data. A ring fd that
 * hung up is replaced by the next on its CPU; a signal may stop the loop
 * or ask for a cut; a target's pidfd is gone for good. */
static bool take_events(struct run *r, const struct epoll_event *evs, int n)
{
	bool ring_ready = false;
	for (int k = 0; k < n; k++) {
		uint64_t tag = evs[k].data.u64;
		size_t i = TAG_INDEX(tag);
		switch (TAG_KIND(tag)) {
		case TAG_RING:
			if (evs[k].events & EPOLLIN)
				ring_ready = true;
			if (evs[k].events & (EPOLLHUP | EPOLLERR)) {
				epoll_ctl(r->ep, EPOLL_CTL_DEL, r->polled[i], NULL);
				r->polled[i] = next_fd_on_cpu(r->s, i, r->polled[i]);
				if (r->polled[i] >= 0)
					watch(r->ep, r->polled[i], TAG_RING | i);
			}
			break;
		case TAG_SIGNAL:
			if (read_signal(r->c, r->st, &r->cut_asked))
				r->st->end_reason = LOOP_END_SIGNAL;
			break;
		case TAG_TARGET:
			epoll_ctl(r->ep, EPOLL_CTL_DEL, r->c->target_fds[i], NULL);
			r->targets_left--;
			break;
		}
	}
	return ring_ready;
}

static void stop_on_error(struct loop_stats *st, int err)
{
	st->write_error = err;
	st->end_reason = LOOP_END_WRITE_ERROR;
}

/* A pass when a ring is ready, a drain interval passed or the loop ends;
 * then the checkpoint when due. False: the pass failed, the loop ends
 * now. */
static bool drain_step(struct run *r, bool ring_ready)
{
	const struct loop_config *c = r->c;
	struct loop_stats *st = r->st;
	bool first_samples = false;
	uint64_t every = c->markers && c->markers->busy ? LOOP_MARKERS_BUSY_MS : LOOP_DRAIN_MS;
	if (ring_ready || r->now - r->last_drain >= every || st->end_reason) {
		uint64_t had = st->tally.samples;
		int err = drain_pass(r->s, r->w, c, st, r->iov, NULL);
		r->last_drain = r->now;
		if (err) {
			stop_on_error(st, err);
			return false;
		}
		/* The first samples are in the header at once: a recording
		 * killed early is not an empty one. */
		first_samples = had == 0 && st->tally.samples > 0;
	}
	if (first_samples || r->now - r->last_checkpoint >= LOOP_CHECKPOINT_MS) {
		int err = writer_checkpoint(r->w);
		r->last_checkpoint = r->now;
		if (err)
			stop_on_error(st, err);
	}
	return true;
}

/* A chunk that is due is cut (loop_switch); the switch's tick. */
static void cut_step(struct run *r)
{
	const struct loop_switch *sw = r->c->sw;
	struct loop_stats *st = r->st;
	bool due = r->cut_asked || (sw->ms && now_ms() - r->chunk_start >= sw->ms) ||
		   (sw->bytes && r->w->end >= sw->bytes);
	if (due) {
		int err = sw->prepare(sw->ctx);
		if (!err)
			err = drain_pass(r->s, r->w, r->c, st, r->iov, sw->carry);
		if (!err)
			err = sw->cut(sw->ctx);
		r->cut_asked = false;
		r->now = r->chunk_start = r->last_drain = r->last_checkpoint = now_ms();
		memset(&st->chunk, 0, sizeof(st->chunk));
		st->chunks++;
		if (err)
			stop_on_error(st, err);
	}
	if (sw->tick)
		sw->tick(sw->ctx);
}

/*
 * epoll rather than poll: the registrations persist, where poll() adds and
 * removes a wait-queue entry per fd on every call, which showed up in
 * profiles of small rings at high rates (a wake-up every few ms).
 */
int loop_run(struct sampler *s, struct writer *w, const struct loop_config *c,
	     struct loop_stats *st)
{
	struct run r = { .s = s, .w = w, .c = c, .st = st, .ep = -1 };
	struct epoll_event evs[64];
	int ret = run_open(&r);
	if (!ret)
		st->end_reason = 0;
	while (!ret && !st->end_reason) {
		int timeout = wait_ms(&r, now_ms());
		if (st->end_reason)
			break;
		int n = epoll_wait(r.ep, evs, (int)(sizeof(evs) / sizeof(evs[0])), timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		st->wakeups++;
		bool ring_ready = take_events(&r, evs, n);
		if (c->nr_target_fds && r.targets_left == 0 && !st->end_reason)
			st->end_reason = LOOP_END_TARGET_EXIT;
		if (r.deadline && now_ms() >= r.deadline && !st->end_reason)
			st->end_reason = LOOP_END_DURATION;
		r.now = now_ms();
		if (!drain_step(&r, ring_ready))
			break;
		if (c->sw && !st->end_reason)
			cut_step(&r);
		if (c->status && r.now - r.last_status >= LOOP_STATUS_MS) {
			r.last_status = r.now;
			c->status(c->status_ctx, st, (double)(r.now - r.start) / 1e3, w->end);
		}
	}
	if (r.ep >= 0)
		close(r.ep);
	free(r.iov);
	free(r.polled);
	return ret;
}
