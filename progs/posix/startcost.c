/*
 * startcost: what a program's start costs, under `--icount` (rdtsc
 * counts instructions): RUNS posix_spawns of this program by name, each
 * child printing the instructions from the call to its main's first
 * line (the kernel's spawn and load, then ulib's start: its descriptors
 * from INFO_FILES, stdio, threads). A child has its parent's descriptors 0, 1 and 2 as the
 * kernel's (one word of them); `exec` spawns from a parent that also
 * holds a pipe at descriptor 900 (fifteen words).
 *   startcost [exec]   RUNS lines "startcost: start N instructions"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <animart/clock.h>

#define RUNS 7

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "child")) {
		uint64_t now = rdtsc();
		printf("startcost: start %llu instructions\n", (unsigned long long)(now - strtoull(argv[2], 0, 10)));
		return 0;
	}
	int p[2];
	if (argc > 1 && !strcmp(argv[1], "exec") && (pipe(p) || dup2(p[0], 900) != 900))
		return 1;
	for (int r = 0; r < RUNS; r++) {
		char t0[24];
		snprintf(t0, sizeof t0, "%llu", (unsigned long long)rdtsc());
		char *av[] = { "startcost", "child", t0, 0 };
		pid_t pid;
		if (posix_spawnp(&pid, "startcost", 0, 0, av, 0) || waitpid(pid, 0, 0) != pid)
			return 1;
	}
	return 0;
}
