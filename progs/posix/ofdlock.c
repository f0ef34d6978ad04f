/*
 * ofdlock: open-file-description locks (F_OFD_SETLK, F_OFD_SETLKW,
 * F_OFD_GETLK) and deadlock cycles of more than two processes
 * (kernel/flock.c, ulib/libc/flock.c; harness/tests/test_ofdlock.py).
 * Run in an audited child (fork_audit: every record and wait comes
 * back). Each part works on its own file.
 *   mixed    OFD and POSIX locks conflict both ways in one process; GETLK
 *            names an OFD owner as pid -1 and a POSIX one by its pid; a
 *            dup shares the OFD owner; l_pid != 0 is EINVAL; closing
 *            another descriptor drops the POSIX locks, not the OFD ones
 *   threads  two threads of one process, each with its own open: their
 *            OFD locks conflict, their POSIX locks do not; a thread's
 *            F_OFD_SETLKW waits until the other lets go
 *   fork     a fork's child shares the parent's OFD locks (its unlock is
 *            the parent's); its own open conflicts with them
 *   close    an OFD lock outlives a close while another descriptor (a
 *            child's) names the open file, and goes at its last close;
 *            one a child set outlives the child (uncharged, INFO_LOCKS 2)
 *   cycle    3 and 4 processes each holding a byte and waiting on the
 *            next's: the one whose wait closes the cycle gets EDEADLK,
 *            the others their locks once it lets go
 */
#define CHECK_NAME "ofdlock"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <anima/flock.h>
#include <check.h>
#include <forkaudit.h>

static int open_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, "0123456789abcdef", 16) == 16);
	return fd;
}

static int lk(int fd, int cmd, int type, long start, long len)
{
	struct flock fl = { .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, &fl);
}

/* fd's GETLK (cmd) of a write lock over [start, start + len). */
static struct flock getlk(int fd, int cmd, long start, long len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	if (fcntl(fd, cmd, &fl) < 0)
		fl.l_type = -1;
	return fl;
}

static long info(int what)
{
	return syscall2(SYS_getinfo, INFO_LOCKS, what);
}

/* Wait (counting, not timing) until the kernel has n lock waits queued:
   1 if it came to that. */
static int queued(long n)
{
	for (int i = 0; i < 20000; i++) {
		if (info(3) >= n)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void mixed(void)
{
	int fd = open_file("/m"), two = open("/m", O_RDWR);
	CHECK(two >= 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, 0, 10) == 0);                  /* the process's */
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 5, 1) < 0 && errno == EAGAIN);
	CHECK(lk(two, F_OFD_SETLK, F_RDLCK, 9, 2) < 0 && errno == EAGAIN);
	struct flock g = getlk(two, F_OFD_GETLK, 0, 1);
	CHECK(g.l_type == F_WRLCK && g.l_start == 0 && g.l_len == 10 && g.l_pid == getpid());
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 20, 10) == 0);            /* two's open file's */
	CHECK(lk(fd, F_SETLK, F_WRLCK, 25, 1) < 0 && errno == EAGAIN);
	g = getlk(fd, F_GETLK, 0, 0);
	CHECK(g.l_type == F_WRLCK && g.l_start == 20 && g.l_len == 10 && g.l_pid == -1);
	g = getlk(fd, F_OFD_GETLK, 20, 1);                           /* fd's open file: another owner */
	CHECK(g.l_type == F_WRLCK && g.l_pid == -1);
	g = getlk(two, F_OFD_GETLK, 20, 1);                          /* its own: nothing in the way */
	CHECK(g.l_type == F_UNLCK && g.l_start == 20 && g.l_len == 1);
	int d = dup(two);
	CHECK(lk(d, F_OFD_SETLK, F_WRLCK, 30, 5) == 0);               /* the dup is the same owner */
	CHECK(info(0) == 2);             /* (merged: [20, 35) and the POSIX [0, 10)) */
	struct flock bad = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 40, .l_len = 1, .l_pid = 1 };
	CHECK(fcntl(two, F_OFD_SETLK, &bad) < 0 && errno == EINVAL);
	CHECK(fcntl(two, F_OFD_SETLKW, &bad) < 0 && errno == EINVAL);
	CHECK(fcntl(two, F_OFD_GETLK, &bad) < 0 && errno == EINVAL);
	int ro = open("/m", O_RDONLY);
	CHECK(lk(ro, F_OFD_SETLK, F_WRLCK, 50, 1) < 0 && errno == EBADF);
	CHECK(close(ro) == 0);           /* another descriptor of the file: the POSIX lock goes */
	CHECK(getlk(two, F_OFD_GETLK, 0, 1).l_type == F_UNLCK);
	CHECK(close(d) == 0);            /* the OFD lock stays: two still names its open file */
	g = getlk(fd, F_GETLK, 0, 0);
	CHECK(g.l_type == F_WRLCK && g.l_start == 20 && g.l_len == 15 && g.l_pid == -1);
	CHECK(lk(two, F_OFD_SETLK, F_UNLCK, 0, 0) == 0);
	CHECK(getlk(fd, F_GETLK, 0, 0).l_type == F_UNLCK);
	CHECK(info(0) == 0);
	close(two);
	close(fd);
}

