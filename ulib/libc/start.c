/*
 * Program start and end. crt0.S calls __libc_start with the argument
 * vector the kernel laid out; everything ulib needs is initialized
 * lazily, so there is nothing to set up before main but `environ`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <signal.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animalib/ulib.h>
#include <animart/tls.h>

int main(int argc, char **argv);
void __fd_inherit(void);
void __auxv_start(char **envp);
__attribute__((weak)) void __sig_exec_init(void);   /* signal.c: what an exec kept */

/* main's arguments, for code that is not main (a shared benchmark body
   reads its mode from them while each program's main stays one line). */
int prog_argc;
char **prog_argv;
char *program_invocation_name = "", *program_invocation_short_name = "";   /* GNU, <errno.h> */

/* How main is run. Native programs' main runs on the bare first VP and
   starts a thread package itself; the POSIX start (linked into programs
   under progs/posix/ and progs/ported/) replaces this weak default and
   runs main as the first thread of the package named on the command line. */
__attribute__((weak, noreturn)) void __program_start(int argc, char **argv)
{
	exit(main(argc, argv));
}

__attribute__((noreturn)) void __libc_start(int argc, char **argv)
{
	environ = argv + argc + 1;   /* after argv's null (docs/abi.md) */
	__auxv_start(environ);       /* and the auxiliary vector after its own */
	prog_argc = argc;
	prog_argv = argv;
	if (argc > 0 && argv[0]) {
		program_invocation_name = argv[0];
		const char *slash = strrchr(argv[0], '/');
		program_invocation_short_name = slash ? (char *)slash + 1 : argv[0];
	}
	tls_setup(0);                /* a program with __thread variables */
	__fd_inherit();              /* descriptors an exec kept (fd.c) */
	if (__sig_exec_init)
		__sig_exec_init();   /* ignored signals, the mask, pending ones */
	__program_start(argc, argv);
}

/* atexit's and on_exit's functions, in one list: an on_exit entry has
   `arg` and `with_status` set and is called fn(status, arg). */
static struct exit_fn {
	void (*fn)(void);
	void *arg;
	int with_status;
} atexit_fns[ATEXIT_MAX];
static int natexit;
static struct spin atexit_lock;

/* The lock's holder is its thread (spin_owner): a package then never
   switches away from it inside, where it was 0, so on a package that
   preempts threads (prio, -smp 1) a thread preempted holding it left
   another of the same VP spinning for good (forklock's fork). */
static struct thread *ex_lock(void)
{
	struct thread *t = spin_owner();
	spin_lock_by(&atexit_lock, t);
	return t;
}

/* fork (ulib/pthread/pfork.c): held across the copy (0), let go in the
   parent (1) and the child (2), by the thread that took it: a child
   whose parent's other thread was registering would spin at its exit.
   A leaf lock. */
static struct thread *fork_holder;
void __atexit_fork(int phase);
void __atexit_fork(int phase)
{
	if (phase == 0)
		fork_holder = ex_lock();
	else
		spin_unlock_by(&atexit_lock, fork_holder);
}

static int add_exit_fn(void (*fn)(void), void *arg, int with_status)
{
	int r = -1;
	struct thread *t = ex_lock();
	if (natexit < ATEXIT_MAX) {
		atexit_fns[natexit++] = (struct exit_fn){ fn, arg, with_status };
		r = 0;
	}
	spin_unlock_by(&atexit_lock, t);
	if (r)
		errno = ENOMEM;
	return r;
}

int atexit(void (*fn)(void))
{
	return add_exit_fn(fn, 0, 0);
}

/* Weak: a program's own on_exit wins (start.c is always linked). */
__attribute__((weak)) int on_exit(void (*fn)(int status, void *arg), void *arg)
{
	return add_exit_fn((void (*)(void))fn, arg, 1);
}

/* fmap.c: shared file maps to their files. Weak: a program that never
   calls mmap does not link fmap.c (a program that maps a file does). */
void __msync_all(void) __attribute__((weak));

/* The atexit functions run in the calling thread, last registered first;
   one that calls exit again just ends the program (each runs once). */
void exit(int status)
{
	for (;;) {
		struct exit_fn f = { 0, 0, 0 };
		struct thread *t = ex_lock();
		if (natexit > 0)
			f = atexit_fns[--natexit];
		spin_unlock_by(&atexit_lock, t);
		if (!f.fn)
			break;
		if (f.with_status)
			((void (*)(int, void *))f.fn)(status, f.arg);
		else
			f.fn();
	}
	fflush(0);
	if (__msync_all)
		__msync_all();
	sys_exit(status);
}

/* C11's quick exit: the at_quick_exit functions (last registered first),
   then _Exit: no atexit functions, no flush. */
static void (*quick_fns[ATEXIT_MAX])(void);
static int nquick;

int at_quick_exit(void (*fn)(void))
{
	int r = -1;
	struct thread *t = ex_lock();
	if (nquick < ATEXIT_MAX) {
		quick_fns[nquick++] = fn;
		r = 0;
	}
	spin_unlock_by(&atexit_lock, t);
	if (r)
		errno = ENOMEM;
	return r;
}

void quick_exit(int status)
{
	for (;;) {
		void (*fn)(void) = 0;
		struct thread *t = ex_lock();
		if (nquick > 0)
			fn = quick_fns[--nquick];
		spin_unlock_by(&atexit_lock, t);
		if (!fn)
			break;
		fn();
	}
	_Exit(status);
}

void _Exit(int status)
{
	sys_exit(status);
}

void _exit(int status)
{
	sys_exit(status);
}

/* A SIGABRT handler (ulib/signal.c; weak: only a program that can
   install one links it) runs first. */
__attribute__((weak)) void __sig_abort(void);

void abort(void)
{
	if (__sig_abort)
		__sig_abort();
	stdout_line("abort\n", 6);
	if (sys_getinfo(INFO_PARENT) != 0)      /* its parent's wait: WTERMSIG SIGABRT */
		syscall2(SYS_sigdie, SIGABRT, 0);
	sys_exit(EXIT_ABORT);
}
