/*
 * The older signal calls that programs still use, as thin layers over
 * sigprocmask and sigaction (ulib/signal.c), as glibc's are: XSI's
 * sighold, sigrelse, sigignore, sigset, sigpause; BSD's siginterrupt and
 * killpg; psignal and psiginfo. A program is one process group and one
 * session, its own (pid = pgid = sid): killpg of it is kill.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <animart/sys.h>

static int mask1(int how, int sig, sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	if (sigaddset(&s, sig))
		return -1;
	return sigprocmask(how, &s, old);
}

int sighold(int sig) { return mask1(SIG_BLOCK, sig, 0); }
int sigrelse(int sig) { return mask1(SIG_UNBLOCK, sig, 0); }

int sigignore(int sig)
{
	struct sigaction a = { .sa_handler = SIG_IGN };
	return sigaction(sig, &a, 0);
}

/* XSI's (not BSD's, which takes a mask): sig leaves the mask while the
   caller waits for a handler to run; -1, EINTR, the mask as it was. */
int sigpause(int sig)
{
	sigset_t m;
	if (sigprocmask(SIG_BLOCK, 0, &m) || sigdelset(&m, sig))
		return -1;
	return sigsuspend(&m);
}

/* SIG_HOLD blocks sig; any other disposition is installed and sig is
   unblocked (a pending one runs now). Returns SIG_HOLD if sig was
   blocked, else its former disposition. */
sighandler_t sigset(int sig, sighandler_t h)
{
	struct sigaction a = { .sa_handler = h }, prev;
	sigset_t old;
	if (h == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (sigaction(sig, h == SIG_HOLD ? 0 : &a, &prev) ||
	    mask1(h == SIG_HOLD ? SIG_BLOCK : SIG_UNBLOCK, sig, &old))
		return SIG_ERR;
	return sigismember(&old, sig) ? SIG_HOLD : prev.sa_handler;
}

/* flag: a handler of sig interrupts the waits it runs in (EINTR),
   else they go on (SA_RESTART) */
int siginterrupt(int sig, int flag)
{
	struct sigaction a;
	if (sigaction(sig, 0, &a))
		return -1;
	if (flag)
		a.sa_flags &= ~SA_RESTART;
	else
		a.sa_flags |= SA_RESTART;
	return sigaction(sig, &a, 0);
}

/* Process groups and sessions: the kernel's (kernel/pgrp.c). */
static long ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

pid_t getpgid(pid_t pid) { return (pid_t)ret(pid < 0 ? -ESRCH : syscall2(SYS_getpgid, pid, 0)); }
pid_t getsid(pid_t pid) { return (pid_t)ret(pid < 0 ? -ESRCH : syscall2(SYS_getpgid, pid, 1)); }
pid_t getpgrp(void) { return getpgid(0); }
int setpgid(pid_t pid, pid_t pgid) { return (int)ret(syscall2(SYS_setpgid, pid, pgid)); }
int setpgrp(void) { return setpgid(0, 0); }
pid_t setsid(void) { return (pid_t)ret(syscall0(SYS_setsid)); }

/* kill(-pgrp), but kill(-1) means every process: group 1 (a boot
   program's) is reached as the caller's own group only (else ESRCH). */
int killpg(pid_t pgrp, int sig)
{
	if (pgrp < 0) {
		errno = EINVAL;
		return -1;
	}
	if (!pgrp || pgrp == getpgrp())
		return kill(0, sig);
	if (pgrp == 1) {
		errno = ESRCH;
		return -1;
	}
	return kill(-pgrp, sig);
}

void psignal(int sig, const char *s)
{
	if (s && *s)
		fprintf(stderr, "%s: %s\n", s, strsignal(sig));
	else
		fprintf(stderr, "%s\n", strsignal(sig));
}

void psiginfo(const siginfo_t *si, const char *s)
{
	psignal(si->si_signo, s);
}

/* XSI's name (until 2008) for signal with BSD's meaning, which ours has
   (signal above: a handler stays, SA_RESTART). */
sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return signal(sig, h);
}
