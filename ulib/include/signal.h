/*
 * Signals: the types and names, so code that mentions them builds.
 * Anima delivers no POSIX signals (its events go to VPs as upcalls):
 * signal() and sigaction() accept SIG_DFL/SIG_IGN and refuse a handler
 * with ENOSYS; raise() ends the program as the default action would
 * (status 128 + sig), except for ignored signals. docs/libc.md.
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
#define SIGCONT 18
#define SIGSTOP 19
#define NSIG    32

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
} siginfo_t;

struct sigaction {
	sighandler_t sa_handler;
	void (*sa_sigaction)(int, siginfo_t *, void *);
	sigset_t sa_mask;
	int sa_flags;
};
#define SA_RESTART 0x10000000
#define SA_SIGINFO 4

sighandler_t signal(int sig, sighandler_t h);
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int raise(int sig);
int kill(pid_t pid, int sig);           /* only the program itself: raise */
int sigemptyset(sigset_t *s);
int sigfillset(sigset_t *s);
int sigaddset(sigset_t *s, int sig);
int sigdelset(sigset_t *s, int sig);
int sigismember(const sigset_t *s, int sig);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);   /* a mask of nothing: 0 */

/* Threads (ulib/posix/gnu.c). No handler can be installed, so a signal's
   effect is its default action or SIG_IGN's, which POSIX applies to the
   whole process: pthread_kill(th, sig) is raise(sig) (sig 0: 0, the
   existence check). pthread_sigmask is sigprocmask, as an error number. */
#ifndef __pthread_t_defined
#define __pthread_t_defined
typedef unsigned long pthread_t;
#endif
int pthread_kill(pthread_t th, int sig);
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old);

#endif
