/* rand_r: POSIX's reentrant rand, its 32-bit state the caller's. Alone in
   its file (and weak), so a program with its own rand_r still links. */
#include <stdlib.h>
#include <rng.h>

__attribute__((weak)) int rand_r(unsigned *seed)
{
	uint64_t s = *seed;
	int r = (int)(rand64(&s) >> 33);
	*seed = (unsigned)s;
	return r;
}
