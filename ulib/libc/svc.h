/*
 * What the timer thread (timer.c's POSIX timers and interval timers)
 * takes from the pthreads layer, the signal code and cpuwatch.c: the
 * library's service threads, which run with every signal blocked and do
 * not keep the program alive (ulib/pthread/pthread.c), the post of a
 * timer's signal to the program (ulib/libc/signal.c), and the watching
 * of CPU-time clocks.
 */
#ifndef ULIB_LIBC_SVC_H
#define ULIB_LIBC_SVC_H
#include <signal.h>
#include <stdint.h>
#include <time.h>

struct thread;
struct thread *__pt_main_hold(void);
void __pt_main_release(void);
void __pt_daemon_enter(void);
int __pt_daemon_once(int *started, void *(*fn)(void *));
int __sig_post_timer(struct thread *main, int sig, union sigval v, int timer);
int __cpu_clock_resolve(clockid_t clock, clockid_t *out);
int64_t __cpu_clock_ns(clockid_t clock);
uint64_t __cpu_nap(clockid_t clock, uint64_t left);

#endif
