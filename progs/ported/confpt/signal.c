/* Signals with threads: sigaction, sigset ops, pthread_sigmask,
   pthread_kill (EINVAL; 0 for a thread that ended unjoined, as glibc
   2.34+ gives), raise, sigqueue with sigwaitinfo/sigtimedwait/sigwait. */
#include "conf.h"

#define NOPID 32000

static volatile int hits, last_sig;
static void on_sig(int s)
{
	hits++;
	last_sig = s;
}

static void sets(void)
{
	sigset_t s;
	EQ(sigemptyset(&s), 0);
	EQ(sigismember(&s, SIGUSR1), 0);
	EQ(sigaddset(&s, SIGUSR1), 0);
	EQ(sigismember(&s, SIGUSR1), 1);
	EQ(sigdelset(&s, SIGUSR1), 0);
	EQ(sigismember(&s, SIGUSR1), 0);
	EQ(sigfillset(&s), 0);
	EQ(sigismember(&s, SIGRTMAX), 1);
	ERRNO(sigaddset(&s, 0), EINVAL);
	ERRNO(sigaddset(&s, 12345), EINVAL);
	ERRNO(sigismember(&s, 12345), EINVAL);
	CK(SIGRTMAX - SIGRTMIN >= 7);
}

static void actions(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	EQ(sigaction(SIGUSR1, NULL, &old), 0);
	CK(old.sa_handler == on_sig);
	ERRNO(sigaction(SIGKILL, &sa, NULL), EINVAL);
	ERRNO(sigaction(SIGSTOP, &sa, NULL), EINVAL);
	ERRNO(sigaction(0, &sa, NULL), EINVAL);
	ERRNO(sigaction(12345, &sa, NULL), EINVAL);
	EQ(sigaction(SIGKILL, NULL, &old), 0);   /* reading is allowed */
	hits = 0;
	EQ(raise(SIGUSR1), 0);
	EQ(hits, 1);   /* ran before raise returned */
	EQ(last_sig, SIGUSR1);
	EQ(kill(getpid(), 0), 0);
	ERRNO(kill(getpid(), 12345), EINVAL);
	ERRNO(kill(NOPID, 0), ESRCH);
	/* SIG_IGN: nothing happens. */
	signal(SIGUSR2, SIG_IGN);
	EQ(raise(SIGUSR2), 0);
	signal(SIGUSR2, SIG_DFL);
}

static void masks(void)
{
	sigset_t s, o, p;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	EQ(pthread_sigmask(12345, &s, NULL), EINVAL);
	EQ(pthread_sigmask(SIG_BLOCK, &s, &o), 0);
	EQ(sigismember(&o, SIGUSR1), 0);
	EQ(pthread_sigmask(SIG_BLOCK, NULL, &o), 0);
	EQ(sigismember(&o, SIGUSR1), 1);
	hits = 0;
	raise(SIGUSR1);
	EQ(hits, 0);   /* blocked: pending */
	EQ(sigpending(&p), 0);
	EQ(sigismember(&p, SIGUSR1), 1);
	EQ(pthread_sigmask(SIG_UNBLOCK, &s, NULL), 0);
	EQ(hits, 1);   /* delivered on unblock */
	sigpending(&p);
	EQ(sigismember(&p, SIGUSR1), 0);
	/* SIGKILL and SIGSTOP cannot be blocked: silently left out. */
	sigemptyset(&s);
	sigaddset(&s, SIGKILL);
	sigaddset(&s, SIGSTOP);
	EQ(pthread_sigmask(SIG_BLOCK, &s, NULL), 0);
	pthread_sigmask(SIG_BLOCK, NULL, &o);
	EQ(sigismember(&o, SIGKILL), 0);
	EQ(sigismember(&o, SIGSTOP), 0);
	/* SIG_SETMASK, then back. */
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	EQ(pthread_sigmask(SIG_SETMASK, &s, &o), 0);
	pthread_sigmask(SIG_BLOCK, NULL, &p);
	EQ(sigismember(&p, SIGUSR2), 1);
	EQ(sigprocmask(SIG_SETMASK, &o, NULL), 0);
	pthread_sigmask(SIG_BLOCK, NULL, &p);
	EQ(sigismember(&p, SIGUSR2), 0);
}

