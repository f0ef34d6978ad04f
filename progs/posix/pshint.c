/*
 * pshint [LIMIT] [AREA...]: process-shared waits (ulib/pthread/pshared.c)
 * are interrupted as private ones are (issue 34). Every object lives in
 * MAP_SHARED memory, so each waits on the kernel futex. Areas (default:
 * all, in this order):
 *   other:  sem_wait ends with EINTR after the handler of a SIGUSR1 a
 *           forked child sends;
 *   self:   the same with kill(getpid()) from another thread (which
 *           blocks SIGUSR1, so the waiter must take it);
 *   tkill:  the same with pthread_kill from another thread;
 *   alarm:  the same with the SIGALRM of alarm(1);
 *   mutex:  pthread_mutex_lock of a mutex another thread holds runs the
 *           handler of a pthread_kill inside the wait and goes on: it
 *           returns 0 once the holder unlocks (after the handler ran);
 *   cond:   pthread_cond_wait runs the handler and goes on waiting until
 *           the condition is signalled (after the handler ran);
 *   csem:   pthread_cancel of a thread in sem_wait ends it (join gives
 *           PTHREAD_CANCELED);
 *   ccond:  the same in pthread_cond_wait, its cleanup handler run with
 *           the mutex held.
 * Nothing here depends on the host's speed: every sender sends until the
 * handler has run inside the wait (in_wait set), the cancel comes once
 * the thread has announced its wait. Each area has one fall-back, a
 * watchdog child that after LIMIT ms (default 20000) of guest time ends
 * the waits the normal way (post, unlock, signal) and says so (fell):
 * the area then fails instead of hanging. One @result line: per area
 * ok 0/1, and the counts of checks and failures.
 */
#define CHECK_NAME "pshint"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>
#include <forkaudit.h>
#include <sigcatch.h>

struct shared {
	volatile int in_wait;    /* the waiter is inside the wait under test */
	volatile int ran;        /* handlers run */
	volatile int ran_in;     /* ... of them while in_wait (and, for mutex/cond, not yet released) */
	volatile int released;   /* mutex/cond: the releaser has released */
	volatile int stop;       /* the area is over: senders and the watchdog end */
	volatile int fell;       /* the watchdog ended the wait */
	volatile int cleanup;    /* ccond: the cleanup handler ran holding the mutex */
	volatile int until_out;  /* sem areas: send until sem_wait returned */
	volatile int cflag;      /* cond: the condition */
	sem_t sem;
	pthread_mutex_t mx;
	pthread_cond_t cv;
};
static struct shared *sh;
static long limit = 20000;
static pthread_t waiter;

static void on_sig(int s)
{
	(void)s;
	sh->ran++;
	if (sh->in_wait && !sh->released)
		sh->ran_in++;
}

static void init_objects(void)
{
	memset((void *)sh, 0, sizeof *sh);
	CHECK(sem_init(&sh->sem, 1, 0) == 0);
	pshared_mutex_cond(&sh->mx, &sh->cv);
}

/* The fall-back: a child that ends the waits after `limit` ms. */
static pid_t watchdog(void)
{
	pid_t c = fork();
	if (c)
		return c;
	for (long i = 0; i < limit && !sh->stop; i++)
		usleep(1000);
	if (!sh->stop) {
		sh->fell = 1;
		sh->released = 1;
		sem_post(&sh->sem);
		pthread_mutex_lock(&sh->mx);
		sh->cflag = 1;
		pthread_cond_broadcast(&sh->cv);
		pthread_mutex_unlock(&sh->mx);
	}
	_exit(0);
}

/* Until the handler ran inside the wait (or the watchdog fell back).
   A sem area sends until sem_wait has returned: in_wait is set just
   before the call, so a signal can land (and its handler run) before
   the thread is asleep, as on Linux, and then only a later one ends
   the wait (one CI run of tutor -smp 2 stopped after that early one,
   and the wait went on to the watchdog). */
