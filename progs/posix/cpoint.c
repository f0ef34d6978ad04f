/*
 * cpoint: POSIX's cancellation points (XSH 2.9.5.2), each checked two
 * ways (harness/tests/test_cpoint.py):
 *   at entry  a thread cancels itself (deferred: the cancel waits) and
 *             calls one that would not block: the cancel acts there,
 *             its cleanup handler runs, the call never returns
 *   blocked   a thread blocked in one (an empty pipe's read, ours or
 *             one another process holds, or poll on it; a full
 *             one's write, F_SETLKW and lockf's F_LOCK against a lock
 *             another process holds, an empty queue's receive, a full
 *             one's send, select, poll, system's wait) is cancelled:
 *             its handler runs and it ends PTHREAD_CANCELED
 * and the other way round: calls that only may be cancellation points
 * (stdio, opendir, mq_open, sync, truncate, pclose...) do not act on a
 * cancel pending. system's cancel kills and reaps its child and puts
 * SIGINT, SIGQUIT and the mask back, also when the cancel meets its
 * child's fork or exec (system_rounds).
 */
#define CHECK_NAME "cpoint"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <mqueue.h>
#include <sys/msg.h>
#include <dirent.h>
#include <time.h>
#include <termios.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <sys/uio.h>
#include <animalib/result.h>
#include <check.h>

#define FILE_ "/tmp/cpoint.file"

static int ffd, cfd;             /* a file with bytes in it; a copy to close */
static int pe[2], pf[2];         /* an empty pipe; a full one */
static int ps[2];                /* an empty pipe the locker child holds too */
static mqd_t qe, qf, qr;         /* an empty queue; a full one; one with room and a message */
static int se, sf, sr;           /* the same as System V message queues (<sys/msg.h>) */
static struct { long type; char text[8192]; } sm = { 1, "m" };
static void *map;
static volatile int cleaned, reached, started;
static char buf[64];

static void cleanup(void *arg)
{
	(void)arg;
	cleaned++;
}

/* ---- calls that would not block ---- */
static void c_read(void) { read(ffd, buf, 1); }
static void c_write(void) { write(ffd, "x", 1); }
static void c_pread(void) { pread(ffd, buf, 1, 0); }
static void c_pwrite(void) { pwrite(ffd, "x", 1, 0); }
static void c_readv(void) { struct iovec v = { buf, 1 }; readv(ffd, &v, 1); }
static void c_writev(void) { struct iovec v = { "x", 1 }; writev(ffd, &v, 1); }
static void c_open(void) { open(FILE_, O_RDONLY); }
static void c_openat(void) { openat(AT_FDCWD, FILE_, O_RDONLY); }
static void c_creat(void) { creat("/tmp/cpoint.creat", 0600); }
static void c_close(void) { close(cfd); }
static void c_fsync(void) { fsync(ffd); }
static void c_fdatasync(void) { fdatasync(ffd); }
static void c_msync(void) { msync(map, 4096, MS_SYNC); }
static void c_tcdrain(void) { tcdrain(1); }
static struct flock lk_ = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 100, .l_len = 1 };
static void c_setlkw(void) { struct flock l = lk_; fcntl(ffd, F_SETLKW, &l); }
static void c_lockf(void) { lseek(ffd, 200, SEEK_SET); lockf(ffd, F_LOCK, 1); }
static void c_mqsend(void) { mq_send(qr, "m", 1, 0); }
static void c_mqrecv(void) { char m[64]; mq_receive(qr, m, sizeof m, 0); }
static void c_msgsnd(void) { msgsnd(sr, &sm, 1, 0); }
static void c_msgrcv(void) { msgrcv(sr, &sm, 1, 0, 0); }
static struct timespec later(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 100;
	return t;
}
static void c_mqtsend(void) { struct timespec t = later(); mq_timedsend(qr, "m", 1, 0, &t); }
static void c_mqtrecv(void) { char m[64]; struct timespec t = later(); mq_timedreceive(qr, m, sizeof m, 0, &t); }
static void c_select(void)
{
	fd_set r;
	FD_ZERO(&r);
	FD_SET(ffd, &r);             /* (a file is always ready) */
	struct timeval tv = { 0, 0 };
	select(ffd + 1, &r, 0, 0, &tv);
}
static void c_poll(void) { struct pollfd p = { ffd, POLLIN, 0 }; poll(&p, 1, 0); }
static void c_waitpid(void) { waitpid(-1, 0, WNOHANG); }
static void c_wait(void) { wait(0); }          /* (no child: ECHILD at once) */
static void c_waitid(void) { siginfo_t si; waitid(P_ALL, 0, &si, WEXITED | WNOHANG); }
static void c_system(void) { system("exit 3"); }
static void c_nanosleep(void) { struct timespec t = { 0, 0 }; nanosleep(&t, 0); }
static void c_sleep(void) { sleep(0); }

