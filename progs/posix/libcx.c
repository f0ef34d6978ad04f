/*
 * libcx: the library calls third-party code expects that need no disk
 * (issue 34), for test_libcx.py. Raw figures, one @result each, that
 * the test checks against the host's glibc (through ctypes): fnmatch
 * ("fnm"), strverscmp ("vers"), strptime ("ptime"). Then hand-written
 * checks of memory streams, getrandom, termios on the console, syslog,
 * getlogin and <grp.h>, the time zone and wait4 (each failure a line),
 * and @result {"name": "libcx_checks", "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <syslog.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <animalib/result.h>

static int checks, failures;

#define CHECK(c) do { checks++; if (!(c)) { failures++; \
	printf("libcx: FAIL line %d: %s (errno %d)\n", __LINE__, #c, errno); } } while (0)

static const struct { const char *p, *s; int fl; } fnm[] = {
	{ "*.c", "main.c", 0 }, { "*.c", ".hidden.c", 0 }, { "*.c", ".hidden.c", FNM_PERIOD },
	{ ".*", ".hidden", FNM_PERIOD }, { "?", ".", FNM_PERIOD }, { "[.]x", ".x", FNM_PERIOD },
	{ "a/*", "a/.b", FNM_PATHNAME | FNM_PERIOD }, { "a/*", "a/.b", FNM_PERIOD },
	{ "a*", "a/b", 0 }, { "a*", "a/b", FNM_PATHNAME }, { "a?b", "a/b", FNM_PATHNAME },
	{ "a[/]b", "a/b", 0 }, { "a[/]b", "a/b", FNM_PATHNAME }, { "*/b", "a/b", FNM_PATHNAME },
	{ "*", "a/b", FNM_PATHNAME | FNM_LEADING_DIR }, { "a", "a/b/c", FNM_LEADING_DIR },
	{ "\\*", "*", 0 }, { "\\*", "x", 0 }, { "\\*", "\\*", FNM_NOESCAPE }, { "\\a", "a", 0 },
	{ "a\\", "a\\", 0 }, { "[\\]]", "]", 0 }, { "[\\]]", "\\]", FNM_NOESCAPE },
	{ "[a-c]x", "bx", 0 }, { "[a-c]x", "dx", 0 }, { "[!a-c]x", "dx", 0 }, { "[^a-c]x", "ax", 0 },
	{ "[]a]", "]", 0 }, { "[!]]", "]", 0 }, { "[a-]", "-", 0 }, { "[", "[", 0 }, { "[a", "[a", 0 },
	{ "[[:digit:]]*", "7up", 0 }, { "[[:alpha:][:digit:]]", "_", 0 }, { "[![:space:]]", " ", 0 },
	{ "[[:upper:]]", "a", FNM_CASEFOLD }, { "[[:lower:]]", "A", 0 }, { "[[:xdigit:]]", "F", 0 },
	{ "ABC", "abc", 0 }, { "ABC", "abc", FNM_CASEFOLD }, { "[A-C]*", "bz", FNM_CASEFOLD },
	{ "*a*b*c", "xaybzc", 0 }, { "*a*b*c", "xaybz", 0 }, { "**/*.h", "inc/x.h", FNM_PATHNAME },
	{ "", "", 0 }, { "", "x", 0 }, { "*", "", 0 }, { "?*?", "ab", 0 }, { "?*?", "a", 0 },
	{ "[[:punct:]]", "!", 0 }, { "[[:bogus:]]", "a", 0 }, { "x[[:alpha:]", "x[", 0 },
};

static const char *const vers[][2] = {
	{ "000", "00" }, { "00", "01" }, { "01", "010" }, { "010", "09" }, { "09", "0" },
	{ "0", "1" }, { "1", "9" }, { "9", "10" }, { "a12", "a123" }, { "a19", "a123" },
	{ "file2.txt", "file10.txt" }, { "v1.2.10", "v1.2.9" }, { "abc", "abd" }, { "x", "x" },
	{ "1.01", "1.001" }, { "a", "a0" }, { "a9", "a09" }, { "item 7", "item007" },
};

