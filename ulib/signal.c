/*
 * <signal.h> on a kernel without POSIX signals (see signal.h): handlers
 * cannot be installed; raise() does what the default action would.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>

static sighandler_t disp[NSIG];   /* only SIG_DFL or SIG_IGN */

static int bad(int sig)
{
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return 1;
	}
	return 0;
}

sighandler_t signal(int sig, sighandler_t h)
{
	if (bad(sig) || sig == SIGKILL || sig == SIGSTOP) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (h != SIG_DFL && h != SIG_IGN) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	sighandler_t old = disp[sig];
	disp[sig] = h;
	return old;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (bad(sig))
		return -1;
	if (old) {
		old->sa_handler = disp[sig];
		old->sa_sigaction = 0;
		old->sa_mask = 0;
		old->sa_flags = 0;
	}
	if (act && signal(sig, (act->sa_flags & SA_SIGINFO) ? SIG_ERR : act->sa_handler) == SIG_ERR) {
		errno = ENOSYS;
		return -1;
	}
	return 0;
}

int raise(int sig)
{
	if (bad(sig))
		return -1;
	if (sig == SIGABRT)
		abort();
	if (disp[sig] == SIG_IGN || sig == SIGCHLD || sig == SIGCONT)
		return 0;
	exit(128 + sig);
}

int kill(pid_t pid, int sig)
{
	if (pid != getpid() && pid != 0) {
		errno = EPERM;
		return -1;
	}
	return sig == 0 ? 0 : raise(sig);
}

int sigemptyset(sigset_t *s) { *s = 0; return 0; }
int sigfillset(sigset_t *s) { *s = ~0UL; return 0; }
int sigaddset(sigset_t *s, int sig) { if (bad(sig)) return -1; *s |= 1UL << sig; return 0; }
int sigdelset(sigset_t *s, int sig) { if (bad(sig)) return -1; *s &= ~(1UL << sig); return 0; }
int sigismember(const sigset_t *s, int sig) { if (bad(sig)) return -1; return !!(*s & (1UL << sig)); }

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK) {
		errno = EINVAL;
		return -1;
	}
	if (old)
		*old = 0;
	return 0;
}

char *strsignal(int sig)
{
	static const char *const names[NSIG] = {
		[SIGHUP] = "Hangup", [SIGINT] = "Interrupt", [SIGQUIT] = "Quit",
		[SIGILL] = "Illegal instruction", [SIGTRAP] = "Trace/breakpoint trap",
		[SIGABRT] = "Aborted", [SIGBUS] = "Bus error",
		[SIGFPE] = "Floating point exception", [SIGKILL] = "Killed",
		[SIGUSR1] = "User defined signal 1", [SIGSEGV] = "Segmentation fault",
		[SIGUSR2] = "User defined signal 2", [SIGPIPE] = "Broken pipe",
		[SIGALRM] = "Alarm clock", [SIGTERM] = "Terminated", [SIGCHLD] = "Child exited",
		[SIGCONT] = "Continued", [SIGSTOP] = "Stopped (signal)",
	};
	return (char *)(sig > 0 && sig < NSIG && names[sig] ? names[sig] : "Unknown signal");
}
