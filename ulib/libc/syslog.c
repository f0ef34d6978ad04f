/*
 * syslog: there is no log daemon; each message the mask lets through is
 * one line on the console (stderr), in the wire format's shape:
 * "<PRI>IDENT[PID]: MESSAGE", PRI the facility and priority as one
 * number, "[PID]" with LOG_PID. The ident is openlog's, else the
 * program's short name. %m is strerror(errno), as printf does here.
 * LOG_PERROR would copy the line to stderr, where it goes already.
 */
#include <syslog.h>
#include <stdio.h>
#include <errno.h>
#include <unistd.h>
#include <animart/spin.h>

static const char *ident;
static int opts, fac = LOG_USER, mask = 0xff;
struct spin __syslog_lk;       /* (fork holds it: ulib/pthread/pfork.c) */

void openlog(const char *id, int option, int facility)
{
	spin_lock(&__syslog_lk);
	ident = id;
	opts = option;
	if (facility && !(facility & ~LOG_FACMASK))
		fac = facility;
	spin_unlock(&__syslog_lk);
}

void closelog(void)
{
	spin_lock(&__syslog_lk);
	ident = 0;
	opts = 0;
	fac = LOG_USER;
	spin_unlock(&__syslog_lk);
}

int setlogmask(int m)
{
	spin_lock(&__syslog_lk);
	int old = mask;
	if (m)
		mask = m;
	spin_unlock(&__syslog_lk);
	return old;
}

void vsyslog(int pri, const char *fmt, va_list ap)
{
	int e = errno;
	spin_lock(&__syslog_lk);
	const char *id = ident ? ident : program_invocation_short_name;
	int o = opts, f = fac, m = mask;
	spin_unlock(&__syslog_lk);
	if (pri & ~(LOG_PRIMASK | LOG_FACMASK) || !(m & LOG_MASK(LOG_PRI(pri))))
		return;
	if (!(pri & LOG_FACMASK))
		pri |= f;
	char msg[1024];
	errno = e;                       /* (for %m) */
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (o & LOG_PID)
		fprintf(stderr, "<%d>%s[%d]: %s\n", pri, id ? id : "", (int)getpid(), msg);
	else
		fprintf(stderr, "<%d>%s: %s\n", pri, id ? id : "", msg);
	errno = e;
}

void syslog(int pri, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}
