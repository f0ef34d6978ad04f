/*
 * flock: advisory file locks between processes (kernel/flock.c,
 * ulib/libc/flock.c; harness/tests/test_flock.py). Run in an audited
 * child (fork_audit: every lock record and wait comes back). Each part
 * works on its own file; a "probe" is a forked child's F_GETLK, which
 * sees the caller's locks as another process does.
 *   conflict  a child's F_SETLK on the parent's write lock is EAGAIN, its
 *             F_GETLK names the parent's pid and range, a read lock
 *             beside it is granted; a second thread of the owner is no
 *             other owner
 *   counter   two children add 1 to a number in a file N times each,
 *             under F_SETLKW: it ends at 2N
 *   blocks    a child's F_SETLKW waits until the parent lets go: it
 *             finds the byte the parent wrote just before
 *   split     a lock split by an unlock in its middle, merged back by a
 *             lock of its type over the hole and by an adjacent one
 *             (INFO_LOCKS counts the records; probes see the ranges);
 *             a negative l_len, SEEK_CUR and SEEK_END
 *   close     closing another descriptor of the file (a second open, a
 *             dup) drops the process's locks on it
 *   fork      a fork's child holds none of its parent's locks
 *   deadlock  two processes each holding a byte and waiting for the
 *             other's: exactly one gets EDEADLK, the other its lock
 *   eintr     a handler without SA_RESTART ends F_SETLKW with EINTR
 *   flock     flock is the open file's: a second open conflicts, a dup
 *             and a fork's child share it, it ignores fcntl's locks,
 *             LOCK_NB, a waiting flock, the last close lets go
 *   lockf     F_LOCK, F_TLOCK, F_TEST, F_ULOCK from the offset
 *   bound     MAXLOCK_SPACE records, then ENOLCK: by locking every
 *             other byte, and by splitting one lock with unlocks; all
 *             gone again after a close
 *   all       MAXLOCK_ALL in the kernel: this process and 31 children
 *             hold MAXLOCK_SPACE each, and a 32nd child's first lock is
 *             ENOLCK; once they end, locks are granted again
 *   bad       EINVAL, EBADF, EFAULT for bad requests
 *   exec      a child's locks outlive its exec (of /bin/flock held R W:
 *             the new image holds one record, a probe names the child's
 *             pid), except on a file the exec closed (FD_CLOEXEC); they
 *             go when the new image ends
 */
#define CHECK_NAME "flock"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <anima/flock.h>
#include <check.h>
#include <forkaudit.h>
#include <sigcatch.h>

#define N 200

static int open_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, "0123456789abcdef", 16) == 16);
	return fd;
}

static int lk(int fd, int cmd, int type, int whence, long start, long len)
{
	struct flock fl = { .l_type = (short)type, .l_whence = (short)whence, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, &fl);
}

static long records(void)
{
	return syscall2(SYS_getinfo, INFO_LOCKS, 0);
}

/* A child's F_GETLK of type over [start, start + len): what it found. */
static struct flock probe(int fd, int type, long start, long len)
{
	int p[2];
	struct flock fl = { .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	CHECK(pipe(p) == 0);
	pid_t c = fork();
	if (c == 0) {
		int r = fcntl(fd, F_GETLK, &fl);
		if (r < 0)
			fl.l_type = -1;
		_exit(write(p[1], &fl, sizeof fl) == sizeof fl ? 0 : 1);
	}
	CHECK(read(p[0], &fl, sizeof fl) == sizeof fl);
	CHECK(fork_status(c) == 0);
	close(p[0]);
	close(p[1]);
	return fl;
}

/* Is [start, start + len) locked with type by pid, as a probe sees it? */
static int held(int fd, int type, long start, long len, pid_t pid)
{
	struct flock fl = probe(fd, F_WRLCK, start, 1);
	return fl.l_type == type && fl.l_start == start && fl.l_len == len && fl.l_pid == pid;
}

static int is_free(int fd, long at)
{
	return probe(fd, F_WRLCK, at, 1).l_type == F_UNLCK;
}

static void *same_owner(void *arg)
{
	return (void *)(long)lk(*(int *)arg, F_SETLK, F_WRLCK, SEEK_SET, 0, 10);
}

static void conflict(void)
{
	int fd = open_file("/c");
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10) == 0);
	pid_t me = getpid(), c = fork();
	if (c == 0) {
		int ok = lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 5, 1) < 0 && errno == EAGAIN;
		ok &= lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 9, 1) < 0 && errno == EAGAIN;
		ok &= lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 10, 5) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(fork_status(c) == 0);
	CHECK(held(fd, F_WRLCK, 0, 10, me));
	pthread_t t;
	void *r;
	CHECK(pthread_create(&t, 0, same_owner, &fd) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == 0);
	CHECK(records() == 1);
	close(fd);
	CHECK(records() == 0);
}

