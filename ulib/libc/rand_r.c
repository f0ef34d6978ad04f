/* rand_r: POSIX's reentrant rand, its 32-bit state the caller's: glibc's
   algorithm (three steps of the ANSI C generator, 11 + 10 + 10 bits), so
   per-thread sequences seeded as on Linux come out the same. Alone in
   its file (and weak), so a program with its own rand_r still links. */
#include <stdlib.h>

__attribute__((weak)) int rand_r(unsigned *seed)
{
	unsigned next = *seed;
	next = next * 1103515245U + 12345U;
	int result = (int)((next / 65536) % 2048);
	next = next * 1103515245U + 12345U;
	result = (int)((unsigned)result << 10 ^ (next / 65536) % 1024);
	next = next * 1103515245U + 12345U;
	result = (int)((unsigned)result << 10 ^ (next / 65536) % 1024);
	*seed = next;
	return result;
}
