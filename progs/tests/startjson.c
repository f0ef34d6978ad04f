/*
 * startjson: the kernel's @start line for a child whose argv a hostile
 * parent chose must still be one JSON object
 * (harness/tests/test_syscall.py::test_start_line_of_a_hostile_argv).
 * The child's argv is "child" and 8 strings of 119 bytes: 6 of control
 * characters (each escaped as 6 bytes, \u0001), one of quotes and one of
 * backslashes (2 each), 962 bytes in all, just under MAX_ARGLEN: far more
 * than the kernel's line holds escaped. Each string may be cut short, or
 * left out, but the line must parse. The child exits 0 at once.
 */
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return 0;
	static char a[8][120];
	const char *av[10] = { "startjson", "child" };
	for (int i = 0; i < 8; i++) {
		memset(a[i], i == 6 ? '"' : i == 7 ? '\\' : 1, sizeof a[i] - 1);
		av[2 + i] = a[i];
	}
	int st = -2;
	long id = sys_spawn("startjson", 10, av);
	if (id > 0)
		sys_wait((int)id, &st);
	printf("@result {\"name\": \"startjson\", \"child\": %ld, \"status\": %d}\n", id, st);
	return id > 0 && st == 0 ? 0 : 1;
}
