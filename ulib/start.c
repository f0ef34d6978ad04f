/*
 * Program start and end. crt0.S calls __libc_start with the argument
 * vector the kernel laid out; everything ulib needs is initialized
 * lazily, so there is nothing to set up before main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys.h>

int main(int argc, char **argv);

/* main's arguments, for code that is not main (a shared benchmark body
   reads its mode from them while each program's main stays one line). */
int prog_argc;
char **prog_argv;

__attribute__((noreturn)) void __libc_start(int argc, char **argv)
{
	prog_argc = argc;
	prog_argv = argv;
	exit(main(argc, argv));
}

void exit(int status)
{
	flush();
	sys_exit(status);
}

void abort(void)
{
	stdout_line("abort\n", 6);
	sys_exit(EXIT_ABORT);
}
