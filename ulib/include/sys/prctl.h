/* <sys/prctl.h>: Linux's prctl, of which a thread program uses the name
   of the calling thread (PR_SET_NAME, PR_GET_NAME: the name that
   pthread_setname_np and pthread_getname_np see; ulib/libc/prctl.c) and
   PR_SET_CHILD_SUBREAPER / PR_GET_CHILD_SUBREAPER (SYS_subreaper).
   Other options are EINVAL, Linux's answer for an option it lacks. */
#ifndef ULIB_SYS_PRCTL_H
#define ULIB_SYS_PRCTL_H

#define PR_SET_PDEATHSIG  1
#define PR_GET_PDEATHSIG  2
#define PR_GET_DUMPABLE   3
#define PR_SET_DUMPABLE   4
#define PR_SET_NAME       15
#define PR_GET_NAME       16
#define PR_SET_TIMERSLACK 29
#define PR_GET_TIMERSLACK 30
#define PR_SET_CHILD_SUBREAPER 36
#define PR_GET_CHILD_SUBREAPER 37
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39

int prctl(int option, ...);

#endif
