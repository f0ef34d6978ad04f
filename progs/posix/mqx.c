/*
 * mqx: POSIX message queues shared across processes, as on Linux
 * (ulib/libc/mqueue.c; harness/tests/test_mqx.py).
 *   fork   a forked child uses the parent's descriptor (the same number)
 *          and its queue; a child opens by name a queue made after the
 *          fork; a receive (and a send to a full queue) waiting in one
 *          process is ended by another's send (receive); a registration
 *          is one process's: another gets EBUSY, the registering process
 *          gets the signal a child's send raises (SI_MESGQ, the value,
 *          the child's pid) or its SIGEV_THREAD thread, and one left by a
 *          process that ended is taken over; an unlinked name is gone at
 *          once while open descriptors keep the queue; a lock word left
 *          held by a process that ended does not stop the queue; Linux's
 *          limits; a mqd_t is a close-on-exec file descriptor, and a
 *          descriptor that is not a queue's is EBADF; a queue's
 *          descriptor may be past 63 (MQ_OPEN_MAX is the table's 1,024).
 *   a, b   two unrelated boot programs open the same names: each one's
 *          receive waits for the other's send.
 *   exec   (with itself as /bin/mqx on a disk) a child that registered
 *          SIGEV_THREAD then execs loses the registration (its
 *          descriptors close): the parent may register, and a send
 *          leaves the new image alone; an exec that fails keeps it.
 *   idle R W   (exec's new image) writes W, waits for R, exits 0.
 */
#define CHECK_NAME "mqx"
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#define WAIT_MS 10000            /* the longest an awaited event may take (guest time) */

static struct mq_attr small = { 0, 4, 32, 0, { 0 } };

static mqd_t fresh(const char *name, struct mq_attr *a)
{
	mq_unlink(name);
	return mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, a);
}

/* The child's exit status (-1 if it did not end normally). */
static int reap(pid_t pid)
{
	int st;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) == -1 && errno == EINTR)
		;       /* a notification's handler has no SA_RESTART (Linux's EINTR) */
	return r == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int got(mqd_t d, const char *want, unsigned wprio)
{
	char buf[64];
	unsigned prio = 99;
	ssize_t n = mq_receive(d, buf, sizeof buf, &prio);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n) && prio == wprio;
}

/* A forked child uses the descriptor it inherited; and its close leaves the parent's open. */
static void forked_descriptor(void)
{
	mqd_t d = fresh("/mqx_fork", &small);
	CHECK(d >= 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct mq_attr a;
		int ok = mq_getattr(d, &a) == 0 && a.mq_maxmsg == 4 && mq_send(d, "hello", 5, 3) == 0;
		_exit(ok && mq_close(d) == 0 ? 0 : 1);
	}
	CHECK(reap(pid) == 0);
	CHECK(got(d, "hello", 3));
	CHECK(mq_send(d, "again", 5, 1) == 0 && got(d, "again", 1));
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_fork") == 0);
}

/* A name made after the fork is the child's to open. */
static void name_after_fork(void)
{
	int p[2];
	char c;
	mq_unlink("/mqx_late");
	CHECK(pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(2);
		mqd_t d = mq_open("/mqx_late", O_WRONLY);
		_exit(d >= 0 && mq_send(d, "late", 4, 2) == 0 ? 0 : 1);
	}
	close(p[0]);
	mqd_t d = mq_open("/mqx_late", O_RDWR | O_CREAT | O_EXCL, 0600, &small);
	CHECK(d >= 0 && write(p[1], "g", 1) == 1);
	CHECK(reap(pid) == 0);
	CHECK(got(d, "late", 2));
	close(p[1]);
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_late") == 0);
}

/* A receive waiting in the child ends with the parent's send; a send
   waiting in the child for room ends with the parent's receive. */
static void waits_across(void)
{
	struct mq_attr two = { 0, 2, 32, 0, { 0 } };
	mqd_t d = fresh("/mqx_wait", &two), r = fresh("/mqx_room", &two);
	int p[2];
	char c;
	CHECK(d >= 0 && r >= 0 && pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		int ok = write(p[1], "w", 1) == 1 && got(d, "wake", 7);
		ok = ok && mq_send(r, "1", 1, 0) == 0 && mq_send(r, "2", 1, 0) == 0 && write(p[1], "f", 1) == 1;
		ok = ok && mq_send(r, "3", 1, 0) == 0;            /* waits for room */
		_exit(ok ? 0 : 1);
	}
	close(p[1]);
	CHECK(read(p[0], &c, 1) == 1);
	usleep(100000);                  /* (likely waiting by now; either way it must get it) */
	CHECK(mq_send(d, "wake", 4, 7) == 0);
	CHECK(read(p[0], &c, 1) == 1);
	usleep(100000);
	CHECK(got(r, "1", 0));
	CHECK(reap(pid) == 0);
	CHECK(got(r, "2", 0) && got(r, "3", 0));
	close(p[0]);
	CHECK(mq_close(d) == 0 && mq_close(r) == 0);
	mq_unlink("/mqx_wait");
	mq_unlink("/mqx_room");
}

