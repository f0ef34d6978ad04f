/*
 * Fences: a package that runs threads in isolated views (det=par,
 * threadpkgs/det/par.c) installs __fence_hook, and then every operation
 * that shares state outside the program's data (a synchronization of the
 * POSIX layer, malloc and its kin, the console's writers, rand, the libc's
 * file, pipe, fork and clock calls) becomes a
 * serial operation: __fence_hook(1) waits for the caller's turn in a
 * deterministic order and commits its view; the operation runs; then
 * __fence_hook(0) commits what it wrote and lets the next thread's turn
 * come. Without a hook (every other package) the cost is one load.
 *
 * FENCED(f(args)) at the top of such a function f calls f again inside
 * the fence and returns its value; __fence_hook(1) is 0 for a call made
 * inside an operation already (so the inner call goes on as usual), for
 * a thread of another package, and outside threads. Serial det installs
 * one too, which declines all but FENCED_SYNC's calls (below).
 */
#ifndef ANIMART_FENCE_H
#define ANIMART_FENCE_H
#include <stddef.h>
#include <anima/vp.h>

extern int (*__fence_hook)(int enter);
int __fence_enter(void);             /* __fence_hook(1), out of line */
int __fence_sync(void);              /* __fence_hook(FENCE_SYNC) */
void __fence_exit(void);             /* __fence_hook(0) */

/* <pthread.h>'s inline mutex paths compare-and-swap from these (0 and 1)
   where they would from constants: the same instructions, and det and det=par
   set both to -1, which no mutex holds, so every lock and unlock goes
   to the library's, a serial operation. */
extern int __fence_mx_free, __fence_mx_held;

/* A package's own heap (det=par's per-thread arenas, threadpkgs/det/
   heap.c), which malloc and its kin ask before they fence: alloc serves
   n bytes aligned to align (1; *out 0 when out of memory) or declines
   (0: the library's lists serve, fenced); size is p's room if p is the
   heap's, else FENCE_NOT_MINE; free takes one of the heap's. Set once,
   never cleared, so its blocks are freed there to the end. */
#define FENCE_NOT_MINE ((size_t)-1)
struct fence_heap {
	int (*alloc)(size_t n, size_t align, void **out);
	size_t (*size)(void *p);
	void (*free)(void *p);
};
extern const struct fence_heap *__fence_heap;

/* Serial det's hook takes FENCED_SYNC's calls alone: FENCED's do not
   call it (malloc's, stdio's: a call and a decline each, 3% of revindex). */
extern int __fence_sync_only;

/* (Only a compare on the fast path: the hook is called out of line.) */
#define FENCED(call) do {                                                      \
	if (__builtin_expect(__fence_hook != 0, 0) && !__fence_sync_only &&    \
	    __fence_enter()) {                                                 \
		__typeof__(call) fenced_r_ = (call);                           \
		__fence_exit();                                                \
		return fenced_r_;                                              \
	}                                                                      \
} while (0)

/* FENCED for a synchronization that never blocks the caller where it is
   uncontended (a mutex unlock or trylock, a condition's signal or
   broadcast, a rwlock's unlock or try, a barrier, sem_post): the hook
   sees FENCE_SYNC, where det=par fences as FENCED does, and serial det,
   whose hook declines every other call, fences these alone, its exit a
   turn (threadpkgs/det/det.c, det_fence): a thread that polls through
   them lets the others run. The same one load on every other package.
   On serial det most of these turns are quiet (fence_quiet, below): the
   call goes on unfenced, counted. */
#define FENCE_SYNC 2
#define FENCED_SYNC_(call, quiet) do {                                         \
	if (__builtin_expect(__fence_hook != 0, 0) && !(quiet) &&              \
	    __fence_sync()) {                                                  \
		__typeof__(call) fenced_r_ = (call);                           \
		__fence_exit();                                                \
		return fenced_r_;                                              \
	}                                                                      \
} while (0)
#define FENCED_SYNC(call) FENCED_SYNC_(call, fence_quiet())
/* A barrier's: it may block, and its turn is at its end (never quiet:
   a turn counted before the wait would tick logical time elsewhere). */
#define FENCED_SYNC_WAIT(call) FENCED_SYNC_(call, 0)

/* Quiet turns (serial det, threadpkgs/det/det.c's det_turn): after a
   turn that did not move the token, det works out how many more turns in
   a row cannot move it either (its time slice, a timed wait's deadline)
   and lets the holder, __fence_quiet_by, take that many without the
   hook, counting __fence_quiet_left down; det adds the ones taken to its
   logical time at its next call. An uncontended unlock is then a few
   instructions, not a trip through the hook (canneal: 200,000 of them).
   The count is one read-modify-write instruction, which no upcall
   splits: a turn interrupted between the look and the count is counted
   after (left may go below 0: a turn det has yet to count). Not with
   software interrupts off (det_turn does nothing there). 0 (no turn
   taken: call the hook) on every other package and det=par, where
   __fence_quiet_left stays 0. */
extern void *__fence_quiet_by;
extern long __fence_quiet_left;
static inline int fence_quiet(void)
{
	unsigned off;
	void *self;
	if (__atomic_load_n(&__fence_quiet_left, __ATOMIC_RELAXED) <= 0)
		return 0;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(off) : "i"(GS_VPPAGE + VPP_DISABLED));
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(self) : "i"(GS_VPPAGE + VPP_CURRENT));
	if (off || self != __atomic_load_n(&__fence_quiet_by, __ATOMIC_RELAXED))
		return 0;
	__asm__ volatile("decq %0" : "+m"(__fence_quiet_left) : : "memory");
	return 1;
}

#define FENCED_VOID(call) do {                                                 \
	if (__builtin_expect(__fence_hook != 0, 0) && !__fence_sync_only &&    \
	    __fence_enter()) {                                                 \
		call;                                                          \
		__fence_exit();                                                \
		return;                                                        \
	}                                                                      \
} while (0)

#endif
