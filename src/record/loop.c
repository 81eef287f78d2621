/*
 * loop.c - the poll loop (see loop.h).
 *
 * One FINISHED_ROUND per pass, never between the rings of a pass: perf
 * sorts events only within round windows, and a marker between CPUs of one
 * pass yields "out of order events" (perf-data-format.md 5.2).
 */
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "psrec/perf_data.h"

static const struct pd_event_header finished_round = {
	PD_RECORD_FINISHED_ROUND, 0, sizeof(struct pd_event_header)
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One pass over every ring; iov has room for 2 per ring + 1. */
static int drain_pass(struct sampler *s, struct writer *w, const struct loop_config *c,
		      struct loop_stats *st, struct iovec *iov)
{
	int n = 0;
	size_t total = 0;
	struct ring_tally pass = { 0 };
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct ring *r = &s->rings[i];
		size_t bytes;
		int k = ring_read_span(r, iov + n, &bytes);
		if (k < 0) {
			/* A corrupted ring cannot be parsed: skip it, keep the rest. */
			st->bad_spans++;
			continue;
		}
		if (k == 0)
			continue;
		if (ring_scan(r, c->time_offset, &pass) < 0)
			st->bad_spans++;
		n += k;
		total += bytes;
	}
	if (total == 0)
		return 0;
	iov[n].iov_base = (void *)&finished_round;
	iov[n].iov_len = sizeof(finished_round);
	n++;
	int err = writer_append(w, iov, n);
	/* Release even on error: the data cannot be written anywhere else. */
	for (size_t i = 0; i < s->nr_cpus; i++)
		ring_release(&s->rings[i]);
	if (err)
		return err;
	/* Count only what reached the file. */
	ring_tally_add(&st->tally, &pass);
	st->passes++;
	return 0;
}

int loop_drain(struct sampler *s, struct writer *w, const struct loop_config *c,
	       struct loop_stats *st)
{
	struct iovec *iov = calloc(2 * s->nr_cpus + 1, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	int err = drain_pass(s, w, c, st, iov);
	free(iov);
	return err;
}

/* Returns true when the signal should stop the recording. */
static bool read_signal(const struct loop_config *c, struct loop_stats *st)
{
	struct signalfd_siginfo si;
	bool stop = false;
	while (read(c->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
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

int loop_run(struct sampler *s, struct writer *w, const struct loop_config *c,
	     struct loop_stats *st)
{
	size_t nfds = s->nr_cpus + 2;
	struct pollfd *pfd = calloc(nfds, sizeof(*pfd));
	struct iovec *iov = calloc(2 * s->nr_cpus + 1, sizeof(*iov));
	if (!pfd || !iov) {
		free(pfd);
		free(iov);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_cpus; i++) {
		pfd[i].fd = s->ring_fds[i];
		pfd[i].events = POLLIN;
	}
	size_t sig_i = s->nr_cpus, tgt_i = s->nr_cpus + 1;
	pfd[sig_i].fd = c->signal_fd;
	pfd[sig_i].events = POLLIN;
	pfd[tgt_i].fd = c->target_fd;
	pfd[tgt_i].events = POLLIN;

	int ret = 0;
	uint64_t last_drain = now_ms(), last_checkpoint = last_drain;
	st->end_reason = 0;
	while (!st->end_reason) {
		int timeout = LOOP_DRAIN_MS;
		int r = poll(pfd, nfds, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		st->wakeups++;
		for (size_t i = 0; i < s->nr_cpus; i++) {
			/* An event whose task is gone reports POLLHUP forever:
			 * stop polling it (its ring is still drained each pass). */
			if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
				pfd[i].fd = -1;
		}
		if (pfd[sig_i].fd >= 0 && (pfd[sig_i].revents & POLLIN) && read_signal(c, st))
			st->end_reason = LOOP_END_SIGNAL;
		if (pfd[tgt_i].fd >= 0 && (pfd[tgt_i].revents & (POLLIN | POLLHUP)))
			st->end_reason = LOOP_END_TARGET_EXIT;

		uint64_t now = now_ms();
		bool ring_ready = false;
		for (size_t i = 0; i < s->nr_cpus; i++)
			ring_ready |= (pfd[i].revents & POLLIN) != 0;
		if (ring_ready || now - last_drain >= LOOP_DRAIN_MS || st->end_reason) {
			int err = drain_pass(s, w, c, st, iov);
			last_drain = now;
			if (err) {
				st->write_error = err;
				st->end_reason = LOOP_END_WRITE_ERROR;
				break;
			}
		}
		if (now - last_checkpoint >= LOOP_CHECKPOINT_MS) {
			int err = writer_checkpoint(w);
			last_checkpoint = now;
			if (err) {
				st->write_error = err;
				st->end_reason = LOOP_END_WRITE_ERROR;
			}
		}
	}
	free(pfd);
	free(iov);
	return ret;
}
