/*
 * flagsattack: user code sets RFLAGS bits that would mislead the kernel
 * if they reached it (harness/tests/test_security_entry.py::
 * test_user_rflags_never_reach_the_kernel).
 *
 *  - DF (direction): the kernel copies user memory with `rep movsb`;
 *    with DF set it would copy downwards, from the kernel's stack into
 *    the bytes below the user's buffer. `syscall` clears it through
 *    MSR_FMASK and the entry code runs `cld`. Each syscall here is made
 *    with DF set (only around the instruction: compiled C assumes it
 *    clear): seg_info's copyout must fill exactly its 16 bytes, cputs's
 *    copyin must print the line as given, and DF must be set again after.
 *    (QEMU's TCG clears DF on `syscall` whatever FMASK says, so only
 *    hardware tests that path.) An interrupt or exception gate leaves DF
 *    as it was, and the kernel zeroes pages with `rep stos`: with DF set
 *    a demand-zero fault would zero the page below the new one and leave
 *    the new one's old contents (another space's, or the freed-frame
 *    poison) for the user to read. So it touches 64 fresh demand-zero
 *    pages with DF set, then checks each reads as zeros but for the byte
 *    it wrote (the allocator hands out frames in address order, so a
 *    page zeroed downwards wipes the one before); and it spins with DF
 *    set through timer interrupts (event copies, context switches).
 *  - NT (nested task): iretq with NT set is #GP in 64-bit mode. The CPU
 *    clears it on an interrupt gate and FMASK on `syscall`, but RFLAGS
 *    flows through the kernel's context switches (swtch saves none), so
 *    an NT that got in would reach the iretq that starts another VP. The
 *    program runs with NT set through yields, sleeps, VP creation (the
 *    new VPs start through iretq), timer interrupts while it spins, a
 *    demand-zero fault and signals, and checks NT is still set after each.
 *
 * @result {"name": "flagsattack", "df_calls": N, "df_bad": B, "nt_checks": N,
 *          "nt_lost": L, "vps": V} and exit 0 iff nothing went wrong.
 */
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animalib/result.h>

#define DF (1UL << 10)
#define NT (1UL << 14)
#define GUARD 0x5a5a5a5a5a5a5a5aUL

static uint64_t flags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static void set_nt(void)
{
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(NT) : "memory", "cc");
}

/* A two-argument syscall made with DF set; *after gets RFLAGS right
   after it, before DF is cleared again. */
static long df_syscall2(long n, long a, long b, uint64_t *after)
{
	long r = n;
	uint64_t f;
	__asm__ volatile("std; syscall; pushfq; popq %1; cld"
			 : "+a"(r), "=r"(f) : "D"(a), "S"(b) : "rcx", "r11", "memory", "cc");
	*after = f;
	return r;
}

/* Write one byte at p with DF set (the write faults in a demand-zero
   page); RFLAGS after it. */
static uint64_t df_touch(volatile char *p)
{
	uint64_t f;
	__asm__ volatile("std; movb $1, (%1); pushfq; popq %0; cld" : "=r"(f) : "r"(p) : "memory", "cc");
	return f;
}

/* Spin with DF set until the TSC passes `until`. */
static uint64_t df_spin(uint64_t until)
{
	uint64_t f;
	__asm__ volatile("std\n"
			 "1: rdtsc; shlq $32, %%rdx; orq %%rdx, %%rax; cmpq %1, %%rax; jb 1b\n"
			 "pushfq; popq %0; cld"
			 : "=r"(f) : "r"(until) : "rax", "rdx", "memory", "cc");
	return f;
}

#define NLAZY 64

static int df_calls, df_bad, nt_checks, nt_lost;
static volatile int started;

static void check_nt(const char *where)
{
	nt_checks++;
	if (!(flags() & NT)) {
		nt_lost++;
		printf("flagsattack: NT lost after %s\n", where);
		set_nt();
	}
}

static void df_check(const char *what, int ok, uint64_t after)
{
	df_calls++;
	if (!ok || !(after & DF)) {
		df_bad++;
		printf("flagsattack: %s with DF set: %s\n", what, ok ? "DF not restored" : "wrong result");
	}
}