/* N times: the number in fd's first 8 bytes, plus one, under the lock. */
static int add(int fd)
{
	for (int i = 0; i < N; i++) {
		long v;
		if (lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 0) < 0 || pread(fd, &v, 8, 0) != 8)
			return 1;
		usleep(100);             /* (a window for the other to step in, were it not locked out) */
		v++;
		if (pwrite(fd, &v, 8, 0) != 8 || lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0) < 0)
			return 1;
	}
	return 0;
}

static void counter(void)
{
	int fd = open_file("/n");
	long v = 0;
	CHECK(pwrite(fd, &v, 8, 0) == 8);
	pid_t c[2];
	for (int i = 0; i < 2; i++)
		if ((c[i] = fork()) == 0)
			_exit(add(fd));
	for (int i = 0; i < 2; i++)
		CHECK(fork_status(c[i]) == 0);
	CHECK(pread(fd, &v, 8, 0) == 8);
	CHECK(v == 2 * N);
	printf("flock: counter %ld of %d\n", v, 2 * N);
	close(fd);
}

/* A child waits (wait: F_SETLKW, or flock on its own open) for what the
   parent holds, then must find the byte the parent wrote before it let go. */
static void blocks(int use_flock)
{
	int fd = open_file("/b"), p[2];
	CHECK(pipe(p) == 0);
	CHECK(use_flock ? flock(fd, LOCK_EX) == 0 : lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);
	pid_t c = fork();
	if (c == 0) {
		int mine = use_flock ? open("/b", O_RDWR) : fd, ok = mine >= 0;
		ok &= use_flock ? flock(mine, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK
				: lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 3, 1) < 0 && errno == EAGAIN;
		ok &= write(p[1], "w", 1) == 1;
		ok &= use_flock ? flock(mine, LOCK_EX) == 0 : lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 3, 1) == 0;
		char b = 0;
		ok &= pread(fd, &b, 1, 3) == 1 && b == 'R';
		_exit(ok ? 0 : 1);
	}
	char w;
	CHECK(read(p[0], &w, 1) == 1);
	usleep(20000);                   /* (likely waiting by now; the check holds either way) */
	CHECK(pwrite(fd, "R", 1, 3) == 1);
	CHECK(use_flock ? flock(fd, LOCK_UN) == 0 : lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0) == 0);
	CHECK(fork_status(c) == 0);
	close(p[0]);
	close(p[1]);
	close(fd);
}

static void split(void)
{
	int fd = open_file("/s");
	pid_t me = getpid();
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 100) == 0);
	CHECK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 40, 20) == 0);
	CHECK(records() == 2);
	CHECK(held(fd, F_WRLCK, 0, 40, me));
	CHECK(is_free(fd, 45));
	CHECK(held(fd, F_WRLCK, 60, 40, me));
	CHECK(lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 40, 20) == 0);
	CHECK(records() == 3);
	CHECK(held(fd, F_RDLCK, 40, 20, me));
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 40, 20) == 0);    /* over the hole: one again */
	CHECK(records() == 1);
	CHECK(held(fd, F_WRLCK, 0, 100, me));
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 100, 10) == 0);   /* adjacent: merged */
	CHECK(records() == 1);
	CHECK(held(fd, F_WRLCK, 0, 110, me));
	CHECK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0) == 0);
	CHECK(records() == 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, -5) == 0);    /* [5, 10) */
	CHECK(held(fd, F_WRLCK, 5, 5, me));
	CHECK(lseek(fd, 20, SEEK_SET) == 20);
	CHECK(lk(fd, F_SETLK, F_RDLCK, SEEK_CUR, 2, 3) == 0);      /* [22, 25) */
	CHECK(held(fd, F_RDLCK, 22, 3, me));
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_END, -1, 0) == 0);     /* [15, EOF) */
	CHECK(held(fd, F_WRLCK, 15, 0, me));
	CHECK(records() == 2);           /* (the read lock inside it went) */
	close(fd);
	CHECK(records() == 0);
}

