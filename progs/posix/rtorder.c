/*
 * rtorder: SCHED_FIFO priorities are honoured, as on Linux: every
 * priority is its own level, and a runnable thread runs before any of a
 * lower one. Each part counts events, never time.
 *
 *   ready    main (FIFO 99) creates threads at 5, 10, 98, 7, 99, 9, which
 *            wait to run, then drops itself to 1: they must run 99, 98,
 *            10, 9, 7, 5, then main.
 *   wake     waiters at 7, 99, 10, 98, 9 block on a condition; a thread
 *            at 5 broadcasts it and computes: every waiter must run
 *            before its next step, highest first.
 *   signal   a waiter at 10 blocks on a condition; a thread at 5 signals
 *            it and computes: the waiter must have run when the signal
 *            returns.
 *   sem      waiters at 10, 30, 20 block on a semaphore; a thread at 50
 *            posts it once per waiter, waiting for the woken one each
 *            time: the highest waiter is woken first (30 20 10).
 *   starve   (argument "starve", alone: the Open POSIX suite's
 *            pthread_create 1-6 shape) main at 99 makes 4 threads at 98
 *            that compute until told, then one at 1 that sets a flag;
 *            main computes STARVE_LOOPS steps: the flag must stay unset
 *            (with more VPs than 5 it could not: run it with fewer).
 *
 * The first four want one VP (vps=1). With the word "loose" (a package
 * that leaves priorities to the kernel: kthread) only that every thread
 * ran and that its priority reads back are checked.
 * @result {"name": "rtorder", "checks", "failures", "ready", "wake",
 * "signal", "sem": what each part logged, e.g. "99 98 10 9 7 5 1"};
 * starve: {"name": "rtorder", "checks", "failures", "lowran": the step
 * at which the low thread had run (-1: never), "spins": the 98s' steps}.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#define CHECK_NAME "rtorder"
#include <check.h>
#include <rtstart.h>

static int strict = 1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lm = PTHREAD_MUTEX_INITIALIZER;   /* the logs */
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting, go;
static char log_[4][64];
static int part;

/* Append the caller's priority (or a tag) to the part's log. */
static void note(int v)
{
	pthread_mutex_lock(&lm);
	char *s = log_[part];
	size_t n = strlen(s);
	snprintf(s + n, sizeof log_[0] - n, n ? " %d" : "%d", v);
	pthread_mutex_unlock(&lm);
}

static int my_prio(void)
{
	struct sched_param p;
	int pol;
	CHECK(pthread_getschedparam(pthread_self(), &pol, &p) == 0 && pol == SCHED_FIFO);
	return p.sched_priority;
}

static void set_self(int prio)
{
	struct sched_param p = { prio };
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0);
}

/* Start fn at prio; its priority reads back from the creator too. */
static pthread_t start(void *(*fn)(void *), int prio)
{
	pthread_t t;
	struct sched_param p;
	int pol;
	CHECK(rt_start(&t, fn, prio) == 0);
	CHECK(pthread_getschedparam(t, &pol, &p) == 0 && pol == SCHED_FIFO &&
	      p.sched_priority == prio);
	return t;
}

static void *logger(void *arg)
{
	CHECK(my_prio() == (int)(long)arg);
	note((int)(long)arg);
	return 0;
}

static void ready(void)
{
	static const int pr[] = { 5, 10, 98, 7, 99, 9 };
	pthread_t t[6];
	part = 0;
	set_self(99);
	for (int i = 0; i < 6; i++)
		t[i] = start(logger, pr[i]);
	set_self(1);                     /* all of them outrank main now */
	note(1);
	for (int i = 0; i < 6; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	if (strict)
		CHECK(!strcmp(log_[0], "99 98 10 9 7 5 1"));
	else
		CHECK(strlen(log_[0]) == strlen("99 98 10 9 7 5 1"));
}

/* A condition waiter: counted in, then logged once woken. */
static void *waiter(void *arg)
{
	pthread_mutex_lock(&mu);
	waiting++;
	while (!go)
		pthread_cond_wait(&cv, &mu);
	note((int)(long)arg);
	pthread_mutex_unlock(&mu);
	return 0;
}

static volatile unsigned long sink;

/* The low thread: wake the waiters while it computes; log its own
   priority at each step after the wake (only the first counts). */
static void *waker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	int n = waiting;
	go = 1;
	pthread_mutex_unlock(&mu);
	if (part == 1)
		pthread_cond_broadcast(&cv);
	else
		pthread_cond_signal(&cv);
	note(5);                         /* the next step */
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;                   /* computing: never blocks or yields */
	note(5);
	return (void *)(long)n;
}

