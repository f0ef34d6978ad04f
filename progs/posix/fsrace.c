/*
 * fsrace: processes on every CPU race the file system's orphans and the
 * pipe's copy retry (issue 34). harness/tests/test_fsrace.py.
 *   fsrace ROUNDS   in a forked child whose memory must all come back
 *   (fork_audit), WORKERS processes each run ROUNDS rounds of:
 *   - orphans: a file made, filled, mapped shared (two pages, one
 *     stored to), and a grandchild forked that holds both the descriptor
 *     and the map; then, in an order the round picks, the worker unlinks
 *     the file, unmaps, closes, and the grandchild stores into the map
 *     and _exits or is killed while it waits, so the last holder (a
 *     close, an unmap, a space's end) and the unlink land on either CPU
 *     in every order;
 *   - copies: 3 pages go through a pipe from a grandchild whose source
 *     is a file page it mapped and did not touch (copyin_locked faults:
 *     the pipe lock let go, user_prefault reads the page from the disk,
 *     the copy runs again) into pages of the worker that a fork left
 *     copy-on-write or a private file map not yet read (copyout_locked);
 *     every byte is checked.
 *   At the end the orphans (INFO_ORPHAN) are 0 and the memory is back;
 *   the harness checks the image with e2fsck -fn.
 */
#define CHECK_NAME "fsrace"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>
#include <forkaudit.h>

#define PG 4096
#define WORKERS 4
#define CPAGES 3

static long rounds, flags;            /* flags (argv[2], to narrow a failure down): 1 no kill, 4 no orphan rounds */
static char cowbuf[CPAGES * PG];           /* touched before the fork: copy-on-write after */

static unsigned char pat(long i, int salt)
{
	return (unsigned char)(i * 31 + salt * 101 + (i >> 12));
}

static int fill(int fd, long n, int salt)
{
	static unsigned char b[CPAGES * PG];
	for (long i = 0; i < n; i++)
		b[i] = pat(i, salt);
	return pwrite(fd, b, n, 0) == n;
}

/* One orphan round: the order of unlink, munmap, close and the
   grandchild's end is the round's number in base 2. */
static int orphan_round(int w, long i)
{
	char name[64];
	snprintf(name, sizeof name, "/tmp/o%d-%ld", w, i);
	int fd = open(name, O_CREAT | O_EXCL | O_RDWR, 0644), bad = 0;
	if (fd < 0 || !fill(fd, 2 * PG, w))
		return 1;
	char *m = mmap(0, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	m[PG] = 'w';
	int go[2];
	if (pipe(go))
		return 1;
	pid_t p = fork();
	if (p == 0) {
		char c;
		read(go[0], &c, 1);
		m[0] = 'c';
		if (m[PG] != 'w')
			_exit(2);
		if ((i & 8) && !(flags & 1))
			for (;;)
				pause();          /* killed while it holds the file */
		_exit(0);
	}
	int order = (int)(i & 7);
	if (order & 1)
		bad |= (unlink(name) != 0) << 1;
	write(go[1], "g", 1);
	if (order & 2)
		bad |= (munmap(m, 2 * PG) != 0) << 2;
	if (!(order & 1))
		bad |= (unlink(name) != 0) << 3;
	if (order & 4)
		bad |= (close(fd) != 0) << 4;
	int killed = (i & 8) && !(flags & 1);
	if (killed)
		kill(p, SIGKILL);
	int st = fork_status(p);
	bad |= (st != (killed ? 128 + SIGKILL : 0)) << 5;
	if (bad & 32)
		printf("fsrace: worker %d round %ld: the holder's status %d\n", w, i, st);
	if (!(order & 2))
		bad |= (munmap(m, 2 * PG) != 0) << 6;
	if (!(order & 4))
		bad |= (close(fd) != 0) << 7;
	close(go[0]), close(go[1]);
	return bad;
}

/* One copy round through a pipe: a faulting source and destination. */
static int copy_round(int w, long i)
{
	char name[64];
	snprintf(name, sizeof name, "/tmp/c%d-%ld", w, i);
	int fd = open(name, O_CREAT | O_EXCL | O_RDWR, 0644), bad = 0;
	if (fd < 0 || !fill(fd, CPAGES * PG, (int)i) || unlink(name))
		return 1;
	int pp[2];
	if (pipe(pp))
		return 1;
	pid_t p = fork();
	if (p == 0) {
		/* the source: a shared map of the file, not touched */
		char *src = mmap(0, CPAGES * PG, PROT_READ, MAP_SHARED, fd, 0);
		close(pp[0]);
		if (src == MAP_FAILED || write(pp[1], src, CPAGES * PG) != CPAGES * PG)
			_exit(1);
		_exit(0);
	}
	close(pp[1]);
	/* the destination: copy-on-write pages (odd rounds) or a private
	   map of the file not read yet (even ones) */
	char *dst = i & 1 ? cowbuf : mmap(0, CPAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (dst == MAP_FAILED)
		return 1;
	long got = 0, r;
	while (got < CPAGES * PG && (r = read(pp[0], dst + got, CPAGES * PG - got)) > 0)
		got += r;
	bad |= (got != CPAGES * PG) << 1;
	long wrong = 0, first = -1, zeros = 0;
	for (long k = 0; k < got; k++)
		if ((unsigned char)dst[k] != pat(k, (int)i)) {
			first = first < 0 ? k : first;
			zeros += dst[k] == 0;
			wrong++;
		}
	if (wrong)
		printf("fsrace: worker %d round %ld: first wrong at %ld: %#x for %#x (%ld zeros; %s)\n", w, i,
		       first, (unsigned char)dst[first], pat(first, (int)i), zeros, i & 1 ? "cow" : "private map");
	bad |= (wrong != 0) << 2;
	int st = fork_status(p);
	bad |= (st != 0) << 3;
	if (bad)
		printf("fsrace: worker %d round %ld: copy got %ld, %ld wrong, writer status %d\n",
		       w, i, got, wrong, st);
	if (!(i & 1))
		munmap(dst, CPAGES * PG);
	close(pp[0]);
	close(fd);
	return bad;
}

static void worker(int w)
{
	int bad = 0;
	memset(cowbuf, 1, sizeof cowbuf);
	for (long i = 0; i < rounds; i++) {
		int o = flags & 4 ? 0 : orphan_round(w, i), c = copy_round(w, i);
		if ((o || c) && bad++ < 4)
			printf("fsrace: worker %d round %ld: orphan %#x copy %#x\n", w, i, o, c);
	}
	_exit(bad ? 1 : 0);
}

static int body(void)
{
	pid_t p[WORKERS];
	for (int w = 0; w < WORKERS; w++)
		if ((p[w] = fork()) == 0)
			worker(w);
	for (int w = 0; w < WORKERS; w++)
		CHECK(fork_status(p[w]) == 0);
	return failures;
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "fsrace");
	result_str(&R, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	rounds = argc > 1 ? atol(argv[1]) : 64;
	flags = argc > 2 ? atol(argv[2]) : 0;
	long lost, made = syscall2(SYS_getinfo, INFO_ORPHAN, 1);
	int st = fork_audit(body, &lost);
	struct stat s;
	stat("/", &s);                       /* (a file call: due orphans freed) */
	result_int(&R, "status", st);
	result_int(&R, "avail_lost", lost);
	result_int(&R, "made", syscall2(SYS_getinfo, INFO_ORPHAN, 1) - made);
	result_int(&R, "now", syscall2(SYS_getinfo, INFO_ORPHAN, 0));
	result_int(&R, "failures", failures);
	result_end(&R);
	return st || failures;
}