static void little_vp(long arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
	syscall0(SYS_vp_exit);
}

static char vstack[4][8192] __attribute__((aligned(16)));

int main(void)
{
	uint64_t after;
	/* DF: a copyout of 16 bytes between two guard words */
	long seg = seg_create(3 * 4096);
	struct { uint64_t lo, out[2], hi; } box = { GUARD, { GUARD, GUARD }, GUARD };
	for (int i = 0; i < 50; i++) {
		box.out[0] = box.out[1] = GUARD;
		long r = df_syscall2(SYS_seg_info, seg, (long)box.out, &after);
		df_check("seg_info", r > 0 && box.lo == GUARD && box.hi == GUARD &&
			 box.out[0] == 3 * 4096 && box.out[1] == SEG_ALL, after);
	}
	static const char line[] = "flagsattack: a line copied in with DF set\n";
	for (int i = 0; i < 3; i++) {
		long r = df_syscall2(SYS_cputs, (long)line, sizeof line - 1, &after);
		df_check("cputs", r == (long)sizeof line - 1, after);
	}
	for (int i = 0; i < 20; i++) {
		long r = df_syscall2(SYS_yield, 0, 0, &after);
		df_check("yield", r == 0, after);
	}

	/* DF through the exception path: fresh demand-zero pages, all
	   touched first (the allocator hands out frames in address order, so
	   a page zeroed downwards wipes the one before), then checked */
	char *lz = sys_map(0, NLAZY * 4096, PROT_READ | PROT_WRITE | MAP_LAZY);
	uint64_t afters[NLAZY];
	for (int i = 0; !sys_failed((long)lz) && i < NLAZY; i++)
		afters[i] = df_touch(lz + i * 4096 + 2048);
	for (int i = 0; !sys_failed((long)lz) && i < NLAZY; i++) {
		int zero = 1;
		for (int j = 0; j < 4096; j++)
			if (j != 2048 && lz[i * 4096 + j])
				zero = 0;
		df_check("demand-zero fault", zero && lz[i * 4096 + 2048] == 1, afters[i]);
	}
	/* and through timer interrupts: 30 ms of spinning with DF set */
	uint64_t hz = sys_getinfo(INFO_TSC_HZ), t;
	__asm__ volatile("rdtsc; shlq $32, %%rdx; orq %%rdx, %%rax" : "=a"(t) : : "rdx");
	after = df_spin(t + hz * 30 / 1000);
	df_check("spin", 1, after);

	/* NT: through every way in and out of the kernel */
	set_nt();
	check_nt("set");
	for (int i = 0; i < 20; i++)
		sys_yield();
	check_nt("yields");
	for (int i = 0; i < 5; i++)
		sys_sleep(1000000);
	check_nt("sleeps");
	int vps = 0;
	for (int i = 0; i < 4; i++) {
		if (syscall3(SYS_vp_create, (long)little_vp, (long)(vstack[i] + sizeof vstack[i]), i) >= 0)
			vps++;
		sys_yield();
	}
	for (int i = 0; i < 1000 && started < vps; i++)
		sys_yield();
	check_nt("VP creation");
	uint64_t t0 = sys_time();
	while (sys_time() - t0 < 30000000)           /* 30 ms: timer interrupts */
		;
	check_nt("timer interrupts");
	volatile char *lazy = sys_map(0, 4096, PROT_READ | PROT_WRITE | MAP_LAZY);
	if (!sys_failed((long)lazy))
		lazy[0] = 1;                          /* a demand-zero fault */
	check_nt("a page fault");
	for (int i = 0; i < 5; i++)
		syscall2(SYS_vp_signal, 0, i);        /* queued for a classic VP */
	check_nt("signals");

	struct result r;
	result_begin(&r, "flagsattack");
	result_int(&r, "df_calls", df_calls);
	result_int(&r, "df_bad", df_bad);
	result_int(&r, "nt_checks", nt_checks);
	result_int(&r, "nt_lost", nt_lost);
	result_int(&r, "vps", started);
	result_end(&r);
	return df_bad || nt_lost || started != 4;
}
