/*
 * detpoll: main polls for a flag a second thread sets, through calls
 * that never block: on det (a token that moves only at the program's
 * synchronization) the second thread never got the token, and the
 * poll never ended, where glibc on Linux finishes. Each of these calls
 * is now a turn (threadpkgs/det/det.c's det_turn: the token moves on
 * after a logical time slice of them).
 *
 * One round per kind; the worker sets the flag the kind's way:
 *   mutex      lock; read the flag; unlock   (the worker: under the lock)
 *   trylock    trylock; read the flag; unlock (likewise)
 *   signal     pthread_cond_signal with nobody waiting; read the flag
 *   broadcast  pthread_cond_broadcast likewise
 *   rdlock     rdlock; read the flag; unlock (the worker: under wrlock)
 *   barrier    a barrier of one; read the flag
 *   once       pthread_once on a fresh once object; read the flag (the
 *              Open POSIX suite's pthread_once 6-1 loops on it)
 *   spin       pthread_spin_trylock; read the flag; pthread_spin_unlock
 *              (the worker: under pthread_spin_lock)
 * A poll that goes on for MAX_POLLS is a failure (before: a hang; a
 * bound on the clock would read it in the loop, and det=par's clock
 * reads are turns of their own). Arguments: the kinds to run (default all).
 * @result {"name": "detpoll", "checks": N, "failures": F, "rounds": R,
 * "polls": "KIND:COUNT,..."}: on det the counts are the same every run.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CHECK_NAME "detpoll"
#include <check.h>

#define MAX_POLLS 2000000L   /* far past a 10 ms time slice of polls */

enum { MUTEX, TRYLOCK, SIGNAL, BROADCAST, RDLOCK, BARRIER, ONCE, SPIN, NKIND };
static const char *names[NKIND] = { "mutex", "trylock", "signal", "broadcast",
				    "rdlock", "barrier", "once", "spin" };

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t one;
static pthread_spinlock_t sp;
static int flag;                         /* plain under mx and rw, else atomic */

static void *setter(void *a)
{
	int kind = (int)(long)a;
	if (kind == MUTEX || kind == TRYLOCK) {
		pthread_mutex_lock(&mx);
		flag = 1;
		pthread_mutex_unlock(&mx);
	} else if (kind == RDLOCK) {
		pthread_rwlock_wrlock(&rw);
		flag = 1;
		pthread_rwlock_unlock(&rw);
	} else if (kind == SPIN) {
		pthread_spin_lock(&sp);
		flag = 1;
		pthread_spin_unlock(&sp);
	} else
		__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	return 0;
}

static void nothing(void)
{
}

static int look(int kind)
{
	pthread_once_t fresh = PTHREAD_ONCE_INIT;
	int f = 0;
	switch (kind) {
	case MUTEX:
		CHECK(pthread_mutex_lock(&mx) == 0);
		f = flag;
		CHECK(pthread_mutex_unlock(&mx) == 0);
		break;
	case TRYLOCK:
		if (pthread_mutex_trylock(&mx) == 0) {
			f = flag;
			CHECK(pthread_mutex_unlock(&mx) == 0);
		}
		break;
	case SIGNAL:
		CHECK(pthread_cond_signal(&cv) == 0);
		f = __atomic_load_n(&flag, __ATOMIC_ACQUIRE);
		break;
	case BROADCAST:
		CHECK(pthread_cond_broadcast(&cv) == 0);
		f = __atomic_load_n(&flag, __ATOMIC_ACQUIRE);
		break;
	case RDLOCK:
		CHECK(pthread_rwlock_rdlock(&rw) == 0);
		f = flag;
		CHECK(pthread_rwlock_unlock(&rw) == 0);
		break;
	case BARRIER:
		pthread_barrier_wait(&one);
		f = __atomic_load_n(&flag, __ATOMIC_ACQUIRE);
		break;
	case ONCE:
		CHECK(pthread_once(&fresh, nothing) == 0);
		f = __atomic_load_n(&flag, __ATOMIC_ACQUIRE);
		break;
	case SPIN:
		if (pthread_spin_trylock(&sp) == 0) {
			f = flag;
			CHECK(pthread_spin_unlock(&sp) == 0);
		}
		break;
	}
	return f;
}

int main(int argc, char **argv)
{
	int rounds = 0;
	char polls[256] = "";
	CHECK(pthread_barrier_init(&one, 0, 1) == 0);
	CHECK(pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE) == 0);
	for (int k = 0; k < NKIND; k++) {
		int want = argc < 2;
		for (int i = 1; i < argc; i++)
			if (!strcmp(argv[i], names[k]))
				want = 1;
		if (!want)
			continue;
		pthread_t w;
		long n = 0;
		int seen = 0;
		flag = 0;
		CHECK(pthread_create(&w, 0, setter, (void *)(long)k) == 0);
		while (!(seen = look(k)) && n < MAX_POLLS)
			n++;
		CHECK(seen);
		if (!seen)
			printf("detpoll %s: the flag never came (%ld polls)\n", names[k], n);
		CHECK(pthread_join(w, 0) == 0);
		snprintf(polls + strlen(polls), sizeof polls - strlen(polls), "%s%s:%ld",
			 rounds ? "," : "", names[k], n);
		rounds++;
	}
	printf("@result {\"name\": \"detpoll\", \"checks\": %d, \"failures\": %d, "
	       "\"rounds\": %d, \"polls\": \"%s\"}\n", checks, failures, rounds, polls);
	return failures != 0;
}
