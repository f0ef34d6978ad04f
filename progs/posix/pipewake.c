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
 */
#define CHECK_NAME "pipewake"
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>
#include <forkaudit.h>

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

int main(int argc, char **argv)
{
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
	result_int(&R, "rounds", rounds);
	result_int(&R, "streams_ok", streams);
	result_int(&R, "pings_ok", pings);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
