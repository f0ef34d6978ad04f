/*
 * pipes: pipe and pipe2 (ulib/libc/pipe.c) the way threaded programs use
 * them: bytes in order through 1 MiB of odd-sized writes between two
 * threads; records of PIPE_BUF bytes from 4 writers never interleaved;
 * end of file once every write end is closed (a dup keeps it open);
 * EPIPE and SIGPIPE with no reader; O_NONBLOCK's EAGAIN and the 64 KiB
 * capacity; poll and select waiting for a pipe another thread writes,
 * then seeing its hang-up; a thread blocked in read cancelled (the pipe
 * works after) and one running a signal handler inside its read (it
 * goes on with SA_RESTART, else EINTR; a full pipe's write, EINTR;
 * select, EINTR even with SA_RESTART); fstat,
 * lseek, isatty, fcntl; bad calls (EBADF, EINVAL, EMFILE). `pipes
 * sigpipe`: a write with no reader under SIGPIPE's default action ends
 * the program with status 141. Otherwise each CHECK
 * counts; a failure prints a line. Ends with
 * @result {"name": "pipes", "checks": N, "failures": F}, exit 0 iff F == 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NAME "pipes"
#include <check.h>
#include <sigcatch.h>

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* read exactly n bytes (a pipe's read may return fewer), or fewer at EOF,
   in reads of at most `step` bytes */
static size_t read_all(int fd, void *buf, size_t n, size_t step)
{
	size_t got = 0;
	while (got < n) {
		size_t want = n - got < step ? n - got : step;
		ssize_t r = read(fd, (char *)buf + got, want);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* ---- a stream ---- */

#define STREAM (1 << 20)

static void *producer(void *arg)
{
	int fd = (int)(intptr_t)arg;
	static unsigned char buf[9000];
	uint32_t x = 1, sent = 0;
	for (unsigned k = 1; sent < STREAM; k++) {
		size_t n = (k * 2654435761u) % sizeof buf + 1;   /* 1 .. 9000: some over PIPE_BUF */
		if (n > STREAM - sent)
			n = STREAM - sent;
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (unsigned char)(x >> 16);
		}
		if (write(fd, buf, n) != (ssize_t)n)
			return (void *)1;
		sent += (uint32_t)n;
	}
	close(fd);
	return 0;
}

static void test_stream(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pthread_t t;
	CHECK(pthread_create(&t, 0, producer, (void *)(intptr_t)p[1]) == 0);
	static unsigned char buf[5000];
	uint32_t x = 1;
	size_t got = 0, bad = 0;
	for (ssize_t r; (r = read(p[0], buf, sizeof buf)) > 0;) {
		for (ssize_t i = 0; i < r; i++) {
			x = x * 1103515245u + 12345u;
			bad += buf[i] != (unsigned char)(x >> 16);
		}
		got += (size_t)r;
	}
	void *res;
	CHECK(pthread_join(t, &res) == 0 && res == 0);
	CHECK(got == STREAM && bad == 0);
	CHECK(close(p[0]) == 0);
}

/* ---- PIPE_BUF records, never interleaved ---- */

#define WRITERS 4
#define RECORDS 200

static void *recorder(void *arg)
{
	int fd = (int)((intptr_t)arg >> 8), id = (int)((intptr_t)arg & 0xff);
	static __thread unsigned char rec[PIPE_BUF];
	for (int k = 0; k < RECORDS; k++) {
		memset(rec, id * 16 + k % 16, sizeof rec);
		if (write(fd, rec, sizeof rec) != PIPE_BUF)
			return (void *)1;
		if (k % 16 == 0)
			sched_yield();
	}
	return 0;
}

static void test_records(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pthread_t t[WRITERS];
	for (int i = 0; i < WRITERS; i++)
		CHECK(pthread_create(&t[i], 0, recorder, (void *)(intptr_t)(p[1] << 8 | (i + 1))) == 0);
	static unsigned char rec[PIPE_BUF];
	int mixed = 0, count[WRITERS + 1] = { 0 };
	for (int n = 0; n < WRITERS * RECORDS; n++) {
		/* reads of 1000: the room writers find is then no multiple
		   of a record, and one that wrote in parts would interleave */
		if (read_all(p[0], rec, sizeof rec, 1000) != sizeof rec) {
			mixed++;
			break;
		}
		for (size_t i = 1; i < sizeof rec; i++)
			if (rec[i] != rec[0]) {
				mixed++;
				break;
			}
		int id = rec[0] / 16;
		if (id >= 1 && id <= WRITERS)
			count[id]++;
	}
	for (int i = 0; i < WRITERS; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0 && r == 0);
	}
	CHECK(mixed == 0);
	for (int i = 1; i <= WRITERS; i++)
		CHECK(count[i] == RECORDS);
	close(p[0]);
	close(p[1]);
}

/* ---- ends ---- */

static volatile int pipe_sigs;
static void on_pipe(int sig)
{
	(void)sig;
	pipe_sigs++;
}

