/*
 * aiox: POSIX asynchronous I/O (<aio.h>, ulib/libc/aio.c, aiowait.c,
 * lio.c; harness/tests/test_aiox.py). Files on /tmp (the RAM disk).
 *
 * What a request does while it is still queued is made certain, not
 * raced for: a write to a full pipe with O_APPEND set (aio.c then uses
 * write, which waits for room) holds the pipe's one worker until main
 * reads, so the requests behind it on that descriptor stay queued.
 * With it held: aio_error is EINPROGRESS, aio_suspend times out
 * (EAGAIN) or ends at a handled signal (EINTR) or a cancel, aio_cancel
 * of a queued one is ECANCELED and of the running one AIO_NOTCANCELED,
 * AIO_MAX requests fill the queue (the next is EAGAIN), and a fork's
 * child has none of them. (On det, before a worker at work counted as a
 * live thread, the held write waited in the kernel once the fork had
 * shared the pipe, holding det's token: the run hung there.)
 *
 * Each failed check prints its line; one @result line sums them up.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>

static int checks, failures;
#define CHECK(c) do {                                                       \
	checks++;                                                           \
	if (!(c)) {                                                         \
		failures++;                                                 \
		printf("aiox: line %d: %s (errno %d)\n", __LINE__, #c, errno); \
	}                                                                   \
} while (0)

#define F "/tmp/aiox"
#define N 4096

static char out[8][N], in[8][N];

static struct aiocb cb_of(int fd, void *buf, size_t n, off_t off)
{
	struct aiocb cb;
	memset(&cb, 0, sizeof cb);
	cb.aio_fildes = fd;
	cb.aio_buf = buf;
	cb.aio_nbytes = n;
	cb.aio_offset = off;
	cb.aio_sigevent.sigev_notify = SIGEV_NONE;
	return cb;
}

/* Wait for cb with aio_suspend; its status. */
static int finish(struct aiocb *cb)
{
	const struct aiocb *l[1] = { cb };
	while (aio_error(cb) == EINPROGRESS)
		aio_suspend(l, 1, 0);
	return aio_error(cb);
}

static void options(void)
{
	CHECK(_POSIX_ASYNCHRONOUS_IO == 200809L);
	CHECK(sysconf(_SC_ASYNCHRONOUS_IO) == 200809L);
	CHECK(sysconf(_SC_AIO_MAX) == AIO_MAX && AIO_MAX >= _POSIX_AIO_MAX);
	CHECK(sysconf(_SC_AIO_LISTIO_MAX) == AIO_LISTIO_MAX && AIO_LISTIO_MAX >= _POSIX_AIO_LISTIO_MAX);
	CHECK(sysconf(_SC_AIO_PRIO_DELTA_MAX) == 20);
}

/* Writes at three offsets, read back; fsync both ways. */
static void round_trip(int fd)
{
	struct aiocb w[3], r[3];
	for (int i = 0; i < 3; i++) {
		memset(out[i], 'a' + i, N);
		w[i] = cb_of(fd, out[i], N, (off_t)i * N);
		CHECK(aio_write(&w[i]) == 0);
	}
	for (int i = 0; i < 3; i++) {
		CHECK(finish(&w[i]) == 0);
		CHECK(aio_return(&w[i]) == N);
	}
	for (int i = 2; i >= 0; i--) {
		r[i] = cb_of(fd, in[i], N, (off_t)i * N);
		CHECK(aio_read(&r[i]) == 0);
	}
	for (int i = 0; i < 3; i++) {
		CHECK(finish(&r[i]) == 0 && aio_return(&r[i]) == N);
		CHECK(memcmp(in[i], out[i], N) == 0);
	}
	struct aiocb e = cb_of(fd, in[0], N, 3 * N);       /* at the end: 0 bytes */
	CHECK(aio_read(&e) == 0 && finish(&e) == 0 && aio_return(&e) == 0);
	struct aiocb s = cb_of(fd, 0, 0, 0);
	CHECK(aio_fsync(O_SYNC, &s) == 0 && finish(&s) == 0 && aio_return(&s) == 0);
	CHECK(aio_fsync(O_DSYNC, &s) == 0 && finish(&s) == 0);
	errno = 0;
	CHECK(aio_fsync(O_RDWR, &s) == -1 && errno == EINVAL);
}