static void wake(int which, const int *pr, int n, const char *want)
{
	pthread_t t[8], w;
	part = which;
	waiting = go = 0;
	set_self(99);
	for (int i = 0; i < n; i++)
		t[i] = start(waiter, pr[i]);
	w = start(waker, 5);
	set_self(1);                     /* the waiters block, then the waker runs */
	void *seen;
	CHECK(pthread_join(w, &seen) == 0);
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	if (strict) {
		CHECK((long)seen == n);      /* all were waiting before the wake */
		CHECK(!strcmp(log_[which], want));
	}
}

/* The semaphore's waiters: counted in, then logged as woken. */
static sem_t sem, back;

static void *sem_waiter(void *arg)
{
	__atomic_fetch_add(&waiting, 1, __ATOMIC_SEQ_CST);
	CHECK(sem_wait(&sem) == 0);
	note((int)(long)arg);
	CHECK(sem_post(&back) == 0);
	return 0;
}

static void *poster(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		CHECK(sem_post(&sem) == 0);
		CHECK(sem_wait(&back) == 0);     /* the one woken has logged */
	}
	return 0;
}

static void sem_order(void)
{
	static const int pr[] = { 10, 30, 20 };
	pthread_t t[3], p;
	part = 3;
	waiting = 0;
	CHECK(sem_init(&sem, 0, 0) == 0 && sem_init(&back, 0, 0) == 0);
	set_self(99);
	for (int i = 0; i < 3; i++)
		t[i] = start(sem_waiter, pr[i]);
	set_self(1);                     /* they run and block */
	while (__atomic_load_n(&waiting, __ATOMIC_SEQ_CST) < 3)
		sched_yield();
	for (int i = 0; i < 100; i++)
		sched_yield();           /* (another VP's last one: into its wait) */
	CHECK(rt_start(&p, poster, 50) == 0);
	pthread_join(p, 0);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	if (strict)
		CHECK(!strcmp(log_[3], "30 20 10"));
	else
		CHECK(strlen(log_[3]) == strlen("30 20 10"));
}

#define NHP 4
#define STARVE_LOOPS 20000000ul      /* about 60 ms under -icount: 60 slices */
static volatile int stop, lowran;
static volatile unsigned long spins[NHP];
static int nhp;

static void *high(void *arg)
{
	(void)arg;
	int me = __atomic_fetch_add(&nhp, 1, __ATOMIC_SEQ_CST);
	while (!stop)
		spins[me]++;             /* computing: never blocks or yields */
	return 0;
}

static void *low(void *arg)
{
	(void)arg;
	lowran = 1;
	return 0;
}

static void starve(void)
{
	pthread_t h[NHP], l;
	long ranat = -1;
	set_self(99);
	for (int i = 0; i < NHP; i++)
		h[i] = start(high, 98);
	l = start(low, 1);
	for (unsigned long i = 0; i < STARVE_LOOPS; i++) {
		if (lowran && ranat < 0)
			ranat = (long)i;
		sink += i;
	}
	stop = 1;
	for (int i = 0; i < NHP; i++)
		CHECK(pthread_join(h[i], 0) == 0);
	CHECK(pthread_join(l, 0) == 0);
	CHECK(lowran == 1);
	if (strict)
		CHECK(ranat < 0);
	unsigned long s = 0;
	for (int i = 0; i < NHP; i++)
		s += spins[i];
	printf("@result {\"name\": \"rtorder\", \"checks\": %d, \"failures\": %d, "
	       "\"lowran\": %ld, \"spins\": %lu}\n", checks, failures, ranat, s);
}

int main(int argc, char **argv)
{
	int starving = 0;
	for (int i = 1; i < argc; i++) {
		strict &= !!strcmp(argv[i], "loose");
		starving |= !strcmp(argv[i], "starve");
	}
	if (starving) {
		starve();
		return failures ? 1 : 0;
	}
	ready();
	static const int wpr[] = { 7, 99, 10, 98, 9 };
	wake(1, wpr, 5, "99 98 10 9 7 5 5");
	static const int spr[] = { 10 };
	wake(2, spr, 1, "10 5 5");
	sem_order();
	printf("@result {\"name\": \"rtorder\", \"checks\": %d, \"failures\": %d, "
	       "\"ready\": \"%s\", \"wake\": \"%s\", \"signal\": \"%s\", \"sem\": \"%s\"}\n",
	       checks, failures, log_[0], log_[1], log_[2], log_[3]);
	return failures ? 1 : 0;
}
