/*
 * Signals between processes: what SYS_sigdisp, SYS_sigtake and
 * SYS_sigqueue exchange (kernel/psig.c). A space tells the kernel, per
 * signal, whether it catches it, ignores it or takes the default action;
 * a signal another process sends (SYS_kill, SYS_sigqueue, a child's end)
 * that the space catches waits, pending, in the space's fixed set (one
 * record per signal number: a second send of a pending signal is one
 * signal) until the space takes it with SYS_sigtake. The first pending
 * one after each take is announced by EV_PSIG to every VP of the space
 * that takes upcalls or interrupts (<anima/vp.h>).
 */
#ifndef ANIMA_PSIG_H
#define ANIMA_PSIG_H

#include <stdint.h>

#define PSIG_MAX        64     /* signal numbers 1..63 (bit sig of a 64-bit set) */
#define PSIG_TAKE_MAX   8      /* records one SYS_sigtake returns at most */
#define PSIG_RTMIN      34     /* real-time signals 34..63: every send is a record of its own */
#define PSIG_RTQ_MAX    32     /* real-time records pending per space at most (RLIMIT_SIGPENDING):
                                  a send past them fails with -EAGAIN */

/* SYS_sigdisp dispositions (argument 2) */
#define SIGD_DFL        0      /* the default action (SYS_kill's: end, or nothing) */
#define SIGD_IGN        1      /* dropped; for SIGCHLD also: children reaped at their end */
#define SIGD_CATCH      2      /* pending for the space (SYS_sigtake), announced by EV_PSIG */
#define SIGDIE_FAULT    1      /* SYS_sigdie's 2nd argument: an undeliverable EV_FAULT (kernel/fault.c) */
#define SIGD_NOCLDWAIT  4      /* | with SIGCHLD: children reaped at their end (SA_NOCLDWAIT) */
#define SIGD_NOCLDSTOP  8      /* | with SIGCHLD: no SIGCHLD for a child's stop or continue (SA_NOCLDSTOP) */
#define SIGD_CLDIGN    16      /* | with SIGCHLD: its action is SIG_IGN, though held (SIGD_CATCH) for
                                  the mask: no SIGCHLD for a child's end, stop or continue (Linux) */

/* si_code values the kernel writes (Linux's) */
#define KSI_USER        0      /* SYS_kill */
#define KSI_QUEUE       (-1)   /* SYS_sigqueue */
#define KSI_MESGQ       (-3)   /* SYS_sigmesgq: a message arrived at an empty queue (mq_notify) */
#define KSI_CLD_EXITED  1      /* SIGCHLD: the child exited, status = its exit status */
#define KSI_CLD_KILLED  2      /* SIGCHLD: the child was killed, status = the signal */
#define KSI_CLD_STOPPED 5      /* SIGCHLD: the child stopped, status = the stop signal (kernel/pstop.c) */
#define KSI_CLD_CONTINUED 6    /* SIGCHLD: the child was continued, status = SIGCONT */

/* SYS_waitpid options beyond WNOHANG (1) */
#define KWUNTRACED      2            /* also a child that stopped (WUNTRACED) */
#define KWCONTINUED     8            /* also a child that was continued (WCONTINUED) */
#define KWNOWAIT        0x01000000   /* report the child, leave it to be waited for again */
#define KWNOEXIT        0x02000000   /* not a child's end: only its stop or continue (waitid
					without WEXITED); with KWUNTRACED or KWCONTINUED only */

/* One taken signal: who sent it (the kernel's word, not the sender's) */
struct ksiginfo {
	int32_t signo;
	int32_t code;          /* KSI_* */
	int32_t pid;           /* the sender's space id (the child's for SIGCHLD) */
	int32_t uid;           /* always 0: one user */
	int32_t status;        /* SIGCHLD: exit status or signal */
	int32_t pad;
	uint64_t value;        /* SYS_sigqueue's value */
};
_Static_assert(sizeof(struct ksiginfo) == 32, "ksiginfo is 32 bytes");

#endif
