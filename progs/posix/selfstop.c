/*
 * selfstop: raise(SIGSTOP) and another process's SIGCONT, over and over
 * in one boot (kernel/pstop.c, psig.c sys_sigdie; ulib/libc/signal.c).
 * Each round forks a child that catches SIGCONT and stops itself; the
 * parent waits for the stop (WUNTRACED), then, by round, sends SIGCONT at
 * once, after a spin, after a sleep or after a round trip to a third
 * process (as progs/posix/stop.c does), and waits for the child's exit
 * (7), with its handler run. Every fifth round instead stops, from the
 * parent, a child blocked in a pipe read (SIGTSTP), continues it and
 * then writes the byte it waits for (exit 8). SIGCHLD is blocked, as in
 * stop.c: the kernel then holds it for the parent, so each stop,
 * continue and end is a SIGCHLD sent under the process table's lock
 * (kernel/pstop.c report, space.c space_finish), the path that
 * deadlocked both CPUs against a space's end (kop_lock, table_lock)
 * here within tens of rounds at -smp 2. argv[1]: rounds (default 300).
 * A hang fails at the harness's timeout.
 */
#define CHECK_NAME "selfstop"
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>

extern const struct pkg *posix_pkg;     /* (ulib/pthread/pstart.c) */

static volatile long *shm;

static void on_cont(int s)
{
	(void)s;
	shm[0]++;
}

/* Between the stop and the continue, by round. */
static void pause_a_while(long i)
{
	if (i % 4 == 1)
		for (volatile long k = 0; k < (i % 16) * 2000; k++)
			;
	else if (i % 4 == 2)
		usleep(1000 + (i % 5) * 500);
	else if (i % 4 == 3) {
		pid_t b = fork();
		if (b == 0) {
			for (volatile long k = 0; k < 100000; k++)
				;
			_exit(0);
		}
		int st;
		CHECK(waitpid(b, &st, 0) == b);
	}
}

/* SIGTSTP from the parent to a child blocked in the kernel (a pipe
   read), SIGCONT, then the byte: did it stop, continue and end (8)? */
static int tstp_round(void)
{
	int fd[2];
	if (pipe(fd) != 0)
		return 0;
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(fd[1]);
		while (read(fd[0], &b, 1) != 1)
			;
		_exit(8);
	}
	close(fd[0]);
	int st = 0;
	int stopped = kill(c, SIGTSTP) == 0 && waitpid(c, &st, WUNTRACED) == c &&
		      WIFSTOPPED(st) && WSTOPSIG(st) == SIGTSTP;
	int cont = kill(c, SIGCONT) == 0 && waitpid(c, &st, WCONTINUED) == c && WIFCONTINUED(st);
	int wrote = write(fd[1], "x", 1) == 1;
	close(fd[1]);
	int ended = waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 8;
	return stopped && cont && wrote && ended;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300;
	shm = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	sigprocmask(SIG_BLOCK, &s, 0);
	long ok = 0;
	for (long i = 0; i < rounds; i++) {
		if (i % 5 == 4) {
			ok += tstp_round();
			continue;
		}
		shm[0] = 0;
		pid_t d = fork();
		if (d == 0) {
			signal(SIGCONT, on_cont);
			raise(SIGSTOP);
			_exit(7);
		}
		int st = 0;
		int stopped = waitpid(d, &st, WUNTRACED) == d && WIFSTOPPED(st);
		pause_a_while(i);
		int sent = kill(d, SIGCONT) == 0;
		int ended = waitpid(d, &st, 0) == d && WIFEXITED(st) && WEXITSTATUS(st) == 7;
		ok += stopped && sent && ended && shm[0] == 1;
	}
	CHECK(ok == rounds);
	struct result r;
	result_begin(&r, "selfstop");
	result_str(&r, "pkg", posix_pkg->name);
	result_int(&r, "rounds", rounds);
	result_int(&r, "ok", ok);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
