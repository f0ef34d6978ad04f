/*
 * fdrace: the kernel's descriptor table (kernel/sysfile.c) under threads
 * of one process (harness/tests/test_fdrace.py). Raw calls (SYS_pipe,
 * SYS_file_dup, SYS_file_close), so each descriptor is the kernel's own.
 *   words    INFO_FILES -1 is how many 64-descriptor words hold every
 *            open one: 0 with none (a boot program's start asks once),
 *            1 with a pipe, 4 with a dup at 200 or more, back down as
 *            they close
 *   race R   R rounds of NT threads: each makes pipes and dups until it
 *            holds PEAK descriptors (together past 64 and 128: the table
 *            grows while they race), waits for the others, then closes
 *            and makes more at random; thread 0 forks meanwhile (its
 *            child copies the table and ends at once). Each descriptor a
 *            call returns is claimed in owner[]: one already claimed is
 *            a duplicate; each close must succeed (none lost). When all
 *            are closed no word holds one, and the space's charge
 *            (INFO_MEM_CHARGED) is what it was after the first round
 *            (which grew the table once for all)
 */
#define CHECK_NAME "fdrace"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <anima/syscall.h>
#include <anima/file.h>
#include <check.h>
#include <forkaudit.h>

#define NT 4
#define PEAK 39                 /* per thread: NT * PEAK + 3 past 128 */
#define STEPS 200

static int owner[MAXFILE_SPACE];        /* thread + 1 holding each descriptor */
static pthread_barrier_t peak;

static long words(void)
{
	return syscall2(SYS_getinfo, INFO_FILES, -1);
}

static void words_case(void)
{
	int p[2];
	CHECK(words() == 0);
	CHECK(syscall1(SYS_pipe, p) == 0);
	CHECK(words() == 1);
	long d[200];
	int n = 0;
	long top = -1;
	while (n < 200 && (top = syscall1(SYS_file_dup, p[0])) >= 0 && top < 200)
		d[n++] = top;
	CHECK(top == 200 && words() == 4);
	CHECK(syscall1(SYS_file_close, top) == 0 && words() == 4);   /* (199 is open) */
	while (n > 0)
		CHECK(syscall1(SYS_file_close, d[--n]) == 0);
	CHECK(words() == 1);
	CHECK(syscall1(SYS_file_close, p[0]) == 0 && syscall1(SYS_file_close, p[1]) == 0);
	CHECK(words() == 0);
}

struct held {
	int fd[PEAK + 3];
	int n;
};

static void claim(struct held *h, long fd, int me)
{
	int none = 0;
	if (fd < 0 || fd >= MAXFILE_SPACE) {
		CHECK(!"a descriptor in range");
		return;
	}
	CHECK(__atomic_compare_exchange_n(&owner[fd], &none, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	h->fd[h->n++] = (int)fd;
}

/* One more descriptor (a pipe's two when there is room, else a dup). */
static void make(struct held *h, int me)
{
	int p[2];
	if (h->n + 2 <= PEAK && syscall1(SYS_pipe, p) == 0) {
		claim(h, p[0], me);
		claim(h, p[1], me);
	} else if (h->n > 0)
		claim(h, syscall1(SYS_file_dup, h->fd[0]), me);
	else
		CHECK(!"a pipe");
}

static void drop(struct held *h, int i)
{
	int fd = h->fd[i];
	h->fd[i] = h->fd[--h->n];
	__atomic_store_n(&owner[fd], 0, __ATOMIC_RELEASE);
	CHECK(syscall1(SYS_file_close, fd) == 0);
}

static void *racer(void *arg)
{
	int me = (int)(long)arg + 1;
	unsigned seed = (unsigned)me * 2654435761u;
	struct held h = { .n = 0 };
	while (h.n < PEAK)
		make(&h, me);
	pthread_barrier_wait(&peak);
	for (int s = 0; s < STEPS; s++) {
		seed = seed * 1103515245 + 12345;
		if (h.n > 0 && (seed >> 16) % 2)
			drop(&h, (int)((seed >> 8) % (unsigned)h.n));
		else if (h.n < PEAK)
			make(&h, me);
		if (me == 1 && s % 40 == 0) {
			pid_t c = fork();
			if (c == 0)
				_exit(0);
			CHECK(fork_status(c) == 0);
		}
	}
	while (h.n > 0)
		drop(&h, h.n - 1);
	return 0;
}

static void race_case(int rounds)
{
	long first = -1;
	fork_warm();
	for (int r = 0; r < rounds; r++) {
		pthread_t t[NT];
		pthread_barrier_init(&peak, 0, NT);
		for (long i = 0; i < NT; i++)
			CHECK(pthread_create(&t[i], 0, racer, (void *)i) == 0);
		for (int i = 0; i < NT; i++)
			pthread_join(t[i], 0);
		pthread_barrier_destroy(&peak);
		long c = sys_getinfo(INFO_MEM_CHARGED);
		CHECK(words() == 0);
		if (r == 0)
			first = c;
		else if (c != first)
			printf("fdrace: round %d charged %ld, the first %ld\n", r, c, first);
		CHECK(c == first);
	}
	printf("fdrace: %d rounds, charge after each %ld\n", rounds, first);
}

int main(int argc, char **argv)
{
	struct result r;
	const char *what = argc > 1 ? argv[1] : "words";
	if (!strcmp(what, "words"))
		words_case();
	else
		race_case(argc > 2 ? atoi(argv[2]) : 4);
	result_begin(&r, "fdrace");
	result_str(&r, "case", what);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
