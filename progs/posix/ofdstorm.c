/*
 * ofdstorm: OFD and POSIX record locks taken and let go by several
 * processes while a chain of forks, exits and execs moves the charge of
 * OFD records from payer to payer (kernel/flock.c: lock_space_gone,
 * holder, move). Needs a disk with this program as /bin/ofdstorm.
 * Run in an audited child under memcheck (forkaudit.h).
 *
 *   stirrers  NS processes (argv[1], 3), each with its own open file of
 *             /s, set and clear OFD and POSIX locks on random ranges
 *             past byte 1000 (EAGAIN on a conflict is fine; the chain
 *             keeps below it, so its sets never conflict), now and then fork a
 *             child that sets OFD records on the stirrer's open file and
 *             ends, or execs this program keeping the descriptor (its
 *             image sets more and ends): the stirrer holds the file, so
 *             it pays for what they leave. They run until the chain is
 *             done (a flag in shared memory), then close and end.
 *   chain     a process opens /s (its own open file), sets K records and
 *             forks; the child waits (counts, no time) until its parent
 *             has ended, and must then pay for every record the chain
 *             made so far with none unpaid (INFO_LOCKS 0 and 2); it adds
 *             one, and forks the next generation and ends, or every
 *             other time first execs itself keeping the descriptor, its
 *             image checking the same. GENS generations.
 * At the end, every process reaped: no lock left in the kernel
 * (INFO_LOCKS 1), none unpaid, every frame back (avail_lost 0).
 * @result {"name": "ofdstorm", "status", "avail_lost", "failures"}; the
 * chain's line "ofdstorm: chain: G generations, bad B".
 */
#define CHECK_NAME "ofdstorm"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sched.h>
#include <anima/syscall.h>
#include <check.h>
#include <forkaudit.h>

#define GENS 8
#define K    5

static int nstir = 3;
static volatile long *shm;        /* [0] chain done, [1] chain bad checks, [2] generations seen (/st) */

static int lk(int fd, int cmd, int type, long start, long len)
{
	struct flock fl = { .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, &fl);
}

static long info(int what)
{
	return syscall2(SYS_getinfo, INFO_LOCKS, what);
}

static uint64_t rng = 88172645463325252ULL;
static long below(long n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (long)(rng % (uint64_t)n);
}

/* A lock call whose only allowed failures are a conflict and the
   bound on records (a stirrer pays for what its ended children left,
   past its own MAXLOCK_SPACE: then a set, or an unlock that splits a
   range, is ENOLCK): 1 if fine. */
static int fine(int r)
{
	int ok = r == 0 || errno == EAGAIN || errno == EACCES || errno == ENOLCK;
	if (!ok)
		printf("ofdstorm: lock call failed, errno %d\n", errno);
	return ok;
}

/* An unlock: done, or ENOLCK (a split past the bound). */
static int unlocked(int r)
{
	int ok = r == 0 || errno == ENOLCK;
	if (!ok)
		printf("ofdstorm: unlock failed, errno %d\n", errno);
	return ok;
}

/* An ending child of a stirrer: OFD records on its open file, then out. */
static int leaf(int fd, long seed)
{
	rng += (uint64_t)seed * 2654435761u;
	int ok = 1;
	for (int i = 0; i < 6; i++)
		ok &= fine(lk(fd, F_OFD_SETLK, below(2) ? F_WRLCK : F_RDLCK, 1000 + below(4000), 1 + below(8)));
	return ok ? 0 : 1;
}