static volatile int sig_n, sig_code, sig_val, sig_pid, thr_val;

static void on_note(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	sig_code = si->si_code;
	sig_val = si->si_value.sival_int;
	sig_pid = si->si_pid;
	sig_n++;
}

static void on_thread(union sigval v)
{
	thr_val = v.sival_int;
}

static int await(volatile int *v, int want)
{
	for (int i = 0; i < WAIT_MS && *v != want; i++)
		usleep(1000);
	return *v == want;
}

/* The child's send to an empty queue: a signal to the parent that registered. */
static void notify_signal(void)
{
	mqd_t d = fresh("/mqx_note", &small);
	struct sigaction sa = { .sa_flags = SA_SIGINFO };
	sa.sa_sigaction = on_note;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, 0);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
			       .sigev_value = { .sival_int = 41 } };
	CHECK(mq_notify(d, &ev) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		int busy = mq_notify(d, &ev) == -1 && errno == EBUSY;
		int noop = mq_notify(d, 0) == 0;          /* not its registration: nothing */
		_exit(busy && noop && mq_send(d, "n", 1, 0) == 0 ? 0 : 1);
	}
	CHECK(reap(pid) == 0);
	CHECK(await(&sig_n, 1));
	CHECK(sig_code == SI_MESGQ && sig_val == 41 && sig_pid == pid);
	CHECK(mq_notify(d, &ev) == 0);            /* it was used up: free again */
	CHECK(got(d, "n", 0));
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_note") == 0);
	signal(SIGUSR1, SIG_DFL);
}

/* ... or the parent's SIGEV_THREAD thread. */
static void notify_thread(void)
{
	mqd_t d = fresh("/mqx_thr", &small);
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_thread,
			       .sigev_value = { .sival_int = 42 } };
	CHECK(mq_notify(d, &ev) == 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(mq_send(d, "t", 1, 0) == 0 ? 0 : 1);
	CHECK(reap(pid) == 0);
	CHECK(await(&thr_val, 42));
	CHECK(got(d, "t", 0));
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_thr") == 0);
}

/* A registration whose process ended is taken over; signal 0 is
   allowed (Linux: registered, nothing sent). */
static void notify_left_behind(void)
{
	mqd_t d = fresh("/mqx_left", &small);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 0 };
	pid_t pid = fork();
	if (pid == 0)
		_exit(mq_notify(d, &ev) == 0 ? 0 : 1);
	CHECK(reap(pid) == 0);
	CHECK(mq_notify(d, &ev) == 0);
	CHECK(mq_send(d, "z", 1, 0) == 0 && got(d, "z", 0));
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_left") == 0);
}

/* Unlinked: the name is gone, a new queue may take it, the open
   descriptors (the child's too) keep the old one. */
static void unlink_while_open(void)
{
	mqd_t d = fresh("/mqx_gone", &small);
	int p[2];
	char c;
	CHECK(d >= 0 && pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 && mq_send(d, "kept", 4, 1) == 0 ? 0 : 1);
	}
	close(p[0]);
	CHECK(mq_unlink("/mqx_gone") == 0);
	CHECK(mq_open("/mqx_gone", O_RDWR) == -1 && errno == ENOENT);
	mqd_t n = mq_open("/mqx_gone", O_RDWR | O_CREAT | O_EXCL, 0600, &small);
	CHECK(n >= 0 && write(p[1], "g", 1) == 1);
	CHECK(reap(pid) == 0);
	CHECK(got(d, "kept", 1));
	struct mq_attr a;
	CHECK(mq_getattr(n, &a) == 0 && a.mq_curmsgs == 0);
	close(p[1]);
	CHECK(mq_close(d) == 0 && mq_close(n) == 0 && mq_unlink("/mqx_gone") == 0);
}

/* The queue's lock (its file's second word) left held by a process
   that ended: the next call takes it over. */
static void dead_holder(void)
{
	mqd_t d = fresh("/mqx_dead", &small);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(reap(pid) == 0);
	int fd = open("/dev/mqueue/mqx_dead", O_RDWR);
	unsigned v = (unsigned)pid;
	CHECK(fd >= 0 && pwrite(fd, &v, 4, 4) == 4);
	close(fd);
	CHECK(mq_send(d, "r", 1, 0) == 0 && got(d, "r", 0));
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_dead") == 0);
}

/* Linux's limits (a process here is privileged), and descriptors. */
static void limits(void)
{
	struct mq_attr a = { 0, 65537, 16, 0, { 0 } }, got_a;
	CHECK(fresh("/mqx_lim", &a) == -1 && errno == EINVAL);
	a = (struct mq_attr){ 0, 200, 8192, 0, { 0 } };   /* past RLIMIT_MSGQUEUE's 819200 bytes */
	CHECK(fresh("/mqx_lim", &a) == -1 && errno == EMFILE);
	mqd_t d = fresh("/mqx_lim", 0);
	CHECK(d >= 0 && mq_getattr(d, &got_a) == 0 && got_a.mq_maxmsg == 10 && got_a.mq_msgsize == 8192);
	CHECK(fcntl(d, F_GETFD) == FD_CLOEXEC);
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(mq_send(p[1], "x", 1, 0) == -1 && errno == EBADF);
	CHECK(mq_close(p[0]) == -1 && errno == EBADF);
	close(p[0]);
	close(p[1]);
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_lim") == 0);
}

