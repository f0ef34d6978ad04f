/*
 * The shell's language, script by script (harness/tests/test_shlang.py
 * writes them to the disk): for each /shlang/NAME.sh, `/bin/sh FILE`'s
 * standard output and exit status must be /shlang/NAME.out's and
 * /shlang/NAME.rc's (what Debian's /bin/sh, dash, gives). A mismatch
 * prints both outputs.
 * @result {"name": "shlang", "checks": N, "failures": F}
 */
#define CHECK_NAME "shlang"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include "check.h"

#define DIR_ "/shlang"

static char *slurp(const char *path, size_t *n)
{
	static char buf[3][16384];
	static int k;
	char *b = buf[k++ % 3];
	int fd = open(path, O_RDONLY);
	ssize_t r = fd < 0 ? -1 : read(fd, b, sizeof buf[0] - 1);
	if (fd >= 0)
		close(fd);
	*n = r > 0 ? (size_t)r : 0;
	b[*n] = 0;
	return b;
}

/* sh FILE: its output (at most 16 KiB) and its exit status, or -1. */
static char *run(const char *file, int *st)
{
	static char out[16384];
	char cmd[512];
	snprintf(cmd, sizeof cmd, "/bin/sh %s", file);
	FILE *f = popen(cmd, "r");
	size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
	out[n] = 0;
	int s = f ? pclose(f) : -1;
	*st = s != -1 && WIFEXITED(s) ? WEXITSTATUS(s) : -1;
	return out;
}

static void one(const char *name)
{
	char path[256];
	size_t n;
	snprintf(path, sizeof path, DIR_ "/%s.out", name);
	char *want = slurp(path, &n);
	snprintf(path, sizeof path, DIR_ "/%s.rc", name);
	int want_st = atoi(slurp(path, &n));
	snprintf(path, sizeof path, DIR_ "/%s.sh", name);
	int st;
	char *got = run(path, &st);
	int ok = !strcmp(got, want) && st == want_st;
	CHECK(ok);
	if (!ok)
		printf("shlang: %s: status %d (want %d), output:\n%s\n-- want:\n%s\n--\n",
		       name, st, want_st, got, want);
	else
		printf("shlang: %s ok\n", name);
}

int main(void)
{
	DIR *d = opendir(DIR_);
	CHECK(d != 0);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 3 && !strcmp(e->d_name + n - 3, ".sh")) {
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)(n - 3), e->d_name);
			one(name);
		}
	}
	if (d)
		closedir(d);
	printf("@result {\"name\": \"shlang\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