static const char *const ptime[][2] = {
	{ "2024-02-29 13:45:59", "%Y-%m-%d %H:%M:%S" }, { "1999-12-31", "%F" },
	{ "Tue Mar  5 08:09:10 2019", "%c" }, { "12/25/07", "%D" }, { "03:04:05 PM", "%r" },
	{ "23:59", "%R" }, { "monday 17 august 2026", "%A %d %B %Y" }, { "Feb 3 70", "%b %e %y" },
	{ "060 2001", "%j %Y" }, { "1700000000", "%s" }, { "20 24", "%C %y" },
	{ "  42", "%M" }, { "x", "%d" }, { "13", "%m" }, { "12:00 AM", "%I:%M %p" },
	{ "2026-11-29T10:11:12+0130", "%Y-%m-%dT%H:%M:%S%z" }, { "99%", "%d%%" },
	{ "5 Thu", "%u %a" }, { "2000 366", "%Y %j" },
};

static void raw(void)
{
	struct result r;
	for (unsigned i = 0; i < sizeof fnm / sizeof fnm[0]; i++) {
		result_begin(&r, "fnm");
		result_str(&r, "p", fnm[i].p);
		result_str(&r, "s", fnm[i].s);
		result_int(&r, "fl", fnm[i].fl);
		result_int(&r, "r", fnmatch(fnm[i].p, fnm[i].s, fnm[i].fl));
		result_end(&r);
	}
	for (unsigned i = 0; i < sizeof vers / sizeof vers[0]; i++) {
		int c = strverscmp(vers[i][0], vers[i][1]);
		result_begin(&r, "vers");
		result_str(&r, "a", vers[i][0]);
		result_str(&r, "b", vers[i][1]);
		result_int(&r, "r", c < 0 ? -1 : c > 0);
		result_end(&r);
	}
	for (unsigned i = 0; i < sizeof ptime / sizeof ptime[0]; i++) {
		struct tm tm;
		memset(&tm, 0, sizeof tm);
		const char *e = strptime(ptime[i][0], ptime[i][1], &tm);
		result_begin(&r, "ptime");
		result_str(&r, "s", ptime[i][0]);
		result_str(&r, "f", ptime[i][1]);
		result_int(&r, "end", e ? e - ptime[i][0] : -1);
		int64_t v[] = { tm.tm_sec, tm.tm_min, tm.tm_hour, tm.tm_mday, tm.tm_mon, tm.tm_year,
				tm.tm_wday, tm.tm_yday, tm.tm_isdst, tm.tm_gmtoff };
		result_array(&r, "tm");
		for (unsigned k = 0; k < sizeof v / sizeof v[0]; k++)
			result_int(&r, 0, v[k]);
		result_close(&r);
		result_end(&r);
	}
}

