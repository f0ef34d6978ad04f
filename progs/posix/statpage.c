/*
 * statpage: where the page the first stat() of a process keeps goes
 * (issue 34's note). Run in forked children so each starts afresh:
 *   plain   stat("/") twice: the available memory after each
 *   deep    first a stack frame as deep as stat's (its PATH_MAX path
 *           buffer), then stat("/") twice
 * harness/tests/test_orphcrash.py reads the figures.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <avail.h>
#include <animalib/result.h>

static __attribute__((noinline)) void deep(void)
{
	volatile char b[3 * 4096];
	for (unsigned i = 0; i < sizeof b; i += 512)
		b[i] = 1;
}

static void child(int pre, int fd)
{
	struct stat st;
	long a[3];
	if (pre)
		deep();
	a[0] = avail();
	stat("/", &st);
	a[1] = avail();
	stat("/", &st);
	a[2] = avail();
	long d[2] = { a[0] - a[1], a[1] - a[2] };
	write(fd, d, sizeof d);
	_exit(0);
}

int main(void)
{
	struct result R;
	struct stat st;
	stat("/", &st);                      /* (the disk mounted, its first blocks in) */
	result_begin(&R, "statpage");
	for (int pre = 0; pre < 2; pre++) {
		int p[2];
		long d[2] = { -1, -1 };
		pipe(p);
		pid_t c = fork();
		if (c == 0)
			child(pre, p[1]);
		read(p[0], d, sizeof d);
		waitpid(c, 0, 0);
		close(p[0]), close(p[1]);
		result_int(&R, pre ? "deep_first" : "plain_first", d[0]);
		result_int(&R, pre ? "deep_second" : "plain_second", d[1]);
	}
	result_end(&R);
	return 0;
}
