/*
 * The environment, locales and the shell: Anima programs get argv only,
 * so there are no variables, one locale ("C") and no shell.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <locale.h>

char *getenv(const char *name)
{
	(void)name;
	return 0;
}

int setenv(const char *name, const char *value, int overwrite)
{
	(void)value, (void)overwrite;
	errno = !name || !*name || strchr(name, '=') ? EINVAL : ENOSYS;
	return -1;
}

int unsetenv(const char *name)
{
	if (!name || !*name || strchr(name, '=')) {
		errno = EINVAL;
		return -1;
	}
	return 0;              /* it is not set */
}

char *setlocale(int category, const char *locale)
{
	(void)category;
	if (!locale || !*locale || !strcmp(locale, "C") || !strcmp(locale, "POSIX"))
		return "C";
	return 0;
}

struct lconv *localeconv(void)
{
	static struct lconv c = { ".", "", "" };
	return &c;
}
