/*
 * fork, pthread_atfork, wait/waitpid/waitid and the status macros,
 * exit against _exit (stdio flushing, atexit order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/wait.h>
#include "conf.h"

static int gvar = 1;
/* the atfork handlers' order; they stay registered, so every later
   fork of the sweep runs them too: bounded */
static char order[16];
static int norder;
static void rec(char c)
{
	if (norder < (int)sizeof order - 1)
		order[norder++] = c;
}
static void pre1(void) { rec('a'); }
static void pre2(void) { rec('b'); }
static void par1(void) { rec('c'); }
static void par2(void) { rec('d'); }
static void chi1(void) { rec('e'); }
static void chi2(void) { rec('f'); }

static sem_t go;
static volatile int ran;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static sem_t locked, release;

static void *waiter(void *a)
{
	(void)a;
	sem_wait(&go);
	ran = 1;
	return 0;
}

static void *holder(void *a)
{
	(void)a;
	pthread_mutex_lock(&held);
	sem_post(&locked);
	sem_wait(&release);
	pthread_mutex_unlock(&held);
	return 0;
}

void conf_fork(void)
{
	conf_area = "fork";
	pid_t me = getpid();
	int *heap = malloc(sizeof *heap);
	*heap = 10;
	int fds[2];
	K(pipe(fds) == 0);
	pid_t p = fork();
	if (p == 0) {
		K(getppid() == me && getpid() != me);
		K(gvar == 1 && *heap == 10);
		gvar = 2, *heap = 20;
		char c;
		K(read(fds[0], &c, 1) == 1);     /* the parent wrote its copy */
		K(gvar == 2 && *heap == 20);
		_exit(gvar + *heap);
	}
	K(p > 0 && p != me);
	gvar = 3, *heap = 30;
	K(write(fds[1], "x", 1) == 1);
	K(conf_status(p) == 22);
	K(gvar == 3 && *heap == 30);
	close(fds[0]), close(fds[1]);
	free(heap);

	/* only the calling thread lives in the child: the parent's thread
	   waiting on a semaphore is not there to take a post, which counts */
	pthread_t t;
	sem_init(&go, 0, 0);
	K(pthread_create(&t, 0, waiter, 0) == 0);
	usleep(10000);
	p = fork();
	if (p == 0) {
		int v = -1;
		sem_post(&go);
		sem_getvalue(&go, &v);
		usleep(30000);
		_exit(ran ? 1 : v != 1 ? 2 : sem_trywait(&go) ? 3 : 0);
	}
	K(conf_status(p) == 0);
	sem_post(&go);
	K(pthread_join(t, 0) == 0 && ran == 1);

	/* a mutex another thread holds stays held (by no one) in the child */
	sem_init(&locked, 0, 0);
	sem_init(&release, 0, 0);
	K(pthread_create(&t, 0, holder, 0) == 0);
	sem_wait(&locked);
	p = fork();
	if (p == 0)
		_exit(pthread_mutex_trylock(&held) == EBUSY ? 0 : 1);
	K(conf_status(p) == 0);
	sem_post(&release);
	K(pthread_join(t, 0) == 0);
	K(pthread_mutex_trylock(&held) == 0);
	pthread_mutex_unlock(&held);

	/* atfork: prepare in reverse order, parent and child in order */
	K(pthread_atfork(pre1, par1, chi1) == 0);
	K(pthread_atfork(pre2, par2, chi2) == 0);
	norder = 0;
	p = fork();
	if (p == 0)
		_exit((order[norder] = 0, !strcmp(order, "baef")) ? 0 : 1);
	order[norder] = 0;
	K(!strcmp(order, "bacd"));
	K(conf_status(p) == 0);

	/* a file's offset is shared across the fork */
	int fd = open("/conf.fork", O_RDWR | O_CREAT | O_TRUNC, 0644);
	K(fd >= 0 && write(fd, "0123456789", 10) == 10);
	K(lseek(fd, 0, SEEK_SET) == 0);
	p = fork();
	if (p == 0) {
		char b[3];
		_exit(read(fd, b, 3) == 3 && b[0] == '0' ? 0 : 1);
	}
	K(conf_status(p) == 0);
	K(lseek(fd, 0, SEEK_CUR) == 3);
	char b[2];
	K(read(fd, b, 1) == 1 && b[0] == '3');
	close(fd);
	unlink("/conf.fork");
}

