/*
 * parkflood: more timed waits in the kernel than it takes at once. NT
 * threads (argv[2], default 1100) each wait once on a semaphore with a
 * deadline DL_MS after its own start (sem_timedwait); once all wait,
 * main posts NT/2 times, and the rest time out. A process-shared
 * semaphore's wait is a kernel futex wait (ulib/pthread/pshared.c
 * fwait); past MAXKOP_SPACE (1,024: kernel/kop.c) the kernel refuses it
 * with -EAGAIN, and the waiter yields and waits again
 * (thread_wait_refused, ulib/rt/thread.c) until its deadline. A private
 * one (argv[1] "priv") parks the thread: on kthread that is
 * thread_park_timed, the timed sleep in the kernel on the park word.
 * Every wait must end right: 0 with a post taken, or ETIMEDOUT not
 * before its deadline; the posts taken plus those left equal the posts
 * made. (How many woke, and not timed out, depends on the host's speed:
 * reported, not checked.) harness/tests/test_parkflood.py.
 * @result {"name": "parkflood", "threads", "got", "timedout", "early",
 *          "left", "checks", "failures"}
 */
#define CHECK_NAME "parkflood"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <animalib/result.h>
#include <check.h>
#include <manythr.h>

#define DL_MS 3000

static sem_t *sem;
static int entered, got, timedout, early, other;

static uint64_t ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

static void *waiter(void *arg)
{
	(void)arg;
	struct timespec dl, now;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += DL_MS / 1000;
	dl.tv_nsec += DL_MS % 1000 * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	__atomic_fetch_add(&entered, 1, __ATOMIC_RELAXED);
	int r;
	while ((r = sem_timedwait(sem, &dl)) != 0 && errno == EINTR)
		;
	int e = r ? errno : 0;
	clock_gettime(CLOCK_REALTIME, &now);
	if (e == 0)
		__atomic_fetch_add(&got, 1, __ATOMIC_RELAXED);
	else if (e == ETIMEDOUT) {
		__atomic_fetch_add(&timedout, 1, __ATOMIC_RELAXED);
		if (ns(&now) < ns(&dl))
			__atomic_fetch_add(&early, 1, __ATOMIC_RELAXED);
	} else
		__atomic_fetch_add(&other, 1, __ATOMIC_RELAXED);
	return 0;
}

int main(int argc, char **argv)
{
	int pshared = !(argc > 1 && strcmp(argv[1], "priv") == 0);
	int nt = argc > 2 ? atoi(argv[2]) : 1100;
	sem = mmap(0, sizeof *sem, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sem != MAP_FAILED);
	CHECK(sem_init(sem, pshared, 0) == 0);
	pthread_t *th;
	int made = manythr(nt, waiter, &th);
	CHECK(made == nt);
	while (__atomic_load_n(&entered, __ATOMIC_RELAXED) < made)
		usleep(2000);
	usleep(20000);                   /* (into their waits) */
	int posts = made / 2;
	for (int i = 0; i < posts; i++)
		CHECK(sem_post(sem) == 0);
	for (int i = 0; i < made; i++)
		pthread_join(th[i], 0);
	int left = -1;
	CHECK(sem_getvalue(sem, &left) == 0);
	CHECK(got + timedout == made);
	CHECK(other == 0);
	CHECK(early == 0);
	CHECK(got + left == posts);
	struct result res;
	result_begin(&res, "parkflood");
	result_int(&res, "threads", made);
	result_int(&res, "got", got);
	result_int(&res, "timedout", timedout);
	result_int(&res, "early", early);
	result_int(&res, "left", left);
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
