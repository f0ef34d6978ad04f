/*
 * Scripts for the exec family: the kernel runs ELF programs only
 * (kernel/exec.c: anything else is ENOEXEC), so the library does what
 * Linux's kernel and glibc do with the rest. A file that starts with
 * "#!interpreter [argument]" runs as `interpreter [argument] path
 * argv[1]...` (Linux's rule: the rest of the line after the
 * interpreter, blanks trimmed, is one argument; the line is at most 255
 * bytes; an interpreter that is itself a script is ENOEXEC). execvp,
 * execlp and execvpe (with `shell`) also run a file without that line
 * with /bin/sh, as glibc does (progs/bin/sh).
 */
#include <unistd.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <anima/layout.h>
#include "script.h"
#include "nocancel.h"

/* path's "#!" line parsed into interp and arg (arg may be empty): 1, or
   0 when there is none. */
static int shebang(const char *path, char *line, size_t n, char **interp, char **arg)
{
	int fd = __open_nocancel(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ssize_t got = __read_nocancel(fd, line, n - 1);
	__close_nocancel(fd);
	if (got < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[got] = 0;
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = 0;
	char *p = line + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return 0;
	*interp = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	char *end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = 0;
	*arg = p;
	return 1;
}

int __exec_script(const char *path, char *const argv[], char *const envp[], int shell)
{
	char line[256], *interp = "/bin/sh", *arg = "";
	if (!shebang(path, line, sizeof line, &interp, &arg) && !shell) {
		errno = ENOEXEC;
		return -1;
	}
	int n = 0;
	while (argv && argv[n])
		n++;
	if (n > MAX_ARGS - 3) {
		errno = E2BIG;
		return -1;
	}
	char *v[n + 4];
	int k = 0;
	v[k++] = interp;
	if (*arg)
		v[k++] = arg;
	v[k++] = (char *)path;
	for (int i = 1; i < n; i++)
		v[k++] = argv[i];
	v[k] = 0;
	return __exec_elf(interp, v, envp);   /* (an interpreter that is a script: ENOEXEC) */
}