static void memstreams(void)
{
	char buf[16];
	memset(buf, 'z', sizeof buf);
	FILE *f = fmemopen(buf, sizeof buf, "w");
	CHECK(f && fileno(f) == -1);
	CHECK(fprintf(f, "ab%d", 12) == 4 && ftell(f) == 4);
	CHECK(fflush(f) == 0 && !strcmp(buf, "ab12"));
	CHECK(fseek(f, 1, SEEK_SET) == 0 && fputc('X', f) == 'X' && fclose(f) == 0);
	CHECK(!memcmp(buf, "aX12", 5) && buf[5] == 'z');
	f = fmemopen(buf, 8, "w");            /* more than fits: short, the error set */
	CHECK(f && fwrite("0123456789", 1, 10, f) == 10 && fflush(f) == EOF && ferror(f));
	fclose(f);
	CHECK(!memcmp(buf, "01234567", 8));
	strcpy(buf, "one\ntwo\n");
	f = fmemopen(buf, strlen(buf), "r");
	char line[16];
	CHECK(f && fgets(line, sizeof line, f) && !strcmp(line, "one\n"));
	CHECK(fgets(line, sizeof line, f) && !strcmp(line, "two\n") && !fgets(line, sizeof line, f) && feof(f));
	CHECK(fseek(f, -4, SEEK_END) == 0 && fgetc(f) == 't' && fputc('x', f) == EOF);
	CHECK(fseek(f, 9, SEEK_SET) == -1 && errno == EINVAL);
	fclose(f);
	strcpy(buf, "abc");
	f = fmemopen(buf, sizeof buf, "a+");
	CHECK(f && ftell(f) == 3 && fputs("de", f) >= 0 && fflush(f) == 0 && !strcmp(buf, "abcde"));
	rewind(f);
	CHECK(fgets(line, sizeof line, f) && !strcmp(line, "abcde"));
	fclose(f);
	f = fmemopen(0, 32, "w+");            /* its own buffer */
	CHECK(f && fputs("hello", f) >= 0 && fseek(f, 0, SEEK_SET) == 0 && fgets(line, sizeof line, f) &&
	      !strcmp(line, "hello"));
	CHECK(fclose(f) == 0);
	CHECK(!fmemopen(buf, 0, "r") && errno == EINVAL);
	char *p = 0;
	size_t n = 99;
	f = open_memstream(&p, &n);
	CHECK(f && p && n == 0);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "%d,", i);
	CHECK(fflush(f) == 0 && n == strlen(p) && !strncmp(p, "0,1,2,", 6) && !strcmp(p + n - 4, "999,"));
	size_t full = n;
	CHECK(fseek(f, 2, SEEK_SET) == 0 && fflush(f) == 0 && n == 2);
	CHECK(fseek(f, full + 3, SEEK_SET) == 0 && fputc('E', f) == 'E' && fclose(f) == 0);
	CHECK(n == full + 4 && p[full] == 0 && p[full + 2] == 0 && p[full + 3] == 'E' && p[n] == 0);
	free(p);
	f = fopencookie(0, "r", (cookie_io_functions_t){ 0, 0, 0, 0 });
	CHECK(f && fgetc(f) == EOF && feof(f) && fseek(f, 0, SEEK_SET) == -1 && errno == ESPIPE);
	CHECK(fclose(f) == 0);
}

static void randomness(void)
{
	uint64_t a[64], b[64];
	CHECK(getrandom(a, sizeof a, 0) == (ssize_t)sizeof a && getrandom(b, sizeof b, GRND_NONBLOCK) == (ssize_t)sizeof b);
	CHECK(memcmp(a, b, sizeof a) != 0);
	int same = 0;
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < i; j++)
			same += a[i] == a[j];
	CHECK(same == 0);
	unsigned char odd[13];
	memset(odd, 0, sizeof odd);
	CHECK(getrandom(odd, 13, GRND_RANDOM) == 13);
	CHECK(getrandom(a, 8, 0x40) == -1 && errno == EINVAL);
	CHECK(getentropy(a, 256) == 0 && getentropy(a, 257) == -1 && errno == EIO);
	unsigned ones = 0;
	for (int i = 0; i < 64; i++)
		for (int k = 0; k < 64; k++)
			ones += b[i] >> k & 1;
	CHECK(ones > 4096 / 2 - 256 && ones < 4096 / 2 + 256);   /* about half the bits set */
}

