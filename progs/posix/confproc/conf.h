/*
 * confproc: a conformance sweep of processes and files in the style of
 * a conformance suite: small assertions, each against the return value
 * and errno glibc on Linux gives. Every check prints its own line
 *     @result {"name": "confcheck", "area": "fork", "line": 42, "ok": true}
 * (with "what" and "errno" when it fails), from whichever process made
 * it, so checks in forked children count as the parent's do
 * (harness/tests/test_confproc.py counts them).
 */
#ifndef CONF_H
#define CONF_H
#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

extern const char *conf_area;   /* the section the checks belong to */
extern const char *conf_pkg;    /* the package, for exec'd images */
void conf_check(bool ok, const char *what, int line);
#define K(e) conf_check(!!(e), #e, __LINE__)
/* a call that fails with -1 and errno E */
#define KERR(call, E) do { errno = 0; long r_ = (long)(call); \
	conf_check(r_ == -1 && errno == (E), #call " == -1, " #E, __LINE__); } while (0)

int conf_wait(pid_t p);         /* waitpid's raw status, -1 on failure */
int conf_status(pid_t p);       /* exit status, or 128 + signal */
long conf_readall(int fd, char *buf, long max);

void conf_fork(void);
void conf_wait_area(void);
void conf_exit_area(void);
void conf_exec(void);
void conf_spawn(void);
void conf_pgrp(void);
void conf_sigchld(void);
void conf_pipes(void);
void conf_dup(void);
void conf_files(void);
void conf_tmp(void);
void conf_sysvals(void);
int conf_report(int argc, char **argv);   /* the exec'd image's side */
#endif
