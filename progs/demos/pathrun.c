/*
 * pathrun PATH [ARGS...]: runs the program file at PATH on the disk
 * (SYS_spawn by path, kernel/execfile.c) with argv PATH ARGS..., waits
 * for it, and exits with its status (the kernel's: -1 if it was killed).
 * `python3 -m harness run --disk DIR /bin/prog ARGS` boots this.
 */
#include <stdio.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <errno.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: pathrun PATH [ARGS...]\n");
		return 2;
	}
	long id = sys_spawn(argv[1], argc - 1, (const char *const *)argv + 1);
	if (id < 0) {
		printf("pathrun: %s: %s\n", argv[1], errname((int)id));
		return 127;
	}
	int status = 0;
	long r = sys_wait((int)id, &status);
	if (r != id) {
		printf("pathrun: wait %ld: %s\n", id, errname((int)r));
		return 127;
	}
	return status;
}
