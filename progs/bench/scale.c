/*
 * scale MODE N STACK [VPS]: many live fifo threads in one space (μThread
 * reached 3.4 x 10^5).
 *
 *   MODE   count: create exactly N threads (fail if any cannot be made)
 *          max:   create threads until fifo cannot make another (memory is
 *                 out) or N exist, whichever comes first
 *   N      threads (count), or the most to try (max)
 *   STACK  each thread's stack in bytes (fifo_stack_size); a fifo thread
 *          needs little of its own, since upcalls and the scheduler run
 *          on the VP's upcall stack. 4080 (+16 bytes of malloc header =
 *          one 4 KiB size class) is the default; 2032 fits a 2 KiB class
 *   VPS    fifo VPs, 0 = one per CPU (default 1)
 *
 * Every thread counts itself in and blocks on one semaphore. Once all
 * are blocked the first thread reads the kernel's free-memory count,
 * posts the semaphore once per thread (each post hands the unit straight
 * to a waiter and wakes it) and joins them all. Times, from now_ns()
 * (guest ns: instructions under -icount, else TCG wall clock):
 *   create_ns   creating the threads and running each until it blocks
 *   wake_ns     posting, and joining every thread (each runs to its end)
 * Memory: bytes_per_thread = (free physical memory before the first
 * create - free memory with all threads blocked) / threads: descriptor,
 * stack, malloc's slabs and their page tables, the program's 8-byte
 * pointer to the thread, as the kernel counts its pages (SYS_getinfo
 * INFO_MEM_FREE).
 * Where those bytes go, the sizes the program can know (one thread's):
 *   desc_bytes         its descriptor (struct uthread, carved at its
 *                      exact size: ulib/rt/desc.c)
 *   stack_block_bytes  the malloc block holding its stack and TLS block
 *   tls_bytes          of which its TLS block and TCB (0: no TLS)
 *   malloc_bytes       of which malloc's header and size-class rounding
 *   pointer_bytes      the program's pointer to it
 *   user_bytes         the sum: desc + stack block + pointer
 *   other_bytes        bytes_per_thread - user_bytes: the page tables
 *                      that map them (a fifo thread has no kernel object
 *                      of its own: this is the kernel's share, about
 *                      1/512 of the rest), the unused tails of the slabs
 *                      they came from, and of the last chunk of pointers
 *
 * Output, one line:
 *   count: @result {"name": "scale.fifo", "package": "fifo",
 *            "unit": "seconds", "value": (create_ns + wake_ns)/threads/1e9,
 *            "threads", "ns_per_thread", "create_ns_per_thread",
 *            "wake_ns_per_thread", "bytes_per_thread", the breakdown's
 *            fields, "stack", "vps", "mem_free_before", "mem_free_peak",
 *            "stack_used_below_wait", "ok": true|false}
 *   max:   the same fields under "name": "scale.fifo.max", but
 *            "unit": "threads", "value": the count that fitted, also as
 *            "max_threads", plus "limit": N and "stopped": "memory" or
 *            "limit" (what ended the creating)
 * stack_used_below_wait: the most stack any thread's blocking used below
 * its own frame (painted and checked; half the stack, at most 1 KiB, is
 * watched). ok: every thread was made (count), blocked, woken and
 * joined, and no blocking reached the end of the watched part. Exit
 * status 0 iff ok.
 *
 * Defaults (seconds under TCG):
 *   python3 -m harness run scale count 100000 4080 --mem 4G
 *   python3 -m harness run memquota=4096 run=scale,max,4000000,2032 --mem 4G --timeout 300
 *          (the 4 GiB figure. memquota: the one space may use all the
 *          RAM, not the default quota of 3/4 of it; the kernel's reserve,
 *          1/64 of it, still stays free)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <animart/vprt.h>
#include <animart/tls.h>
#include <animart/sys.h>
#include <animart/sync.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <fifo/fifo.h>
#include "apppkg.h"

static int maxmode, nvps;
static long limit;
static struct sem go;
static long arrived;                /* threads that reached the semaphore */
static long finished;               /* threads past it */

/* The threads, in chunks allocated as the count grows (8 bytes a thread,
   charged to the threads like everything else). */
#define CHUNK  65536
#define CHUNKS 1024
static struct thread **chunk[CHUNKS];
#define T(i) chunk[(i) / CHUNK][(i) % CHUNK]

#define MALLOC_HDR 16               /* ulib/libc/malloc.c's block header */

/* One thread's bytes as the program can know them (see the top). */
struct share {
	uint64_t desc, block, tls, malloc, ptr;
};

static struct share share_of(struct thread *t, uint64_t stack)
{
	struct uthread *u = t->pkg;
	struct share s = {.desc = RT_DESC_SIZE, .tls = tls_area(), .ptr = sizeof(struct thread *)};
	s.block = malloc_usable_size(u->stack) + MALLOC_HDR;
	s.malloc = s.block - stack - s.tls;
	return s;
}

static long probe;                 /* bytes watched below a sleeper's frame:
				       half the stack, at most 1 KiB */
static long deepest;                /* most of them that blocking overwrote */

/*
 * A thread: count in, block on the semaphore, finish. Small stacks have
 * no guard page, so each sleeper also checks how deep blocking went: it
 * paints `probe` bytes below its own stack pointer (64-bit words, so the
 * check costs little next to creating the thread), blocks, and finds the
 * lowest word overwritten meanwhile. Overwriting all of them means
 * blocking came close to the end of the watched part of the stack.
 */
