/* sysconf's cache figures (_SC_LEVEL1_DCACHE_LINESIZE & co., glibc's
   names), which programs read to pad per-thread data to a cache line or
   to size blocks. From the CPU, as glibc does: CPUID leaf 4 (the
   deterministic cache parameters, one subleaf per cache), else AMD's
   leaves 0x80000005/6. A cache the CPU does not describe is 0 (glibc's older answer). */
#include <unistd.h>
#include <cpuid.h>

/* level 1..4; type 1 data, 2 instruction, 3 unified; what 0 size, 1
   associativity, 2 line size. */
static long leaf4(int level, int type, int what)
{
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, 0) < 4)
		return 0;
	for (unsigned i = 0; i < 16; i++) {
		__cpuid_count(4, i, a, b, c, d);
		int t = a & 31, l = (a >> 5) & 7;
		if (t == 0)
			break;
		if (l != level || (t != type && !(t == 3 && type != 2)))
			continue;
		long line = (b & 0xfff) + 1, parts = ((b >> 12) & 0x3ff) + 1;
		long ways = ((b >> 22) & 0x3ff) + 1, sets = (long)c + 1;
		return what == 0 ? ways * parts * line * sets : what == 1 ? ways : line;
	}
	return 0;
}

/* AMD: 0x80000005 ECX (L1 data) / EDX (L1 instruction): size KiB in bits
   31-24, ways 23-16, line 7-0; 0x80000006 ECX (L2): KiB 31-16, EDX (L3):
   512 KiB units 31-18; their ways are an encoded field (bits 15-12). */
static long amd(int level, int type, int what)
{
	static const short ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, -1 };
	unsigned a, b, c, d;
	if (__get_cpuid_max(0x80000000, 0) < 0x80000006)
		return 0;
	if (level == 1) {
		__cpuid(0x80000005, a, b, c, d);
		unsigned r = type == 2 ? d : c;
		return what == 0 ? (long)(r >> 24) * 1024 : what == 1 ? (long)((r >> 16) & 0xff) : (long)(r & 0xff);
	}
	__cpuid(0x80000006, a, b, c, d);
	if (level > 3)
		return 0;
	unsigned r = level == 2 ? c : d;
	long size = level == 2 ? (long)(r >> 16) * 1024 : (long)(r >> 18) * 512 * 1024;
	return what == 0 ? size : what == 1 ? ways[(r >> 12) & 15] : (long)(r & 0xff);
}

long __sysconf_cache(int name)
{
	int i = name - _SC_LEVEL1_ICACHE_SIZE;       /* 0..14 */
	int level = i < 3 ? 1 : i < 6 ? 1 : i / 3;
	int type = i < 3 ? 2 : i < 6 ? 1 : 3;
	int what = i % 3;
	long v = leaf4(level, type, what);       /* AMD CPUs may leave it empty */
	return v > 0 ? v : amd(level, type, what);
}
