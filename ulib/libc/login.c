/*
 * The login name: "root", <pwd.h>'s one user (the ids themselves:
 * ids.c).
 */
#include <unistd.h>
#include <string.h>
#include <errno.h>

char *getlogin(void)
{
	static char name[] = "root";
	return name;
}

int getlogin_r(char *buf, size_t n)
{
	if (n < sizeof "root")
		return ERANGE;
	memcpy(buf, "root", sizeof "root");
	return 0;
}