/* ---- calls that block ---- */
static void b_read(void) { read(pe[0], buf, 1); }
static void b_readv(void) { struct iovec v = { buf, 1 }; readv(pe[0], &v, 1); }
static void b_write(void) { write(pf[1], "x", 1); }
static void b_writev(void) { struct iovec v = { "x", 1 }; writev(pf[1], &v, 1); }
static void b_setlkw(void) { struct flock l = lk_; l.l_start = 0; fcntl(ffd, F_SETLKW, &l); }
static void b_lockf(void) { lseek(ffd, 0, SEEK_SET); lockf(ffd, F_LOCK, 1); }
static void b_mqrecv(void) { char m[64]; mq_receive(qe, m, sizeof m, 0); }
static void b_mqtrecv(void) { char m[64]; struct timespec t = later(); mq_timedreceive(qe, m, sizeof m, 0, &t); }
static void b_mqsend(void) { mq_send(qf, "m", 1, 0); }
static void b_mqtsend(void) { struct timespec t = later(); mq_timedsend(qf, "m", 1, 0, &t); }
static void b_msgrcv(void) { msgrcv(se, &sm, 1, 0, 0); }
static void b_msgsnd(void) { msgsnd(sf, &sm, 1, 0); }
static void b_select(void)
{
	fd_set r;
	FD_ZERO(&r);
	FD_SET(pe[0], &r);
	select(pe[0] + 1, &r, 0, 0, 0);
}
static void b_poll(void) { struct pollfd p = { pe[0], POLLIN, 0 }; poll(&p, 1, -1); }
static void b_system(void) { system("while :; do :; done"); }
/* a pipe another process holds: on det with other threads the wait
   polls (pipe.c's vpwait), so the canceller runs (before: the reader
   held det's token in the kernel and nobody else ran) */
static void b_sread(void) { read(ps[0], buf, 1); }
static void b_spoll(void) { struct pollfd p = { ps[0], POLLIN, 0 }; poll(&p, 1, -1); }

typedef void (*callf)(void);
struct call { const char *name; callf f; };

static void *entry_thread(void *arg)
{
	callf f = (callf)arg;
	pthread_cleanup_push(cleanup, 0);
	pthread_cancel(pthread_self());   /* deferred: pending until a point */
	f();
	reached = 1;
	pthread_cleanup_pop(0);
	return 0;
}

static void *block_thread(void *arg)
{
	callf f = (callf)arg;
	pthread_cleanup_push(cleanup, 0);
	started = 1;
	f();
	reached = 1;
	pthread_cleanup_pop(0);
	return 0;
}

/* Run f in a thread as at entry (blocked 0) or blocked, cancelled `us`
   microseconds after it started; 1 if the cancel acted in it. */
static int cancelled_after(callf f, int blocked, int us)
{
	cleaned = reached = started = 0;
	pthread_t t;
	void *rv = 0;
	if (pthread_create(&t, 0, blocked ? block_thread : entry_thread, (void *)f))
		return 0;
	if (blocked) {
		while (!started)
			usleep(1000);
		if (us)
			usleep(us);
		pthread_cancel(t);
	}
	pthread_join(t, &rv);
	return rv == PTHREAD_CANCELED && cleaned == 1 && !reached;
}

/* (in the wait by now, or at its entry: either way) */
static int cancelled_in(callf f, int blocked)
{
	return cancelled_after(f, blocked, 20000);
}

