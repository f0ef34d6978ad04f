/* rand/srand: splitmix64 (see rng.h) behind the C interface. Its state
   advances by one atomic add, so threads calling rand at once each get a
   distinct number of the one sequence. */
#include <stdlib.h>
#include <rng.h>

static uint64_t state = 1;

int rand(void)
{
	uint64_t s = __atomic_fetch_add(&state, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);
	return (int)(rand64(&s) >> 33);   /* the same number rand64(&state) gives: 31 bits */
}

void srand(unsigned seed)
{
	__atomic_store_n(&state, seed, __ATOMIC_RELAXED);
}

long random(void)
{
	return rand();
}

void srandom(unsigned seed)
{
	srand(seed);
}