static void closing(void)
{
	int fd = open_file("/x"), two = open("/x", O_RDONLY);
	CHECK(two >= 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);
	CHECK(!is_free(fd, 0));
	CHECK(close(two) == 0);          /* another descriptor of the file: the lock goes */
	CHECK(records() == 0);
	CHECK(is_free(fd, 0));
	int d = dup(fd);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);
	CHECK(close(d) == 0);            /* a dup (one kernel descriptor with fd): the same */
	CHECK(records() == 0);
	CHECK(is_free(fd, 0));
	close(fd);
}

static void forked(void)
{
	int fd = open_file("/f");
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10) == 0);
	pid_t c = fork();
	if (c == 0)
		_exit(records() == 0 && lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10) < 0 && errno == EAGAIN ? 0 : 1);
	CHECK(fork_status(c) == 0);
	CHECK(records() == 1);
	close(fd);
}

static void deadlock(void)
{
	int fd = open_file("/d"), p[2];
	CHECK(pipe(p) == 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1) == 0);
	pid_t c = fork();
	if (c == 0) {
		char w = 'w';
		if (lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 1, 1) < 0 || write(p[1], &w, 1) != 1)
			_exit(1);
		if (lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 1) == 0)
			_exit(0);                /* the parent let go */
		int e = errno;
		lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 1, 1);
		_exit(e == EDEADLK ? 2 : 1);
	}
	char w;
	CHECK(read(p[0], &w, 1) == 1);
	int r = lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 1, 1), e = errno;
	if (r < 0 && e == EDEADLK)
		lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 1);
	int st = fork_status(c);
	CHECK((r == 0 && st == 2) || (r < 0 && e == EDEADLK && st == 0));
	printf("flock: deadlock found by the %s\n", r < 0 ? "parent" : "child");
	close(p[0]);
	close(p[1]);
	close(fd);
}

static volatile int rang;
static void ring(int sig)
{
	(void)sig;
	rang = 1;
}

static void eintr(void)
{
	int fd = open_file("/e");
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);
	pid_t c = fork();
	if (c == 0) {
		sig_catch(SIGALRM, ring, 0);   /* (no SA_RESTART) */
		/* every 50 ms: one that comes before the wait starts leaves the
		   next to end it (alarm(1) was 1 s of every boot's 2) */
		struct itimerval tick = { { 0, 50000 }, { 0, 50000 } };
		setitimer(ITIMER_REAL, &tick, 0);
		int r = lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 1);
		_exit(r < 0 && errno == EINTR && rang ? 0 : 1);
	}
	CHECK(fork_status(c) == 0);
	close(fd);
}