void conf_wait_area(void)
{
	conf_area = "wait";
	int st;
	KERR(waitpid(-1, &st, 0), ECHILD);
	KERR(waitpid(-1, &st, WNOHANG), ECHILD);
	KERR(wait(&st), ECHILD);
	KERR(waitpid(12345, &st, 0), ECHILD);
	int fds[2];
	pipe(fds);
	pid_t p = fork();
	if (p == 0) {
		char c;
		read(fds[0], &c, 1);
		_exit(200);
	}
	K(waitpid(p, &st, WNOHANG) == 0);
	K(waitpid(-1, &st, WNOHANG) == 0);
	write(fds[1], "x", 1);
	K(waitpid(p, &st, 0) == p);
	K(WIFEXITED(st) && !WIFSIGNALED(st) && WEXITSTATUS(st) == 200);
	K(!WIFSTOPPED(st));

	p = fork();
	if (p == 0) {
		for (;;)
			pause();
	}
	K(kill(p, SIGKILL) == 0);
	K(waitpid(p, &st, 0) == p);
	K(WIFSIGNALED(st) && !WIFEXITED(st) && WTERMSIG(st) == SIGKILL);

	p = fork();
	if (p == 0)
		abort();
	K(wait(&st) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);

	/* waitpid(-1) takes any; a null status pointer is allowed */
	pid_t a = fork();
	if (a == 0)
		_exit(1);
	pid_t c = fork();
	if (c == 0)
		_exit(2);
	pid_t w1 = waitpid(-1, 0, 0), w2 = waitpid(-1, &st, 0);
	K((w1 == a && w2 == c) || (w1 == c && w2 == a));
	KERR(waitpid(-1, &st, 0), ECHILD);

	/* WUNTRACED is accepted; an exit still reports as an exit */
	p = fork();
	if (p == 0)
		_exit(5);
	K(waitpid(p, &st, WUNTRACED) == p && WIFEXITED(st) && WEXITSTATUS(st) == 5);
	KERR(waitpid(-1, &st, 0x4000), EINVAL);   /* an unknown option */

	/* -pgid: only the children in that group */
	p = fork();
	if (p == 0) {
		setpgid(0, 0);
		usleep(20000);
		_exit(3);
	}
	setpgid(p, p);
	pid_t q = fork();
	if (q == 0)
		_exit(4);
	K(conf_status(q) == 4);
	K(waitpid(-p, &st, 0) == p && WEXITSTATUS(st) == 3);
	/* 0: only the caller's group */
	p = fork();
	if (p == 0) {
		setpgid(0, 0);
		_exit(6);
	}
	setpgid(p, p);
	KERR(waitpid(0, &st, 0), ECHILD);
	K(conf_status(p) == 6);

	/* waitid */
	siginfo_t si;
	p = fork();
	if (p == 0)
		_exit(9);
	memset(&si, 0, sizeof si);
	K(waitid(P_PID, p, &si, WEXITED | WNOWAIT) == 0 && si.si_pid == p);
	memset(&si, 0, sizeof si);
	K(waitid(P_ALL, 0, &si, WEXITED) == 0);
	K(si.si_pid == p && si.si_signo == SIGCHLD && si.si_code == CLD_EXITED && si.si_status == 9);
	p = fork();
	if (p == 0) {
		char ch;
		read(fds[0], &ch, 1);
		_exit(0);
	}
	memset(&si, 0xff, sizeof si);
	K(waitid(P_PID, p, &si, WEXITED | WNOHANG) == 0 && si.si_pid == 0);
	write(fds[1], "x", 1);
	K(conf_status(p) == 0);
	KERR(waitid(P_ALL, 0, &si, WEXITED), ECHILD);
	KERR(waitid(P_PID, p, &si, 0), EINVAL);
	close(fds[0]), close(fds[1]);
}

static int afd;
static void at1(void) { write(afd, "1", 1); }
static void at2(void) { write(afd, "2", 1); }
static void at3(void) { write(afd, "3", 1); }

/* the child's setups: "abc" into a stdio stream on fd; three atexit
   handlers that write to fd */
static void puts_abc(int fd)
{
	FILE *f = fdopen(fd, "w");
	fputs("abc", f);
}

static void three_atexits(int fd)
{
	afd = fd;
	atexit(at1), atexit(at2), atexit(at3);
}

/* Fork a child that runs setup on a pipe's write end and ends by
   _exit(0) if `quick`, else exit(0): what the pipe carried into b (at
   most max), its length; the child's status is checked. */
static long child_wrote(void (*setup)(int fd), int quick, char *b, long max)
{
	int fds[2];
	pipe(fds);
	pid_t p = fork();
	if (p == 0) {
		close(fds[0]);
		setup(fds[1]);
		if (quick)
			_exit(0);
		exit(0);
	}
	close(fds[1]);
	long n = conf_readall(fds[0], b, max);
	close(fds[0]);
	K(conf_status(p) == 0);
	return n;
}

void conf_exit_area(void)
{
	conf_area = "exit";
	char b[16];
	/* exit flushes stdio streams, _exit does not */
	for (int how = 0; how < 2; how++) {
		long n = child_wrote(puts_abc, how, b, sizeof b);
		K(how ? n == 0 : n == 3 && !memcmp(b, "abc", 3));
	}
	/* atexit: in reverse order of registration, by exit and by return
	   from main alike; none by _exit */
	for (int how = 0; how < 2; how++) {
		long n = child_wrote(three_atexits, how, b, sizeof b);
		K(how ? n == 0 : n == 3 && !memcmp(b, "321", 3));
	}
}
