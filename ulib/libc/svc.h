/*
 * What the timer threads (timer.c's POSIX timers, itimer.c's CPU-time
 * interval timers) take from the pthreads layer and the signal code:
 * the library's service threads, which run with every signal blocked and
 * do not keep the program alive (ulib/pthread/pthread.c), and the post
 * of a timer's signal to the program (ulib/libc/signal.c).
 */
#ifndef ULIB_LIBC_SVC_H
#define ULIB_LIBC_SVC_H
#include <signal.h>

struct thread;
struct thread *__pt_main_hold(void);
void __pt_main_release(void);
void __pt_daemon_enter(void);
int __pt_daemon_once(int *started, void *(*fn)(void *));
int __sig_post_timer(struct thread *main, int sig, union sigval v, int timer);

#endif
