/* popen and pclose without a shell: popen returns null with ENOSYS and
   pclose has no child to wait for (ECHILD). (fork is ulib/pthread/pfork.c,
   the exec family exec.c, posix_spawn spawn.c.) */
#include <unistd.h>
#include <stdio.h>
#include <errno.h>

FILE *popen(const char *cmd, const char *mode)
{
	(void)cmd; (void)mode;
	errno = ENOSYS;
	return 0;
}

int pclose(FILE *f)
{
	(void)f;
	errno = ECHILD;
	return -1;
}
