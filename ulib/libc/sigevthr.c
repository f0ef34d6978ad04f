/*
 * SIGEV_THREAD's thread: sigev_notify_function(sigev_value) in a new
 * thread, for the library's notifiers (timer.c, aio.c). They run with
 * every signal blocked (service threads and aio's workers), so the new
 * thread empties its mask first: it is as if a new thread of the program.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

struct thread_start {
	void (*fn)(union sigval);
	union sigval v;
};

static void *notify_thread(void *arg)
{
	struct thread_start s = *(struct thread_start *)arg;
	free(arg);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, 0);
	s.fn(s.v);
	return 0;
}

/* Start fn(v) in a thread made with a (detached: the caller's to
   ensure); 0 or pthread_create's error (EAGAIN if out of memory). */
int __sigev_thread(const pthread_attr_t *a, void (*fn)(union sigval), union sigval v);
int __sigev_thread(const pthread_attr_t *a, void (*fn)(union sigval), union sigval v)
{
	struct thread_start *s = malloc(sizeof *s);
	pthread_t th;
	if (!s)
		return EAGAIN;
	*s = (struct thread_start){ fn, v };
	int e = pthread_create(&th, a, notify_thread, s);
	if (e)
		free(s);
	return e;
}
