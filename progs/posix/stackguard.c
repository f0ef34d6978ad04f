/*
 * stackguard: a thread whose attributes ask for a guard (the default
 * guard size is a page, as glibc's) has an unmapped page below its stack
 * even when the stack is small, so running past the stack's bottom
 * faults (SIGSEGV) instead of writing over what lies below it. Before, a
 * stack of up to 64 KiB was a malloc block with nothing below it but the
 * heap: a thread overflowing PTHREAD_STACK_MIN went on and exited 0
 * (ulib/rt/stack.c, thread_attr.guard).
 * Each thread runs in a forked child, whose end the parent reads:
 *   - PTHREAD_STACK_MIN, a page of guard, going twice its size down:
 *     killed by SIGSEGV;
 *   - 64 KiB, a page of guard, the same: killed by SIGSEGV;
 *   - PTHREAD_STACK_MIN, a page of guard, using a quarter of it: exit 0
 *     (the guard takes none of the room asked for);
 *   - 16 rounds of create and join with a guarded small stack: each
 *     thread runs and returns its argument.
 * @result {"name": "stackguard", "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "stackguard"
#include <check.h>

#define FRAME 256

/* Use about `bytes` of stack below the caller, a frame at a time. */
static int dive(long bytes)
{
	volatile char pad[FRAME];
	pad[0] = (char)bytes;
	pad[FRAME - 1] = 1;
	if (bytes <= FRAME)
		return pad[0];
	return dive(bytes - FRAME) + pad[FRAME - 1];
}

static void *use(void *arg)
{
	dive((long)arg);
	return arg;
}

/* A child runs a thread of `size` bytes of stack (a page of guard) that
   uses `use` bytes; its wait status. */
static int child_run(size_t size, long bytes)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_attr_t a;
		pthread_t t;
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, size);
		pthread_attr_setguardsize(&a, (size_t)sysconf(_SC_PAGESIZE));
		if (pthread_create(&t, &a, use, (void *)bytes))
			_exit(3);
		pthread_join(t, 0);
		_exit(0);
	}
	int st = -1;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static int segv(int st)
{
	return st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

int main(void)
{
	int st = child_run(PTHREAD_STACK_MIN, 2 * PTHREAD_STACK_MIN);
	printf("stackguard: min stack overflow: status %#x\n", st);
	CHECK(segv(st));
	st = child_run(64 * 1024, 2 * 64 * 1024);
	printf("stackguard: 64 KiB stack overflow: status %#x\n", st);
	CHECK(segv(st));
	st = child_run(PTHREAD_STACK_MIN, PTHREAD_STACK_MIN / 4);
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN);
	int ok = 0;
	for (long i = 1; i <= 16; i++) {
		pthread_t t;
		void *v = 0;
		if (pthread_create(&t, &a, use, (void *)(i * 256)))
			break;
		ok += !pthread_join(t, &v) && v == (void *)(i * 256);
	}
	CHECK(ok == 16);
	printf("@result {\"name\": \"stackguard\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
