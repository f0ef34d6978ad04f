/*
 * ptfree: map and unmap at ever new addresses, and make detached threads
 * one after another, while the space's charge (INFO_MEM_CHARGED, which
 * counts its page-table pages) stays where it was
 * (harness/tests/test_ptfree.py). Before, the kernel never freed a page
 * table an unmap emptied: each phase left a table (and a directory) per
 * new address behind, and test_createsig's thread loop once ended a boot
 * out of memory with 90,135 of them.
 *   fixed    a page mapped and unmapped at FIXED addresses 1 GiB apart
 *            (each a new PT and PD, a new PDPT every 512)
 *   placed   64 KiB mapped where the kernel places it (next-fit: ever
 *            higher), touched, unmapped, PLACED times
 *   threads  THREADS detached threads one after another, each waited
 *            for before the next, every other one with a 16 KiB stack
 *            (and a guard), the rest the default 8 MiB: the runtime's
 *            pool of ended threads then never has a stack of the size
 *            asked, and each create unmaps one stack and maps a new one
 *            (ulib/rt/rt_vp.c pool_get), as test_createsig's did
 * Each phase's growth of the charge is reported in KiB, measured after a
 * warm-up round (the heap's first blocks); the line before it gives the
 * ns per placed map+unmap and per thread (information only: run with
 * --icount to compare kernels; the thread figure includes waiting). Arguments: FIXED PLACED
 * THREADS (defaults 3000 20000 1000).
 * @result {"name": "ptfree", "checks": C, "failures": F, "fixed_kib": A,
 * "placed_kib": B, "threads_kib": T, "threads": N}
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <animart/sys.h>

#define CHECK_NAME "ptfree"
#include <check.h>

#define FIXED_BASE 0x300000000000UL          /* 48 TiB: above the placed maps' start */
#define GIB (1UL << 30)

static sem_t ran;

static long charged(void)
{
	return sys_getinfo(INFO_MEM_CHARGED);
}

static long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void fixed(int n)
{
	for (int i = 0; i < n; i++) {
		char *want = (char *)(FIXED_BASE + (unsigned long)i * GIB);
		char *p = mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CHECK(p == want);
		if (p != want)
			return;
		p[0] = 1;
		CHECK(munmap(p, 4096) == 0);
	}
}

static void placed(int n)
{
	for (int i = 0; i < n; i++) {
		char *p = mmap(0, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		if (p == MAP_FAILED)
			return;
		p[0] = p[65535] = 1;
		CHECK(munmap(p, 65536) == 0);
	}
}

static void *child(void *a)
{
	volatile char buf[256];      /* (its stack touched) */
	buf[0] = (char)(long)a;
	sem_post(&ran);
	return (void *)(long)buf[0];
}

static int threads(int n)
{
	pthread_attr_t det[2];
	for (int k = 0; k < 2; k++) {
		CHECK(pthread_attr_init(&det[k]) == 0);
		CHECK(pthread_attr_setdetachstate(&det[k], PTHREAD_CREATE_DETACHED) == 0);
	}
	CHECK(pthread_attr_setstacksize(&det[1], 16384) == 0);
	int made = 0;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		int r = pthread_create(&t, &det[i % 2], child, (void *)(long)i);
		CHECK(r == 0);
		if (r)
			break;
		made++;
		while (sem_wait(&ran) != 0)
			CHECK(errno == EINTR);
	}
	/* (the last one's stack goes when it has ended: a few sleeps) */
	for (int k = 0; k < 10; k++)
		nanosleep(&(struct timespec){ 0, 1000000 }, 0);
	for (int k = 0; k < 2; k++)
		CHECK(pthread_attr_destroy(&det[k]) == 0);
	return made;
}

int main(int argc, char **argv)
{
	int nf = argc > 1 ? atoi(argv[1]) : 3000, np = argc > 2 ? atoi(argv[2]) : 20000;
	int nt = argc > 3 ? atoi(argv[3]) : 1000;
	CHECK(sem_init(&ran, 0, 0) == 0);
	fixed(4);                        /* warm-ups: the first blocks of everything */
	placed(4);
	threads(4);
	long c0 = charged();
	fixed(nf);
	long c1 = charged(), tp = now_ns();
	placed(np);
	long c2 = charged(), t0 = now_ns();
	int made = threads(nt);
	long c3 = charged(), t1 = now_ns();
	CHECK(c0 > 0 && c1 > 0 && c2 > 0 && c3 > 0);
	printf("ptfree: charged %ld -> %ld (fixed) -> %ld (placed) -> %ld (threads) bytes; "
	       "%ld ns a placed map+unmap, %ld a thread\n", c0, c1, c2, c3, (t0 - tp) / (np ? np : 1),
	       (t1 - t0) / (made ? made : 1));   /* (timing: information only) */
	printf("@result {\"name\": \"ptfree\", \"checks\": %d, \"failures\": %d, \"fixed_kib\": %ld, "
	       "\"placed_kib\": %ld, \"threads_kib\": %ld, \"threads\": %d}\n", checks, failures,
	       (c1 - c0) / 1024, (c2 - c1) / 1024, (c3 - c2) / 1024, made);
	return 0;
}