static int more(void)
{
	if (sh->until_out)
		return sh->in_wait && !sh->fell && !sh->stop;
	return !sh->ran_in && !sh->fell && !sh->stop;
}

static void wait_in_wait(void)
{
	while (!sh->in_wait && !sh->stop)
		usleep(200);
	usleep(2000);                    /* (not needed: the sends repeat) */
}

static void *sender(void *arg)
{
	const char *how = arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, 0);       /* the waiter must take it */
	wait_in_wait();
	while (more()) {
		if (!strcmp(how, "self"))
			kill(getpid(), SIGUSR1);
		else
			pthread_kill(waiter, SIGUSR1);
		usleep(1000);
	}
	return 0;
}

/* mutex and cond: signal the waiter until its handler ran inside the
   wait, then release it. */
static void *releaser(void *arg)
{
	const char *how = arg;
	if (!strcmp(how, "mutex"))
		CHECK(pthread_mutex_lock(&sh->mx) == 0);
	sh->cflag = -1;                  /* (mutex: held now) */
	wait_in_wait();
	while (more()) {
		pthread_kill(waiter, SIGUSR1);
		usleep(1000);
	}
	sh->released = 1;
	if (!strcmp(how, "mutex"))
		CHECK(pthread_mutex_unlock(&sh->mx) == 0);
	else {
		pthread_mutex_lock(&sh->mx);
		sh->cflag = 1;
		pthread_cond_signal(&sh->cv);
		pthread_mutex_unlock(&sh->mx);
	}
	return 0;
}

static void end_area(pid_t wd)
{
	sh->stop = 1;
	int st = -1;
	pid_t r;
	/* (a handler without SA_RESTART may cut the wait: EINTR, as on
	   Linux; the area's sender may still be signalling the process) */
	while ((r = waitpid(wd, &st, 0)) < 0 && errno == EINTR)
		;
	CHECK(r == wd && WIFEXITED(st));
}

/* sem_wait ends with EINTR after a handler: a signal from another
   process, the process itself, another thread or an alarm. */
static int sem_area(const char *how)
{
	init_objects();
	pid_t wd = watchdog(), kid = -1;
	pthread_t th;
	int f0 = failures;
	sh->until_out = 1;
	if (!strcmp(how, "other")) {
		kid = fork();
		if (kid == 0) {
			wait_in_wait();
			while (more()) {
				kill(getppid(), SIGUSR1);
				usleep(1000);
			}
			_exit(0);
		}
	} else if (!strcmp(how, "self") || !strcmp(how, "tkill"))
		CHECK(pthread_create(&th, 0, sender, (void *)how) == 0);
	else
		alarm(1);
	sh->in_wait = 1;
	int r = sem_wait(&sh->sem);
	int e = errno;
	sh->in_wait = 0;
	end_area(wd);
	if (kid > 0)
		CHECK(waitpid(kid, 0, 0) == kid);
	else if (strcmp(how, "alarm"))
		CHECK(pthread_join(th, 0) == 0);
	CHECK(r == -1 && e == EINTR);
	CHECK(sh->ran_in >= 1);
	CHECK(!sh->fell);
	if (failures != f0)
		printf("pshint: %s: r %d errno %d ran %d ran_in %d fell %d\n", how, r, e, sh->ran,
		       sh->ran_in, sh->fell);
	return failures == f0;
}

/* A mutex or condition wait runs the handler and goes on. */
static int lock_area(const char *how)
{
	init_objects();
	pid_t wd = watchdog();
	int f0 = failures, r;
	pthread_t th;
	if (!strcmp(how, "mutex")) {
		CHECK(pthread_create(&th, 0, releaser, (void *)how) == 0);
		while (sh->cflag != -1)
			usleep(200);
		sh->in_wait = 1;
		r = pthread_mutex_lock(&sh->mx);
		sh->in_wait = 0;
		CHECK(r == 0);
		CHECK(pthread_mutex_unlock(&sh->mx) == 0);
	} else {
		CHECK(pthread_mutex_lock(&sh->mx) == 0);
		CHECK(pthread_create(&th, 0, releaser, (void *)how) == 0);
		sh->in_wait = 1;
		r = 0;
		while (sh->cflag != 1 && r == 0)
			r = pthread_cond_wait(&sh->cv, &sh->mx);
		sh->in_wait = 0;
		CHECK(r == 0);
		CHECK(pthread_mutex_unlock(&sh->mx) == 0);
	}
	end_area(wd);
	CHECK(pthread_join(th, 0) == 0);
	CHECK(sh->released);
	CHECK(sh->ran_in >= 1);
	CHECK(!sh->fell);
	if (failures != f0)
		printf("pshint: %s: r %d ran %d ran_in %d fell %d\n", how, r, sh->ran, sh->ran_in, sh->fell);
	return failures == f0;
}

