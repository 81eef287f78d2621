/*
 * test_record.c - record_run's start failing before anything is opened
 * (src/record/record.c): a failure of hostinfo_read or of the chunks'
 * cache gets one message, and the recording is undone like any failed
 * start: the host facts freed, no file, no fd, the signal mask as it was
 * (issue 22: it returned early, with neither).
 *
 * Linked with --wrap=hostinfo_read,hostinfo_free,sidecache_init: the
 * wrappers fail on demand after the real read has allocated (as a failure
 * inside read_topology would) and count what is freed. No perf_event_open.
 */
#include "test_helpers.h"

#include <signal.h>

#include "cli/options.h"
#include "record/hostinfo.h"
#include "record/record.h"
#include "record/sidecache.h"

int __real_hostinfo_read(struct hostinfo *h);
void __real_hostinfo_free(struct hostinfo *h);
int __real_sidecache_init(struct sidecache *c, size_t pid_max);
int __wrap_hostinfo_read(struct hostinfo *h);
void __wrap_hostinfo_free(struct hostinfo *h);
int __wrap_sidecache_init(struct sidecache *c, size_t pid_max);

static bool fail_host, fail_cache;
static const struct hostinfo *host_read; /* what the last read filled */
static int host_freed;                   /* frees of it since */

int __wrap_hostinfo_read(struct hostinfo *h)
{
	int err = __real_hostinfo_read(h);
	host_read = h;
	host_freed = 0;
	return err ? err : fail_host ? -ENOMEM : 0;
}

void __wrap_hostinfo_free(struct hostinfo *h)
{
	if (h == host_read)
		host_freed++;
	__real_hostinfo_free(h);
}

int __wrap_sidecache_init(struct sidecache *c, size_t pid_max)
{
	if (fail_cache) {
		memset(c, 0, sizeof(*c));
		return -ENOMEM;
	}
	return __real_sidecache_init(c, pid_max);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* record_run(argv) fails with -ENOMEM and the message want, undone. */
static void expect_failed_start(int argc, char **argv, const char *want)
{
	struct options o;
	struct err e = { "" };
	options_init(&o);
	assert_int_equal(options_parse(&o, argc, argv, &e), 0);
	sigset_t before, after;
	assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &before), 0);
	int fds = open_fds();
	host_read = NULL;
	struct record_result res;
	assert_int_equal(record_run(&o.cfg, "/bin/true", NULL, &res, &e), -ENOMEM);
	assert_non_null(host_read);
	assert_int_equal(host_freed, 1);
	assert_string_equal(e.msg, want);
	assert_int_equal(open_fds(), fds);
	assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &after), 0);
	assert_int_equal(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
	assert_int_equal(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
	assert_string_equal(th_listing(th_root), "");
	options_free(&o);
}

#define S(x) ((char *)(x))

static void test_record_hostinfo_failure_is_said_and_undone(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-o"), S(th_at("perf.data")), S("--"), S("true"), NULL };
	fail_host = true;
	expect_failed_start(5, argv, "cannot read this machine's CPUs and topology: Cannot allocate memory");
	fail_host = false;
}

static void test_record_chunk_cache_failure_is_said_and_undone(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("--switch-output"), S("-o"), S(th_at("perf.data")), S("--"), S("true"), NULL };
	fail_cache = true;
	expect_failed_start(6, argv, "cannot set up the chunks' process cache: Cannot allocate memory");
	fail_cache = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_record_hostinfo_failure_is_said_and_undone),
		TH_FAKE(test_record_chunk_cache_failure_is_said_and_undone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