static void stirrer(int id)
{
	rng += (uint64_t)id * 7919;
	int fd = open("/s", O_RDWR);
	if (fd < 0)
		_exit(2);
	int bad = 0;
	for (long n = 0; !shm[0] || n < 200; n++) {
		long s = 1000 + below(3000), l = 1 + below(16);   /* (the chain keeps below 1000) */
		switch (below(6)) {
		case 0: bad += !fine(lk(fd, F_OFD_SETLK, F_WRLCK, s, l)); break;
		case 1: bad += !fine(lk(fd, F_OFD_SETLK, F_RDLCK, s, l)); break;
		case 2: bad += !unlocked(lk(fd, F_OFD_SETLK, F_UNLCK, s, l)); break;
		case 3: bad += !fine(lk(fd, F_SETLK, below(2) ? F_WRLCK : F_RDLCK, s, l)); break;
		case 4: bad += !unlocked(lk(fd, F_SETLK, F_UNLCK, s, l)); break;
		default:
			if (n % 5 == 0) {
				pid_t c = fork();
				if (c == 0) {
					if (below(2)) {
						char a[16], b[16];
						snprintf(a, sizeof a, "%d", fd);
						snprintf(b, sizeof b, "%ld", n);
						execl("/bin/ofdstorm", "ofdstorm", "leaf", a, b, (char *)0);
						_exit(3);
					}
					_exit(leaf(fd, n));
				}
				bad += fork_status(c) != 0;
			}
		}
	}
	close(fd);
	_exit(bad ? 1 : 0);
}

/* Has our parent ended? (We were reparented to the subreaper.) */
static void parent_gone(pid_t was)
{
	while (getppid() == was)
		sched_yield();
}

/* Generation g of the chain, holding open file fd, which the chain made
   `made` records on: checks it pays for them all, adds one, and goes on. */
static void generation(int g, int fd, long made)
{
	for (;; g++) {
		int ok = info(0) == made && info(2) == 0;
		if (!ok)
			printf("ofdstorm: generation %d pays %ld of %ld, %ld unpaid\n", g, info(0), made, info(2));
		ok &= lk(fd, F_OFD_SETLK, F_WRLCK, 100 + 2 * g, 1) == 0;
		made++;
		__atomic_fetch_add(&shm[1], !ok, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&shm[2], 1, __ATOMIC_SEQ_CST);
		if (g + 1 == GENS) {
			lk(fd, F_OFD_SETLK, F_UNLCK, 0, 0);
			close(fd);
			shm[0] = 1;
			_exit(0);
		}
		pid_t me = getpid();
		if (fork() != 0)
			_exit(0);        /* the child holds the file: it pays from now */
		parent_gone(me);
		if (g % 2 == 0) {
			char a[16], b[16], d[16];
			snprintf(a, sizeof a, "%d", g + 1);
			snprintf(b, sizeof b, "%d", fd);
			snprintf(d, sizeof d, "%ld", made);
			execl("/bin/ofdstorm", "ofdstorm", "gen", a, b, d, (char *)0);
			_exit(4);
		}
	}
}

static int body(void)
{
	int fd = open("/s", O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, 8192) == 0 && close(fd) == 0);
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	for (int i = 0; i < nstir; i++)
		if (fork() == 0)
			stirrer(i);
	if (fork() == 0) {
		int f = open("/s", O_RDWR);
		int ok = f >= 0;
		for (int i = 0; i < K; i++)
			ok &= lk(f, F_OFD_SETLK, F_WRLCK, 2 * i + 1, 1) == 0;
		shm[1] += !ok;
		pid_t me = getpid();
		if (fork() != 0)
			_exit(0);
		parent_gone(me);
		generation(1, f, K);
	}
	int st, n = 0, badst = 0;
	pid_t w;
	while ((w = wait(&st)) > 0) {
		n++;
		badst += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	printf("ofdstorm: chain: %ld generations, bad %ld; %d reaped, %d bad statuses\n",
	       shm[2], shm[1], n, badst);
	CHECK(shm[2] == GENS - 1 && shm[1] == 0 && badst == 0 && n >= nstir + GENS);
	CHECK(info(1) == 0 && info(2) == 0);
	CHECK(unlink("/s") == 0);
	return failures;
}

/* The shared counts: a MAP_SHARED mapping of /st, which an exec'd
   generation maps again. */
static void map_shared(int make)
{
	int fd = open("/st", O_RDWR | (make ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0 || (make && ftruncate(fd, 4096) != 0))
		_exit(5);
	shm = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		_exit(6);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "leaf"))
		return leaf(atoi(argv[2]), atol(argv[3]));
	if (argc > 4 && !strcmp(argv[1], "gen")) {
		map_shared(0);
		generation(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
	}
	if (argc > 1)
		nstir = atoi(argv[1]);
	map_shared(1);
	return fork_audit_report(body);
}