/* A thread's mask is its own; a new thread inherits its creator's. */
static void *report_mask(void *a)
{
	sigset_t m;
	(void)a;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	return (void *)(long)sigismember(&m, SIGUSR2);
}

static sem_t ready, go;
static volatile int th_hits;
static void on_th(int s)
{
	(void)s;
	th_hits++;
}

static void *wait_for_go(void *a)
{
	(void)a;
	sem_post(&ready);
	while (sem_wait(&go) == -1 && errno == EINTR)
		;
	return (void *)(long)th_hits;
}

static void *ends_at_once(void *a)
{
	return a;
}

static void threads(void)
{
	sigset_t s;
	void *r = NULL;
	s = conf_block(SIGUSR2);
	pthread_join(conf_start(report_mask, NULL), &r);
	EQ((long)r, 1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	pthread_join(conf_start(report_mask, NULL), &r);
	EQ((long)r, 0);
	/* pthread_kill reaches the thread named, which runs the handler. */
	conf_handle(SIGUSR2, on_th, 0);
	sem_init(&ready, 0, 0);
	sem_init(&go, 0, 0);
	th_hits = 0;
	pthread_t t = conf_start(wait_for_go, NULL);
	sem_wait(&ready);
	EQ(pthread_kill(t, 0), 0);
	EQ(pthread_kill(t, 12345), EINVAL);
	EQ(pthread_kill(t, SIGUSR2), 0);
	conf_msleep(30);
	sem_post(&go);
	pthread_join(t, &r);
	EQ((long)r, 1);
	signal(SIGUSR2, SIG_DFL);
	/* Ended, not joined: glibc 2.34+ gives 0 (bug 19193). */
	t = conf_start(ends_at_once, NULL);
	conf_msleep(20);
	EQ(pthread_kill(t, 0), 0);
	EQ(pthread_join(t, NULL), 0);
}

static void *sigwait_usr1(void *a)
{
	sigset_t s;
	int sig = 0;
	(void)a;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigwait(&s, &sig);
	return (void *)(long)sig;
}

/* Queued signals taken synchronously. */
static void waits(void)
{
	sigset_t s;
	siginfo_t si;
	struct timespec z = { 0, 0 };
	int sig = 0;
	union sigval v;
	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	ERRNO(sigtimedwait(&s, &si, &z), EAGAIN);
	z.tv_nsec = 1000000000;
	ERRNO(sigtimedwait(&s, &si, &z), EINVAL);
	z.tv_nsec = 0;
	v.sival_int = 11;
	EQ(sigqueue(getpid(), SIGRTMIN, v), 0);
	v.sival_int = 12;
	EQ(sigqueue(getpid(), SIGRTMIN, v), 0);
	memset(&si, 0, sizeof si);
	EQ(sigwaitinfo(&s, &si), SIGRTMIN);
	EQ(si.si_signo, SIGRTMIN);
	EQ(si.si_code, SI_QUEUE);
	EQ(si.si_value.sival_int, 11);
	EQ(si.si_pid, getpid());
	EQ(sigtimedwait(&s, &si, &z), SIGRTMIN);
	EQ(si.si_value.sival_int, 12);
	ERRNO(sigtimedwait(&s, &si, &z), EAGAIN);
	ERRNO(sigqueue(getpid(), 12345, v), EINVAL);
	ERRNO(sigqueue(NOPID, SIGRTMIN, v), ESRCH);
	EQ(sigqueue(getpid(), 0, v), 0);   /* a check only */
	raise(SIGUSR1);
	EQ(sigwait(&s, &sig), 0);
	EQ(sig, SIGUSR1);
	/* A process-directed signal, blocked everywhere: a thread's sigwait
	   takes it. */
	pthread_t t = conf_start(sigwait_usr1, NULL);
	conf_msleep(20);
	EQ(kill(getpid(), SIGUSR1), 0);
	void *r = NULL;
	if (conf_join_within(t, &r, 3000)) {
		pthread_kill(t, SIGUSR1);
		pthread_join(t, &r);
	}
	EQ((long)r, SIGUSR1);
	/* A timed wait that times out. */
	struct timespec t0 = conf_now(), d = { 0, 30000000 };
	ERRNO(sigtimedwait(&s, &si, &d), EAGAIN);
	CK(conf_ms_since(&t0) >= 29);
	/* Lower real-time signals come first. */
	v.sival_int = 1;
	sigaddset(&s, SIGRTMIN + 1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	sigqueue(getpid(), SIGRTMIN + 1, v);
	sigqueue(getpid(), SIGRTMIN, v);
	EQ(sigtimedwait(&s, &si, &z), SIGRTMIN);
	EQ(sigtimedwait(&s, &si, &z), SIGRTMIN + 1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

void area_signal(void)
{
	sets();
	actions();
	masks();
	threads();
	waits();
}

/* Handlers that run in a blocked thread: sem_wait ends with EINTR
   without SA_RESTART and goes on with it (Linux, signal(7)), a join and
   a mutex lock go on;
   a signal the thread blocks stays pending for it alone. */
static sem_t never, started;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static volatile int eintr_hits;
static void on_eintr(int s)
{
	(void)s;
	eintr_hits++;
}

static void *sem_waiter(void *a)
{
	(void)a;
	sem_post(&started);
	int r = sem_wait(&never);
	return (void *)(long)(r == -1 ? errno : 0);
}

static void *lock_waiter(void *a)
{
	(void)a;
	sem_post(&started);
	int r = pthread_mutex_lock(&held);
	pthread_mutex_unlock(&held);
	return (void *)(long)r;
}

static void *join_waiter(void *a)
{
	sem_post(&started);
	return (void *)(long)pthread_join(*(pthread_t *)a, NULL);
}

static void *blocks_usr1(void *a)
{
	sigset_t p, s = conf_block(SIGUSR1);
	(void)a;
	sem_post(&started);
	while (sem_wait(&never) == -1 && errno == EINTR)
		;
	sigpending(&p);
	int mine = sigismember(&p, SIGUSR1);
	int sig = 0;
	sigwait(&s, &sig);
	return (void *)(long)(mine * 10 + (sig == SIGUSR1));
}

/* Start fn(a), which posts started before it waits, and send it
   SIGUSR2 once it waits. */
static pthread_t kicked(void *(*fn)(void *), void *a)
{
	pthread_t t = conf_start(fn, a);
	sem_wait(&started);
	conf_msleep(20);
	pthread_kill(t, SIGUSR2);
	return t;
}

/* After the handler ran in t, let_go() ends its wait: t's value. */
static long went_on(pthread_t t, void (*let_go)(void))
{
	void *r = NULL;
	conf_msleep(20);
	let_go();
	pthread_join(t, &r);
	return (long)r;
}

static void post_never(void)
{
	sem_post(&never);
}

static void unlock_held(void)
{
	pthread_mutex_unlock(&held);
}

void area_sigwait(void)
{
	void *r = NULL;
	sigset_t p;
	conf_handle(SIGUSR2, on_eintr, 0);   /* no SA_RESTART: sem_wait fails */
	sem_init(&never, 0, 0);
	sem_init(&started, 0, 0);
	eintr_hits = 0;
	pthread_t t = kicked(sem_waiter, NULL);
	if (conf_join_within(t, &r, 3000)) {
		sem_post(&never);
		pthread_join(t, &r);
	}
	EQ((long)r, EINTR);
	EQ(eintr_hits, 1);
	/* SA_RESTART: Linux restarts sem_wait (signal(7)); it goes on. */
	conf_handle(SIGUSR2, on_eintr, SA_RESTART);
	EQ(went_on(kicked(sem_waiter, NULL), post_never), 0);
	EQ(eintr_hits, 2);
	/* mutex lock: the handler runs, the lock is taken after. */
	pthread_mutex_lock(&held);
	EQ(went_on(kicked(lock_waiter, NULL), unlock_held), 0);
	EQ(eintr_hits, 3);
	/* join: goes on after the handler. */
	pthread_t inner = conf_start(sem_waiter, NULL);
	sem_wait(&started);
	EQ(went_on(kicked(join_waiter, &inner), post_never), 0);
	EQ(eintr_hits, 4);
	/* Pending for the thread that blocks it, not for main. */
	t = conf_start(blocks_usr1, NULL);
	sem_wait(&started);
	EQ(pthread_kill(t, SIGUSR1), 0);
	sigpending(&p);
	EQ(sigismember(&p, SIGUSR1), 0);
	conf_msleep(10);
	sem_post(&never);
	pthread_join(t, &r);
	EQ((long)r, 11);
	signal(SIGUSR2, SIG_DFL);
}