static void errors(int fd)
{
	int rd = open(F, O_RDONLY);
	struct aiocb a = cb_of(rd, out[0], N, 0);
	CHECK(aio_write(&a) == 0 && finish(&a) == EBADF && aio_return(&a) == -1);
	errno = 0;
	CHECK(aio_fsync(O_SYNC, &a) == -1 && errno == EBADF);    /* not open for writing */
	close(rd);
	a = cb_of(rd, in[0], N, 0);                                /* closed */
	CHECK(aio_read(&a) == 0 && finish(&a) == EBADF);
	a = cb_of(fd, in[0], N, -1);
	CHECK(aio_read(&a) == 0 && finish(&a) == EINVAL && aio_return(&a) == -1);
	a = cb_of(fd, in[0], N, 0);
	a.aio_reqprio = -1;
	errno = 0;
	CHECK(aio_read(&a) == -1 && errno == EINVAL);
	a.aio_reqprio = AIO_PRIO_DELTA_MAX + 1;
	CHECK(aio_write(&a) == -1 && errno == EINVAL);
	a.aio_reqprio = AIO_PRIO_DELTA_MAX;
	CHECK(aio_read(&a) == 0 && finish(&a) == 0);
	errno = 0;
	CHECK(aio_cancel(-1, 0) == -1 && errno == EBADF);
	a.aio_fildes = fd;
	CHECK(aio_cancel(fd + 1, &a) == -1 && errno == EINVAL);
	CHECK(aio_cancel(fd, &a) == AIO_ALLDONE);
	const struct aiocb *none[2] = { 0, 0 };
	struct timespec ts = { 0, -1 };
	CHECK(aio_suspend(none, 2, &ts) == -1 && errno == EINVAL);
}

/* ---- notifications ---- */

static volatile sig_atomic_t got, got_code;
static struct aiocb *lists[5];            /* lio_listio's list: its signal's value */
static volatile sig_atomic_t ones, ones_at_list;
static void *volatile got_ptr;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got_code = si->si_code;
	got_ptr = si->si_value.sival_ptr;
	if (got_ptr == (void *)lists)
		ones_at_list = ones;
	got++;
}

static void on_one(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	ones++;
}

static sem_t thr_sem;
static void *volatile thr_ptr;
static void on_thread(union sigval v)
{
	thr_ptr = v.sival_ptr;
	sem_post(&thr_sem);
}

/* Until the handler has run n times in all (each request's signal is
   sent after its status is set, so it may come just after a wait). */
static void wait_sigs(int n)
{
	while (got < n) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, 0);
	}
}

