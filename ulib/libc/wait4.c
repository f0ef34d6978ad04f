/*
 * wait3 and wait4: waitpid, and the child's resource use. The kernel
 * keeps no count of one ended child's time or faults, so the struct
 * rusage is all zeros (getrusage's RUSAGE_CHILDREN has the sum of the
 * waited-for children's processor time, as ru_utime); only a child
 * waited for fills it.
 */
#include <sys/wait.h>
#include <sys/resource.h>
#include <string.h>

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	pid_t r = waitpid(pid, status, options);
	if (r > 0 && ru)
		memset(ru, 0, sizeof *ru);
	return r;
}

pid_t wait3(int *status, int options, struct rusage *ru)
{
	return wait4(-1, status, options, ru);
}
