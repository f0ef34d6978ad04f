/*
 * lazytables: page tables made for demand-zero pages count in the quota.
 * A MAP_LAZY region with a latency, touched once per GiB: each touch
 * costs one page and two page tables (a page directory and a page
 * table). The delayed page was taken, and counted, at the fault, but
 * its tables were made when the latency ended, with nothing counted and
 * no reserve kept: with memquota=16 the space used 48 MiB before its
 * "out of memory" kill (4,096 touches), and tables taken at the end of
 * many latencies at once could eat the kernel's reserve. Now the fault
 * makes the tables, charged as SYS_map's are. The kill's address says
 * how many touches it got: harness/tests/test_security_mem.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>

#define GIB (1UL << 30)

int main(void)
{
	uint64_t len = 8192 * GIB;
	long a = syscall4(SYS_map, 0, len, PROT_READ | PROT_WRITE | MAP_LAZY, 1000);
	if (sys_failed(a)) {
		printf("lazytables: map %ld\n", a);
		return 2;
	}
	printf("lazytables: region at %#lx\n", a);
	for (uint64_t off = 0; off < len; off += GIB)
		*(volatile char *)(a + off) = 1;
	return 0;
}
