/*
 * exclrace: open(O_CREAT | O_EXCL) of a name nobody else uses must not
 * fail with EEXIST, even when a block it needs after making the file is
 * evicted meanwhile (kernel/sysfile.c: the call runs again after a wait,
 * and its create found the file it had just made).
 * harness/tests/test_orphcrash.py, with a small block cache (bcache=N).
 *   exclrace N   a forked child reads /big over and over (evicting the
 *                cache) while the parent makes, closes and unlinks N
 *                files in /x, which holds many entries; the result
 *                counts the opens that failed, by errno.
 *   exclrace N reopen   the same, but the parent opens existing files
 *                of /x (no O_CREAT) and closes them: each open must give
 *                the same descriptor ("moved" counts those that did not:
 *                a descriptor installed by a pass that then ran again).
 */
#define CHECK_NAME "exclrace"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

static char buf[64 * 1024];

static void thrash(void)
{
	for (;;) {
		int fd = open("/big", O_RDONLY);
		if (fd < 0)
			_exit(1);
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "exclrace");
	long n = argc > 1 ? atol(argv[1]) : 1000, eexist = 0, other = 0, moved = 0;
	int reopen = argc > 2 && !strcmp(argv[2], "reopen"), first = -1;
	pid_t p = fork();
	if (p == 0)
		thrash();
	for (long i = 0; i < n; i++) {
		char name[64];
		if (reopen)
			snprintf(name, sizeof name, "/x/existing-entry-with-a-long-name-%ld", i % 1500 + 1);
		else
			snprintf(name, sizeof name, "/x/new-file-with-a-long-name-%ld", i);
		int fd = open(name, reopen ? O_RDONLY : O_CREAT | O_EXCL | O_RDWR, 0644);
		if (fd < 0) {
			eexist += errno == EEXIST;
			other += errno != EEXIST;
			continue;
		}
		first = first < 0 ? fd : first;
		moved += fd != first;
		CHECK(close(fd) == 0 && (reopen || unlink(name) == 0));
	}
	CHECK(kill(p, SIGKILL) == 0 && waitpid(p, 0, 0) == p);
	result_int(&R, "n", n);
	result_int(&R, "eexist", eexist);
	result_int(&R, "other", other);
	result_int(&R, "moved", moved);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
