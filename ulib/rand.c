/* rand/srand: splitmix64 (see rng.h) behind the C interface. */
#include <stdlib.h>
#include <rng.h>

static uint64_t state = 1;

int rand(void)
{
	return (int)(rand64(&state) >> 33);   /* 31 bits: 0..RAND_MAX */
}

void srand(unsigned seed)
{
	state = seed;
}
