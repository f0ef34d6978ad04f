/*
 * fsgsattack: user code owns its FS and GS bases (CR4.FSGSBASE is on:
 * wrfsbase/wrgsbase in ring 3, no syscall). Here it points them at the
 * kernel, or at a non-canonical address, and then enters the kernel every
 * way it can. The kernel must never use a user base: every entry swapgs
 * only when it came from ring 3 (syscall.S, vectors.S), it loads each
 * VP's GS from a value it computed (sched.c), and it keeps FS per VP.
 * harness/tests/test_security_entry.py says what must hold.
 *
 *   fsgsattack          (the parent) remembers its own bases, starts a
 *                       bystander space, runs each attack below as a child
 *                       space one after the other, and reports their
 *                       statuses and whether its own bases survived
 *   gs                  GS at a kernel address; VP 1 signals VP 0 (IPIs,
 *                       upcalls) while VP 0 makes syscalls, blocks, spins
 *                       through timer interrupts and re-writes GS each
 *                       round (a VP switch reloads it); then GS back, and
 *                       a result. Killed by a page fault in the upcall
 *                       code (which reads %gs) is allowed; a panic is not
 *   gsuse               GS at a kernel address, then read %gs:0: killed
 *                       by a page fault there
 *   fs                  FS at a kernel address; syscalls, blocking sleeps,
 *                       spins; FS must be kept across VP switches; then
 *                       read %fs:0: killed by a page fault there
 *   fsnc, gsnc          wrfsbase/wrgsbase with a non-canonical address:
 *                       #GP in user mode, killed "general protection"
 *   bystander N         N rounds of syscalls and sleeps, checking its own
 *                       bases and INFO_SPACE each time; exit 0 if all held
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <anima/vp.h>
#include "child.h"

#define KADDR   0xffffffff80000000UL     /* the kernel's half (its image) */
#define NONCANON 0x8000000000000000UL
#define ROUNDS  40
#define MS      1000000UL

static inline uint64_t rdfs(void) { uint64_t v; __asm__ volatile("rdfsbase %0" : "=r"(v)); return v; }
static inline uint64_t rdgs(void) { uint64_t v; __asm__ volatile("rdgsbase %0" : "=r"(v)); return v; }
static inline void wrfs(uint64_t v) { __asm__ volatile("wrfsbase %0" : : "r"(v) : "memory"); }
static inline void wrgs(uint64_t v) { __asm__ volatile("wrgsbase %0" : : "r"(v) : "memory"); }

static int has_fsgsbase(void)
{
	uint32_t a = 7, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b & 1;
}

/* Spin through timer interrupts, touching no %fs or %gs (now_ns reads
   the pseudo page through %gs): about ms ms at a TSC of 1-3 GHz. */
static void spin_ms(uint64_t ms)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	uint64_t end = ((uint64_t)hi << 32 | lo) + ms * 2000000UL, t;
	do {
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		t = (uint64_t)hi << 32 | lo;
	} while (t < end);
}

static volatile int sig_stop;
static char sig_stack[8192] __attribute__((aligned(16)));

static void signaller(long arg) __attribute__((noreturn));
static void signaller(long arg)
{
	(void)arg;
	for (long i = 0; !sig_stop; i++) {
		syscall2(SYS_vp_signal, 0, i);
		sys_sleep(MS / 2);
	}
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* Syscalls, a blocking sleep (a VP switch) and a spin (interrupts) with
   the base at `bad`; counts the syscalls that gave the right answer. */
static long rounds(void (*wr)(uint64_t), uint64_t bad, long me)
{
	long good = 0;
	for (int i = 0; i < ROUNDS; i++) {
		wr(bad);
		good += sys_getinfo(INFO_SPACE) == me;
		good += sys_yield() == 0;
		sys_sleep(MS);
		spin_ms(2);
	}
	return good;
}

static int gs_case(void)
{
	long me = sys_getinfo(INFO_SPACE);
	uint64_t own = rdgs();
	long vp = syscall3(SYS_vp_create, signaller, sig_stack + sizeof sig_stack, 0);
	long good = rounds(wrgs, KADDR, me);
	uint64_t seen = rdgs();      /* K, or our own if a switch just reloaded it */
	wrgs(own);
	sig_stop = 1;
	struct result r;
	result_begin(&r, "fsgsattack");
	result_str(&r, "case", "gs");
	result_int(&r, "vp", vp);
	result_int(&r, "good", good);
	result_int(&r, "rounds", ROUNDS);
	result_bool(&r, "seen_ok", seen == KADDR || seen == own);
	result_end(&r);
	return 0;
}

static int gsuse_case(void)
{
	wrgs(KADDR);
	uint64_t v;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(v));
	return (int)v;               /* not reached: killed */
}

