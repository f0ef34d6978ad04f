/* pthread_cancel: states and types, the cancellation points, cleanup
   handlers. Each point: a thread blocks in the call, main cancels it;
   the join must give PTHREAD_CANCELED. If the cancel is not acted on
   within 3 s the call is unblocked (so a failure cannot hang). */
#include "conf.h"
#include <fcntl.h>
#include <poll.h>
#include <sys/select.h>

static sem_t ready, sem0;
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int fds[2], cleaned, mutex_in_cleanup, cv_go;
static pthread_t victim;

static void note_clean(void *a)
{
	(void)a;
	cleaned++;
}

static void unlock_in_cleanup(void *a)
{
	/* An error-checking mutex: unlock succeeds only for its owner. */
	mutex_in_cleanup = pthread_mutex_unlock(a) == 0;
	cleaned++;
}

enum { P_SLEEP, P_NANOSLEEP, P_USLEEP, P_CLOCKNS, P_SEMWAIT, P_SEMTIMED,
       P_CONDWAIT, P_CONDTIMED, P_JOIN, P_READ, P_TESTCANCEL, P_SIGWAIT,
       P_POLL, P_SELECT, P_PAUSE, P_SIGSUSPEND, P_SIGTIMEDWAIT, P_WRITE, NPOINTS };
static const char *pname[NPOINTS] = { "sleep", "nanosleep", "usleep", "clock_nanosleep",
	"sem_wait", "sem_timedwait", "cond_wait", "cond_timedwait", "join", "read",
	"testcancel", "sigwait", "poll", "select", "pause", "sigsuspend", "sigtimedwait",
	"write" };

static void *blocker(void *a)
{
	int p = (int)(long)a;
	struct timespec d = { 5, 0 }, abs = conf_after(CLOCK_REALTIME, 5000);
	char c;
	sigset_t s;
	int sig;
	struct pollfd pf = { .fd = fds[0], .events = POLLIN };
	fd_set rs;
	pthread_cleanup_push(note_clean, NULL);
	sem_post(&ready);
	switch (p) {
	case P_SLEEP: sleep(5); break;
	case P_NANOSLEEP: nanosleep(&d, NULL); break;
	case P_USLEEP: usleep(5000000); break;
	case P_CLOCKNS: clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL); break;
	case P_SEMWAIT: sem_wait(&sem0); break;
	case P_SEMTIMED: sem_timedwait(&sem0, &abs); break;
	case P_CONDWAIT:
	case P_CONDTIMED:
		pthread_mutex_lock(&mx);
		pthread_cleanup_push(unlock_in_cleanup, &mx);
		while (!cv_go) {
			if (p == P_CONDWAIT)
				pthread_cond_wait(&cv, &mx);
			else if (pthread_cond_timedwait(&cv, &mx, &abs) == ETIMEDOUT)
				break;
		}
		pthread_cleanup_pop(1);
		break;
	case P_JOIN: pthread_join(victim, NULL); break;
	case P_READ: read(fds[0], &c, 1); break;
	case P_TESTCANCEL:
		while (!cv_go) {
			pthread_testcancel();
			sched_yield();
		}
		break;
	case P_SIGWAIT:
		s = conf_block(SIGUSR2);
		sigwait(&s, &sig);
		break;
	case P_POLL: poll(&pf, 1, 5000); break;
	case P_SELECT:
		FD_ZERO(&rs);
		FD_SET(fds[0], &rs);
		{
			struct timeval tv = { 5, 0 };
			select(fds[0] + 1, &rs, NULL, NULL, &tv);
		}
		break;
	case P_PAUSE: pause(); break;
	case P_SIGSUSPEND:
		sigemptyset(&s);
		sigsuspend(&s);
		break;
	case P_SIGTIMEDWAIT:
		s = conf_block(SIGUSR2);
		sigtimedwait(&s, NULL, &d);
		break;
	case P_WRITE: {
		static char big[4096];
		while (write(fds[1], big, sizeof big) > 0)
			;
		break;
	}
	}
	pthread_cleanup_pop(0);
	return (void *)1L;
}

static void *wait_sem0(void *a)
{
	(void)a;
	sem_wait(&sem0);
	return NULL;
}

/* Wake whatever p waits for, for a cancel that was not acted on. */
static void unblock(int p, pthread_t t)
{
	pthread_mutex_lock(&mx);
	cv_go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mx);
	sem_post(&sem0);
	if (p == P_WRITE) {
		close(fds[0]);   /* the writer gets EPIPE (SIGPIPE ignored) */
		fds[0] = open("/dev/null", O_RDONLY);
		return;
	}
	if (write(fds[1], "x", 1) != 1)
		return;
	if (p == P_SIGWAIT || p == P_PAUSE || p == P_SIGSUSPEND || p == P_SIGTIMEDWAIT)
		pthread_kill(t, SIGUSR2);
}

