/*
 * pipewake: many short transfers between a process and its forked child
 * through kernel pipes, each side waiting for the other again and again
 * (harness/tests/test_pipewake.py). Reads land in pages a fork left
 * copy-on-write (`big`, written before each fork), so the kernel's copy
 * out of the pipe meets such a page again and again while the other
 * process waits on the pipe or changes it. A wait that is never woken,
 * or a CPU stopped for good inside the kernel, hangs the boot.
 *   stream   the parent writes `bytes` in pieces of 1 to 9,000 bytes
 *            (below and above PIPE_BUF), the child reads them in pieces
 *            of 1 to 5,000, each into the next page of `big`, and checks
 *            every byte
 *   ping     `trips` round trips of 1 to PIPE_BUF bytes through two pipes,
 *            the parent's reads into the next page of `big` each
 * `pipewake ROUNDS BYTES TRIPS`: ROUNDS times each, a new pair of
 * processes and pipes every time.
 * `pipewake poll MS N` (a figure, and test_pipewake's count): N times, a
 * process polls (POLLIN, no timeout) a pipe whose writer, its child,
 * sleeps MS ms from the poller's go and then writes the time; the
 * poller's kernel waits meanwhile (its VP's `blocks`, the poller being
 * the only thread) and ns from the write to poll's return (under
 * --icount, guest time). The first time, before the go, also a
 * 30 ms poll of that pipe (0 after 30 ms) and one of it and of a pipe
 * this process's other thread writes 10 ms later (that one ready).
 */
#define CHECK_NAME "pipewake"
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <animart/upcall.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>
#include <forkaudit.h>

extern const struct pkg *posix_pkg;     /* (ulib/pthread/pstart.c) */

static unsigned rnd(unsigned *s, unsigned lo, unsigned hi)
{
	*s = *s * 1103515245u + 12345u;
	return lo + (*s >> 8) % (hi - lo + 1);
}

static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 13 + i / 509);
}

static char buf[2][9000];
#define BIG (1 << 20)
static char big[BIG];

/* Where read number i goes: the start of a page of big, a fresh one
   (copy-on-write since the fork) for each of the first BIG / 4096. */
static char *slot(unsigned i)
{
	return big + (size_t)i * 4096 % (BIG - 8192);
}

/* parent -> child, `bytes` of pat(); the child's status: 0 if all came right */
static int stream(unsigned seed, size_t bytes)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t c = fork();
	if (c == 0) {
		close(p[1]);
		size_t got = 0, bad = 0;
		unsigned k = 0;
		for (ssize_t r; (r = read(p[0], slot(k), rnd(&seed, 1, 5000))) > 0; got += (size_t)r, k++)
			for (ssize_t i = 0; i < r; i++)
				bad += (unsigned char)slot(k)[i] != pat(got + (size_t)i);
		_exit(got == bytes && bad == 0 ? 0 : 1);
	}
	close(p[0]);
	for (size_t done = 0; done < bytes;) {
		size_t n = rnd(&seed, 1, 9000), i;
		n = n > bytes - done ? bytes - done : n;
		for (i = 0; i < n; i++)
			buf[0][i] = (char)pat(done + i);
		if (write(p[1], buf[0], n) != (ssize_t)n)
			break;
		done += n;
	}
	close(p[1]);
	return fork_status(c);
}

/* Read exactly n bytes (a pipe read may return fewer). */
static int full(int fd, char *b, size_t n)
{
	for (ssize_t r; n; b += r, n -= (size_t)r)
		if ((r = read(fd, b, n)) <= 0)
			return -1;
	return 0;
}

