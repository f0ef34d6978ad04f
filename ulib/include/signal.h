/*
 * Signals, delivered synchronously (Anima's own events go to VPs as
 * upcalls): handlers run when a thread raises a signal for itself, or
 * unblocks one pending for it; a signal for another thread runs when that
 * thread next sleeps, waits for a signal or changes its mask
 * (ulib/signal.c, docs/libc.md).
 */
#ifndef ULIB_SIGNAL_H
#define ULIB_SIGNAL_H

#include <sys/types.h>

typedef int sig_atomic_t;
typedef unsigned long sigset_t;
typedef void (*sighandler_t)(int);

#define SIG_DFL ((sighandler_t)0)
#define SIG_IGN ((sighandler_t)1)
#define SIG_ERR ((sighandler_t)-1)
#define SIG_HOLD ((sighandler_t)2)   /* sigset's only */

#define SIGHUP  1
#define SIGINT  2
#define SIGQUIT 3
#define SIGILL  4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS  7
#define SIGFPE  8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGSTKFLT 16
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG  23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGIO   29
#define SIGPOLL SIGIO
#define SIGPWR  30
#define SIGSYS  31
/* Real-time signals: queued, each with its own siginfo_t (ulib/signal.c).
   34 as glibc's first (it keeps 32 and 33); one word of sigset_t holds
   signals 1..63, so 30 of them (POSIX asks for at least 8). */
#define SIGRTMIN 34
#define SIGRTMAX 63
#define NSIG    64
#define _NSIG   NSIG

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

union sigval {
	int sival_int;
	void *sival_ptr;
};

typedef struct {
	int si_signo, si_errno, si_code;
	pid_t si_pid;
	union sigval si_value;
	int si_timerid, si_overrun;   /* SI_TIMER: the timer, its overruns */
	uid_t si_uid;                 /* the sender's user (always 0: one user) */
	int si_status;                /* SIGCHLD: the child's exit status, or its signal */
	void *si_addr;                /* SIGSEGV, SIGBUS: the faulting address; SIGFPE,
					 SIGILL, SIGTRAP: the faulting instruction */
	long si_band;                 /* SIGPOLL: the band event (POSIX); nothing sends one */
} siginfo_t;

/* si_code */
#define SI_USER   0        /* kill, raise of the program */
#define SI_QUEUE  (-1)     /* sigqueue */
#define SI_MESGQ  (-3)     /* a message arrived on an empty queue (mq_notify) */
#define SI_TIMER  (-2)     /* a POSIX timer expired (timer_create) */
#define SI_ASYNCIO (-4)    /* an asynchronous I/O request completed (<aio.h>) */
#define SI_TKILL  (-6)     /* raise, pthread_kill */
#define SI_ASYNCIO (-4)    /* an asynchronous I/O request completed (<aio.h>) */
#define CLD_EXITED 1       /* SIGCHLD: the child exited (si_status: its status) */
#define CLD_KILLED 2       /* SIGCHLD: a signal ended it (si_status: the signal) */
#define CLD_DUMPED 3
#define CLD_TRAPPED 4
#define CLD_STOPPED 5      /* SIGCHLD: a stop signal stopped it (si_status: the signal) */
#define CLD_CONTINUED 6    /* SIGCHLD: SIGCONT continued it (si_status: SIGCONT) */
/* si_code of a fault (Linux's values; ulib/libc/sigfault.c) */
#define SI_KERNEL  0x80    /* a fault the processor gives no detail of (#GP, int3) */
#define SEGV_MAPERR 1      /* SIGSEGV: nothing mapped at si_addr */
#define SEGV_ACCERR 2      /* SIGSEGV: mapped, but the access is not allowed */
#define BUS_ADRALN 1       /* SIGBUS: misaligned (alignment check) */
#define BUS_ADRERR 2       /* SIGBUS: a file-mapped page wholly past the file's end */
#define BUS_OBJERR 3
#define FPE_INTDIV 1       /* SIGFPE: integer divide by zero (or overflow) */
#define FPE_INTOVF 2
#define FPE_FLTDIV 3
#define FPE_FLTOVF 4
#define FPE_FLTUND 5
#define FPE_FLTRES 6
#define FPE_FLTINV 7
#define FPE_FLTSUB 8
#define ILL_ILLOPC 1
#define ILL_ILLOPN 2       /* SIGILL: an invalid opcode (ud2) */
#define ILL_ILLADR 3
#define ILL_ILLTRP 4
#define ILL_PRVOPC 5
#define ILL_PRVREG 6
#define ILL_COPROC 7
#define ILL_BADSTK 8
#define TRAP_BRKPT 1
#define TRAP_TRACE 2
/* si_code of SIGPOLL (POSIX's, Linux's values): nothing here sends it,
   as there is no I/O signalling (O_ASYNC, F_SETSIG) */
