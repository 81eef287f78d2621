/*
 * markhostile - a program that attacks root psrec through its marker
 * channel (issue 22): the ABI written by hand, as a program that does not
 * use libpsrec-marker may write it.
 *
 * usage: markhostile MIB ROUNDS READYFILE
 *
 * Makes a sealed psrec-marker memfd with a MIB MiB ring (the library makes
 * 4 MiB; psrec reads at most 16 from a program) and creates READYFILE.
 * Once a psrec claims it, fills the ring ROUNDS times with 4 KiB records
 * of control bytes, each escaped to four times its size in a sample, each
 * round as soon as psrec has taken the last, burning CPU in hostile_spin
 * while it waits. Gives up 20 s after READYFILE if nobody claims it (psrec
 * refused it) or when told to stop (SIGTERM). Prints "claimed=C sent=N"
 * at the end.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "marker/abi.h"

static volatile unsigned long sink;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hostile_spin(void);

__attribute__((noipa)) void hostile_spin(void)
{
	unsigned long x = 3;
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

int main(int argc, char **argv)
{
	if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 0) {
		fprintf(stderr, "usage: markhostile MIB ROUNDS READYFILE\n");
		return 2;
	}
	uint64_t size = (uint64_t)atoi(argv[1]) << 20;
	int rounds = atoi(argv[2]);
	int fd = memfd_create(PSREC_MARKER_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)(PSREC_MARKER_CTL_SIZE + size)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		perror("markhostile: memfd");
		return 1;
	}
	uint8_t *map = mmap(NULL, PSREC_MARKER_CTL_SIZE + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("markhostile: mmap");
		return 1;
	}
	struct psrec_marker_ctl *ctl = (struct psrec_marker_ctl *)map;
	uint8_t *data = map + PSREC_MARKER_CTL_SIZE;
	ctl->version = PSREC_MARKER_VERSION;
	ctl->ctl_size = PSREC_MARKER_CTL_SIZE;
	ctl->data_size = size;
	ctl->creator = (uint32_t)getpid();
	__atomic_store_n(&ctl->magic, PSREC_MARKER_MAGIC, __ATOMIC_RELEASE);
	int rfd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (rfd < 0) {
		perror("markhostile: READYFILE");
		return 1;
	}
	close(rfd);

	signal(SIGTERM, on_term);
	double give_up = now() + 20;
	while (!__atomic_load_n(&ctl->consumer, __ATOMIC_ACQUIRE) && now() < give_up && !stop)
		hostile_spin();
	int claimed = __atomic_load_n(&ctl->consumer, __ATOMIC_ACQUIRE) != 0;
	const uint32_t len = 4096, need = PSREC_MARKER_REC_HDR + len;
	uint64_t sent = 0;
	for (int r = 0; claimed && r < rounds; r++) {
		/* wait for an empty ring: the round is one burst */
		while (__atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE) != ctl->head &&
		       __atomic_load_n(&ctl->consumer, __ATOMIC_ACQUIRE))
			hostile_spin();
		uint64_t h = ctl->head;
		for (;;) {
			uint64_t t = __atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE), off = h & (size - 1);
			uint64_t pad = off + need > size ? size - off : 0;
			if (h + pad + need - t > size)
				break;
			if (pad) {
				union psrec_marker_word w = { .f = { (uint32_t)pad, PSREC_MK_PAD, 0 } };
				__atomic_store_n((uint64_t *)(data + off), w.w, __ATOMIC_RELEASE);
				h += pad;
			}
			struct psrec_marker_rec *rec = (struct psrec_marker_rec *)(data + (h & (size - 1)));
			memset(rec, 0, sizeof(*rec));
			rec->len = len;
			rec->time = (uint64_t)(now() * 1e9);
			rec->pid = (uint32_t)getpid();
			rec->tid = (uint32_t)gettid();
			memset(rec + 1, 0x1b, len);
			union psrec_marker_word w = { .f = { need, PSREC_MK_TEXT, 0 } };
			__atomic_store_n((uint64_t *)rec, w.w, __ATOMIC_RELEASE);
			h += need;
			__atomic_store_n(&ctl->head, h, __ATOMIC_RELEASE);
			sent++;
		}
	}
	/* some CPU for the samples, then wait for the last round's drain */
	double end = now() + 0.3;
	while (now() < end || (claimed && __atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE) != ctl->head &&
				__atomic_load_n(&ctl->consumer, __ATOMIC_ACQUIRE) && now() < give_up + 40))
		hostile_spin();
	printf("claimed=%d sent=%llu\n", claimed, (unsigned long long)sent);
	return 0;
}
