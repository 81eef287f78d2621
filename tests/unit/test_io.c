/*
 * test_io.c - write-all and read-all (src/util/io.c): more iovecs than one
 * call takes, short writes (a file size limit, a full non-blocking pipe)
 * with the bytes that made it reported, EPIPE, the end of input, and the
 * caller's iovecs left intact.
 */
#include "test_helpers.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include "util/io.h"

static void test_io_pwrite_all_writes_at_offset(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	assert_int_equal(io_pwrite_all(fd, "world", 5, 6), 0);
	assert_int_equal(io_pwrite_all(fd, "hello ", 6, 0), 0);
	close(fd);
	size_t len;
	uint8_t *b = th_read_file(path, &len);
	assert_int_equal(len, 11);
	assert_memory_equal(b, "hello world", 11);
	free(b);
	unlink(path);
}

/* Nothing to write is no write at all: the file does not grow to off. */
static void test_io_pwrite_all_of_nothing_writes_nothing(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	assert_int_equal(io_pwrite_all(fd, "", 0, 4096), 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	close(fd);
	unlink(path);
}

/* 150 iovecs: more than one call takes; the caller's list is unchanged. */
static void test_io_writev_all_many_iovecs_at_offset(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	enum { N = 150 };
	uint8_t src[N * 3];
	struct iovec iov[N], copy[N];
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7);
	for (int i = 0; i < N; i++)
		iov[i] = (struct iovec){ src + 3 * i, 3 };
	memcpy(copy, iov, sizeof(iov));
	size_t written = 0;
	assert_int_equal(io_writev_all(fd, iov, N, 10, &written), 0);
	assert_int_equal(written, sizeof(src));
	assert_memory_equal(iov, copy, sizeof(iov));
	close(fd);
	size_t len;
	uint8_t *b = th_read_file(path, &len);
	assert_int_equal(len, 10 + sizeof(src));
	assert_true(th_all_zero(b, 10));
	assert_memory_equal(b + 10, src, sizeof(src));
	free(b);
	unlink(path);
}

/* A file size limit cuts the write short, then fails it: what reached the
 * file is reported with the error. */
static void test_io_writev_all_short_write_then_efbig_reports_written(void **state)
{
	(void)state;
	char path[64];
	int fd = th_tmpfile(path);
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100;
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	uint8_t a[60], b[90];
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	size_t written = 0;
	int err = io_writev_all(fd, iov, 2, 0, &written);
	int perr = io_pwrite_all(fd, a, 10, 100);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	assert_int_equal(err, -EFBIG);
	assert_int_equal(written, 100);
	assert_int_equal(perr, -EFBIG);
	assert_int_equal(iov[0].iov_len, sizeof(a));    /* intact */
	assert_int_equal(iov[1].iov_len, sizeof(b));
	close(fd);
	size_t len;
	uint8_t *got = th_read_file(path, &len);
	assert_int_equal(len, 100);
	assert_memory_equal(got, a, sizeof(a));
	assert_memory_equal(got + 60, b, 40);
	free(got);
	unlink(path);
}

/* A non-blocking pipe takes what fits, then says EAGAIN. */
static void test_io_writev_all_full_pipe_reports_what_fit(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	int cap = fcntl(p[1], F_GETPIPE_SZ);
	assert_true(cap > 0);
	size_t len = (size_t)cap + 5000;
	uint8_t *buf = calloc(1, len);
	assert_non_null(buf);
	struct iovec iov = { buf, len };
	size_t written = 0;
	assert_int_equal(io_writev_all(p[1], &iov, 1, -1, &written), -EAGAIN);
	assert_int_equal(written, (size_t)cap);
	free(buf);
	close(p[0]);
	close(p[1]);
}

static void test_io_writev_all_to_closed_pipe_is_epipe(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	void (*was)(int) = signal(SIGPIPE, SIG_IGN);
	struct iovec iov = { "x", 1 };
	size_t written = 7;
	int err = io_writev_all(p[1], &iov, 1, -1, &written);
	signal(SIGPIPE, was);
	assert_int_equal(err, -EPIPE);
	assert_int_equal(written, 0);
	close(p[1]);
}

static void test_io_read_all_stops_at_len_then_at_end_of_input(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "abc", 3), 3);
	assert_int_equal(write(p[1], "defgh", 5), 5);
	close(p[1]);
	char b[16];
	size_t got = 99;
	assert_int_equal(io_read_all(p[0], b, 4, &got), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(b, "abcd", 4);
	assert_int_equal(io_read_all(p[0], b, sizeof(b), &got), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(b, "efgh", 4);
	assert_int_equal(io_read_all(p[0], b, sizeof(b), &got), 0);
	assert_int_equal(got, 0);
	assert_int_equal(io_read_all(p[0], b, 0, &got), 0);
	assert_int_equal(got, 0);
	close(p[0]);
}

static void test_io_read_all_error_is_errno(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	char b[4];
	size_t got = 99;
	assert_int_equal(io_read_all(p[1], b, sizeof(b), &got), -EBADF); /* the write end */
	assert_int_equal(got, 0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io_pwrite_all_writes_at_offset),
		cmocka_unit_test(test_io_pwrite_all_of_nothing_writes_nothing),
		cmocka_unit_test(test_io_writev_all_many_iovecs_at_offset),
		cmocka_unit_test(test_io_writev_all_short_write_then_efbig_reports_written),
		cmocka_unit_test(test_io_writev_all_full_pipe_reports_what_fit),
		cmocka_unit_test(test_io_writev_all_to_closed_pipe_is_epipe),
		cmocka_unit_test(test_io_read_all_stops_at_len_then_at_end_of_input),
		cmocka_unit_test(test_io_read_all_error_is_errno),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