static void notifications(int fd)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 1, &sa, 0);

	struct aiocb a = cb_of(fd, out[0], N, 0);
	a.aio_sigevent.sigev_notify = SIGEV_SIGNAL;
	a.aio_sigevent.sigev_signo = SIGRTMIN + 1;
	a.aio_sigevent.sigev_value.sival_ptr = &a;
	got = 0;
	CHECK(aio_write(&a) == 0);
	wait_sigs(1);
	CHECK(got_code == SI_ASYNCIO && got_ptr == &a && aio_error(&a) == 0 && aio_return(&a) == N);

	sem_init(&thr_sem, 0, 0);
	a = cb_of(fd, in[0], N, 0);
	a.aio_sigevent.sigev_notify = SIGEV_THREAD;
	a.aio_sigevent.sigev_notify_function = on_thread;
	a.aio_sigevent.sigev_value.sival_ptr = &thr_sem;
	CHECK(aio_read(&a) == 0);
	sem_wait(&thr_sem);
	CHECK(thr_ptr == &thr_sem && aio_error(&a) == 0 && aio_return(&a) == N);

	/* lio_listio: LIO_WAIT, then LIO_NOWAIT with the list's signal */
	struct aiocb l[4], **lp = lists;
	for (int i = 0; i < 4; i++) {
		memset(out[i], '0' + i, N);
		l[i] = cb_of(fd, out[i], N, (off_t)i * N);
		l[i].aio_lio_opcode = LIO_WRITE;
		lp[i] = &l[i];
	}
	lp[4] = 0;                                             /* skipped */
	CHECK(lio_listio(LIO_WAIT, lp, 5, 0) == 0);
	for (int i = 0; i < 4; i++)
		CHECK(aio_error(&l[i]) == 0 && aio_return(&l[i]) == N);
	for (int i = 0; i < 4; i++) {
		l[i] = cb_of(fd, in[i], N, (off_t)i * N);
		l[i].aio_lio_opcode = i == 3 ? LIO_NOP : LIO_READ;
	}
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGRTMIN + 1;
	ev.sigev_value.sival_ptr = lp;
	got = 0;
	CHECK(lio_listio(LIO_NOWAIT, lp, 4, &ev) == 0);
	wait_sigs(1);
	CHECK(got == 1 && got_code == SI_ASYNCIO && got_ptr == lp);

	/* each request's own signal is sent before the list's (aio.c:
	   aio_group_done), on two descriptors and so two workers. Not
	   checked as the order the handlers run in: one sent while main
	   ran a handler waits for the program and the next may go to main
	   itself, which takes its own first (as Linux takes a thread's
	   before the process's) */
	int fd2 = open(F "b", O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct aiocb m[8], *mp[8];
	for (int i = 0; i < 8; i++) {
		m[i] = cb_of(i & 1 ? fd2 : fd, out[i], N, (off_t)(i / 2) * N);
		m[i].aio_lio_opcode = LIO_WRITE;
		m[i].aio_sigevent.sigev_notify = SIGEV_SIGNAL;
		m[i].aio_sigevent.sigev_signo = SIGRTMIN + 2;
		mp[i] = &m[i];
	}
	sigfillset(&sa.sa_mask);                               /* (no handler inside another) */
	sa.sa_sigaction = on_one;
	sigaction(SIGRTMIN + 2, &sa, 0);
	sa.sa_sigaction = on_sig;                              /* the list's: a higher number, */
	sigaction(SIGRTMIN + 3, &sa, 0);                       /* taken after the others if all wait */
	ev.sigev_signo = SIGRTMIN + 3;
	got = ones = 0;
	ones_at_list = -1;
	CHECK(lio_listio(LIO_NOWAIT, mp, 8, &ev) == 0);
	wait_sigs(1);
	while (ones < 8) {                                     /* every request's comes too */
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, 0);
	}
	CHECK(ones_at_list >= 0 && ones == 8);
	close(fd2);
	unlink(F "b");
	for (int i = 0; i < 3; i++)
		CHECK(aio_error(&l[i]) == 0 && memcmp(in[i], out[i], N) == 0);
	l[1].aio_lio_opcode = 7;                               /* bad: EINVAL, the call EIO */
	errno = 0;
	CHECK(lio_listio(LIO_WAIT, lp, 3, 0) == -1 && errno == EIO);
	CHECK(aio_error(&l[0]) == 0 && aio_error(&l[1]) == EINVAL && aio_error(&l[2]) == 0);
	CHECK(lio_listio(2, lp, 3, 0) == -1 && errno == EINVAL);
	CHECK(lio_listio(LIO_WAIT, lp, AIO_LISTIO_MAX + 1, 0) == -1 && errno == EINVAL);
	CHECK(lio_listio(LIO_WAIT, lp, 0, 0) == 0);
}

