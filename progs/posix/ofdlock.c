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
 *            one a child set outlives the child, its charge moved to
 *            the parent, which holds the open file (INFO_LOCKS 2 stays 0)
 *   moved    a process sets OFD locks, forks a child holding the file and
 *            ends (or execs, keeping no descriptor of it): the child pays for them (INFO_LOCKS 0; an unlock gives
 *            it back memory), and its close frees them and the memory
 *   chain    generations each fork a child holding the file and end, each
 *            trying to add MAXLOCK_SPACE records: the charges move down
 *            the chain, so the file never holds more than MAXLOCK_SPACE
 *   fan      two children each set 100 records and end: the parent, the
 *            holder, pays for 200, past its bound, and may make no more
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
#include <sys/prctl.h>
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

/* The kernel's locks in all (info(1)) are n: asked only while no other
   boot program holds a space (INFO_TREE_HELD is every space held), as
   in test_ofdlock's own boots. Beside others (test_lockcheck's boot:
   flock's locks), the machine-wide figure is theirs too; a program that
   has gone never comes back, so once alone we stay alone. */
static int in_all(long n)
{
	return sys_getinfo(INFO_SPACES_HELD) != sys_getinfo(INFO_TREE_HELD) || info(1) == n;
}

/* Wait (counting, not timing) until the kernel has n lock waits queued,
   polling every ms at most `polls` times: 1 if it came to that. */
static int queued(long n, int polls)
{
	for (int i = 0; i < polls; i++) {
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
	/* (it waits in the kernel by now, on most packages: within ms.
	   naive's thread waits in the runtime, where the count never comes:
	   2,000 polls, not the 20,000 (20 s of each naive boot) of the
	   checked waits below; a wait not yet queued only changes which path
	   the line below names) */
	int seen = !on_det && queued(base + 1, 2000);
	CHECK(pwrite(fd, "W", 1, 0) == 1);
	CHECK(lk(fd, F_OFD_SETLK, F_UNLCK, 0, 1) == 0);
	CHECK(pthread_join(t, 0) == 0);
	CHECK(p.ofd_busy && p.posix_ok && p.waited);
	printf("ofdlock: a thread's F_OFD_SETLKW %s\n", on_det ? "not tried (det)" : seen ? "waited in the kernel"
											       : "waited in the runtime");
	close(p.fd);                     /* (drops the process's POSIX lock too) */
	close(fd);
	CHECK(in_all(0));
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
	CHECK(in_all(0));
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
	CHECK(info(2) == 0 && info(0) == 1);   /* (we hold the open file: we pay for it now) */
	int three = open("/c", O_RDWR);
	CHECK(lk(three, F_OFD_SETLK, F_WRLCK, 7, 1) < 0 && errno == EAGAIN);
	CHECK(lk(two, F_OFD_SETLK, F_WRLCK, 0, 4) == 0);              /* ours: [0,3] and [4,7] */
	CHECK(info(0) == 2 && info(2) == 0);
	CHECK(close(two) == 0);          /* the last close of the open file */
	CHECK(in_all(0) && info(2) == 0);
	CHECK(lk(three, F_OFD_SETLK, F_WRLCK, 0, 0) == 0);
	close(three);
	close(p[0]);
	close(p[1]);
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Every descendant (the caller adopts its orphans: a subreaper) waited
   for: how many ended with status 0, of *n. */
static int reap_all(int *n)
{
	int ok = 0, st;
	*n = 0;
	while (waitpid(-1, &st, 0) > 0) {
		++*n;
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	return ok;
}

static long charged(void)
{
	return sys_getinfo(INFO_MEM_CHARGED);
}

/* Wait until the process that made pipe d (its write end, d[1]) has
   ended: its end's close comes after its records found their new payer
   (file_space_free). 1 if it came to that. */
static int ended(int *d)
{
	char b;
	close(d[1]);
	int r = read(d[0], &b, 1) == 0;
	close(d[0]);
	return r;
}

/* execs: the first process execs (keeping no descriptor of the file)
   instead of ending: the image pays for nothing (its status says). */
static void moved(int execs)
{
	int res[2], n;
	CHECK(pipe(res) == 0);
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);   /* (the orphan is ours to wait for) */
	pid_t a = fork();
	if (a == 0) {                    /* sets 3 locks, forks b holding the file, ends */
		int fd = open_file(execs ? "/e" : "/h"), d[2], e[2], ok = pipe(d) == 0 && pipe(e) == 0;
		if (execs)
			ok &= fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && fcntl(d[0], F_SETFD, FD_CLOEXEC) == 0 &&
			      fcntl(d[1], F_SETFD, FD_CLOEXEC) == 0;
		for (int i = 0; i < 3; i++)
			ok &= lk(fd, F_OFD_SETLK, F_WRLCK, 2 * i, 1) == 0;
		ok &= info(0) == 3;
		if (fork() == 0) {
			char b;
			close(d[1]);
			close(e[1]);
			int v[6] = { ok, read(d[0], &b, 1) == 0, 0, 0, 0, 0 };   /* (a ended) */
			close(d[0]);
			v[1] &= read(e[0], &b, 1) == 0;   /* (and the exec's image: e[1] is kept) */
			close(e[0]);
			v[2] = info(0) == 3 && info(2) == 0 && in_all(3);
			long c1 = charged();
			v[3] = lk(fd, F_OFD_SETLK, F_UNLCK, 0, 1) == 0 && charged() < c1;   /* it paid for it */
			int two = open(execs ? "/e" : "/h", O_RDWR);
			v[4] = lk(two, F_OFD_SETLK, F_WRLCK, 2, 1) < 0 && errno == EAGAIN;
			close(two);
			c1 = charged();
			close(fd);               /* the last holder: the records go */
			v[5] = in_all(0) && info(0) == 0 && info(2) == 0 && charged() < c1;
			_exit(write(res[1], v, sizeof v) == sizeof v ? 0 : 1);
		}
		if (execs)
			execl("/bin/ofdlock", "ofdlock", "pkg=fifo", "execd", (char *)0);
		_exit(execs);
	}
	close(res[1]);
	int v[6] = { 0 };
	CHECK(read(res[0], v, sizeof v) == sizeof v);
	CHECK(reap_all(&n) == 2 && n == 2);
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 0) == 0);
	for (int i = 0; i < 6; i++)
		CHECK(v[i]);
	printf("ofdlock: moved (%s): set %d, parent ended %d, child pays %d, its unlock gave back memory %d, "
	       "locks kept %d, freed at its close %d\n", execs ? "exec" : "exit", v[0], v[1], v[2], v[3], v[4], v[5]);
	close(res[0]);
}

