/*
 * Program start and end. crt0.S calls __libc_start with the argument
 * vector the kernel laid out; everything ulib needs is initialized
 * lazily, so there is nothing to set up before main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys.h>

int main(int argc, char **argv);

__attribute__((noreturn)) void __libc_start(int argc, char **argv)
{
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
