/*
 * fpkeep VPS: fifo threads keep their SSE and x87 registers when they
 * are interrupted. A thread's saved FPU state is only the part of the
 * FXSAVE image the processor defines (FPU_IMAGE, <animart/upcall.h>),
 * copied out of and back into the VP page's image at each interrupt and
 * resume; this checks every register that part holds. Three threads per
 * VP each load all 16 XMM registers, all 8 x87 registers and MXCSR with
 * values of their own, spin with nothing else running on them (fifo's
 * 1 ms time slices interrupt them), and compare. Repeated until every
 * thread has been interrupted mid-spin twice (its nivcsw grew during a
 * spin): a thread that has goes on spinning until all have, so each VP
 * keeps three threads to slice between (a thread left alone on its VP
 * was never switched out, and the count fell short on a busy host).
 *
 * @result {"name": "fpkeep", "threads", "interrupted": spins that were
 *          interrupted, "bad": registers found changed, "ok"}
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <animart/thread.h>
#include <animalib/result.h>
#include <fifo/fifo.h>

#define PER_VP 3
#define ROUNDS 400               /* at most, each thread */
#define HITS 2                   /* interrupted spins wanted of each */

static long interrupted, bad;
static int nvps, ndone;      /* threads that have had HITS */
static int min_hit = 1 << 30;

/* Load, spin `n` times, store: 0 if every register came back. */
static int spin_regs(uint64_t seed, long n)
{
	uint64_t x[16][2] __attribute__((aligned(16))), y[16][2] __attribute__((aligned(16)));
	int64_t si[8], so[8];
	for (int r = 0; r < 16; r++) {
		x[r][0] = seed * 1000003 + (uint64_t)r;
		x[r][1] = ~x[r][0];
	}
	for (int r = 0; r < 8; r++)
		si[r] = (int64_t)(seed * 7919) - r;
	uint32_t mi = 0x1f80 | (uint32_t)(seed % 4) << 13, mo, dflt = 0x1f80;   /* rounding mode */
	__asm__ volatile(
		"ldmxcsr %[mi]\n\t"
		"movdqa 0(%[x]), %%xmm0\n\t"    "movdqa 16(%[x]), %%xmm1\n\t"
		"movdqa 32(%[x]), %%xmm2\n\t"   "movdqa 48(%[x]), %%xmm3\n\t"
		"movdqa 64(%[x]), %%xmm4\n\t"   "movdqa 80(%[x]), %%xmm5\n\t"
		"movdqa 96(%[x]), %%xmm6\n\t"   "movdqa 112(%[x]), %%xmm7\n\t"
		"movdqa 128(%[x]), %%xmm8\n\t"  "movdqa 144(%[x]), %%xmm9\n\t"
		"movdqa 160(%[x]), %%xmm10\n\t" "movdqa 176(%[x]), %%xmm11\n\t"
		"movdqa 192(%[x]), %%xmm12\n\t" "movdqa 208(%[x]), %%xmm13\n\t"
		"movdqa 224(%[x]), %%xmm14\n\t" "movdqa 240(%[x]), %%xmm15\n\t"
		"fildq 0(%[si])\n\t"  "fildq 8(%[si])\n\t"  "fildq 16(%[si])\n\t" "fildq 24(%[si])\n\t"
		"fildq 32(%[si])\n\t" "fildq 40(%[si])\n\t" "fildq 48(%[si])\n\t" "fildq 56(%[si])\n\t"
		"1: dec %[n]\n\t"
		"jnz 1b\n\t"
		"movdqa %%xmm0, 0(%[y])\n\t"    "movdqa %%xmm1, 16(%[y])\n\t"
		"movdqa %%xmm2, 32(%[y])\n\t"   "movdqa %%xmm3, 48(%[y])\n\t"
		"movdqa %%xmm4, 64(%[y])\n\t"   "movdqa %%xmm5, 80(%[y])\n\t"
		"movdqa %%xmm6, 96(%[y])\n\t"   "movdqa %%xmm7, 112(%[y])\n\t"
		"movdqa %%xmm8, 128(%[y])\n\t"  "movdqa %%xmm9, 144(%[y])\n\t"
		"movdqa %%xmm10, 160(%[y])\n\t" "movdqa %%xmm11, 176(%[y])\n\t"
		"movdqa %%xmm12, 192(%[y])\n\t" "movdqa %%xmm13, 208(%[y])\n\t"
		"movdqa %%xmm14, 224(%[y])\n\t" "movdqa %%xmm15, 240(%[y])\n\t"
		"fistpq 0(%[so])\n\t"  "fistpq 8(%[so])\n\t"  "fistpq 16(%[so])\n\t" "fistpq 24(%[so])\n\t"
		"fistpq 32(%[so])\n\t" "fistpq 40(%[so])\n\t" "fistpq 48(%[so])\n\t" "fistpq 56(%[so])\n\t"
		"stmxcsr %[mo]\n\t"
		"ldmxcsr %[dflt]"
		: [n] "+r"(n), [mo] "=m"(mo)
		: [x] "r"(x), [y] "r"(y), [si] "r"(si), [so] "r"(so), [mi] "m"(mi), [dflt] "m"(dflt)
		: "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	int wrong = (mo & ~0x3fu) != mi;     /* (the exception flags may be set) */
	for (int r = 0; r < 16; r++)
		wrong += y[r][0] != x[r][0] || y[r][1] != x[r][1];
	for (int r = 0; r < 8; r++)
		wrong += so[r] != si[7 - r];
	return wrong;
}

static void *worker(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg;
	struct thread *self = thread_self();
	int hit = 0, n = PER_VP * nvps;
	for (int i = 0; i < ROUNDS && __atomic_load_n(&ndone, __ATOMIC_RELAXED) < n; i++) {
		uint64_t before = self->nivcsw;
		int w = spin_regs(seed * 64 + (uint64_t)i, 2000000);
		if (self->nivcsw != before && ++hit == HITS)
			__atomic_fetch_add(&ndone, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&bad, w, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&interrupted, hit, __ATOMIC_RELAXED);
	for (int m = __atomic_load_n(&min_hit, __ATOMIC_RELAXED); hit < m; )
		if (__atomic_compare_exchange_n(&min_hit, &m, hit, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	return (void *)(intptr_t)hit;
}

static void *main_fn(void *arg)
{
	(void)arg;
	int n = PER_VP * nvps, all = 1;
	struct thread *t[PER_VP * 16];
	for (int i = 0; i < n; i++)
		t[i] = fifo_pkg.create(worker, (void *)(uintptr_t)(i + 1), 0);
	for (int i = 0; i < n; i++)
		all &= t[i] && (intptr_t)thread_join(t[i]) > 0;
	int ok = all && bad == 0;
	struct result r;
	result_begin(&r, "fpkeep");
	result_int(&r, "threads", n);
	result_int(&r, "interrupted", interrupted);
	result_int(&r, "min_hit", min_hit);
	result_int(&r, "bad", bad);
	result_bool(&r, "ok", ok);
	result_end(&r);
	return (void *)(intptr_t)!ok;
}

int main(int argc, char **argv)
{
	nvps = argc > 1 ? atoi(argv[1]) : 1;
	if (nvps < 1 || nvps > 16) {
		printf("usage: fpkeep [VPS 1..16]\n");
		return 2;
	}
	fifo_pkg.run(nvps, main_fn, 0);
}
