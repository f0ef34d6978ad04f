/* demo: what `make run` shows by default -- a greeting from user space. */
#include <stdio.h>
#include <clock.h>
#include <sys.h>

int main(void)
{
	uint64_t t = now_ns();
	printf("Hello from Anima user space: space %ld, cpu %ld of %ld, %llu.%06llu ms since boot\n",
	       sys_getinfo(INFO_SPACE), sys_getinfo(INFO_CPU), sys_getinfo(INFO_NCPU),
	       (unsigned long long)(t / 1000000), (unsigned long long)(t % 1000000));
	return 0;
}