static void unlock_mx(void *arg)
{
	(void)arg;
	sh->cleanup = pthread_mutex_trylock(&sh->mx) == EBUSY && pthread_mutex_unlock(&sh->mx) == 0;
}

static void *cancelled(void *arg)
{
	const char *how = arg;
	if (!strcmp(how, "csem")) {
		sh->in_wait = 1;
		sem_wait(&sh->sem);
		sh->in_wait = 0;
		return 0;
	}
	pthread_mutex_lock(&sh->mx);
	pthread_cleanup_push(unlock_mx, 0);
	sh->in_wait = 1;
	while (!sh->cflag)
		pthread_cond_wait(&sh->cv, &sh->mx);
	sh->in_wait = 0;
	pthread_cleanup_pop(1);
	return 0;
}

/* pthread_cancel of a thread in sem_wait or pthread_cond_wait. */
static int cancel_area(const char *how)
{
	init_objects();
	pid_t wd = watchdog();
	int f0 = failures;
	pthread_t th;
	void *ret = 0;
	CHECK(pthread_create(&th, 0, cancelled, (void *)how) == 0);
	wait_in_wait();
	CHECK(pthread_cancel(th) == 0);
	CHECK(pthread_join(th, &ret) == 0);
	end_area(wd);
	CHECK(ret == PTHREAD_CANCELED);
	CHECK(!sh->fell);
	if (!strcmp(how, "ccond")) {
		CHECK(sh->cleanup);      /* it held the mutex: the unlock succeeded */
		CHECK(pthread_mutex_trylock(&sh->mx) == 0);
		CHECK(pthread_mutex_unlock(&sh->mx) == 0);
	}
	if (failures != f0)
		printf("pshint: %s: ret %p fell %d cleanup %d\n", how, ret, sh->fell, sh->cleanup);
	return failures == f0;
}

static const char *all[] = { "other", "self", "tkill", "alarm", "mutex", "cond", "csem", "ccond" };
#define NAREA (int)(sizeof all / sizeof all[0])

static int run(const char *a)
{
	if (!strcmp(a, "mutex") || !strcmp(a, "cond"))
		return lock_area(a);
	if (!strcmp(a, "csem") || !strcmp(a, "ccond"))
		return cancel_area(a);
	return sem_area(a);
}

int main(int argc, char **argv)
{
	int i = 1;
	if (argc > 1 && atol(argv[1]) > 0)
		limit = atol(argv[i++]);
	sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	waiter = pthread_self();
	CHECK(sig_catch(SIGUSR1, on_sig, 0) == 0);   /* no SA_RESTART: sem_wait ends with EINTR */
	CHECK(sig_catch(SIGALRM, on_sig, 0) == 0);
	sigset_t none;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, 0);   /* (the library now knows this thread's mask) */
	int ok[NAREA];
	for (int k = 0; k < NAREA; k++) {
		ok[k] = -1;
		if (i >= argc)
			ok[k] = run(all[k]);
		for (int j = i; j < argc; j++)
			if (!strcmp(argv[j], all[k]))
				ok[k] = run(all[k]);
	}
	struct result r;
	result_begin(&r, "pshint");
	for (int k = 0; k < NAREA; k++)
		if (ok[k] >= 0)
			result_int(&r, all[k], ok[k]);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