static void flocks(void)
{
	int fd = open_file("/l"), two = open("/l", O_RDWR);
	CHECK(flock(fd, LOCK_EX) == 0);
	CHECK(flock(two, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK);   /* another open file */
	CHECK(flock(two, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK);
	CHECK(lk(two, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);             /* fcntl's are apart */
	CHECK(lk(two, F_SETLK, F_UNLCK, SEEK_SET, 0, 0) == 0);
	int d = dup(fd);
	CHECK(flock(d, LOCK_UN) == 0);   /* the dup's is fd's */
	CHECK(flock(two, LOCK_SH | LOCK_NB) == 0);
	CHECK(flock(fd, LOCK_SH | LOCK_NB) == 0);                          /* shared by two */
	CHECK(flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK);
	pid_t c = fork();
	if (c == 0)                      /* the child's `two` is the parent's open file */
		_exit(flock(two, LOCK_UN) == 0 ? 0 : 1);
	CHECK(fork_status(c) == 0);
	CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0);
	CHECK(close(d) == 0 && close(fd) == 0);   /* the open file's last descriptor: it lets go */
	CHECK(flock(two, LOCK_EX | LOCK_NB) == 0);
	CHECK(flock(two, 0) < 0 && errno == EINVAL);
	close(two);
	blocks(1);
}

static void lockfs(void)
{
	int fd = open_file("/k");
	CHECK(lseek(fd, 4, SEEK_SET) == 4);
	CHECK(lockf(fd, F_LOCK, 4) == 0);         /* [4, 8) */
	CHECK(held(fd, F_WRLCK, 4, 4, getpid()));
	pid_t c = fork();
	if (c == 0) {
		int ok = lseek(fd, 6, SEEK_SET) == 6 && lockf(fd, F_TEST, 1) < 0 && errno == EACCES;
		ok &= lockf(fd, F_TLOCK, 1) < 0 && (errno == EAGAIN || errno == EACCES);
		ok &= lseek(fd, 8, SEEK_SET) == 8 && lockf(fd, F_TEST, 0) == 0 && lockf(fd, F_TLOCK, 2) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(fork_status(c) == 0);
	CHECK(lseek(fd, 4, SEEK_SET) == 4);
	CHECK(lockf(fd, F_ULOCK, 4) == 0);
	CHECK(records() == 0);
	CHECK(lockf(fd, 9, 1) < 0 && errno == EINVAL);
	close(fd);
}

static void bound(void)
{
	int fd = open_file("/m"), n = 0;
	while (lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 2 * n, 1) == 0)
		n++;
	CHECK(errno == ENOLCK);
	CHECK(n == MAXLOCK_SPACE);
	CHECK(records() == MAXLOCK_SPACE);
	CHECK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0) == 0);
	CHECK(records() == 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);    /* one lock, split by unlocks */
	for (n = 0; lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 2 * n + 1, 1) == 0;)
		n++;
	CHECK(errno == ENOLCK);
	CHECK(n == MAXLOCK_SPACE - 1);
	CHECK(records() == MAXLOCK_SPACE);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0);    /* merged into one again */
	CHECK(records() == 1);
	close(fd);
	CHECK(records() == 0);
	printf("flock: %d records, then ENOLCK\n", MAXLOCK_SPACE);
}

/* MAXLOCK_SPACE records from byte `at` on, every other byte: how many. */
static int fill(int fd, long at)
{
	int n = 0;
	while (n < MAXLOCK_SPACE && lk(fd, F_SETLK, F_WRLCK, SEEK_SET, at + 2 * n, 1) == 0)
		n++;
	return n;
}

/* fork, again while the table still holds children just reaped (they
   count against MAXCHILD until the last CPU lets go of them). */
static pid_t fork_kid(void)
{
	pid_t c;
	for (int i = 0; (c = fork()) < 0 && errno == EAGAIN && i < 2000; i++)
		usleep(1000);
	return c;
}

static void all(void)
{
	enum { KIDS = MAXLOCK_ALL / MAXLOCK_SPACE - 1 };
	int fd = open_file("/g"), ready[2], go[2];
	pid_t c[KIDS + 1];
	CHECK(pipe(ready) == 0 && pipe(go) == 0);
	CHECK(fill(fd, 0) == MAXLOCK_SPACE);
	for (int i = 0; i < KIDS; i++)
		if ((c[i] = fork_kid()) == 0) {
			char b = fill(fd, 1000L * (i + 1)) == MAXLOCK_SPACE ? 'k' : 'x';
			_exit(write(ready[1], &b, 1) == 1 && read(go[0], &b, 1) == 1 ? 0 : 1);
		}
	int ok = 0;
	for (int i = 0; i < KIDS; i++) {
		char b = 0;
		ok += read(ready[0], &b, 1) == 1 && b == 'k';
	}
	CHECK(ok == KIDS);
	CHECK(syscall2(SYS_getinfo, INFO_LOCKS, 1) == MAXLOCK_ALL);
	if ((c[KIDS] = fork_kid()) == 0)
		_exit(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 999999, 1) < 0 && errno == ENOLCK ? 0 : 1);
	for (int i = 0; i <= KIDS; i++)
		CHECK(c[i] > 0);
	CHECK(fork_status(c[KIDS]) == 0);
	for (int i = 0; i < KIDS; i++)
		CHECK(write(go[1], "g", 1) == 1);
	for (int i = 0; i < KIDS; i++)
		CHECK(fork_status(c[i]) == 0);
	CHECK(syscall2(SYS_getinfo, INFO_LOCKS, 1) == MAXLOCK_SPACE);
	CHECK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0) == 0);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 999999, 1) == 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	close(fd);
	CHECK(syscall2(SYS_getinfo, INFO_LOCKS, 1) == 0);
	printf("flock: %d locks in all, then ENOLCK\n", MAXLOCK_ALL);
}

