/*
 * canneal (PARSEC style): place a netlist's elements on a grid to
 * shorten its wires, by simulated annealing. Each element is a 128-byte
 * record (its place, its nets, a move count) in a large array, so the
 * random swaps write pages all over it. Threads pick random pairs and
 * swap their places when the wire length gets shorter or not much
 * longer (a threshold that falls each step); a swap locks both places'
 * stripes (in order), others read places without locks, as PARSEC's
 * does; a barrier ends each step. The check: the places are still a
 * permutation of the grid, the moves counted add up, and the wire
 * length fell.
 */
#include "wl.h"

#define SIDE 256                      /* a SIDE x SIDE grid, times SCALE in rows */
#define FAN 5
#define STEPS 8
#define SWAPS (12u << 10)             /* per thread and step, shared out by T */
#define STRIPES 1024

struct elem {
	int place;                    /* y * SIDE + x */
	int net[FAN];
	long moves;
	char pad[128 - 4 - 4 * FAN - 8];
};

static struct elem *el;
static int n, nthr, threshold;
static pthread_mutex_t stripe[STRIPES];
static pthread_barrier_t bar;

static int dist(int a, int b)
{
	int dx = a % SIDE - b % SIDE, dy = a / SIDE - b / SIDE;
	return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* Wire length of e's nets if e stood at `at`. */
static int cost(int e, int at)
{
	int c = 0;
	for (int k = 0; k < FAN; k++)
		c += dist(at, __atomic_load_n(&el[el[e].net[k]].place, __ATOMIC_RELAXED));
	return c;
}

static long total(void)
{
	long c = 0;
	for (int e = 0; e < n; e++)
		c += cost(e, el[e].place);
	return c;
}

static void swap(int a, int b)
{
	int sa = a % STRIPES, sb = b % STRIPES;
	pthread_mutex_lock(&stripe[sa < sb ? sa : sb]);
	if (sa != sb)
		pthread_mutex_lock(&stripe[sa < sb ? sb : sa]);
	int pa = el[a].place, pb = el[b].place;
	int delta = cost(a, pb) + cost(b, pa) - cost(a, pa) - cost(b, pb);
	if (delta < threshold) {
		__atomic_store_n(&el[a].place, pb, __ATOMIC_RELAXED);
		__atomic_store_n(&el[b].place, pa, __ATOMIC_RELAXED);
		el[a].moves++, el[b].moves++;
	}
	if (sa != sb)
		pthread_mutex_unlock(&stripe[sa < sb ? sb : sa]);
	pthread_mutex_unlock(&stripe[sa < sb ? sa : sb]);
}

static void *anneal(void *arg)
{
	long me = (long)arg;
	uint64_t s = 100 + (uint64_t)me;
	for (int step = 0; step < STEPS; step++) {
		for (unsigned i = 0; i < SWAPS / (unsigned)nthr; i++) {
			uint64_t r = wl_rand(&s);
			int a = (int)(r % (unsigned)n), b = (int)((r >> 32) % (unsigned)n);
			if (a != b)
				swap(a, b);
		}
		if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
			threshold = threshold > 0 ? threshold / 2 : 0;
		pthread_barrier_wait(&bar);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	n = SIDE * SIDE * scale;
	el = wl_alloc((size_t)n * sizeof *el);
	int *perm = wl_alloc((size_t)n * sizeof *perm);
	uint64_t s = 11;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(wl_rand(&s) % (unsigned)(i + 1)), t = perm[i];
		perm[i] = perm[j], perm[j] = t;
	}
	for (int e = 0; e < n; e++) {
		memset(&el[e], 0, sizeof el[e]);
		el[e].place = perm[e];
		for (int k = 0; k < FAN; k++)   /* nets mostly to nearby numbers */
			el[e].net[k] = (int)((e + n + (int)(wl_rand(&s) % 64) - 32) % n);
	}
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&stripe[i], 0);
	pthread_barrier_init(&bar, 0, (unsigned)nthr);
	threshold = 64;
	long before = total();
	uint64_t t0 = wl_now();
	wl_par(nthr, anneal);
	uint64_t ns = wl_now() - t0;
	long after = total(), moves = 0;
	memset(perm, 0, (size_t)n * sizeof *perm);
	int ok = after < before;
	for (int e = 0; e < n; e++) {
		ok &= el[e].place >= 0 && el[e].place < n && !perm[el[e].place]++;
		moves += el[e].moves;
	}
	ok &= moves % 2 == 0;
	char extra[128];
	snprintf(extra, sizeof extra, ", \"elements\": %d, \"cost_before\": %ld, \"cost_after\": %ld, "
		 "\"moves\": %ld", n, before, after, moves);
	return wl_report("canneal", nthr, ns, ok, extra);
}
