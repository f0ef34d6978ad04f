/*
 * orphcrash: orphans left by a crash are freed at the next mount
 * (kernel/ext2orph.c, orphan.c). harness/tests/test_orphcrash.py.
 *   orphcrash crash   makes four orphans and frees one of them again:
 *                     /tmp/a (72 KiB: indirect blocks) and /tmp/b open
 *                     and unlinked, /dev/shm/c mapped shared, stored to
 *                     and shm_unlinked (the map holds it), the directory
 *                     /tmp/d open and removed; then /tmp/b's close frees
 *                     it (out of the middle of the on-disk list). It
 *                     fsyncs, says "crash" and waits for good, holding
 *                     the other three: the harness kills QEMU there.
 *   orphcrash after   one file call (which walks the list the mount
 *                     found), then the orphans found and freed.
 *   orphcrash store   stores 'S' into every byte of /keep through a
 *                     shared map and _exits, no msync: the program is the
 *                     last one, so its end is the halt, which must write
 *                     the stores (kernel/fshare.c) though its space's
 *                     memory is not yet taken down then.
 *   orphcrash kid     a forked child does `store`; the parent polls for
 *                     its end without sleeping (so at -smp 2 the child
 *                     ran on the other CPU, which may still hold its
 *                     space) and _exits at once: the halt must write the
 *                     child's stores too, though its space is not taken
 *                     down yet.
 */
#include <sys/wait.h>
#define CHECK_NAME "orphcrash"
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>

#define BIG (72 * 1024)
#define SHM (4 * 4096)

static long orphans(int what)
{
	return syscall2(SYS_getinfo, INFO_ORPHAN, what);
}

static int made(const char *path, long n)
{
	static char b[BIG];
	memset(b, 'o', sizeof b);
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
	CHECK(fd >= 0 && write(fd, b, n) == n && unlink(path) == 0);
	return fd;
}

static void crash(struct result *R)
{
	int a = made("/tmp/a", BIG), b = made("/tmp/b", 8192);
	int c = shm_open("/c", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(c >= 0 && ftruncate(c, SHM) == 0);
	char *m = mmap(0, SHM, PROT_READ | PROT_WRITE, MAP_SHARED, c, 0);
	CHECK(m != MAP_FAILED && shm_unlink("/c") == 0 && close(c) == 0);
	if (m != MAP_FAILED)
		m[SHM - 1] = 's';
	CHECK(mkdir("/tmp/d", 0755) == 0);
	DIR *d = opendir("/tmp/d");
	CHECK(d != 0 && rmdir("/tmp/d") == 0);
	CHECK(orphans(0) == 4);
	CHECK(close(b) == 0);
	struct stat st;
	stat("/", &st);                       /* (frees /tmp/b) */
	CHECK(orphans(0) == 3);
	CHECK(fsync(a) == 0);                 /* everything on the disk: the crash loses nothing */
	result_int(R, "orphans", orphans(0));
	result_int(R, "failures", failures);
	result_str(R, "phase", "crash");
	result_end(R);
	for (;;)
		pause();
}

static void store(void)
{
	int fd = open("/keep", O_RDWR);
	struct stat st;
	char *m = fd < 0 || fstat(fd, &st) ? MAP_FAILED :
		  mmap(0, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		_exit(1);
	memset(m, 'S', st.st_size);
	_exit(0);                             /* no msync, no munmap */
}

static void kid(void)
{
	pid_t p = fork();
	if (p == 0)
		store();
	int st = -1;
	while (waitpid(p, &st, WNOHANG) == 0)
		;                                 /* (no sleep: this CPU stays ours) */
	_exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1);
}

int main(int argc, char **argv)
{
	struct result R;
	if (argc > 1 && !strcmp(argv[1], "store"))
		store();
	if (argc > 1 && !strcmp(argv[1], "kid"))
		kid();
	result_begin(&R, "orphcrash");
	result_str(&R, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	if (argc > 1 && !strcmp(argv[1], "crash"))
		crash(&R);
	struct stat st;
	CHECK(stat("/", &st) == 0);
	result_str(&R, "phase", "after");
	result_int(&R, "found", orphans(3));
	result_int(&R, "freed", orphans(2));
	result_int(&R, "now", orphans(0));
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