static void bad(void)
{
	int fd = open_file("/z"), ro = open("/z", O_RDONLY), wo = open("/z", O_WRONLY), p[2];
	CHECK(lk(fd, F_SETLK, 7, SEEK_SET, 0, 1) < 0 && errno == EINVAL);
	CHECK(lk(fd, F_SETLK, F_WRLCK, 5, 0, 1) < 0 && errno == EINVAL);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, -5, 1) < 0 && errno == EINVAL);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 2, -5) < 0 && errno == EINVAL);
	CHECK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0x7fffffffffffffffL, 2) < 0 && errno == EOVERFLOW);
	CHECK(lk(fd, F_GETLK, F_UNLCK, SEEK_SET, 0, 1) < 0 && errno == EINVAL);
	CHECK(lk(ro, F_SETLK, F_WRLCK, SEEK_SET, 0, 1) < 0 && errno == EBADF);
	CHECK(lk(wo, F_SETLK, F_RDLCK, SEEK_SET, 0, 1) < 0 && errno == EBADF);
	CHECK(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 0, 1) == 0);
	CHECK(lk(wo, F_SETLK, F_WRLCK, SEEK_SET, 1, 1) == 0);
	CHECK(lk(60, F_SETLK, F_WRLCK, SEEK_SET, 0, 1) < 0 && errno == EBADF);
	CHECK(fcntl(fd, F_SETLK, (struct flock *)8) < 0 && errno == EFAULT);
	CHECK(pipe(p) == 0);
	CHECK(lk(p[0], F_SETLK, F_RDLCK, SEEK_SET, 0, 1) < 0 && errno == EINVAL);
	CHECK(flock(60, LOCK_EX) < 0 && errno == EBADF);
	close(p[0]);
	close(p[1]);
	close(ro);
	close(wo);
	close(fd);
	CHECK(records() == 0);
}

/* /bin/flock held R W, the image a child's exec made: it reports its
   records on W and ends when R says so. */
static int held_image(int r, int w)
{
	char c = records() == 1 ? 'k' : 'x';
	return write(w, &c, 1) == 1 && read(r, &c, 1) == 1 && c == 'k' ? 0 : 1;
}

static void execd(void)
{
	int fd = open_file("/q"), gone = open_file("/q2"), to[2], from[2];
	CHECK(fcntl(gone, F_SETFD, FD_CLOEXEC) == 0);
	CHECK(pipe(to) == 0 && pipe(from) == 0);
	pid_t c = fork();
	if (c == 0) {
		char r[8], w[8];
		snprintf(r, sizeof r, "%d", to[0]);
		snprintf(w, sizeof w, "%d", from[1]);
		if (lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10) == 0 && lk(gone, F_SETLK, F_WRLCK, SEEK_SET, 0, 0) == 0)
			execl("/bin/flock", "flock", "pkg=fifo", "held", r, w, (char *)0);
		_exit(9);
	}
	char k = 0;
	CHECK(read(from[0], &k, 1) == 1 && k == 'k');
	CHECK(held(fd, F_WRLCK, 0, 10, c));
	CHECK(is_free(gone, 0));
	CHECK(write(to[1], "k", 1) == 1);
	CHECK(fork_status(c) == 0);
	CHECK(is_free(fd, 0));
	close(to[0]);
	close(to[1]);
	close(from[0]);
	close(from[1]);
	close(fd);
	close(gone);
}

static int body(void)
{
	conflict();
	counter();
	blocks(0);
	split();
	closing();
	forked();
	deadlock();
	eintr();
	flocks();
	lockfs();
	bound();
	all();
	bad();
	execd();
	CHECK(syscall2(SYS_getinfo, INFO_LOCKS, 1) == 0);
	return failures;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "held"))
		return held_image(atoi(argv[2]), atoi(argv[3]));
	int f = fork_audit_report(body);
	CHECK(syscall2(SYS_getinfo, INFO_LOCKS, 1) == 0);   /* every lock of every process gone */
	return f || failures;
}
