/*
 * spinsig: alarm's SIGALRM interrupts a thread spinning in
 * pthread_spin_lock, the way the Open POSIX suite's spin lock tests
 * expect, with any number of VPs (run it with vps=1 too: the spinner
 * then holds the program's only VP while it spins). In each case a
 * spinner (a thread made by main) unblocks SIGALRM, installs the handler
 * with every signal masked (sigfillset), arms ITIMER_REAL for due_ms
 * (alarm's timer: the suite's alarm(2), shortened so that a boot under
 * --icount stays short) and spins on a lock that stays held. Each case reports the delay from the moment the
 * signal was due to the handler (ns, now_ns's clock: under --icount
 * deterministic guest time), which must be at most BOUND_MS.
 *
 *   exit    main blocks SIGALRM and holds the lock; the handler, which
 *           must run in the spinner, calls pthread_exit; main joins.
 *   sem     the same, but the handler posts a semaphore main waits on
 *           (sem_wait); main then lets go of the lock and joins.
 *   any     main does not block SIGALRM and holds the lock, waiting in
 *           pthread_join: the signal may run in either thread. In the
 *           spinner the handler calls pthread_exit; in main it lets go
 *           of the lock (main holds it), so the spinner ends either way.
 *   relock  the spinner itself holds the lock and takes it again (POSIX
 *           lets that spin); main blocks SIGALRM; the handler calls
 *           pthread_exit in the spinner; main joins.
 *
 *   spinsig [due=MS] [CASE...]   (no CASE: all; MS default 20)
 *
 * Prints @result {"name": "spinsig", "checks": N, "failures": F,
 * "CASE_ns": delay...} and exits 1 if a check failed. A case whose signal
 * is never delivered hangs (the harness's timeout): the spinner holds
 * its VP for good and main waits without a deadline, as the suite's do.
 */
#define CHECK_NAME "spinsig"
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>
#include <sys/time.h>
#include <animalib/result.h>
#include <animart/clock.h>
#include <check.h>

/* The bound on the delay (sigcomp's): delivery is due at the spinner's
   next turn, time slice, upcall or VP interrupt, a few kernel quanta
   (10 ms each) at most. */
#define BOUND_MS 100
#define MS 1000000ULL
static long due_ms = 20;         /* due=MS on the command line */
#define HANDLED ((void *)0x5e)     /* the spinner's exit value from the handler */

enum { EXIT, SEM, ANY, RELOCK };

static pthread_spinlock_t lock;
static sem_t ran;
static pthread_t spinner;
static int mode;
static volatile uint64_t ran_at, due;
static volatile int ran_in_spinner, ran_in_main, got_lock;

static void on_alrm(int sig)
{
	(void)sig;
	ran_at = now_ns();
	int in_spinner = pthread_equal(pthread_self(), spinner) != 0;
	ran_in_spinner += in_spinner;
	ran_in_main += !in_spinner;
	if (mode == SEM) {
		sem_post(&ran);
		return;
	}
	if (in_spinner)
		pthread_exit(HANDLED);
	pthread_spin_unlock(&lock);      /* (any: main, the holder) */
}

static void mask_alrm(int how)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	CHECK(pthread_sigmask(how, &s, 0) == 0);
}

static void *spin(void *arg)
{
	(void)arg;
	mask_alrm(SIG_UNBLOCK);
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = on_alrm;
	sigfillset(&a.sa_mask);
	CHECK(sigaction(SIGALRM, &a, 0) == 0);
	if (mode == RELOCK)
		CHECK(pthread_spin_lock(&lock) == 0);
	struct itimerval it = { { 0, 0 }, { due_ms / 1000, due_ms % 1000 * 1000 } };
	due = now_ns() + (uint64_t)due_ms * MS;
	CHECK(setitimer(ITIMER_REAL, &it, 0) == 0);
	pthread_spin_lock(&lock);        /* spins until the handler acts */
	got_lock = 1;
	pthread_spin_unlock(&lock);
	return 0;
}

/* The delay from due to the handler, checked against the bound. */
static uint64_t delay(const char *name)
{
	uint64_t d = ran_at >= due ? ran_at - due : 0;
	printf("spinsig %s: %s, %llu ns after due (spinner %d, main %d)\n", name,
	       ran_at ? "ran" : "never ran", (unsigned long long)d,
	       ran_in_spinner, ran_in_main);
	CHECK(ran_at != 0 && ran_at >= due && d <= BOUND_MS * MS);
	CHECK(ran_in_spinner + ran_in_main == 1);
	return d;
}

static uint64_t run(const char *name, int m)
{
	mode = m;
	ran_at = due = 0;
	ran_in_spinner = ran_in_main = got_lock = 0;
	CHECK(sem_init(&ran, 0, 0) == 0);
	CHECK(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE) == 0);
	if (m != ANY)
		mask_alrm(SIG_BLOCK);
	if (m != RELOCK)
		CHECK(pthread_spin_lock(&lock) == 0);
	CHECK(pthread_create(&spinner, 0, spin, 0) == 0);
	if (m == SEM) {
		int r;
		while ((r = sem_wait(&ran)) != 0 && errno == EINTR)
			;
		CHECK(r == 0 && ran_in_spinner == 1);
		pthread_spin_unlock(&lock);
	}
	void *ret = 0;
	CHECK(pthread_join(spinner, &ret) == 0);
	if (m == EXIT || m == RELOCK)
		CHECK(ret == HANDLED && ran_in_spinner == 1 && !got_lock);
	if (m == SEM)
		CHECK(ret == 0 && got_lock);
	if (m == ANY)
		CHECK(ret == (ran_in_spinner ? HANDLED : 0) && got_lock == ran_in_main);
	uint64_t d = delay(name);
	mask_alrm(SIG_UNBLOCK);
	signal(SIGALRM, SIG_DFL);
	sem_destroy(&ran);
	return d;
}

static int want(int argc, char **argv, const char *name)
{
	int named = 0;
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "due=", 4) == 0)
			continue;
		named = 1;
		if (strcmp(argv[i], name) == 0)
			return 1;
	}
	return !named;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int mode; } cases[] = {
		{ "exit", EXIT }, { "sem", SEM }, { "any", ANY }, { "relock", RELOCK },
	};
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "due=", 4) == 0)
			due_ms = atol(argv[i] + 4);
	struct result r;
	result_begin(&r, "spinsig");
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (want(argc, argv, cases[i].name)) {
			char key[32];
			snprintf(key, sizeof key, "%s_ns", cases[i].name);
			result_uint(&r, key, run(cases[i].name, cases[i].mode));
		}
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures ? 1 : 0;
}