/* O_APPEND writes land in submission order. */
static void append_order(void)
{
	int fd = open(F "a", O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
	static struct aiocb a[16];
	static char rec[16][64], back[16 * 64];
	for (int i = 0; i < 16; i++) {
		memset(rec[i], 'A' + i, 64);
		a[i] = cb_of(fd, rec[i], 64, 0);
		CHECK(aio_write(&a[i]) == 0);
	}
	for (int i = 0; i < 16; i++)
		CHECK(finish(&a[i]) == 0);
	CHECK(pread(fd, back, sizeof back, 0) == (ssize_t)sizeof back);
	int ok = 1;
	for (int i = 0; i < 16 * 64; i++)
		ok &= back[i] == 'A' + i / 64;
	CHECK(ok);
	close(fd);
	unlink(F "a");
}

/* aio_error and aio_return in a request's handler (async-signal-safe):
   many writes, a cancel of those still queued, every one notified. On
   det=par the handler ran inside a lock of the queue its thread held
   and waited for itself, when aio_error took that lock. */
#define NH 64
static struct aiocb hcb[NH];
static volatile sig_atomic_t hleft, hcanceled, hbad;
static void on_done(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	struct aiocb *a = si->si_value.sival_ptr;
	int e = aio_error(a);
	ssize_t r = aio_return(a);
	hcanceled += e == ECANCELED;
	hbad += !(e == ECANCELED ? r == -1 : e == 0 && r == 65536);
	hleft--;
}

static void handler_calls(int fd)
{
	static char buf[65536];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_done;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 4, &sa, 0);
	hleft = NH;
	for (int i = 0; i < NH; i++) {
		hcb[i] = cb_of(fd, buf, sizeof buf, (off_t)i * (off_t)sizeof buf);
		hcb[i].aio_sigevent.sigev_notify = SIGEV_SIGNAL;
		hcb[i].aio_sigevent.sigev_signo = SIGRTMIN + 4;
		hcb[i].aio_sigevent.sigev_value.sival_ptr = &hcb[i];
		CHECK(aio_write(&hcb[i]) == 0);
	}
	CHECK(aio_cancel(fd, 0) != -1);
	while (hleft > 0) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, 0);
	}
	CHECK(hleft == 0 && hbad == 0);
}

/* ---- a request held running: a write to a full pipe ---- */

static int pfd[2];
static struct aiocb held, queued;
static char big[PIPE_BUF];

static void *suspender(void *arg)
{
	(void)arg;
	const struct aiocb *l[1] = { &held };
	aio_suspend(l, 1, 0);                                  /* cancelled here */
	return 0;
}

static volatile int stop_nag;
static pthread_t main_thread;
static void *nagger(void *arg)
{
	(void)arg;
	while (!stop_nag) {
		pthread_kill(main_thread, SIGUSR1);
		struct timespec d = { 0, 5000000 };
		nanosleep(&d, 0);
	}
	return 0;
}

