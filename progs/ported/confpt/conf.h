/*
 * confpt: assertion-style POSIX conformance checks, one small check per
 * assertion, in the manner of the public pthread/semaphore/sched/clock
 * suites. Standard headers only: built as a third-party program is.
 * Each area prints @result {"name": "confpt.AREA", "checks": N,
 * "failures": F, "failed": [...]} and the program a total at the end.
 * The expected values are glibc's on Linux (POSIX's where glibc leaves
 * the case undefined; conf_*.c say which).
 */
#ifndef CONF_H
#define CONF_H

#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void conf_check(int ok, const char *what, int line, long got);

/* CK(cond): the assertion holds. EQ(expr, want): expr gives want (the
   value it gave is reported). ERRNO(call, want): call returns -1 and
   sets errno to want. */
#define CK(c) conf_check(!!(c), #c, __LINE__, 0)
#define EQ(e, w) do { long g_ = (long)(e); \
	conf_check(g_ == (long)(w), #e " == " #w, __LINE__, g_); } while (0)
#define ERRNO(e, w) do { errno = 0; long g_ = (long)(e); \
	conf_check(g_ == -1 && errno == (w), #e " fails with " #w, __LINE__, \
		   g_ == -1 ? errno : g_); } while (0)

/* Time helpers. */
struct timespec conf_after(clockid_t c, long ms);   /* now on c plus ms */
long conf_ms_since(const struct timespec *t0);      /* CLOCK_MONOTONIC */
struct timespec conf_now(void);                     /* CLOCK_MONOTONIC */
void conf_msleep(long ms);
extern long conf_probe_ms;       /* misc's probe bound (main.c, `probe=MS`) */

/* A thread, and a safety net: a join that gives up after ms (so a
   check that fails cannot hang the program; 1 if it gave up). */
pthread_t conf_start(void *(*fn)(void *), void *arg);
int conf_join_within(pthread_t t, void **ret, long ms);

/* Signals: fn as sig's handler (sa_flags flags, empty sa_mask); sig
   blocked in the calling thread (the set of it, for sigwait). */
void conf_handle(int sig, void (*fn)(int), int flags);
sigset_t conf_block(int sig);

void area_attr(void);
void area_thread(void);
void area_keys(void);
void area_cancel(void);
void area_mutex(void);
void area_cond(void);
void area_rwlock(void);
void area_barrier(void);
void area_sem(void);
void area_sched(void);
void area_clock(void);
void area_signal(void);
void area_misc(void);
void area_sigwait(void);

#endif
