/*
 * sleepintr: a timed wait cut short by a handler that another process's
 * signal runs, as on Linux (harness/tests/test_sleepintr.py). For each
 * wait below, a child installs a SIGUSR1 handler without SA_RESTART and
 * waits (WAIT_S seconds, far longer than the test needs); we send it
 * SIGUSR1 every 20 ms from the moment it says it waits until it says the
 * wait is over, so a signal that lands just before the wait cannot make
 * it run to its end. The wait must end with EINTR after the handler ran:
 *   nanosleep (and the time left is more than 0), clock_nanosleep
 *   relative on CLOCK_MONOTONIC and absolute on CLOCK_REALTIME (it
 *   returns EINTR), sem_timedwait, sem_wait, sigtimedwait of another
 *   signal, select with a timeout.
 * A wait that ran to its timeout instead (det, det=par before: the rest
 * of a timed-out wait slept in the kernel went on after the signal) is a
 * failure. Arguments, if any, are the kinds to run (0-6, in the order
 * above). Prints `@result {"name":"sleepintr","checks":N,"failures":F}`.
 */
#define CHECK_NAME "sleepintr"
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>
#include <sigcatch.h>

#define WAIT_S 10
#define NKIND 7

static volatile long *shm;       /* [0] handler runs, [1] waiting, [2] wait over */
static const char *names[NKIND] = {
	"nanosleep", "clock_nanosleep", "clock_nanosleep_abs", "sem_timedwait",
	"sem_wait", "sigtimedwait", "select",
};

static void on_usr1(int sig)
{
	(void)sig;
	__atomic_fetch_add(&shm[0], 1, __ATOMIC_SEQ_CST);
}

/* The wait of kind k: 1 if it ended with EINTR (as it should), 0 if
   not (it timed out, or another error). */
static int wait_kind(int k)
{
	struct timespec ts = { WAIT_S, 0 }, left = { 0, 0 };
	sem_t s;
	sigset_t set;
	int r;
	switch (k) {
	case 0:
		r = nanosleep(&ts, &left);
		return r == -1 && errno == EINTR && (left.tv_sec > 0 || left.tv_nsec > 0);
	case 1:
		return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) == EINTR;
	case 2:
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += WAIT_S;
		return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR;
	case 3:
	case 4:
		sem_init(&s, 0, 0);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += WAIT_S;
		r = k == 3 ? sem_timedwait(&s, &ts) : sem_wait(&s);
		return r == -1 && errno == EINTR;
	case 5:
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		sigprocmask(SIG_BLOCK, &set, NULL);
		r = sigtimedwait(&set, NULL, &ts);
		return r == -1 && errno == EINTR;
	default: {
		struct timeval tv = { WAIT_S, 0 };
		r = select(0, NULL, NULL, NULL, &tv);
		return r == -1 && errno == EINTR;
	}
	}
}

static void one(int k)
{
	shm[0] = shm[1] = shm[2] = 0;
	pid_t c = fork();
	if (c == 0) {
		sig_catch(SIGUSR1, on_usr1, 0);
		shm[1] = 1;
		int ok = wait_kind(k);
		shm[2] = 1;
		_exit(ok ? 0 : 1);
	}
	for (int i = 0; !shm[2] && i < WAIT_S * 50 * 2; i++) {
		if (shm[1] && !shm[2])
			kill(c, SIGUSR1);
		usleep(20000);
	}
	int st = 0;
	CHECK(waitpid(c, &st, 0) == c);
	int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && shm[0] > 0;
	if (!ok)
		printf("sleepintr: %s: status %#x, %ld handler runs: not EINTR\n",
		       names[k], st, shm[0]);
	CHECK(ok);
}

int main(int argc, char **argv)
{
	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (int k = 0; k < NKIND; k++) {
		int want = argc < 2;     /* (arguments: the kinds to run, by number) */
		for (int i = 1; i < argc; i++)
			want |= atoi(argv[i]) == k;
		if (want)
			one(k);
	}
	struct result r;
	result_begin(&r, "sleepintr");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