static int sigusr2_seen;
static void on_usr2(int s)
{
	(void)s;
	sigusr2_seen++;
}

static void one_point(int p)
{
	pthread_t t;
	void *r = NULL;
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&mx, &ma);
	sem_init(&sem0, 0, 0);
	if (pipe(fds))
		fds[0] = fds[1] = -1;
	cleaned = mutex_in_cleanup = cv_go = 0;
	if (p == P_JOIN)
		victim = conf_start(wait_sem0, NULL);
	printf("confpt: cancel %s\n", pname[p]); fflush(stdout);
	t = conf_start(blocker, (void *)(long)p);
	sem_wait(&ready);
	conf_msleep(20);
	EQ(pthread_cancel(t), 0);
	if (conf_join_within(t, &r, 3000)) {
		printf("confpt: not cancelled in 3 s: %s\n", pname[p]); fflush(stdout);
		unblock(p, t);
		pthread_join(t, &r);
	}
	conf_check(r == PTHREAD_CANCELED, pname[p], __LINE__, (long)r);
	conf_check(cleaned >= 1, pname[p], __LINE__, cleaned);
	if (p == P_CONDWAIT || p == P_CONDTIMED)
		conf_check(mutex_in_cleanup, "cond wait's cleanup holds the mutex", __LINE__, 0);
	if (p == P_JOIN) {
		sem_post(&sem0);
		EQ(pthread_join(victim, NULL), 0);   /* still joinable */
	}
	close(fds[0]);
	close(fds[1]);
	pthread_mutex_destroy(&mx);
}

/* Disabled: the cancel stays pending until enabled and a point. */
static volatile int phase;
static void *disabled(void *a)
{
	int old;
	(void)a;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	sem_post(&ready);
	while (phase == 0)
		sched_yield();
	conf_msleep(5);          /* a point, but disabled */
	pthread_testcancel();    /* disabled: no effect */
	phase = 2;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	pthread_testcancel();
	phase = 3;               /* not reached */
	return NULL;
}

static void *async_self(void *a)
{
	int old;
	(void)a;
	pthread_cleanup_push(note_clean, NULL);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	pthread_cancel(pthread_self());
	phase = 9;   /* not reached: asynchronous acts at once */
	pthread_cleanup_pop(0);
	return NULL;
}

/* Deferred: a cancel on a thread that does not reach a point has no
   effect until it does. */
static void *deferred(void *a)
{
	(void)a;
	sem_post(&ready);
	while (phase == 0)
		sched_yield();
	phase = 2;   /* reached: sched_yield is no point */
	pthread_testcancel();
	phase = 3;
	return NULL;
}

static void *states(void *a)
{
	int old = -1, bad = 0;
	(void)a;
	bad |= pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) != 0 || old != PTHREAD_CANCEL_ENABLE;
	bad |= pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) != 0 || old != PTHREAD_CANCEL_DISABLE;
	bad |= pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old) != 0 || old != PTHREAD_CANCEL_DEFERRED;
	bad |= pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) != 0 || old != PTHREAD_CANCEL_ASYNCHRONOUS;
	bad |= (pthread_setcancelstate(12345, &old) != EINVAL) << 1;
	bad |= (pthread_setcanceltype(12345, &old) != EINVAL) << 2;
	return (void *)(long)bad;
}

/* Cancel fn's thread once it is ready, then let it go on (phase 1):
   what its join gives. */
static void *cancelled_later(void *(*fn)(void *))
{
	void *r = NULL;
	phase = 0;
	pthread_t t = conf_start(fn, NULL);
	sem_wait(&ready);
	EQ(pthread_cancel(t), 0);
	phase = 1;
	pthread_join(t, &r);
	return r;
}

void area_cancel(void)
{
	pthread_t t;
	void *r = NULL;
	conf_handle(SIGUSR2, on_usr2, 0);
	signal(SIGPIPE, SIG_IGN);
	sem_init(&ready, 0, 0);
	t = conf_start(states, NULL);
	pthread_join(t, &r);
	EQ((long)r, 0);
	for (int p = 0; p < NPOINTS; p++)
		one_point(p);
	CK(cancelled_later(disabled) == PTHREAD_CANCELED);
	EQ(phase, 2);
	CK(cancelled_later(deferred) == PTHREAD_CANCELED);
	EQ(phase, 2);
	phase = 0;
	cleaned = 0;
	t = conf_start(async_self, NULL);
	pthread_join(t, &r);
	CK(r == PTHREAD_CANCELED);
	EQ(phase, 0);
	EQ(cleaned, 1);
	/* glibc 2.34+: cancelling a thread that has ended but was not
	   joined is 0 (bug 19193), and the join gives its own value. */
	t = conf_start(states, NULL);
	conf_msleep(20);
	EQ(pthread_cancel(t), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 0);
	signal(SIGUSR2, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}
