/*
 * detachloop: a thread creates N detached threads in a tight loop; each
 * does a little work, counts itself and returns; nobody joins. On
 * Linux/glibc the loop never sees EAGAIN: a detached thread's resources
 * come back once it ends. On det=par it got EAGAIN past 255 threads when
 * they were detached by attribute: a create kept its maker's turn until
 * its next other fence, so the whole loop was one turn, none of the
 * children ran (to its end) before it was over, and each held a VP of
 * its own (at most 255 more: MAXVP). pthread_detach is a fence: it ended
 * the turn, and a loop with it never failed.
 * At the end main waits, bounded (sleeps of 1 ms), for every thread
 * created to have run. The count is fenced (check.h's way): under
 * det=par an atomic between synchronizations stays in its thread's view.
 * Arguments: N (default 2000), then words:
 *   attr    all detached by attribute (default: every other one, the
 *           rest by pthread_detach after the create)
 *   detach  all by pthread_detach
 *   join    meanwhile a second thread creates and joins joinable
 *           children until the loop is over (`joins`: how many)
 *   hold=M  the first M children wait on a semaphore main posts after the
 *           loop, all alive at once (past a package's bound, EAGAIN is
 *           right); `hold`: all N
 * @result {"name": "detachloop", "checks": C, "failures": F, "created": N,
 * "eagain": E, "ran": R, "joins": J}
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_NAME "detachloop"
#include <check.h>

#define WAIT_ROUNDS 20000            /* main's bounded wait: 1 ms sleeps */

static int n = 2000, how, hold;      /* how: 0 mixed, 1 attribute, 2 pthread_detach */
static int created, eagain, other, held;
static int ran, done, joins;         /* atomic, read and written fenced */
static sem_t gate;

static void add(int *c)
{
	FENCED_VOID(add(c));
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static int get(int *c)
{
	FENCED(get(c));
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static void *child(void *a)
{
	volatile unsigned long x = (unsigned long)a;
	for (int i = 0; i < 100; i++)    /* a little work */
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	if ((long)a < hold)
		while (sem_wait(&gate) != 0)
			;
	add(&ran);
	return 0;
}

static void *nothing(void *a)
{
	return a;
}

/* The second thread of `join`: create and join until the loop is over. */
static void *joiner(void *a)
{
	(void)a;
	while (!get(&done)) {
		pthread_t t;
		void *r = 0;
		int e = pthread_create(&t, 0, nothing, &joins);
		CHECK(e == 0);
		if (e)
			break;
		CHECK(pthread_join(t, &r) == 0 && r == &joins);
		joins++;
	}
	return 0;
}

static void loop(void)
{
	pthread_attr_t det;
	CHECK(pthread_attr_init(&det) == 0);
	CHECK(pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED) == 0);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		int by_attr = how ? how == 1 : i % 2 == 0;
		int r = pthread_create(&t, by_attr ? &det : 0, child, (void *)(long)i);
		if (r == 0) {
			created++;
			held += i < hold;
			if (!by_attr && pthread_detach(t) != 0)
				other++;
		} else if (r == EAGAIN)
			eagain++;
		else
			other++;
	}
	CHECK(pthread_attr_destroy(&det) == 0);
}

int main(int argc, char **argv)
{
	int join = 0;
	if (argc > 1)
		n = atoi(argv[1]);
	for (int i = 2; i < argc; i++) {
		how = !strcmp(argv[i], "attr") ? 1 : !strcmp(argv[i], "detach") ? 2 : how;
		join |= !strcmp(argv[i], "join");
		if (!strcmp(argv[i], "hold"))
			hold = n;
		if (!strncmp(argv[i], "hold=", 5))
			hold = atoi(argv[i] + 5);
	}
	CHECK(sem_init(&gate, 0, 0) == 0);
	pthread_t j;
	if (join)
		CHECK(pthread_create(&j, 0, joiner, 0) == 0);
	loop();
	add(&done);
	if (join)
		CHECK(pthread_join(j, 0) == 0);
	for (int i = 0; i < held; i++)
		CHECK(sem_post(&gate) == 0);
	int seen = 0;
	for (int w = 0; w < WAIT_ROUNDS && (seen = get(&ran)) < created; w++)
		usleep(1000);
	CHECK(other == 0);
	CHECK(created + eagain == n);
	CHECK(seen == created);
	if (!hold)
		CHECK(eagain == 0);
	printf("@result {\"name\": \"detachloop\", \"checks\": %d, \"failures\": %d, "
	       "\"created\": %d, \"eagain\": %d, \"ran\": %d, \"joins\": %d}\n", checks, failures,
	       created, eagain, seen, joins);
	return failures != 0;
}