/* A queue's descriptor past 63 (the whole table of 1,024 is a queue's
   to take: before, mq_open failed EMFILE once 64 were open). */
static void high_descriptor(void)
{
	int nul[100], n = 0;
	while (n < 100 && (nul[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	CHECK(n == 100 && sysconf(_SC_MQ_OPEN_MAX) == 1024);
	mqd_t d = fresh("/mqx_high", &small);
	char b[32];
	unsigned prio = 0;
	CHECK(d >= 100);
	CHECK(mq_send(d, "high", 4, 7) == 0 && mq_receive(d, b, sizeof b, &prio) == 4 && prio == 7);
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_high") == 0);
	while (n > 0)
		close(nul[--n]);
}

static void on_thread_none(union sigval v)
{
	(void)v;
}

/* exec closes the queue descriptors, and the registration goes with
   them: SIGEV_THREAD's (the new image has no service thread, and a
   send would raise the internal signal there) and SIGEV_SIGNAL's. */
static void exec_drops(void)
{
	mqd_t d = fresh("/mqx_exec", &small);
	int go[2], up[2];
	char c;
	CHECK(d >= 0 && pipe(go) == 0 && pipe(up) == 0);
	struct sigevent th = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_thread_none };
	struct sigevent sg = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 0 };
	pid_t pid = fork();
	if (pid == 0) {
		char r[12], w[12];
		snprintf(r, sizeof r, "%d", go[0]);
		snprintf(w, sizeof w, "%d", up[1]);
		if (mq_notify(d, &th) == 0)
			execl("/bin/mqx", "mqx", "pkg=fifo", "idle", r, w, (char *)0);
		_exit(1);
	}
	CHECK(read(up[0], &c, 1) == 1);  /* the new image runs */
	CHECK(mq_notify(d, &sg) == 0);    /* the child's registration went with its exec */
	CHECK(mq_notify(d, 0) == 0);
	CHECK(mq_send(d, "e", 1, 0) == 0 && got(d, "e", 0));   /* nothing for the new image */
	CHECK(write(go[1], "x", 1) == 1);
	CHECK(reap(pid) == 0);
	/* an exec that fails keeps the caller's registration */
	CHECK(mq_notify(d, &sg) == 0);
	CHECK(execl("/bin/mqx_none", "mqx_none", (char *)0) == -1);
	CHECK(mq_notify(d, &sg) == -1 && errno == EBUSY);
	CHECK(mq_notify(d, 0) == 0);
	close(go[0]), close(go[1]), close(up[0]), close(up[1]);
	CHECK(mq_close(d) == 0 && mq_unlink("/mqx_exec") == 0);
}

/* Two boot programs: a sends ping and waits for pong, b the other way. */
static void pair(int a)
{
	struct mq_attr at = small;
	mqd_t ping = mq_open("/mqx_ping", O_RDWR | O_CREAT, 0600, &at);
	mqd_t pong = mq_open("/mqx_pong", O_RDWR | O_CREAT, 0600, &at);
	CHECK(ping >= 0 && pong >= 0);
	for (int i = 0; i < 5; i++) {
		char m[8];
		snprintf(m, sizeof m, "%c%d", a ? 'p' : 'q', i);
		if (a) {
			CHECK(mq_send(ping, m, strlen(m), 1) == 0);
			m[0] = 'q';
			CHECK(got(pong, m, 2));
		} else {
			m[0] = 'p';
			CHECK(got(ping, m, 1));
			m[0] = 'q';
			CHECK(mq_send(pong, m, strlen(m), 2) == 0);
		}
	}
	CHECK(mq_close(ping) == 0 && mq_close(pong) == 0);
	if (a) {
		mq_unlink("/mqx_ping");
		mq_unlink("/mqx_pong");
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fork";
	if (!strcmp(mode, "idle") && argc > 3) {
		char c;
		int ok = write(atoi(argv[3]), "u", 1) == 1 && read(atoi(argv[2]), &c, 1) == 1;
		return ok ? 0 : 1;
	}
	if (!strcmp(mode, "exec"))
		exec_drops();
	else if (!strcmp(mode, "fork")) {
		forked_descriptor();
		name_after_fork();
		waits_across();
		notify_signal();
		notify_thread();
		notify_left_behind();
		unlink_while_open();
		dead_holder();
		limits();
		high_descriptor();
	} else
		pair(!strcmp(mode, "a"));
	struct result r;
	result_begin(&r, "mqx");
	result_str(&r, "mode", mode);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
