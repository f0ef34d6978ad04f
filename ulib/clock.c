/* now_ns: a syscall for now; a later TSC + shared-page fast path goes here. */
#include <clock.h>
#include <sys.h>

uint64_t now_ns(void)
{
	return sys_time();
}
