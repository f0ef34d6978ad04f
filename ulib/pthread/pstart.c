/*
 * The POSIX start: programs under progs/posix/ and progs/ported/ are
 * linked with this object, whose strong __program_start replaces ulib's
 * weak one (start.c). It takes the leading `pkg=NAME` and `vps=N` words
 * (and det's `det=par`) off the command line (defaults: fifo, one VP per
 * CPU), turns TLS on,
 * and runs main as the chosen package's first thread; main's return
 * value is the program's exit status, and exit() from any thread ends
 * the space. So the package is chosen at run time, with no rebuild.
 * Nothing else may live here: native programs must not get it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/pkg.h>

int main(int argc, char **argv);
extern const struct pkg *posix_pkg;
void posix_main_init(void);
void posix_init(void);
void __timer_exec_init(void);   /* ulib/libc/timer.c: the alarm an exec kept */
extern int det_par __attribute__((weak));   /* threadpkgs/det/par.c */
extern int det_spin_s __attribute__((weak));

static int argc_;
static char **argv_;

static void *main_thread(void *unused)
{
	(void)unused;
	posix_main_init();
	__timer_exec_init();
	exit(main(argc_, argv_));
}

__attribute__((noreturn)) void __program_start(int argc, char **argv)
{
	const char *name = "fifo";
	int nvp = (int)sys_getinfo(INFO_NCPU);
	while (argc > 1) {
		if (!strncmp(argv[1], "pkg=", 4))
			name = argv[1] + 4;
		else if (!strncmp(argv[1], "vps=", 4))
			nvp = (int)strtol(argv[1] + 4, 0, 10);
		else if (!strcmp(argv[1], "det=par") && &det_par)
			det_par = 1;     /* det's parallel phase (pkg=det) */
		else if (!strncmp(argv[1], "detspin=", 8) && &det_spin_s)
			det_spin_s = (int)strtol(argv[1] + 8, 0, 10);   /* (par.c) */
		else
			break;
		argv[1] = argv[0];       /* drop the word: argv[0] moves up one */
		argv++;
		argc--;
	}
	const struct pkg *p = pkg_find(name);
	if (!p) {
		printf("posix: no thread package called %s\n", name);
		exit(2);
	}
	if (nvp < 1 || nvp > MAXVP) {
		printf("posix: vps=%d is out of range\n", nvp);
		exit(2);
	}
	argc_ = argc;
	argv_ = argv;
	posix_pkg = p;
	posix_init();                /* TLS on, with room for the layer's state */
	p->run(nvp, main_thread, 0);
}