static volatile sig_atomic_t usr1;
static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void held_request(int fd)
{
	CHECK(pipe(pfd) == 0);
	fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	while (write(pfd[1], big, sizeof big) > 0)
		;
	fcntl(pfd[1], F_SETFL, O_APPEND);                      /* blocking again; write, not pwrite */
	held = cb_of(pfd[1], big, sizeof big, 0);
	CHECK(aio_write(&held) == 0);
	queued = cb_of(pfd[1], big, 1, 0);
	CHECK(aio_write(&queued) == 0);
	CHECK(aio_error(&held) == EINPROGRESS && aio_error(&queued) == EINPROGRESS);

	const struct aiocb *l[2] = { &held, &queued };
	struct timespec zero = { 0, 0 }, short_ = { 0, 20000000 };
	errno = 0;
	CHECK(aio_suspend(l, 2, &zero) == -1 && errno == EAGAIN);
	errno = 0;
	CHECK(aio_suspend(l, 2, &short_) == -1 && errno == EAGAIN);

	/* a handled signal ends the wait: EINTR (without SA_RESTART, as Linux's) */
	struct sigaction sa;                                   /* (no SA_RESTART) */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, 0);
	main_thread = pthread_self();
	pthread_t nag;
	pthread_create(&nag, 0, nagger, 0);
	int r, e = 0;
	struct timespec tenth = { 0, 100000000 };
	do {
		errno = 0;
		r = aio_suspend(l, 2, &tenth);
		e = errno;
	} while (r == -1 && e == EAGAIN);
	stop_nag = 1;
	pthread_join(nag, 0);
	CHECK(r == -1 && e == EINTR && usr1 > 0);

	/* a cancellation point */
	pthread_t s;
	void *rv = 0;
	CHECK(pthread_create(&s, 0, suspender, 0) == 0);
	pthread_cancel(s);
	CHECK(pthread_join(s, &rv) == 0 && rv == PTHREAD_CANCELED);

	/* the queue fills: AIO_MAX in flight, then EAGAIN */
	static struct aiocb many[AIO_MAX];
	int n = 0;
	for (; n < AIO_MAX; n++) {
		many[n] = cb_of(pfd[1], big, 1, 0);
		if (aio_write(&many[n]))
			break;
	}
	CHECK(n == AIO_MAX - 2);                               /* held and queued are two */
	errno = 0;
	struct aiocb more = cb_of(fd, in[0], 1, 0);
	CHECK(aio_read(&more) == -1 && errno == EAGAIN);
	struct aiocb *lm[1] = { &more };
	more.aio_lio_opcode = LIO_READ;
	CHECK(lio_listio(LIO_NOWAIT, lm, 1, 0) == -1 && errno == EAGAIN);
	CHECK(aio_cancel(pfd[1], &many[0]) == AIO_CANCELED && aio_error(&many[0]) == ECANCELED);

	/* a fork's child has no requests of the parent's */
	pid_t pid = fork();
	if (pid == 0) {
		int bad = aio_cancel(pfd[1], 0) != AIO_ALLDONE;
		struct aiocb c = cb_of(fd, in[1], N, 0);
		bad |= aio_read(&c) != 0 || finish(&c) != 0 || aio_return(&c) != N;
		_exit(bad);
	}
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* cancel: the queued ones go (ECANCELED), the running one cannot */
	CHECK(aio_cancel(pfd[1], &queued) == AIO_CANCELED);
	CHECK(aio_error(&queued) == ECANCELED && aio_return(&queued) == -1);
	CHECK(aio_cancel(pfd[1], &held) == AIO_NOTCANCELED);
	CHECK(aio_cancel(pfd[1], 0) == AIO_NOTCANCELED);
	int canc = 0;
	for (int i = 1; i < n; i++)
		canc += aio_error(&many[i]) == ECANCELED;
	CHECK(canc == n - 1);
	CHECK(aio_error(&held) == EINPROGRESS);

	/* room again: read the pipe, and the held write ends */
	static char sink[65536];
	while (aio_error(&held) == EINPROGRESS) {
		fcntl(pfd[0], F_SETFL, O_NONBLOCK);
		while (read(pfd[0], sink, sizeof sink) > 0)
			;
		const struct aiocb *h[1] = { &held };
		aio_suspend(h, 1, &tenth);
	}
	CHECK(aio_error(&held) == 0 && aio_return(&held) == (ssize_t)sizeof big);
	CHECK(aio_cancel(pfd[1], 0) == AIO_ALLDONE);
	close(pfd[0]);
	close(pfd[1]);
}

int main(void)
{
	options();
	int fd = open(F, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	round_trip(fd);
	errors(fd);
	notifications(fd);
	append_order();
	handler_calls(fd);
	held_request(fd);
	close(fd);
	unlink(F);
	struct result r;
	result_begin(&r, "aiox");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