struct pair {
	int fd;                          /* the second thread's own open */
	int ofd_busy, posix_ok, waited;
	volatile int go;
};

/* det runs one thread at a time, and a call that blocks in the kernel
   keeps the turn (threadpkgs/det/det.c): a thread waiting there on
   another thread of its own process waits for good, as for a pipe. */
static int on_det;

static void *second(void *arg)
{
	struct pair *p = arg;
	p->fd = open("/t", O_RDWR);
	p->ofd_busy = lk(p->fd, F_OFD_SETLK, F_WRLCK, 0, 1) < 0 && errno == EAGAIN;
	p->posix_ok = lk(p->fd, F_SETLK, F_WRLCK, 5, 1) == 0;   /* (the main thread's byte 5: one owner) */
	__atomic_store_n(&p->go, 1, __ATOMIC_RELEASE);
	char b = 0;
	if (on_det) {
		p->waited = 1;
		return 0;
	}
	p->waited = lk(p->fd, F_OFD_SETLKW, F_WRLCK, 0, 1) == 0 && pread(p->fd, &b, 1, 0) == 1 && b == 'W';
	lk(p->fd, F_OFD_SETLK, F_UNLCK, 0, 0);
	return 0;
}

static void threads(void)
{
	int fd = open_file("/t");
	struct pair p = { 0 };
	CHECK(lk(fd, F_OFD_SETLK, F_WRLCK, 0, 1) == 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, 5, 1) == 0);
	long base = info(3);
	pthread_t t;
	CHECK(pthread_create(&t, 0, second, &p) == 0);
	while (!__atomic_load_n(&p.go, __ATOMIC_ACQUIRE))
		usleep(1000);
	int seen = !on_det && queued(base + 1);   /* (it waits in the kernel by now, on most packages) */
	CHECK(pwrite(fd, "W", 1, 0) == 1);
	CHECK(lk(fd, F_OFD_SETLK, F_UNLCK, 0, 1) == 0);
	CHECK(pthread_join(t, 0) == 0);
	CHECK(p.ofd_busy && p.posix_ok && p.waited);
	printf("ofdlock: a thread's F_OFD_SETLKW %s\n", on_det ? "not tried (det)" : seen ? "waited in the kernel"
											       : "waited in the runtime");
	close(p.fd);                     /* (drops the process's POSIX lock too) */
	close(fd);
	CHECK(info(1) == 0);
}

static void forked(void)
{
	int fd = open_file("/f");
	CHECK(lk(fd, F_OFD_SETLK, F_WRLCK, 0, 10) == 0);
	pid_t c = fork();
	if (c == 0) {
		int own = open("/f", O_RDWR), ok = own >= 0;
		ok &= lk(fd, F_OFD_SETLK, F_WRLCK, 0, 10) == 0;          /* the same owner */
		ok &= lk(own, F_OFD_SETLK, F_WRLCK, 3, 1) < 0 && errno == EAGAIN;
		ok &= lk(own, F_SETLK, F_RDLCK, 3, 1) < 0 && errno == EAGAIN;
		struct flock g = getlk(own, F_GETLK, 3, 1);
		ok &= g.l_type == F_WRLCK && g.l_pid == -1;
		ok &= lk(fd, F_OFD_SETLK, F_UNLCK, 5, 5) == 0;           /* the parent's lock shrinks */
		_exit(ok ? 0 : 1);
	}
	CHECK(fork_status(c) == 0);
	int two = open("/f", O_RDWR);
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 5, 5) == 0);
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 4, 1) < 0 && errno == EAGAIN);
	close(two);
	close(fd);
	CHECK(info(1) == 0);
}

