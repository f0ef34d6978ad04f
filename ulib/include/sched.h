/*
 * <sched.h>: scheduling policies and priorities for POSIX threads
 * (docs/posix.md). Priorities are Linux's, each a level of the thread
 * interface's (<animart/thread.h>, THREAD_PRIO_MIN..MAX; pt_level in
 * ulib/pthread/pt.h): honored by packages with priorities (prio),
 * kept by the others (where mutex ceilings read them).
 */
#ifndef ULIB_SCHED_H
#define ULIB_SCHED_H

#include <bits/time.h>
#include <sys/types.h>   /* pid_t, as POSIX asks of <sched.h> */

#define SCHED_OTHER 0
#define SCHED_FIFO  1
#define SCHED_RR    2
/* Linux's other policies (glibc names them under _GNU_SOURCE): priority
   0 only, scheduled here as SCHED_OTHER. */
#define __SCHED_BATCH 3
#define __SCHED_IDLE  5
#ifdef _GNU_SOURCE
#define SCHED_BATCH __SCHED_BATCH
#define SCHED_IDLE  __SCHED_IDLE
#endif

struct sched_param {
	int sched_priority;
};

int sched_yield(void);
int sched_get_priority_min(int policy);
int sched_get_priority_max(int policy);

/* The calling thread's (pid 0 or getpid()), as Linux: ulib/posix/psched.c */
int sched_getparam(pid_t pid, struct sched_param *p);
int sched_setparam(pid_t pid, const struct sched_param *p);
int sched_getscheduler(pid_t pid);
int sched_setscheduler(pid_t pid, int policy, const struct sched_param *p);
int sched_rr_get_interval(pid_t pid, struct timespec *ts);

/*
 * Linux's CPU sets (glibc has them under _GNU_SOURCE; here always). VPs
 * are not pinned to CPUs on Anima (the kernel runs a VP wherever it
 * schedules it), so affinity is recorded and reported back, never
 * enforced; sched_getcpu reads the CPU the caller's VP is on now, from
 * the kernel's pseudo-register page (ulib/posix/gnu.c, docs/posix.md).
 */
#define CPU_SETSIZE 1024
typedef struct {
	unsigned long __bits[CPU_SETSIZE / 64];
} cpu_set_t;

#define __CPU_OK(c, sz)  ((unsigned long)(c) / 8 < (sz))
#define __CPU_W(c)       ((c) / 64)
#define __CPU_B(c)       (1UL << ((c) % 64))
#define CPU_ALLOC_SIZE(n) ((((unsigned long)(n) + 63) / 64) * 8)
#define CPU_ALLOC(n)     ((cpu_set_t *)__sched_cpualloc(n))
#define CPU_FREE(s)      __sched_cpufree(s)
#define CPU_ZERO_S(sz, s) __builtin_memset((s), 0, (sz))
#define CPU_SET_S(c, sz, s) \
	(__CPU_OK(c, sz) ? ((s)->__bits[__CPU_W(c)] |= __CPU_B(c)) : 0)
#define CPU_CLR_S(c, sz, s) \
	(__CPU_OK(c, sz) ? ((s)->__bits[__CPU_W(c)] &= ~__CPU_B(c)) : 0)
#define CPU_ISSET_S(c, sz, s) \
	(__CPU_OK(c, sz) ? !!((s)->__bits[__CPU_W(c)] & __CPU_B(c)) : 0)
#define CPU_COUNT_S(sz, s) __sched_cpucount((sz), (s))
#define CPU_EQUAL_S(sz, a, b) (!__builtin_memcmp((a), (b), (sz)))
#define __CPU_OP_S(sz, d, a, b, op) do { \
	for (unsigned long __i = 0; __i < (sz) / 8; __i++) \
		(d)->__bits[__i] = (a)->__bits[__i] op (b)->__bits[__i]; \
} while (0)
#define CPU_AND_S(sz, d, a, b) __CPU_OP_S(sz, d, a, b, &)
#define CPU_OR_S(sz, d, a, b)  __CPU_OP_S(sz, d, a, b, |)
#define CPU_XOR_S(sz, d, a, b) __CPU_OP_S(sz, d, a, b, ^)
#define CPU_ZERO(s)       CPU_ZERO_S(sizeof(cpu_set_t), s)
#define CPU_SET(c, s)     CPU_SET_S(c, sizeof(cpu_set_t), s)
#define CPU_CLR(c, s)     CPU_CLR_S(c, sizeof(cpu_set_t), s)
#define CPU_ISSET(c, s)   CPU_ISSET_S(c, sizeof(cpu_set_t), s)
#define CPU_COUNT(s)      CPU_COUNT_S(sizeof(cpu_set_t), s)
#define CPU_EQUAL(a, b)   CPU_EQUAL_S(sizeof(cpu_set_t), a, b)
#define CPU_AND(d, a, b)  CPU_AND_S(sizeof(cpu_set_t), d, a, b)
#define CPU_OR(d, a, b)   CPU_OR_S(sizeof(cpu_set_t), d, a, b)
#define CPU_XOR(d, a, b)  CPU_XOR_S(sizeof(cpu_set_t), d, a, b)

int __sched_cpucount(unsigned long size, const cpu_set_t *s);
cpu_set_t *__sched_cpualloc(unsigned long n);
void __sched_cpufree(cpu_set_t *s);
int sched_getcpu(void);
/* pid 0 or getpid(): the calling thread; any other: ESRCH */
int sched_setaffinity(int pid, unsigned long size, const cpu_set_t *set);
int sched_getaffinity(int pid, unsigned long size, cpu_set_t *set);

#endif