static int fs_case(void)
{
	long me = sys_getinfo(INFO_SPACE);
	long good = rounds(wrfs, KADDR, me);
	long kept = rdfs() == KADDR;
	uint64_t v;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(v));
	(void)v;
	/* not reached: killed; a status that says what was seen otherwise */
	return 10 + (int)kept + 2 * (good == 2 * ROUNDS);
}

static int bystander(long n)
{
	long me = sys_getinfo(INFO_SPACE);
	uint64_t fs = rdfs(), gs = rdgs();
	long bad = 0;
	for (long i = 0; i < n; i++) {
		bad += sys_getinfo(INFO_SPACE) != me;
		bad += rdfs() != fs || rdgs() != gs;
		sys_sleep(MS / 2);
		spin_ms(1);
	}
	return bad ? 1 : 0;
}

static int child(const char *c)
{
	const char *a[] = { "fsgsattack", c };
	return child_run(2, a);
}

static int parent(void)
{
	uint64_t fs = rdfs(), gs = rdgs();
	struct result r;
	result_begin(&r, "fsgsattack");
	result_str(&r, "case", "parent");
	result_bool(&r, "fsgsbase", has_fsgsbase());
	if (!has_fsgsbase()) {
		result_end(&r);
		return 2;
	}
	const char *ba[] = { "fsgsattack", "bystander", "600" };
	long by = sys_spawn("fsgsattack", 3, ba);
	result_int(&r, "gs", child("gs"));
	result_int(&r, "gsuse", child("gsuse"));
	result_int(&r, "fs", child("fs"));
	result_int(&r, "fsnc", child("fsnc"));
	result_int(&r, "gsnc", child("gsnc"));
	result_int(&r, "fsncsw", child("fsncsw"));
	result_int(&r, "bystander", child_status(by));
	result_bool(&r, "own_fs_kept", rdfs() == fs);
	result_bool(&r, "own_gs_kept", rdgs() == gs);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	if (!*c)
		return parent();
	if (!strcmp(c, "gs"))
		return gs_case();
	if (!strcmp(c, "gsuse"))
		return gsuse_case();
	if (!strcmp(c, "fs"))
		return fs_case();
	uint64_t v = 0;
	if (!strcmp(c, "fsnc")) {
		wrfs(NONCANON);
		__asm__ volatile("mov %%fs:0, %0" : "=r"(v));
	} else if (!strcmp(c, "gsnc")) {
		wrgs(NONCANON);
		__asm__ volatile("mov %%gs:0, %0" : "=r"(v));
	} else if (!strcmp(c, "fsncsw")) {
		wrfs(NONCANON);
		sys_sleep(MS);          /* a VP switch: the kernel saves FS */
		spin_ms(20);            /* and interrupts */
		v = rdfs();
		wrfs(0);
		printf("fsgsattack: FS base %#lx after a switch\n", (unsigned long)v);
	} else if (!strcmp(c, "bystander"))
		return bystander(argc > 2 ? atol(argv[2]) : 100);
	else
		printf("fsgsattack: unknown case '%s'\n", c);
	return 2 + (int)(v & 1);
}