static void test_ends(void)
{
	int p[2];
	char c[8];
	CHECK(pipe(p) == 0);
	struct stat st;
	CHECK(fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(write(p[1], "abc", 3) == 3);
	CHECK(fstat(p[1], &st) == 0 && S_ISFIFO(st.st_mode) && st.st_size == 3);
	CHECK(lseek(p[0], 0, SEEK_SET) == -1 && errno == ESPIPE);
	CHECK(isatty(p[0]) == 0 && errno == ENOTTY);
	CHECK(read(p[1], c, 1) == -1 && errno == EBADF);       /* the wrong ends */
	CHECK(write(p[0], "x", 1) == -1 && errno == EBADF);
	int d = dup(p[1]);
	CHECK(d > p[1]);
	CHECK(close(p[1]) == 0);
	CHECK(write(d, "de", 2) == 2);                          /* the dup keeps it open */
	CHECK(read(p[0], c, sizeof c) == 5 && !memcmp(c, "abcde", 5));
	CHECK(close(d) == 0);
	CHECK(read(p[0], c, sizeof c) == 0);                    /* end of file */
	CHECK(close(p[0]) == 0);

	/* no reader: EPIPE, and SIGPIPE (ignored, then a handler); bytes
	   left unread went with the reader: none waits (fstat) */
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "abc", 3) == 3);
	CHECK(close(p[0]) == 0);
	CHECK(fstat(p[1], &st) == 0 && S_ISFIFO(st.st_mode) && st.st_size == 0);
	signal(SIGPIPE, SIG_IGN);
	CHECK(write(p[1], "x", 1) == -1 && errno == EPIPE);
	signal(SIGPIPE, on_pipe);
	CHECK(write(p[1], "x", 1) == -1 && errno == EPIPE && pipe_sigs == 1);
	signal(SIGPIPE, SIG_DFL);
	CHECK(close(p[1]) == 0);

	/* O_NONBLOCK: EAGAIN both ways, and the capacity */
	CHECK(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
	CHECK((fcntl(p[0], F_GETFL) & O_NONBLOCK) && fcntl(p[1], F_GETFD) == FD_CLOEXEC);
	CHECK(read(p[0], c, 1) == -1 && errno == EAGAIN);
	static char big[10000];
	long total = 0;
	for (ssize_t r; (r = write(p[1], big, sizeof big)) > 0;)
		total += r;
	CHECK(errno == EAGAIN && total == 65536);
	CHECK(write(p[1], big, 1) == -1 && errno == EAGAIN);
	CHECK(fcntl(p[0], F_SETFL, 0) == 0 && !(fcntl(p[0], F_GETFL) & O_NONBLOCK));
	CHECK(read(p[0], big, sizeof big) == (ssize_t)sizeof big);
	close(p[0]);
	close(p[1]);

	/* bad calls */
	CHECK(pipe2(p, 0x40000000) == -1 && errno == EINVAL);
	CHECK(pipe(0) == -1 && errno == EINVAL);
	static int fds[1100];                                   /* (the table: 1024) */
	int n = 0;
	while (n < 1100 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	CHECK(n < 1100 && errno == EMFILE);
	CHECK(close(fds[--n]) == 0);                            /* one free: not enough */
	CHECK(pipe(p) == -1 && errno == EMFILE);
	while (n > 0)
		close(fds[--n]);
	CHECK(pipe(p) == 0 && close(p[0]) == 0 && close(p[1]) == 0);
}

/* ---- poll and select ---- */

static void *late_writer(void *arg)
{
	int fd = (int)(intptr_t)arg;
	usleep(20000);
	ssize_t r = write(fd, "!", 1);
	usleep(20000);
	close(fd);
	return (void *)r;
}

static void test_poll(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	struct pollfd pf[2] = { { p[0], POLLIN, 0 }, { p[1], POLLOUT, 0 } };
	CHECK(poll(pf, 2, 0) == 1 && pf[0].revents == 0 && pf[1].revents == POLLOUT);
	long long t0 = mono_ms();
	CHECK(poll(pf, 1, 50) == 0 && pf[0].revents == 0);
	CHECK(mono_ms() - t0 >= 49);                            /* waited its timeout */
	pthread_t t;
	CHECK(pthread_create(&t, 0, late_writer, (void *)(intptr_t)p[1]) == 0);
	CHECK(poll(pf, 1, -1) == 1 && (pf[0].revents & POLLIN));   /* woken by the write */
	char c;
	CHECK(read(p[0], &c, 1) == 1 && c == '!');
	fd_set r;
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK(select(p[0] + 1, &r, 0, 0, 0) == 1 && FD_ISSET(p[0], &r));   /* the close */
	CHECK(poll(pf, 1, -1) == 1 && (pf[0].revents & POLLHUP));
	void *res;
	CHECK(pthread_join(t, &res) == 0 && res == (void *)1L);
	CHECK(read(p[0], &c, 1) == 0);
	CHECK(close(p[0]) == 0);
	/* a write end with no reader: POLLERR */
	CHECK(pipe(p) == 0 && close(p[0]) == 0);
	pf[1].fd = p[1];
	CHECK(poll(&pf[1], 1, 0) == 1 && pf[1].revents == POLLERR);
	close(p[1]);
	struct timeval tv = { 0, 30000 };
	FD_ZERO(&r);
	CHECK(pipe(p) == 0);
	FD_SET(p[0], &r);
	t0 = mono_ms();
	CHECK(select(p[0] + 1, &r, 0, 0, &tv) == 0 && !FD_ISSET(p[0], &r));
	CHECK(mono_ms() - t0 >= 29);
	close(p[0]);
	close(p[1]);
}

/* ---- a blocked read: cancelled, and interrupted by a handler ---- */

static volatile int in_read, usr1_runs;
static void *blocked_reader(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char c[4];
	in_read = 1;
	ssize_t r = read(fd, c, sizeof c);
	return (void *)r;
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_runs++;
}

static void test_blocked(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pthread_t t;
	in_read = 0;
	CHECK(pthread_create(&t, 0, blocked_reader, (void *)(intptr_t)p[0]) == 0);
	while (!in_read)
		sched_yield();
	usleep(20000);
	CHECK(pthread_cancel(t) == 0);
	void *res;
	CHECK(pthread_join(t, &res) == 0 && res == PTHREAD_CANCELED);
	char c[4];
	CHECK(write(p[1], "ok", 2) == 2 && read(p[0], c, 4) == 2);   /* not left locked */

	/* a handler runs inside the read, which goes on and gets the data */
	signal(SIGUSR1, on_usr1);
	in_read = 0;
	CHECK(pthread_create(&t, 0, blocked_reader, (void *)(intptr_t)p[0]) == 0);
	while (!in_read)
		sched_yield();
	usleep(20000);
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	usleep(20000);
	CHECK(write(p[1], "xyz", 3) == 3);
	CHECK(pthread_join(t, &res) == 0 && res == (void *)3L && usr1_runs == 1);
	signal(SIGUSR1, SIG_DFL);
	close(p[0]);
	close(p[1]);
}

/* ---- EINTR: a handler without SA_RESTART ends a wait that moved nothing ---- */

static int intr_fd, intr_op, intr_errno;
static void *intr_waiter(void *arg)
{
	(void)arg;
	static char big[PIPE_BUF];
	char c[4];
	fd_set rs;
	FD_ZERO(&rs);
	FD_SET(intr_fd, &rs);
	in_read = 1;
	long r = intr_op == 0 ? read(intr_fd, c, sizeof c) :
		 intr_op == 1 ? write(intr_fd, big, sizeof big) :
		 intr_op == 2 ? select(intr_fd + 1, &rs, 0, 0, 0) :
		 intr_op == 3 ? select(0, 0, 0, 0, 0) : poll(0, 0, -1);
	intr_errno = errno;
	return (void *)r;
}

/* op 0 read, 1 write (the pipe full), 2 select, 3 select and 4 poll on
   nothing with no timeout (they wait for a signal, as pause); flags the handler's
   sa_flags. The call's result and errno. */
static long interrupted(int fd, int op, int flags, int *err)
{
	sig_catch(SIGUSR1, on_usr1, flags);
	intr_fd = fd, intr_op = op, in_read = 0, intr_errno = 0;
	pthread_t t;
	void *res = (void *)-9L;
	CHECK(pthread_create(&t, 0, intr_waiter, 0) == 0);
	while (!in_read)
		sched_yield();
	usleep(20000);
	int runs = usr1_runs;
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	usleep(20000);
	if (op == 0 && (flags & SA_RESTART))
		CHECK(write(fd + 1, "ab", 2) == 2);       /* (p[1] == p[0] + 1 here) */
	CHECK(pthread_join(t, &res) == 0 && usr1_runs == runs + 1);
	signal(SIGUSR1, SIG_DFL);
	*err = intr_errno;
	return (long)res;
}

static void test_eintr(void)
{
	int p[2], e;
	CHECK(pipe(p) == 0 && p[1] == p[0] + 1);
	CHECK(interrupted(p[0], 0, 0, &e) == -1 && e == EINTR);
	CHECK(interrupted(p[0], 0, SA_RESTART, &e) == 2);            /* went on: the data */
	CHECK(interrupted(p[0], 2, SA_RESTART, &e) == -1 && e == EINTR);   /* select: always */
	CHECK(interrupted(p[0], 3, SA_RESTART, &e) == -1 && e == EINTR);
	CHECK(interrupted(p[0], 4, 0, &e) == -1 && e == EINTR);
	static char fill[PIPE_BUF];
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], fill, sizeof fill) > 0)
		;
	fcntl(p[1], F_SETFL, 0);
	CHECK(interrupted(p[1], 1, 0, &e) == -1 && e == EINTR);       /* full: nothing went in */
	char c[4];
	CHECK(read(p[0], c, 4) == 4);                                 /* not left locked */
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sigpipe")) {
		/* SIGPIPE's default action: the program ends, 128 + 13 */
		int p[2];
		if (pipe(p) || close(p[0]))
			return 3;
		write(p[1], "x", 1);
		printf("pipes: still here after SIGPIPE\n");
		return 4;
	}
	test_ends();
	test_stream();
	test_records();
	test_poll();
	test_blocked();
	test_eintr();
	printf("@result {\"name\": \"pipes\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