#define GENS 4

/* Generations 0 .. GENS - 1 in turn, each the file's holder once its
   parent has ended: each adds what it may, forks the next and ends. */
static void generations(int fd, int res)
{
	for (int g = 0;; g++) {
		long v[4] = { g, 0, 0, 0 };
		for (int i = 0; i < MAXLOCK_SPACE; i++)
			v[1] += lk(fd, F_OFD_SETLK, F_WRLCK, 2 * (g * MAXLOCK_SPACE + i), 1) == 0;
		v[2] = info(0);
		v[3] = info(2);
		if (write(res, v, sizeof v) != sizeof v)
			_exit(1);
		if (g + 1 == GENS)
			break;
		int d[2];
		if (pipe(d) != 0)
			_exit(1);
		if (fork() != 0)
			_exit(0);
		if (!ended(d))
			_exit(1);
	}
	close(fd);
	_exit(0);
}

/* Two children each set 100 records on the open file this process
   holds and end: it pays for all 200, past its own 128, so it may make
   no record more (ENOLCK) until they go at its close. */
static void fan(void)
{
	int fd = open_file("/g");
	for (int k = 0; k < 2; k++) {
		pid_t c = fork();
		if (c == 0) {
			int ok = 1;
			for (int i = 0; i < 100; i++)
				ok &= lk(fd, F_OFD_SETLK, F_WRLCK, 2 * (k * 100 + i), 1) == 0;
			_exit(ok && info(0) == 100 ? 0 : 1);
		}
		CHECK(fork_status(c) == 0);
	}
	long paid = info(0), unpaid = info(2);
	int refused = lk(fd, F_OFD_SETLK, F_WRLCK, 1001, 1) < 0 && errno == ENOLCK;
	CHECK(paid == 200 && unpaid == 0 && refused);
	printf("ofdlock: fan: the holder pays for %ld of its children's records, %ld unpaid, "
	       "a new one refused %d\n", paid, unpaid, refused);
	close(fd);
	CHECK(in_all(0) && info(0) == 0);
}

static void chain(void)
{
	int res[2], n;
	CHECK(pipe(res) == 0);
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	pid_t a = fork();
	if (a == 0)
		generations(open_file("/z"), res[1]);
	close(res[1]);
	long added = 0, most = 0, unpaid = 0, v[4];
	for (int g = 0; g < GENS; g++) {
		CHECK(read(res[0], v, sizeof v) == sizeof v && v[0] == g);
		added += v[1];
		most = MAX(most, v[2]);
		unpaid = MAX(unpaid, v[3]);
	}
	CHECK(reap_all(&n) == GENS && n == GENS);
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 0) == 0);
	close(res[0]);
	printf("ofdlock: chain of %d generations: %ld records made (bound %d), %ld at most paid by one, "
	       "%ld unpaid at most\n", GENS, added, MAXLOCK_SPACE, most, unpaid);
	CHECK(added == MAXLOCK_SPACE && most == MAXLOCK_SPACE && unpaid == 0);
	CHECK(in_all(0));
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
		inline_q &= queued(base + i, 20000);
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
	moved(0);
	moved(1);
	chain();
	fan();
	cycle(3);
	cycle(4);
	CHECK(in_all(0));
	return failures;
}

/* argv: "det" on det (the threads' kernel wait left out) */
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[argc - 1], "execd"))   /* (moved: the image holds no record) */
	{
		printf("ofdlock: the exec's image pays for %ld records, %ld unpaid\n", info(0), info(2));
		return info(0) == 0 && info(2) == 0 ? 0 : 1;
	}
	for (int i = 1; i < argc; i++)
		on_det |= !strcmp(argv[i], "det");   /* (the test says so: pkg= is the runtime's) */
	int f = fork_audit_report(body);
	CHECK(in_all(0));
	return f || failures;
}