#define PAINT 0xa5a5a5a5a5a5a5a5UL
static void *sleeper(void *arg)
{
	(void)arg;
	uintptr_t sp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	long words = probe / 8;
	volatile uint64_t *lo = (volatile uint64_t *)((sp - (uintptr_t)probe) & ~7UL);
	for (long i = 0; i < words - 2; i++)
		lo[i] = PAINT;
	__atomic_fetch_add(&arrived, 1, __ATOMIC_RELAXED);
	usem_wait(&go);
	long i = 0;
	while (i < words - 2 && lo[i] == PAINT)
		i++;
	long used = (words - i) * 8;
	long d = __atomic_load_n(&deepest, __ATOMIC_RELAXED);
	while (used > d && !__atomic_compare_exchange_n(&deepest, &d, used, 0,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *main_fn(void *arg)
{
	/* Small stacks for the sleepers only: this thread keeps fifo's
	   default (it formats the report on its stack). */
	uint64_t main_stack = fifo_stack_size;
	fifo_stack_size = (uint64_t)(uintptr_t)arg;
	probe = (long)fifo_stack_size / 2 < 1024 ? (long)fifo_stack_size / 2 : 1024;
	usem_init(&go, 0);
	uint64_t mem0 = (uint64_t)sys_getinfo(INFO_MEM_FREE);
	uint64_t t0 = now_ns();
	long n = 0;
	for (; n < limit; n++) {
		if (n % CHUNK == 0 && !(chunk[n / CHUNK] = malloc(sizeof(struct thread *) * CHUNK)))
			break;
		if (!(T(n) = fifo_pkg.create(sleeper, 0, 0)))
			break;
	}
	/* Let them all run to the semaphore. */
	while (__atomic_load_n(&arrived, __ATOMIC_RELAXED) < n)
		thread_yield();
	uint64_t t1 = now_ns();
	uint64_t mem1 = (uint64_t)sys_getinfo(INFO_MEM_FREE);
	struct share sh = n ? share_of(T(0), (fifo_stack_size + 15) & ~15UL) : (struct share){0};
	for (long i = 0; i < n; i++)
		usem_post(&go);
	for (long i = 0; i < n; i++)
		thread_join(T(i));
	uint64_t t2 = now_ns();
	uint64_t stack = fifo_stack_size;
	fifo_stack_size = main_stack;

	int ok = n > 0 && finished == n && (maxmode || n == limit) && deepest < probe;
	if (!maxmode && n < limit)
		printf("scale: only %ld of %ld threads could be created\n", n, limit);
	double per = n ? (double)(t2 - t0) / (double)n : 0;
	struct result rr;
	result_begin(&rr, maxmode ? "scale.fifo.max" : "scale.fifo");
	result_str(&rr, "package", "fifo");
	if (maxmode) {
		result_str(&rr, "unit", "threads");
		result_int(&rr, "value", n);
		result_int(&rr, "max_threads", n);
		result_int(&rr, "limit", limit);
		result_str(&rr, "stopped", n < limit ? "memory" : "limit");
	} else {
		result_str(&rr, "unit", "seconds");
		result_double(&rr, "value", per / 1e9);
	}
	result_int(&rr, "threads", n);
	result_double(&rr, "ns_per_thread", per);
	result_double(&rr, "create_ns_per_thread", n ? (double)(t1 - t0) / (double)n : 0);
	result_double(&rr, "wake_ns_per_thread", n ? (double)(t2 - t1) / (double)n : 0);
	double bytes = n ? (double)(mem0 - mem1) / (double)n : 0;
	uint64_t user = sh.desc + sh.block + sh.ptr;
	result_double(&rr, "bytes_per_thread", bytes);
	result_uint(&rr, "desc_bytes", sh.desc);
	result_uint(&rr, "stack_block_bytes", sh.block);
	result_uint(&rr, "tls_bytes", sh.tls);
	result_uint(&rr, "malloc_bytes", sh.malloc);
	result_uint(&rr, "pointer_bytes", sh.ptr);
	result_uint(&rr, "user_bytes", user);
	result_double(&rr, "other_bytes", bytes - (double)user);
	result_uint(&rr, "stack", stack);
	result_int(&rr, "stack_used_below_wait", deepest);
	result_int(&rr, "vps", nvps);
	result_uint(&rr, "mem_free_before", mem0);
	result_uint(&rr, "mem_free_peak", mem1);
	result_bool(&rr, "ok", ok);
	result_end(&rr);
	return (void *)(intptr_t)(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		printf("usage: scale count|max N STACK [VPS]\n");
		return 2;
	}
	maxmode = !strcmp(argv[1], "max");
	limit = atol(argv[2]);
	long stack = atol(argv[3]);
	nvps = argc > 4 ? app_vps(argv[4]) : 1;
	if ((!maxmode && strcmp(argv[1], "count")) || limit < 1 || limit > (long)CHUNK * CHUNKS
	    || stack < 512) {
		printf("scale: bad arguments (MODE count or max, 1 <= N <= 2^26, STACK >= 512)\n");
		return 2;
	}
	fifo_pkg.run(nvps, main_fn, (void *)stack);
}