static void closing(void)
{
	int fd = open_file("/c"), p[2];
	CHECK(pipe(p) == 0);
	CHECK(lk(fd, F_OFD_SETLK, F_WRLCK, 0, 4) == 0);
	pid_t c = fork();
	if (c == 0) {                    /* holds fd until the parent says */
		char b;
		_exit(read(p[0], &b, 1) == 1 ? 0 : 1);
	}
	CHECK(close(fd) == 0);           /* the child's descriptor names the open file still */
	int two = open("/c", O_RDWR);
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 2, 1) < 0 && errno == EAGAIN);
	CHECK(write(p[1], "g", 1) == 1);
	CHECK(fork_status(c) == 0);      /* its last close: the lock goes */
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 2, 1) == 0);
	CHECK(lk(two, F_OFD_SETLK, F_UNLCK, 0, 0) == 0);
	c = fork();                      /* a child's lock on the parent's open file outlives it */
	if (c == 0)
		_exit(lk(two, F_OFD_SETLK, F_RDLCK, 0, 8) == 0 && info(0) == 1 ? 0 : 1);
	CHECK(fork_status(c) == 0);
	CHECK(info(2) == 1 && info(0) == 0);   /* (no one pays for it now) */
	int three = open("/c", O_RDWR);
	CHECK(lk(three, F_OFD_SETLK, F_WRLCK, 7, 1) < 0 && errno == EAGAIN);
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 0, 4) == 0);              /* ours: a split, paid by us */
	CHECK(info(0) == 1 && info(2) == 1);
	CHECK(close(two) == 0);          /* the last close of the open file */
	CHECK(info(1) == 0 && info(2) == 0);
	CHECK(lk(three, F_OFD_SETLK, F_WRLCK, 0, 0) == 0);
	close(three);
	close(p[0]);
	close(p[1]);
}

/* n processes: this one holds byte 0, child i byte i; child i waits for
   byte i + 1 (the last for byte 0) in turn, each queued before the next
   starts; then this one asks for byte 1 and closes the cycle. */
static void cycle(int n)
{
	char path[8];
	snprintf(path, sizeof path, "/y%d", n);
	int fd = open_file(path), ready[2], go[4][2];
	pid_t c[4];
	CHECK(pipe(ready) == 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, 0, 1) == 0);
	for (int i = 1; i < n; i++) {
		CHECK(pipe(go[i]) == 0);
		if ((c[i] = fork()) == 0) {
			char b = 'r';
			if (lk(fd, F_SETLK, F_WRLCK, i, 1) < 0 || write(ready[1], &b, 1) != 1 ||
			    read(go[i][0], &b, 1) != 1)
				_exit(1);
			if (lk(fd, F_SETLKW, F_WRLCK, (i + 1) % n, 1) == 0)
				_exit(0);
			_exit(errno == EDEADLK ? 2 : 1);
		}
	}
	for (int i = 1; i < n; i++) {
		char b;
		CHECK(read(ready[0], &b, 1) == 1);
	}
	long base = info(3);
	int inline_q = 1;
	for (int i = 1; i < n; i++) {
		CHECK(write(go[i][1], "g", 1) == 1);
		inline_q &= queued(base + i);
	}
	CHECK(inline_q);
	int r = lk(fd, F_SETLKW, F_WRLCK, 1, 1), e = errno;
	CHECK(r < 0 && e == EDEADLK);
	CHECK(lk(fd, F_SETLK, F_UNLCK, 0, 1) == 0);   /* the chain unwinds */
	int ok = 0;
	for (int i = 1; i < n; i++)
		ok += fork_status(c[i]) == 0;
	CHECK(ok == n - 1);
	printf("ofdlock: a cycle of %d processes: EDEADLK for the closer, %d others got their locks\n", n, ok);
	for (int i = 1; i < n; i++) {
		close(go[i][0]);
		close(go[i][1]);
	}
	close(ready[0]);
	close(ready[1]);
	close(fd);
}

static int body(void)
{
	mixed();
	threads();
	forked();
	closing();
	cycle(3);
	cycle(4);
	CHECK(info(1) == 0);
	return failures;
}

/* argv: "det" on det (the threads' kernel wait left out) */
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		on_det |= !strcmp(argv[i], "det");   /* (the test says so: pkg= is the runtime's) */
	int f = fork_audit_report(body);
	CHECK(info(1) == 0);
	return f || failures;
}
