/*
 * waitid over SYS_waitpid (ulib/libc/proc.c): P_PID, P_PGID and P_ALL are
 * waitpid's pid, -pg and -1; WEXITED, WSTOPPED (waitpid's WUNTRACED) and
 * WCONTINUED choose what is reported (kernel/pstop.c; without WEXITED a
 * child's end is not, KWNOEXIT); WNOWAIT leaves the child to be waited
 * for again.
 * Errors as Linux's: EINVAL for no state, another bit or idtype, or a
 * P_PGID of a negative group; ECHILD when no child matches.
 */
#include <sys/wait.h>
#include <errno.h>
#include <string.h>
#include <anima/psig.h>

pid_t __waitpid(pid_t pid, int *status, int options);

int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int known = WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)) || (options & ~known) ||
	    (idtype != P_ALL && idtype != P_PID && idtype != P_PGID) ||
	    (idtype != P_ALL && id < 0)) {
		errno = EINVAL;
		return -1;
	}
	pid_t pid = idtype == P_ALL ? -1 : idtype == P_PID ? id : id ? -id : 0;
	if (idtype == P_PID && id == 0) {
		errno = EINVAL;
		return -1;
	}
	int st = 0;
	int k = options & (WNOHANG | WNOWAIT | WSTOPPED | WCONTINUED);
	pid_t r = __waitpid(pid, &st, (options & WEXITED) ? k : k | KWNOEXIT);
	if (r < 0)
		return -1;
	if (info) {
		memset(info, 0, sizeof *info);
		if (r > 0) {
			info->si_signo = SIGCHLD;
			info->si_pid = r;
			info->si_code = WIFCONTINUED(st) ? CLD_CONTINUED : WIFSTOPPED(st) ? CLD_STOPPED :
					WIFSIGNALED(st) ? CLD_KILLED : CLD_EXITED;
			info->si_status = WIFCONTINUED(st) ? SIGCONT : WIFSIGNALED(st) ? WTERMSIG(st) :
					  WEXITSTATUS(st);
		}
	}
	return 0;
}
