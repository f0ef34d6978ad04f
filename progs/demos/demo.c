/*
 * demo: what `make run` shows by default -- a greeting from user space,
 * then a few of the benchmark figures, measured live: the null syscall
 * here, and each thread package's microbenchmarks by starting
 * `pkgbench PKG demo` (threadpkgs/pkgbench.h) for every package, one after
 * another, which prints its own table row.
 *
 * `demo icount` (what `make run` boots, on one CPU under QEMU's -icount
 * shift=0) says its figures are guest instructions: there, 1 ns of guest
 * time is one instruction, so they are exact and repeatable on any host.
 * Plain `demo` says they are wall-clock ns under QEMU's emulation, which
 * move with the host's load. `make bench` measures everything properly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/clock.h>
#include <animart/sys.h>
#include <animart/pkg.h>

#define NULLS 2000

/* The cheapest of NULLS null syscalls, in ns (the minimum: a timer
   interrupt or a host hiccup only ever adds). */
static double null_syscall_ns(void)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < NULLS; i++) {
		uint64_t t0 = rdtsc();
		sys_null();
		uint64_t t = rdtsc() - t0;
		if (t < best)
			best = t;
	}
	return best * 1e9 / (double)sys_getinfo(INFO_TSC_HZ);
}

/* Run `pkgbench PKG demo` and wait for it; 0 if it cannot start. */
static int bench_row(const char *pkg)
{
	const char *argv[] = { "pkgbench", pkg, "demo" };
	long id = sys_spawn("pkgbench", 3, argv);
	if (id < 0)
		return 0;
	int status;
	sys_wait((int)id, &status);
	return 1;
}

int main(int argc, char **argv)
{
	int icount = argc > 1 && !strcmp(argv[1], "icount");
	uint64_t t = now_ns();
	printf("Hello from Anima user space: space %ld, cpu %ld of %ld, %llu.%06llu ms since boot\n",
	       sys_getinfo(INFO_SPACE), sys_getinfo(INFO_CPU), sys_getinfo(INFO_NCPU),
	       (unsigned long long)(t / 1000000), (unsigned long long)(t % 1000000));

	const char *unit = icount ? "instructions" : "ns";
	if (icount)
		printf("\nMeasured just now, in guest instructions (QEMU -icount: 1 ns = 1 instruction,\n"
		       "the same on every host; `make bench` for the full figures):\n");
	else
		printf("\nMeasured just now, in wall-clock ns under QEMU's emulation (they move with the\n"
		       "host's load; `make run` uses icount instructions instead; `make bench` for the real figures):\n");
	printf("  null syscall: %.0f %s\n", null_syscall_ns(), unit);
	printf("  package         yield  create+join      mutex  signal-wait   (%s per operation, one VP)\n", unit);
	for (const struct pkg *const *p = pkg_all; *p; p++)
		bench_row((*p)->name);
	return 0;
}
