/*
 * confproc PKG: every section in turn (conf.h), then a summary line.
 * confproc PKG report ...: the image exec'd or spawned by the exec and
 * spawn sections, which reports what it inherited (exec.c).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include "conf.h"

const char *conf_area = "main";
const char *conf_pkg = "fifo";
static int checks, failures;

void conf_check(bool ok, const char *what, int line)
{
	int e = errno;
	struct result R;
	__atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);
	if (!ok)
		__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
	result_begin(&R, "confcheck");
	result_str(&R, "area", conf_area);
	result_int(&R, "line", line);
	result_bool(&R, "ok", ok);
	if (!ok) {
		result_str(&R, "what", what);
		result_int(&R, "errno", e);
	}
	result_end(&R);
	errno = e;
}

int conf_wait(pid_t p)
{
	int st = -1;
	if (waitpid(p, &st, 0) != p)
		return -1;
	return st;
}

int conf_status(pid_t p)
{
	int st = conf_wait(p);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

long conf_readall(int fd, char *buf, long max)
{
	long n = 0, r;
	while (n < max && (r = read(fd, buf + n, max - n)) > 0)
		n += r;
	return n;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		conf_pkg = argv[1];
	if (argc > 2 && !strcmp(argv[2], "report"))
		return conf_report(argc, argv);
	if (argc > 2 && !strcmp(argv[2], "nothing"))
		return 0;
	if (argc > 2 && !strcmp(argv[2], "hold")) {
		char c;
		write(1, "h", 1);
		return read(0, &c, 1) == 1 ? 0 : 1;
	}
	static void (*const area[])(void) = {
		conf_fork, conf_wait_area, conf_exit_area, conf_exec, conf_spawn,
		conf_pgrp, conf_sigchld, conf_pipes, conf_dup, conf_files,
		conf_tmp, conf_sysvals,
	};
	for (unsigned i = 0; i < sizeof area / sizeof area[0]; i++) {
		area[i]();
		fflush(stdout);
	}
	struct result R;
	result_begin(&R, "confproc");
	result_str(&R, "pkg", conf_pkg);
	result_int(&R, "checks", checks);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
