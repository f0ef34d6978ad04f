/*
 * oncefork: a fork while another thread is inside a pthread_once routine.
 * The child has not got that thread, so (as glibc on Linux, by its fork
 * generation in the once word) its own pthread_once on the object runs
 * the routine itself instead of waiting for good; once run there it is
 * done. Two threads of the child calling it run it once between them; a
 * grandchild finds an object still running in the grandparent the same.
 * An object done before the fork stays done in the child, and the
 * parent's runner finishes as if there had been no fork.
 *
 * Before, the child's pthread_once waited forever (here: its alarm
 * killed it).
 * @result {"name": "oncefork", "checks": N, "failures": F}
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "oncefork"
#include <check.h>

static pthread_once_t busy = PTHREAD_ONCE_INIT, busy2 = PTHREAD_ONCE_INIT,
	done = PTHREAD_ONCE_INIT;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int inside, go;                 /* (m) */
static volatile int runs, slow_runs, done_runs;

/* The parent's routine: says it is in, then waits to be let go. */
static void slow(void)
{
	pthread_mutex_lock(&m);
	inside++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	slow_runs++;
}

static void quick(void) { runs++; }
static void once_done(void) { done_runs++; }

static void *runner(void *o)
{
	pthread_once(o, slow);
	return 0;
}

static void *caller(void *o)
{
	pthread_once(o, quick);
	return 0;
}

/* Run f in a child (its checks' failures are its exit status); a child
   that hangs is ended by its alarm. */
static void in_child(void (*f)(void))
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		alarm(20);
		int before = failures;
		f();
		fflush(stdout);
		_exit(failures - before);
	}
	int st = 0;
	CHECK(c > 0 && waitpid(c, &st, 0) == c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("oncefork: child status %#x\n", st);
}

static void grand(void)
{
	pthread_once(&busy2, quick);       /* (busy ran in its parent) */
	CHECK(runs == 2);
}

static void child(void)
{
	pthread_once(&busy, quick);
	CHECK(runs == 1);
	pthread_once(&busy, quick);        /* done now */
	CHECK(runs == 1);
	pthread_once(&done, once_done);    /* done before the fork */
	CHECK(done_runs == 1);
	in_child(grand);                   /* busy2: two generations back */
	CHECK(runs == 1);
}

static void child_threads(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], 0, caller, (void *)&busy) == 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	CHECK(runs == 1);
	pthread_once(&busy, quick);
	CHECK(runs == 1);
}

int main(void)
{
	pthread_once(&done, once_done);
	CHECK(done_runs == 1);
	pthread_t r1, r2;
	CHECK(pthread_create(&r1, 0, runner, (void *)&busy) == 0);
	CHECK(pthread_create(&r2, 0, runner, (void *)&busy2) == 0);
	pthread_mutex_lock(&m);
	while (inside < 2)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	in_child(child);
	in_child(child_threads);
	pthread_mutex_lock(&m);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	pthread_join(r1, 0);
	pthread_join(r2, 0);
	CHECK(slow_runs == 2 && runs == 0);
	pthread_once(&busy, quick);        /* the parent's: done by its runner */
	CHECK(runs == 0);
	printf("@result {\"name\": \"oncefork\", \"checks\": %d, \"failures\": %d}\n",
	       checks, failures);
	return 0;
}
