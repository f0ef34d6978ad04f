/*
 * sigfetch: a signal another process sent is pending for the thread that
 * looks, even while another thread of the program is taking the kernel's
 * records (ulib/libc/signal.c, fetch_as). Each round a child queues
 * NRT real-time signals (SIGRTMIN + i, value the round) to us, blocked
 * here, counting in a shared page the sigqueues that returned. Main
 * looks meanwhile, again and again: each sigpending must show every
 * signal counted before it began. Once all NRT are in, main unblocks
 * them: all NRT handlers must have run when pthread_sigmask returns. A
 * worker that blocks them too looks all the time as well (sigpending
 * takes what the kernel holds), so that main's look now and then finds
 * the worker's take under way: its records out of the kernel and not yet
 * pending in the library. Counts the looks that missed a signal
 * (miss_pending, of `looks`) and the unblocks that did (miss_unblock, of
 * rounds); argv[1]: rounds (default 1000).
 */
#define CHECK_NAME "sigfetch"
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <sched.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#define NRT 16             /* two takes (PSIG_TAKE_MAX) */

struct shared {
	volatile int go, done, stop;     /* rounds asked and sent; the end */
	volatile int sent;               /* this round's sigqueues that returned */
};
static struct shared *sh;
static volatile int nran, badval, round_no, stop;

static void on_rt(int s, siginfo_t *si, void *u)
{
	(void)s;
	(void)u;
	if (si->si_value.sival_int != round_no)
		badval++;
	nran++;
}

static void rt_set(sigset_t *set)
{
	sigemptyset(set);
	for (int i = 0; i < NRT; i++)
		sigaddset(set, SIGRTMIN + i);
}

/* The child: NRT sigqueues per round, as main asks. */
static void sender(pid_t parent)
{
	for (int r = 1;; r++) {
		for (int n = 0; sh->go != r; n++) {
			if (sh->stop)
				_exit(0);
			if (n % 64 == 63)
				sched_yield();
		}
		for (int i = 0; i < NRT; i++) {
			if (sigqueue(parent, SIGRTMIN + i, (union sigval){ .sival_int = r }))
				_exit(2);
			__atomic_store_n(&sh->sent, i + 1, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&sh->done, r, __ATOMIC_RELEASE);
	}
}

/* The worker: takes what the kernel holds, again and again. */
static void *looker(void *a)
{
	(void)a;
	sigset_t p;
	while (!stop) {
		sigpending(&p);
		sched_yield();       /* (naive: main may share our VP) */
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	struct sigaction a = { 0 };
	a.sa_sigaction = on_rt;
	a.sa_flags = SA_SIGINFO;
	rt_set(&a.sa_mask);
	for (int i = 0; i < NRT; i++)
		CHECK(sigaction(SIGRTMIN + i, &a, 0) == 0);
	sigset_t set;
	rt_set(&set);
	CHECK(pthread_sigmask(SIG_BLOCK, &set, 0) == 0);
	pid_t c = fork();
	if (c == 0)
		sender(getppid());
	pthread_t w;
	CHECK(pthread_create(&w, 0, looker, 0) == 0);
	int miss_pending = 0, miss_unblock = 0, late = 0, looks = 0;
	for (int r = 1; r <= rounds; r++) {
		round_no = r;
		nran = 0;
		__atomic_store_n(&sh->sent, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&sh->go, r, __ATOMIC_RELEASE);
		for (int k = 0, d = 0; !d; looks++) {
			d = __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE) == r;
			k = __atomic_load_n(&sh->sent, __ATOMIC_ACQUIRE);
			sigset_t p;
			sigemptyset(&p);
			sigpending(&p);
			int seen = 0;
			for (int i = 0; i < k; i++)
				seen += sigismember(&p, SIGRTMIN + i) == 1;
			miss_pending += seen != k;
		}
		CHECK(pthread_sigmask(SIG_UNBLOCK, &set, 0) == 0);
		miss_unblock += nran != NRT;
		for (int n = 0; nran < NRT && n < 1000000; n++, late++) {
			sigset_t p;
			sched_yield();   /* the missed ones come at a later look */
			sigpending(&p);
		}
		CHECK(nran == NRT);
		CHECK(pthread_sigmask(SIG_BLOCK, &set, 0) == 0);
	}
	stop = 1;
	sh->stop = 1;
	CHECK(pthread_join(w, 0) == 0);
	int st = -1;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(badval == 0);
	CHECK(miss_pending == 0);
	CHECK(miss_unblock == 0);
	struct result res;
	result_begin(&res, "sigfetch");
	result_int(&res, "rounds", rounds);
	result_int(&res, "miss_pending", miss_pending);
	result_int(&res, "looks", looks);
	result_int(&res, "miss_unblock", miss_unblock);
	result_int(&res, "late_looks", late);
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
