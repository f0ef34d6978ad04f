/* <sys/wait.h>: wait, waitpid and waitid for the children fork made
   (ulib/libc/proc.c, waitid.c, SYS_waitpid); the status word and its
   macros are Linux's. pid 0 and -pg: the caller's group, group pg. */
#ifndef ULIB_SYS_WAIT_H
#define ULIB_SYS_WAIT_H

#include <sys/types.h>
#include <signal.h>

#define WNOHANG   1
#define WUNTRACED 2
#define WSTOPPED  2
#define WEXITED   4
#define WCONTINUED 8
#define WNOWAIT   0x01000000
#define WEXITSTATUS(s) (((s) & 0xff00) >> 8)
#define WTERMSIG(s)    ((s) & 0x7f)
#define WIFEXITED(s)   (WTERMSIG(s) == 0)
#define WIFSIGNALED(s) (((signed char)(((s) & 0x7f) + 1) >> 1) > 0)
#define WIFSTOPPED(s)  (((s) & 0xff) == 0x7f)
#define WSTOPSIG(s)    WEXITSTATUS(s)
#define WIFCONTINUED(s) ((s) == 0xffff)

pid_t wait(int *status);
pid_t waitpid(pid_t pid, int *status, int options);
/* waitpid, and the child's resource use: all zeros, the kernel keeps
   none for an ended child (ulib/libc/wait4.c) */
struct rusage;
pid_t wait3(int *status, int options, struct rusage *ru);
pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru);

typedef enum { P_ALL = 0, P_PID = 1, P_PGID = 2 } idtype_t;
int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options);

#endif
