/*
 * Self-tests of processes (forkfd, kpipe, pipeattack, shmcoh, pshm,
 * fkey): a child's exit status as one number, a body run in a forked
 * child with the memory it leaves behind measured (and reported as the
 * program's @result), and the process-shared objects of a shared page
 * set up. Include after check.h (the body's report names CHECK_NAME and
 * counts its checks).
 */
#ifndef PROGS_FORKAUDIT_H
#define PROGS_FORKAUDIT_H

#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <pthread.h>
#include <avail.h>
#include <animart/sys.h>
#include <animalib/result.h>

/* Child p's status once it has ended: its exit status, or 128 + the
   signal that ended it (a shell's $?); -1 if p is no child to wait for. */
static inline int fork_status(pid_t p)
{
	int st = -1;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The caller's first blocking waitpid (a poll with thread-level sleeps:
   ulib/libc/proc.c) sets up what the runtime keeps for sleeping (64 KiB
   and a page, on fifo). Made once, with a child that makes it wait, so
   a figure taken after it counts only what later children leave. */
static inline void fork_warm(void)
{
	pid_t w = fork();
	if (w == 0) {
		usleep(20000);
		_exit(0);
	}
	waitpid(w, 0, 0);
	/* ... and a blocking sleep of our own, which the waitpid did not
	   make if the child had ended first (a loaded host: test_kpipe's
	   avail_lost 65,536 in 1 of 15 runs beside two busy loops) */
	sys_sleep(2000000);
}

/* Available memory once the ended children gave everything back: their
   spaces' tables and frames (avail_settled), then a file call, at whose
   start the kernel writes back and frees the shared-file frames a dying
   holder left stores in and frees the unlinked files no one holds any
   more (kernel/fshare.c, orphan.c): until some file call runs, those
   stay held (test_orphan's avail_lost of 15-16 pages, its 16-page shm).
   The first such call leaves a page in use (a second one costs none),
   which the `before` reading now counts too: the caller's own stack
   page that ulib's stat (a PATH_MAX path on the stack) first reaches,
   charged to it and freed with it, not a kernel cache (statpage.c). */
static inline long avail_flushed_in(long running)
{
	struct stat st;
	avail_settled(running);
	stat("/", &st);
	return avail();
}

/* The same where the caller is the only space left running (main's
   figures around fork_audit's child). A body inside that child is one of
   two (main and itself): avail_flushed_in(2), or avail_settled's 5,000
   polls run out first (5 s of guest time a reading). */
static inline long avail_flushed(void)
{
	return avail_flushed_in(1);
}

/* body() in a forked child, which prints its checks and failures and
   exits 1 if any failed: its status (fork_status). */
static inline int fork_body(int (*body)(void))
{
	pid_t p = fork();
	if (p == 0) {
		int f = body();
		printf("%s: %d checks, %d failures\n", CHECK_NAME, checks, f);
		_exit(f ? 1 : 0);
	}
	return fork_status(p);
}

/* body() in a forked child, which prints its checks and failures and
   exits 1 if any failed: its status (fork_status), and in *lost the
   available memory (INFO_MEM_AVAIL) it did not give back. */
static inline int fork_audit(int (*body)(void), long *lost)
{
	fork_warm();
	long before = avail_flushed();
	int st = fork_body(body);
	*lost = before - avail_flushed();
	return st;
}

/* main's part when fork_audit's figures are all it reports: the
   @result CHECK_NAME line (status, avail_lost, failures); failures. */
static inline int fork_audit_report(int (*body)(void))
{
	struct result R;
	result_begin(&R, CHECK_NAME);
	long lost;
	int st = fork_audit(body, &lost);
	CHECK(st >= 0);
	result_int(&R, "status", st);
	result_int(&R, "avail_lost", lost);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}

/* A mutex and a condition variable in memory other processes map, both
   made PTHREAD_PROCESS_SHARED (checked). */
static inline void pshared_mutex_cond(pthread_mutex_t *mx, pthread_cond_t *cv)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	CHECK(pthread_mutex_init(mx, &ma) == 0);
	CHECK(pthread_cond_init(cv, &ca) == 0);
}

/* The same, with a barrier for n and a read-write lock. */
static inline void pshared_objects(pthread_mutex_t *mx, pthread_cond_t *cv,
				   pthread_barrier_t *bar, unsigned n, pthread_rwlock_t *rw)
{
	pthread_barrierattr_t ba;
	pthread_rwlockattr_t ra;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pshared_mutex_cond(mx, cv);
	CHECK(pthread_barrier_init(bar, &ba, n) == 0);
	CHECK(pthread_rwlock_init(rw, &ra) == 0);
}

#endif
