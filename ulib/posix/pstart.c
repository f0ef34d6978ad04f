/*
 * TEMPORARY POSIX start (the libc branch's stand-in): runs main on the
 * bare first VP, like the weak default in ulib/start.c. The threads
 * branch (posix-threads) replaces this file with the real one, which
 * strips `pkg=NAME vps=N` from argv and runs main as the first thread of
 * that package; on a merge, theirs wins.
 */
#include <stdlib.h>

int main(int argc, char **argv);

__attribute__((noreturn)) void __program_start(int argc, char **argv)
{
	exit(main(argc, argv));
}