/* system cancelled at every moment of its child's start, SYS_ROUNDS
   times, 0 to 4 ms after it began: the cancel meets the fork, the exec
   and the spinning shell, and its kill ends the child wherever it is
   (a kill that met the exec was lost, the cancel's wait for the child
   hung: test_execkill.py); each round cancelled, no child left. */
#define SYS_ROUNDS 40
static void system_rounds(void)
{
	int bad = 0;
	for (int i = 0; i < SYS_ROUNDS; i++)
		bad += !cancelled_after(b_system, 1, (i % 20) * 200);
	CHECK(bad == 0);
	CHECK(waitpid(-1, 0, WNOHANG) < 0 && errno == ECHILD);
	if (bad)
		printf("cpoint: system: %d of %d rounds not cancelled\n", bad, SYS_ROUNDS);
}

static void run(const struct call *c, int n, int blocked)
{
	for (int i = 0; i < n; i++) {
		int ok = cancelled_in(c[i].f, blocked);
		CHECK(ok);
		if (!ok)
			printf("cpoint: %s %s: not cancelled\n", c[i].name, blocked ? "blocked" : "at entry");
	}
}

/* A child holding a write lock on byte 0 of the file until the parent
   closes *hold's write end. */
static pid_t locker(int hold[2])
{
	int ready[2];
	if (pipe(ready) || pipe(hold) || pipe(ps))
		return -1;
	pid_t p = fork();
	if (p == 0) {
		char c;
		int fd = open(FILE_, O_RDWR);
		struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
		close(hold[1]);
		/* the test's pipes stay the parent's alone (private: on det
		   a wait for one is det's, and another thread runs) */
		close(pe[0]), close(pe[1]), close(pf[0]), close(pf[1]);
		fcntl(fd, F_SETLK, &l);
		write(ready[1], "r", 1);
		while (read(hold[0], &c, 1) < 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	read(ready[0], buf, 1);
	close(ready[0]);
	return p;
}

static mqd_t queue(const char *name, long max)
{
	struct mq_attr a = { 0, max, 16, 0, { 0 } };
	mq_unlink(name);
	return mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &a);
}

/* The calls that only may be points: with a cancel pending, none acts;
   pthread_testcancel then does. */
static void *may_thread(void *arg)
{
	(void)arg;
	pthread_cleanup_push(cleanup, 0);
	pthread_cancel(pthread_self());
	FILE *f = fopen(FILE_, "r+");
	if (f) {
		fgets(buf, sizeof buf, f);
		fprintf(f, "y");
		fflush(f);
		fclose(f);
	}
	DIR *d = opendir("/tmp");
	if (d)
		closedir(d);
	printf("cpoint: may-points pass by\n");
	mqd_t q = mq_open("/cpoint_r", O_RDWR);
	mq_close(q);
	truncate(FILE_, 4096);
	sync();
	FILE *p = popen("exit 0", "r");
	if (p)
		pclose(p);
	reached = 1;
	pthread_testcancel();
	reached = 2;
	pthread_cleanup_pop(0);
	return 0;
}

int main(void)
{
	const struct call entry[] = {
		{ "read", c_read }, { "write", c_write }, { "pread", c_pread },
		{ "pwrite", c_pwrite }, { "readv", c_readv }, { "writev", c_writev },
		{ "open", c_open }, { "openat", c_openat }, { "creat", c_creat },
		{ "close", c_close }, { "fsync", c_fsync }, { "fdatasync", c_fdatasync },
		{ "msync", c_msync }, { "tcdrain", c_tcdrain }, { "fcntl F_SETLKW", c_setlkw },
		{ "lockf F_LOCK", c_lockf }, { "mq_send", c_mqsend }, { "mq_receive", c_mqrecv },
		{ "mq_timedsend", c_mqtsend }, { "mq_timedreceive", c_mqtrecv },
		{ "msgsnd", c_msgsnd }, { "msgrcv", c_msgrcv },
		{ "select", c_select }, { "poll", c_poll }, { "waitpid WNOHANG", c_waitpid },
		{ "wait", c_wait }, { "waitid WNOHANG", c_waitid }, { "system", c_system },
		{ "nanosleep", c_nanosleep }, { "sleep", c_sleep },
	};
	const struct call block[] = {
		{ "read", b_read }, { "readv", b_readv }, { "write", b_write },
		{ "writev", b_writev }, { "fcntl F_SETLKW", b_setlkw }, { "lockf F_LOCK", b_lockf },
		{ "mq_receive", b_mqrecv }, { "mq_timedreceive", b_mqtrecv },
		{ "mq_send", b_mqsend }, { "mq_timedsend", b_mqtsend },
		{ "msgrcv", b_msgrcv }, { "msgsnd", b_msgsnd },
		{ "select", b_select }, { "poll", b_poll }, { "system", b_system },
		{ "read (shared pipe)", b_sread }, { "poll (shared pipe)", b_spoll },
	};
	ffd = open(FILE_, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(ffd >= 0 && write(ffd, "abcdefgh", 8) == 8 && lseek(ffd, 0, SEEK_SET) == 0);
	cfd = dup(ffd);
	map = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	CHECK(pipe2(pe, O_CLOEXEC) == 0 && pipe2(pf, O_CLOEXEC) == 0);   /* (system's child has none) */
	fcntl(pf[1], F_SETFL, O_NONBLOCK);
	while (write(pf[1], buf, sizeof buf) > 0)
		;
	fcntl(pf[1], F_SETFL, 0);
	qe = queue("/cpoint_e", 4);
	qf = queue("/cpoint_f", 1);
	qr = queue("/cpoint_r", 8);
	CHECK(qe >= 0 && qf >= 0 && qr >= 0);
	CHECK(mq_send(qf, "m", 1, 0) == 0 && mq_send(qr, "m", 1, 0) == 0);
	se = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	sf = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	sr = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	CHECK(se >= 0 && sf >= 0 && sr >= 0 && msgsnd(sr, &sm, 1, 0) == 0);
	CHECK(msgsnd(sf, &sm, 8192, 0) == 0 && msgsnd(sf, &sm, 8192, 0) == 0);   /* MSGMNB: full */

	run(entry, (int)(sizeof entry / sizeof entry[0]), 0);
	/* what the entry calls left: nothing closed, created or sent */
	CHECK(fcntl(cfd, F_GETFD) >= 0);
	struct mq_attr a;
	CHECK(mq_getattr(qr, &a) == 0 && a.mq_curmsgs == 1);
	struct msqid_ds ds;
	CHECK(msgctl(sr, IPC_STAT, &ds) == 0 && ds.msg_qnum == 1);
	CHECK(access("/tmp/cpoint.creat", F_OK) < 0);

	int hold[2];
	pid_t lp = locker(hold);
	CHECK(lp > 0);
	run(block, (int)(sizeof block / sizeof block[0]), 1);
	close(hold[1]);
	int st;
	CHECK(waitpid(lp, &st, 0) == lp);
	system_rounds();
	/* system's cancel: its child gone (no child left), the signals back */
	CHECK(waitpid(-1, 0, WNOHANG) < 0 && errno == ECHILD);
	struct sigaction sa;
	sigset_t m;
	CHECK(sigaction(SIGINT, 0, &sa) == 0 && sa.sa_handler == SIG_DFL);
	CHECK(sigaction(SIGQUIT, 0, &sa) == 0 && sa.sa_handler == SIG_DFL);
	CHECK(sigprocmask(SIG_BLOCK, 0, &m) == 0 && !sigismember(&m, SIGCHLD));

	cleaned = reached = 0;
	pthread_t t;
	void *rv = 0;
	CHECK(pthread_create(&t, 0, may_thread, 0) == 0 && pthread_join(t, &rv) == 0);
	CHECK(rv == PTHREAD_CANCELED && reached == 1 && cleaned == 1);
	if (reached != 1)
		printf("cpoint: a may-point acted (reached %d)\n", reached);

	mq_unlink("/cpoint_e");
	mq_unlink("/cpoint_f");
	mq_unlink("/cpoint_r");
	msgctl(se, IPC_RMID, 0);
	msgctl(sf, IPC_RMID, 0);
	msgctl(sr, IPC_RMID, 0);
	struct result r;
	result_begin(&r, "cpoint");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