static void terminal(void)
{
	struct termios t, u;
	CHECK(isatty(1) && tcgetattr(1, &t) == 0);
	CHECK(cfgetospeed(&t) == B115200 && (t.c_lflag & ICANON) && (t.c_lflag & ECHO) && !(t.c_oflag & OPOST));
	CHECK((t.c_cflag & CSIZE) == CS8 && t.c_cc[VINTR] == 3 && t.c_cc[VMIN] == 1);
	u = t;
	cfmakeraw(&u);
	CHECK(!(u.c_lflag & (ICANON | ECHO | ISIG)) && !(u.c_oflag & OPOST) && !(u.c_iflag & ICRNL));
	CHECK(cfsetspeed(&u, B115200) == 0 && cfgetospeed(&u) == B115200 && cfgetispeed(&u) == B115200);
	CHECK(cfsetospeed(&u, 12345) == -1 && errno == EINVAL);
	CHECK(tcsetattr(0, TCSANOW, &u) == 0 && tcgetattr(2, &t) == 0 && !memcmp(&t, &u, sizeof t));
	CHECK(tcsetattr(1, 7, &u) == -1 && errno == EINVAL);
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(tcgetattr(p[0], &t) == -1 && errno == ENOTTY && !isatty(p[1]));
	CHECK(!ttyname(p[0]) && errno == ENOTTY && ttyname_r(p[1], (char[32]){ 0 }, 32) == ENOTTY);
	close(p[0]);
	close(p[1]);
	CHECK(tcgetattr(p[0], &t) == -1 && errno == EBADF);
	char name[32];
	CHECK(ttyname(1) && !strcmp(ttyname(1), "/dev/ttyS0"));
	CHECK(ttyname_r(0, name, sizeof name) == 0 && !strcmp(name, "/dev/ttyS0"));
	CHECK(ttyname_r(0, name, 5) == ERANGE);
	CHECK(tcdrain(1) == 0 && tcflush(0, TCIFLUSH) == 0);
}

static void users(void)
{
	char b[8];
	CHECK(!strcmp(getlogin(), "root") && getlogin_r(b, sizeof b) == 0 && !strcmp(b, "root"));
	CHECK(getlogin_r(b, 4) == ERANGE);
	CHECK(getgroups(0, 0) == 0 && getgroups(-1, 0) == -1 && errno == EINVAL);
	struct group *g = getgrgid(0);
	CHECK(g && !strcmp(g->gr_name, "root") && g->gr_gid == 0 && g->gr_mem && !g->gr_mem[0]);
	CHECK(getgrnam("root") && getgrnam("root")->gr_gid == 0);
	errno = 0;
	CHECK(!getgrgid(1000) && !getgrnam("nobody") && errno == 0);
	struct group gr, *out;
	char small[8], big[128];
	CHECK(getgrgid_r(0, &gr, small, sizeof small, &out) == ERANGE && !out);
	CHECK(getgrnam_r("root", &gr, big + 1, sizeof big - 1, &out) == 0 && out == &gr && !strcmp(gr.gr_name, "root"));
	CHECK(getgrnam_r("adm", &gr, big, sizeof big, &out) == 0 && !out);
	setgrent();
	CHECK(getgrent() && !getgrent());
	endgrent();
}

static void zone(void)
{
	tzset();
	CHECK(!strcmp(tzname[0], "UTC") && !strcmp(tzname[1], "UTC") && timezone == 0 && daylight == 0);
}

static void logging(void)
{
	openlog("cxlog", LOG_PID, LOG_LOCAL0);
	syslog(LOG_ERR, "hello %d", 5);
	CHECK(setlogmask(LOG_UPTO(LOG_WARNING)) == 0xff);
	syslog(LOG_INFO, "hidden");
	syslog(LOG_WARNING | LOG_DAEMON, "warned");
	errno = ENOENT;
	closelog();
	syslog(LOG_CRIT, "gone: %m");
	CHECK(setlogmask(0) == LOG_UPTO(LOG_WARNING));
}

static void children(void)
{
	struct rusage ru;
	int st = 0;
	pid_t c = fork();
	if (c == 0)
		_exit(7);
	memset(&ru, 0xff, sizeof ru);
	CHECK(c > 0 && wait4(c, &st, 0, &ru) == c && WIFEXITED(st) && WEXITSTATUS(st) == 7);
	CHECK(ru.ru_utime.tv_sec == 0 && ru.ru_utime.tv_usec == 0 && ru.ru_maxrss == 0 && ru.ru_nivcsw == 0);
	c = fork();
	if (c == 0)
		_exit(3);
	CHECK(c > 0 && wait3(&st, 0, 0) == c && WEXITSTATUS(st) == 3);
	CHECK(wait4(-1, &st, WNOHANG, &ru) == -1 && errno == ECHILD);
}

int main(void)
{
	raw();
	memstreams();
	randomness();
	terminal();
	users();
	zone();
	logging();
	children();
	struct result r;
	result_begin(&r, "libcx_checks");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
