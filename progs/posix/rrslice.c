/*
 * rrslice: SCHED_RR threads of one priority take turns at each time
 * slice; SCHED_FIFO ones do not. Main, at SCHED_FIFO 50, starts two
 * threads at the same priority (10) of one policy and joins them; run
 * on one VP (vps=1) they share it.
 *
 * RR round: each counts as it spins and notes each change of the
 * other's count it sees; it spins until both saw TURNS changes (each saw
 * the other run again and again: round robin), or a fail-safe of
 * GIVEUP_S seconds of the boot clock (not a timing: a turn needs one
 * slice, 1 ms).
 * FIFO round: each spins FIFO_MS ms of the boot clock (many slices) and
 * notes whether the other's count moved meanwhile, then yields: the
 * first runs until it yields, so neither sees the other move.
 * sched_rr_get_interval reports the slice (rr_ns) a SCHED_RR thread gets.
 * Prints @result {"name":"rrslice","rr_turns":[a,b],"rr_gaveup":..,
 * "fifo_moved":[a,b],"rr_ns":..,"rr_ms":..} (rr_ms: the RR round's
 * boot-clock ms, about one slice a turn)
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#define TURNS 3
#define GIVEUP_S 5
#define FIFO_MS 20

static volatile unsigned long cnt[2];
static volatile int turns[2], done[2], moved[2], gaveup, fifo;
static long rr_ns = -1, rr_ms;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *spin(void *arg)
{
	int me = (int)(long)arg, other = !me;
	unsigned long last = cnt[other];
	long start = now_ms();
	if (!me && !fifo) {
		struct timespec iv;
		if (sched_rr_get_interval(0, &iv) == 0)
			rr_ns = iv.tv_sec * 1000000000L + iv.tv_nsec;
	}
	for (unsigned long i = 1;; i++) {
		cnt[me]++;
		if (cnt[other] != last) {
			last = cnt[other];
			moved[me] = 1;
			if (++turns[me] >= TURNS)
				done[me] = 1;
		}
		if (!fifo && done[0] && done[1])
			break;
		if (i % 1024 == 0) {
			long ms = now_ms() - start;
			if (fifo && ms >= FIFO_MS)
				break;
			if (!fifo && ms >= GIVEUP_S * 1000) {
				gaveup = 1;
				break;
			}
		}
	}
	if (fifo)
		sched_yield();
	return 0;
}

static void round_of(int policy)
{
	pthread_t t[2];
	pthread_attr_t a;
	struct sched_param p = { .sched_priority = 10 };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, policy);
	pthread_attr_setschedparam(&a, &p);
	fifo = policy == SCHED_FIFO;
	cnt[0] = cnt[1] = 0;
	for (int i = 0; i < 2; i++)
		turns[i] = done[i] = moved[i] = 0;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], &a, spin, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
}

int main(void)
{
	struct sched_param p = { .sched_priority = 50 };
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
	long t0 = now_ms();
	round_of(SCHED_RR);
	rr_ms = now_ms() - t0;        /* the slices the turns took (about 1 a turn) */
	int rt0 = turns[0], rt1 = turns[1];
	round_of(SCHED_FIFO);
	printf("@result {\"name\":\"rrslice\",\"rr_turns\":[%d,%d],\"rr_gaveup\":%d,"
	       "\"fifo_moved\":[%d,%d],\"rr_ns\":%ld,\"rr_ms\":%ld}\n",
	       rt0, rt1, gaveup, moved[0], moved[1], rr_ns, rr_ms);
	return 0;
}
