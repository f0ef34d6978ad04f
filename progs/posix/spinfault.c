/*
 * spinfault: a spin lock's holder blocks in the kernel while more
 * threads than there are VPs wait for the lock (<animart/spin.h>, the
 * lock ulib itself uses: malloc's, the environment's, popen's).
 *
 * Any touch of memory may block a thread in the kernel: a page that
 * comes late (a MAP_LAZY region with a latency here; a file's page in
 * general). On an upcall VP only the thread blocks, and the VP runs
 * another, which may then wait for the lock the blocked one holds. A
 * waiter is inside the lock's critical count (crit), so no time slice
 * switches it out; when the holder's page came, the holder was queued
 * on a VP whose waiter never let it run, and with a waiter on every VP
 * the program hung for good. The same shape hung forklock now and then
 * (a holder the kernel preempted inside fork, queued behind waiters).
 *
 * ROUNDS rounds: the holder takes the lock, says so, and touches a new
 * page of the region (it blocks for LATENCY); NWAIT threads wait for
 * the word, then for the lock, and count each time they got it. Counts
 * only: @result {"name": "spinfault", "checks", "failures", "rounds",
 * "got"}.
 */
#define CHECK_NAME "spinfault"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include <animalib/result.h>
#include <animart/spin.h>
#include <animart/sys.h>
#include <check.h>

#define ROUNDS 8
#define MAXWAIT 16
#define PAGE 4096
#define LATENCY 3000000UL            /* ns a page takes to come */

static struct spin lk;
static char *region;
static volatile int round_no = -1;   /* the round whose lock is taken */
static volatile int got;             /* waiters that had the lock this round */
static int nwait;

static void *waiter(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		while (__atomic_load_n(&round_no, __ATOMIC_ACQUIRE) < r)
			sched_yield();   /* let the holder run until it holds the lock */
		spin_lock(&lk);
		got++;
		spin_unlock(&lk);
	}
	return 0;
}

int main(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	nwait = n < 1 ? 2 : n * 2 + 1 > MAXWAIT ? MAXWAIT : (int)n * 2 + 1;
	region = (char *)syscall4(SYS_map, 0, ROUNDS * PAGE, PROT_READ | PROT_WRITE | MAP_LAZY,
				  LATENCY);
	CHECK(!sys_failed((long)region));
	if (sys_failed((long)region))
		return 1;
	pthread_t w[MAXWAIT];
	for (int i = 0; i < nwait; i++)
		CHECK(pthread_create(&w[i], 0, waiter, 0) == 0);
	int total = 0;
	for (int r = 0; r < ROUNDS; r++) {
		spin_lock(&lk);
		__atomic_store_n(&round_no, r, __ATOMIC_RELEASE);
		region[r * PAGE] = 1;    /* blocks in the kernel, the lock held */
		got = 0;
		spin_unlock(&lk);
		/* every waiter gets the lock once before the next round */
		while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) < nwait)
			sched_yield();
		total += got;
	}
	for (int i = 0; i < nwait; i++)
		CHECK(pthread_join(w[i], 0) == 0);
	CHECK(total == ROUNDS * nwait);
	struct result res;
	result_begin(&res, "spinfault");
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_int(&res, "rounds", ROUNDS);
	result_int(&res, "got", total);
	result_end(&res);
	return failures != 0;
}