/* `trips` round trips; the child echoes what it reads. */
static int ping(unsigned seed, int trips)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		return -1;
	pid_t c = fork();
	if (c == 0) {
		close(a[1]);
		close(b[0]);
		for (ssize_t r; (r = read(a[0], buf[1], PIPE_BUF)) > 0;)
			if (write(b[1], buf[1], (size_t)r) != r)
				_exit(1);
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	int bad = 0;
	for (int i = 0; i < trips && !bad; i++) {
		size_t n = rnd(&seed, 1, PIPE_BUF);
		buf[0][0] = (char)i;
		bad = write(a[1], buf[0], n) != (ssize_t)n || full(b[0], slot(i), n) || *slot(i) != (char)i;
	}
	close(a[1]);
	close(b[0]);
	return fork_status(c) || bad;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *late_write(void *arg)
{
	usleep(10000);
	write(*(int *)arg, "x", 1);
	return 0;
}

/* With the shared pipe's read end p0 (nobody writes it): a poll for
   30 ms returns 0 after them; a poll on it and on a pipe of ours that
   our thread writes 10 ms later returns that one (1 when both hold). */
static int poll_more(int p0)
{
	struct pollfd pf[2] = { { p0, POLLIN, 0 }, { -1, POLLIN, 0 } };
	long long t0 = now_ns();
	int timed = poll(pf, 1, 30) == 0 && now_ns() - t0 >= 30000000LL;
	int q[2];
	pthread_t t;
	if (pipe(q) || pthread_create(&t, 0, late_write, &q[1]))
		return 0;
	pf[1].fd = q[0];
	int mixed = poll(pf, 2, 5000) == 1 && pf[1].revents == POLLIN && !pf[0].revents;
	pthread_join(t, 0);
	close(q[0]);
	close(q[1]);
	return timed && mixed;
}

/* In a process of its own (one VP, one thread): see the top. */
static int pollwake(int ms, int n)
{
	pid_t body = fork();
	if (body) 
		return fork_status(body);
	long long waits = 0, lat = 0;
	int ok = 0, more = 0;
	for (int i = 0; i < n; i++) {
		int p[2], g[2];
		char go = 'g';
		if (pipe(p))
			break;
		if (pipe(g)) {
			close(p[0]);
			close(p[1]);
			break;
		}
		pid_t c = fork();
		if (c == 0) {
			/* The writer's ms count from the parent's go, not from the
			   fork: poll_more's 40 ms must be over before it starts, or a
			   host stall while the guest idles (icount's clock then follows
			   the host's) made both of poll_more's pipes ready at once. */
			close(p[0]);
			close(g[1]);
			if (read(g[0], &go, 1) != 1)
				_exit(1);
			usleep(ms * 1000);
			long long t = now_ns();
			_exit(write(p[1], &t, sizeof t) == sizeof t ? 0 : 1);
		}
		close(p[1]);
		close(g[0]);
		if (i == 0)
			more = poll_more(p[0]);  /* (its writer not started yet) */
		ok -= write(g[1], &go, 1) != 1;
		close(g[1]);
		uint64_t b0 = pseudo_page(0)->blocks;
		struct pollfd pf = { p[0], POLLIN, 0 };
		int r = poll(&pf, 1, -1);
		long long t1 = now_ns(), t = 0;
		waits += (long long)(pseudo_page(0)->blocks - b0);
		ok += r == 1 && (pf.revents & POLLIN) && read(p[0], &t, sizeof t) == sizeof t;
		lat += t1 - t;
		close(p[0]);
		ok -= fork_status(c) != 0;
	}
	printf("@result {\"name\": \"pollwake\", \"n\": %d, \"ms\": %d, \"ok\": %d, \"more\": %d, "
	       "\"waits\": %lld, \"lat_ns\": %lld}\n", n, ms, ok, more, waits, n ? lat / n : 0);
	_exit(ok == n && more ? 0 : 1);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "poll"))
		return pollwake(atoi(argv[2]), atoi(argv[3]));
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 300000;
	int trips = argc > 3 ? atoi(argv[3]) : 300;
	int streams = 0, pings = 0;
	for (int r = 0; r < rounds; r++) {
		memset(big, r, sizeof big);      /* ours: the next fork leaves it copy-on-write */
		int s = stream(7u * r + 1, bytes), q = ping(11u * r + 3, trips);
		CHECK(s == 0);
		CHECK(q == 0);
		streams += s == 0;
		pings += q == 0;
	}
	struct result R;
	result_begin(&R, "pipewake");
	result_str(&R, "pkg", posix_pkg->name);
	result_int(&R, "rounds", rounds);
	result_int(&R, "streams_ok", streams);
	result_int(&R, "pings_ok", pings);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