#define POLL_IN  1
#define POLL_OUT 2
#define POLL_MSG 3
#define POLL_ERR 4
#define POLL_PRI 5
#define POLL_HUP 6

/* How a timer tells its expiry (timer_create, <time.h>; ulib/posix/
   timer.c). Linux's values; SIGEV_THREAD_ID is EINVAL here. */
struct __pthread_attr;
struct sigevent {
	union sigval sigev_value;
	int sigev_signo;
	int sigev_notify;
	void (*sigev_notify_function)(union sigval);
	struct __pthread_attr *sigev_notify_attributes;   /* a pthread_attr_t * */
};
#define SIGEV_SIGNAL    0   /* send sigev_signo with sigev_value */
#define SIGEV_NONE      1   /* nothing: timer_gettime only */
#define SIGEV_THREAD    2   /* sigev_notify_function(sigev_value) in a new thread */
#define SIGEV_THREAD_ID 4

/* As glibc: the two handler forms share their storage. */
struct sigaction {
	union {
		sighandler_t __h;
		void (*__a)(int, siginfo_t *, void *);
	} __sa_handler;
	sigset_t sa_mask;
	int sa_flags;
	void (*sa_restorer)(void);
};
#define sa_handler   __sa_handler.__h
#define sa_sigaction __sa_handler.__a
#define SA_NOCLDSTOP 1
#define SA_NOCLDWAIT 2
#define SA_SIGINFO   4
#define SA_ONSTACK   0x08000000
#define SA_RESTART   0x10000000
#define SA_NODEFER   0x40000000
#define SA_RESETHAND 0x80000000
#define SA_NOMASK    SA_NODEFER
#define SA_ONESHOT   SA_RESETHAND

sighandler_t signal(int sig, sighandler_t h);
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int raise(int sig);
int kill(pid_t pid, int sig);           /* only the program itself: raise */
int sigemptyset(sigset_t *s);
int sigfillset(sigset_t *s);
int sigaddset(sigset_t *s, int sig);
int sigdelset(sigset_t *s, int sig);
int sigismember(const sigset_t *s, int sig);
/* GNU */
int sigisemptyset(const sigset_t *s);
int sigandset(sigset_t *d, const sigset_t *a, const sigset_t *b);
int sigorset(sigset_t *d, const sigset_t *a, const sigset_t *b);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);   /* the calling thread's */
int sigpending(sigset_t *set);
int sigwait(const sigset_t *set, int *sig);
struct timespec;
int sigwaitinfo(const sigset_t *set, siginfo_t *info);   /* EINTR after another's handler */
int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout);   /* EAGAIN at the timeout */
int sigsuspend(const sigset_t *mask);
/* kill with a value (si_value, SI_QUEUE), for the program itself; a
   blocked one is queued (at most SIGQUEUE_MAX pending, else EAGAIN, as
   for raise and pthread_kill of a real-time signal), as every real-time
   signal is: one handler run per send. */
#define SIGQUEUE_MAX 256
int sigqueue(pid_t pid, int sig, union sigval value);

/* An alternate stack for the caller's handlers installed with
   SA_ONSTACK: they run there (ulib/signal.c). A new thread has none. */
typedef struct {
	void *ss_sp;
	int ss_flags;
	size_t ss_size;
} stack_t;
#define SS_ONSTACK 1
#define SS_DISABLE 2
#define MINSIGSTKSZ 2048
#define SIGSTKSZ    8192
int sigaltstack(const stack_t *ss, stack_t *old);
/* The alternate stack's older (4.2BSD) description, which glibc keeps
   for old programs; there is no sigstack() (sigaltstack is the call). */
struct sigstack {
	void *ss_sp;
	int ss_onstack;
};

/* Older calls, over sigprocmask and sigaction (ulib/sigxsi.c): XSI's
   (sigpause is XSI's, of one signal, not BSD's mask), BSD's; the
   program is its own process group, so killpg of it is kill. */
int sighold(int sig);
int sigrelse(int sig);
int sigignore(int sig);
int sigpause(int sig);
sighandler_t sigset(int sig, sighandler_t h);
/* XSI before 2008: signal with BSD's meaning (a handler that stays,
   blocks its signal while it runs, and restarts calls), as glibc's */
sighandler_t bsd_signal(int sig, sighandler_t h);
int siginterrupt(int sig, int flag);
int killpg(pid_t pgrp, int sig);
void psignal(int sig, const char *s);
void psiginfo(const siginfo_t *si, const char *s);

/* Threads (ulib/posix/gnu.c): pthread_kill of the caller is raise; of
   another thread, a default action is the program's (at once), a
   handler runs in that thread when it next looks (above).
   pthread_sigmask is sigprocmask, as an error number. */
#ifndef __pthread_t_defined
#define __pthread_t_defined
typedef unsigned long pthread_t;
#endif
int pthread_kill(pthread_t th, int sig);
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old);

#endif
