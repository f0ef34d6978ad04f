/* sysinfo() (<sys/sysinfo.h>): what the kernel can tell, honestly. */
#include <sys/sysinfo.h>
#include <string.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/clock.h>

int sysinfo(struct sysinfo *s)
{
	if (!s) {
		errno = EFAULT;
		return -1;
	}
	memset(s, 0, sizeof *s);
	s->uptime = (long)(now_ns() / 1000000000ULL);
	s->totalram = (unsigned long)sys_getinfo(INFO_MEM_TOTAL);
	s->freeram = (unsigned long)sys_getinfo(INFO_MEM_FREE);
	long n = sys_getinfo(INFO_SPACES_HELD);
	s->procs = (unsigned short)(n > 0 ? (n > 65535 ? 65535 : n) : 1);
	s->mem_unit = 1;
	return 0;
}
