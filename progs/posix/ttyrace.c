/*
 * ttyrace: hostile calls of SYS_tty (kernel/tty.c), the one set of
 * console settings every process shares. Two threads (on two CPUs at
 * -smp 2 with two VPs, or kthread) race: one sets settings A and B in
 * turn (each field its own pattern; the output flags never change, so
 * the console's output stays as it was), the other gets them ROUNDS
 * times; every get must be A, B or the settings found at the start,
 * whole: a mix of two is a torn copy. A child process gets them too
 * while they change. Then: a get into a read-only page, an unmapped one,
 * a kernel and a non-canonical address, and one that runs off the end of
 * a mapping into an unmapped page, each -EFAULT; a set from those (the
 * read-only one is readable: it sets, and is then put back) -EFAULT with
 * the settings unchanged (no half-copied set); ops other than get and
 * set -EINVAL. At the end the settings found are put back. Deterministic:
 * counts, no timing. @result {"name": "ttyrace", "checks", "failures",
 * "gets", "torn"}.
 */
#define CHECK_NAME "ttyrace"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <anima/syscall.h>
#include <anima/tty.h>
#include <check.h>

#define EFAULT_ 14
#define EINVAL_ 22

static struct ktermios orig, A, B;
static volatile int stop;
static long rounds = 20000;

static long tty(long op, const void *p)
{
	return syscall2(SYS_tty, op, (long)p);
}

/* t with every input, control and local field (the kernel keeps them
   as given) set from pattern v; oflag, cflag's speed and the speeds as
   orig's, so each set leaves the console's output alone. */
static void pattern(struct ktermios *t, uint8_t v)
{
	*t = orig;
	t->iflag = 0x01010101u * v;
	t->lflag = 0x00ff00ffu ^ (0x01010101u * v);
	t->line = v;
	for (int i = 0; i < 32; i++)
		t->cc[i] = (uint8_t)(v + i);
}

static int same(const struct ktermios *a, const struct ktermios *b)
{
	return a->iflag == b->iflag && a->oflag == b->oflag && a->cflag == b->cflag &&
	       a->lflag == b->lflag && a->line == b->line && !memcmp(a->cc, b->cc, sizeof a->cc) &&
	       a->ispeed == b->ispeed && a->ospeed == b->ospeed;
}

static void *setter(void *arg)
{
	(void)arg;
	long fails = 0;
	for (long i = 0; !stop; i++)
		fails += tty(TTY_SET, i & 1 ? &B : &A) != 0;
	return (void *)fails;
}

/* rounds gets while the setter runs: how many were none of the three. */
static long getter(long n)
{
	long torn = 0;
	struct ktermios t;
	for (long i = 0; i < n; i++) {
		if (tty(TTY_GET, &t) != 0 || !(same(&t, &A) || same(&t, &B) || same(&t, &orig))) {
			if (torn++ < 3)
				printf("ttyrace: get %ld gave iflag %#x lflag %#x line %u cc0 %u\n",
				       i, t.iflag, t.lflag, t.line, t.cc[0]);
		}
	}
	return torn;
}

/* A get into p and a set from it: -EFAULT each, and the settings as
   they were (`now`). */
static void refused(const void *p, const struct ktermios *now)
{
	struct ktermios t;
	CHECK(tty(TTY_GET, p) == -EFAULT_);
	CHECK(tty(TTY_SET, p) == -EFAULT_);
	CHECK(tty(TTY_GET, &t) == 0 && same(&t, now));
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	CHECK(tty(TTY_GET, &orig) == 0);
	pattern(&A, 0x5a);
	pattern(&B, 0xa5);

	pthread_t th;
	CHECK(pthread_create(&th, 0, setter, 0) == 0);
	pid_t kid = fork();
	if (kid == 0)
		_exit(getter(rounds / 4) ? 1 : 0);
	long torn = getter(rounds);
	int st = -1;
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	stop = 1;
	void *fails = (void *)1;
	CHECK(pthread_join(th, &fails) == 0 && fails == 0);
	CHECK(torn == 0);

	/* Bad memory, with the settings at a known value (A). */
	CHECK(tty(TTY_SET, &A) == 0);
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(0, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	memcpy(m + pg, &B, sizeof B);
	CHECK(mprotect(m + pg, pg, PROT_READ) == 0);
	CHECK(munmap(m + 2 * pg, pg) == 0);
	CHECK(tty(TTY_GET, m + pg) == -EFAULT_);           /* read-only: no get into it */
	CHECK(tty(TTY_SET, m + pg) == 0);                  /* ... but a set reads it */
	struct ktermios t;
	CHECK(tty(TTY_GET, &t) == 0 && same(&t, &B));
	CHECK(tty(TTY_SET, &A) == 0);
	refused(m + 2 * pg, &A);                           /* unmapped */
	refused(m + 2 * pg - 8, &A);                       /* the last 8 bytes unmapped */
	CHECK(tty(TTY_GET, m + pg - 8) == -EFAULT_);       /* running into the read-only page */
	CHECK(tty(TTY_GET, &t) == 0 && same(&t, &A));
	refused((void *)0xffffffff80100000UL, &A);         /* the kernel */
	refused((void *)0x0000800000000000UL, &A);         /* non-canonical */
	refused((void *)8, &A);                            /* page 0 */
	CHECK(tty(2, &t) == -EINVAL_ && tty(-1, &t) == -EINVAL_ && tty(1L << 32, &t) == -EINVAL_);
	CHECK(tty(TTY_GET, &t) == 0 && same(&t, &A));

	CHECK(tty(TTY_SET, &orig) == 0);
	CHECK(tty(TTY_GET, &t) == 0 && same(&t, &orig));
	printf("@result {\"name\": \"ttyrace\", \"checks\": %d, \"failures\": %d, \"gets\": %ld, "
	       "\"torn\": %ld}\n", checks, failures, rounds, torn);
	return failures != 0;
}
