/* trap ACTION CONDITION...: ACTION (a command string) runs when the
   signal CONDITION comes, or at the shell's end for EXIT (0); '' ignores
   the signal, - (or a first operand that is a number) gives back its
   default; trap alone lists them. A caught signal only marks itself;
   its action runs between commands, or while the shell waits for a
   child (trap_check). A subshell (any child of sh_fork) keeps the
   ignored signals and drops the actions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <signal.h>
#include "sh.h"

#define NSIG_SH 65
static char *action[NSIG_SH];              /* 0: default; "": ignored */
static volatile sig_atomic_t pending[NSIG_SH], any;

static const struct { const char *n; int v; } sigs[] = {
	{ "EXIT", 0 }, { "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
	{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT }, { "BUS", SIGBUS }, { "FPE", SIGFPE },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
	{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "CHLD", SIGCHLD },
	{ "CONT", SIGCONT }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN },
	{ "TTOU", SIGTTOU }, { "URG", SIGURG }, { "WINCH", SIGWINCH },
};

/* A signal by number or name (with or without SIG): it, or -1. */
int sig_number(const char *s)
{
	if (isdigit((unsigned char)*s)) {
		char *end;
		long v = strtol(s, &end, 10);
		return *end || v >= NSIG_SH ? -1 : (int)v;
	}
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (!strcmp(sigs[i].n, s))
			return sigs[i].v;
	return -1;
}

static void caught(int sig)
{
	pending[sig] = 1;
	any = 1;
}

static void dispose(int sig, void (*h)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;               /* no SA_RESTART: a wait ends to run the action */
	sigemptyset(&sa.sa_mask);
	if (sig)
		sigaction(sig, &sa, 0);
}

int trap_check(void)
{
	int ran = 0;
	while (any) {
		any = 0;
		for (int s = 1; s < NSIG_SH; s++)
			if (pending[s]) {
				pending[s] = 0;
				if (action[s] && *action[s]) {
					int st = last_status;
					run_string(action[s]);
					last_status = st;
					ran = s;
				}
			}
	}
	return ran;
}

void sh_exit(int st)
{
	char *a = action[0];
	action[0] = 0;
	if (a && *a) {
		last_status = st;
		returning = loop_break = loop_cont = 0;
		run_string(a);
	}
	fflush(0);
	exit(st);
}

void trap_child(void)
{
	for (int s = 0; s < NSIG_SH; s++)
		if (action[s] && *action[s]) {
			free(action[s]);
			action[s] = 0;
			dispose(s, SIG_DFL);
		}
}

static void list(void)
{
	for (int s = 0; s < NSIG_SH; s++) {
		if (!action[s])
			continue;
		const char *name = 0;
		for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
			if (sigs[i].v == s)
				name = sigs[i].n;
		printf("trap -- ");
		put_quoted(action[s]);
		putchar(' ');
		if (name)
			printf("%s\n", name);
		else
			printf("%d\n", s);
	}
}

int b_trap(int argc, char **argv)
{
	if (argc == 1) {
		list();
		return 0;
	}
	int i = 1;
	if (!strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return 0;
	const char *act = argv[i];
	if (!strcmp(act, "-") || isdigit((unsigned char)act[0]))
		act = 0;                                 /* back to the default */
	if (!strcmp(argv[i], "-"))
		i++;
	else if (act)
		i++;
	int st = 0;
	for (; i < argc; i++) {
		int s = sig_number(argv[i]);
		if (s < 0 || s == SIGKILL || s == SIGSTOP) {
			fprintf(stderr, "sh: trap: %s: bad trap\n", argv[i]);
			st = 1;
			continue;
		}
		free(action[s]);
		action[s] = act ? xstrndup(act, strlen(act)) : 0;
		dispose(s, !act ? SIG_DFL : *act ? caught : SIG_IGN);
	}
	return st;
}
