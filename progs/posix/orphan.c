/*
 * orphan: an unlinked file lives on while it is open or mapped, and is
 * freed when the last holder goes (kernel/orphan.c); a shared page's
 * stores reach the file when its last mapper ends without msync
 * (kernel/fshare.c). harness/tests/test_orphan.py. `orphan CASE` runs
 * one case (or "all") in a forked child whose memory must all come back
 * ("avail_lost"):
 *   unlinked  mkstemp's pattern: a 72 KiB file (indirect blocks) is
 *             unlinked while open: fstat says 0 links and the size, it
 *             is read, grown and read again through the descriptor, and
 *             counted an orphan until the close
 *   shm       shm_open, ftruncate, mmap(MAP_SHARED), shm_unlink at once
 *             (no page touched): a forked child and then the parent
 *             touch every page and see each other's stores
 *   rename    rename over a file open in the process: the descriptor
 *             keeps the old bytes, the name gives the new ones
 *   rmdir     a directory open while it is removed
 *   killed    a child holding an unlinked file open and mapped is
 *             killed: the file is freed after it
 *   stores    a child maps /keep (linked) shared, stores into every
 *             page and _exits without msync: the parent's pread finds
 *             the bytes (and the host, on the image)
 *   many      5,000 pages of one object mapped shared in a parent and a
 *             child, more than the 4,096 the table once held: every store
 *             of the child is seen by the parent
 * The orphans made and freed since boot are reported (INFO_ORPHAN).
 */
#define CHECK_NAME "orphan"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>
#include <forkaudit.h>

#define PG 4096
#define BIG (72 * 1024)
#define SHMPAGES 16
#define KEEPPAGES 6
#define MANY 5000

static long orphans(int what)
{
	return syscall2(SYS_getinfo, INFO_ORPHAN, what);
}

/* A file call that frees the orphans no one holds (orphan.c) */
static void settle(void)
{
	struct stat st;
	stat("/", &st);
}

static unsigned char pat(long i, int salt)
{
	return (unsigned char)(i * 131 + salt * 7 + (i >> 10));
}

static int fill(int fd, long n, int salt)
{
	static unsigned char b[BIG];
	for (long i = 0; i < n; i++)
		b[i] = pat(i, salt);
	return write(fd, b, n) == n;
}

static int same(int fd, long off, long n, int salt)
{
	static unsigned char b[BIG];
	if (pread(fd, b, n, off) != n)
		return 0;
	for (long i = 0; i < n; i++)
		if (b[i] != pat(off + i, salt))
			return 0;
	return 1;
}

static void unlinked(void)
{
	char name[] = "/tmp/orphXXXXXX";
	int fd = mkstemp(name);
	CHECK(fd >= 0 && fill(fd, BIG, 1));
	long n0 = orphans(0);
	CHECK(unlink(name) == 0 && access(name, F_OK) != 0);
	CHECK(orphans(0) == n0 + 1);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0 && st.st_size == BIG);
	CHECK(same(fd, 0, BIG, 1));
	CHECK(lseek(fd, BIG, SEEK_SET) == BIG && fill(fd, 4096, 2));   /* (grows it) */
	CHECK(fstat(fd, &st) == 0 && st.st_size == BIG + 4096);
	CHECK(same(fd, 0, BIG, 1));
	settle();
	CHECK(orphans(0) == n0 + 1);          /* (still open: not freed) */
	CHECK(close(fd) == 0);
	settle();
	CHECK(orphans(0) == n0);
}

static void shm(void)
{
	int fd = shm_open("/orph", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, SHMPAGES * PG) == 0);
	char *m = mmap(0, SHMPAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	CHECK(shm_unlink("/orph") == 0 && close(fd) == 0);    /* (the map alone holds it) */
	if (m == MAP_FAILED)
		return;
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < SHMPAGES; i++)
			m[i * PG] = (char)(i + 1);
		_exit(0);
	}
	CHECK(fork_status(p) == 0);
	int ok = 1;
	for (int i = 0; i < SHMPAGES; i++) {
		ok &= m[i * PG] == (char)(i + 1);
		m[i * PG + 1] = 'p';
	}
	CHECK(ok);
	CHECK(orphans(0) >= 1);
	CHECK(munmap(m, SHMPAGES * PG) == 0);
	avail_settled(2);                    /* (main and us: the child's map goes with its tables) */
	settle();
	CHECK(orphans(0) == 0);
}

static void renamed(void)
{
	int a = open("/ra", O_CREAT | O_RDWR | O_TRUNC, 0644), b = open("/rb", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(a >= 0 && b >= 0 && fill(a, 20000, 3) && fill(b, 3000, 4) && close(b) == 0);
	CHECK(rename("/rb", "/ra") == 0);
	CHECK(orphans(0) == 1);
	struct stat st;
	CHECK(fstat(a, &st) == 0 && st.st_nlink == 0 && st.st_size == 20000);
	CHECK(same(a, 0, 20000, 3));
	int c = open("/ra", O_RDONLY);
	CHECK(c >= 0 && same(c, 0, 3000, 4) && close(c) == 0);
	CHECK(close(a) == 0 && unlink("/ra") == 0);
	settle();
	CHECK(orphans(0) == 0);
}

static void rmdired(void)
{
	CHECK(mkdir("/od", 0755) == 0);
	DIR *d = opendir("/od");
	CHECK(d != 0 && rmdir("/od") == 0);
	CHECK(orphans(0) == 1);
	struct stat st;
	CHECK(d && fstat(dirfd(d), &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink == 0);
	CHECK(d && closedir(d) == 0);
	settle();
	CHECK(orphans(0) == 0);
}

static void killed(void)
{
	int pp[2];
	CHECK(pipe(pp) == 0);
	pid_t p = fork();
	if (p == 0) {
		int fd = open("/kd", O_CREAT | O_RDWR | O_TRUNC, 0644);
		char *m = fd >= 0 && fill(fd, 32768, 5) ? mmap(0, 32768, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
		char ok = m != MAP_FAILED && unlink("/kd") == 0 && m[20000] == (char)pat(20000, 5);
		write(pp[1], &ok, 1);
		for (;;)
			pause();
	}
	char ok = 0;
	CHECK(read(pp[0], &ok, 1) == 1 && ok == 1);
	CHECK(orphans(0) == 1);
	CHECK(kill(p, SIGKILL) == 0 && fork_status(p) == 128 + SIGKILL);
	avail_settled(2);                    /* (main and us: its mapping goes with its tables) */
	settle();
	CHECK(orphans(0) == 0);
	CHECK(close(pp[0]) == 0 && close(pp[1]) == 0);
}

static void stores(void)
{
	int fd = open("/keep", O_RDWR);
	CHECK(fd >= 0);
	pid_t p = fork();
	if (p == 0) {
		int f = open("/keep", O_RDWR);
		char *m = f < 0 ? MAP_FAILED : mmap(0, KEEPPAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
		if (m == MAP_FAILED)
			_exit(1);
		for (int i = 0; i < KEEPPAGES * PG; i++)
			m[i] = (char)pat(i, 6);
		_exit(0);                     /* no msync, no munmap */
	}
	CHECK(fork_status(p) == 0);
	avail_settled(2);
	CHECK(same(fd, 0, KEEPPAGES * PG, 6));
	CHECK(close(fd) == 0);
}

static void many(void)
{
	int fd = shm_open("/many", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (long)MANY * PG) == 0);
	char *m = mmap(0, (long)MANY * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED && shm_unlink("/many") == 0);
	if (m == MAP_FAILED)
		return;
	int pp[2], qq[2];
	CHECK(pipe(pp) == 0 && pipe(qq) == 0);
	pid_t p = fork();
	if (p == 0) {
		char c = 0;
		for (long i = 0; i < MANY; i++)
			*(int *)(m + i * PG) = (int)i + 7;
		write(pp[1], &c, 1);
		read(qq[0], &c, 1);           /* (mapped until the parent looked) */
		_exit(0);
	}
	char c;
	CHECK(read(pp[0], &c, 1) == 1);
	long bad = 0;
	for (long i = 0; i < MANY; i++)
		bad += *(int *)(m + i * PG) != (int)i + 7;
	CHECK(bad == 0);
	if (bad)
		printf("orphan: %ld of %d pages not shared\n", bad, MANY);
	CHECK(write(qq[1], &c, 1) == 1 && fork_status(p) == 0);
	CHECK(ftruncate(fd, 0) == 0);         /* (nothing to write back at the unmap) */
	CHECK(munmap(m, (long)MANY * PG) == 0 && close(fd) == 0);
	for (int i = 0; i < 2; i++)
		close(pp[i]), close(qq[i]);
	settle();
}

static const struct { const char *name; void (*run)(void); } cases[] = {
	{ "unlinked", unlinked }, { "shm", shm }, { "rename", renamed }, { "rmdir", rmdired },
	{ "killed", killed }, { "stores", stores }, { "many", many },
};
static const char *which;

static int body(void)
{
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!strcmp(which, "all") || !strcmp(which, cases[i].name))
			cases[i].run();
	settle();
	return failures;
}

/* fork_audit, with both figures taken once memory stopped moving: a
   page the kernel held for a moment at either reading (under a host's
   load, a polling sleep's) is no loss; a page not back within 200 ms is. */
static int audit(long *lost)
{
	fork_warm();
	avail_settled(1);
	settle();                            /* (held write-backs and orphans freed: forkaudit.h) */
	long before = avail_wait(AVAIL_STEADY, 2);
	int st = fork_body(body);
	avail_settled(1);
	settle();
	*lost = before - avail_wait(before, 1);
	return st;
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "orphan");
	result_str(&R, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	which = argc > 1 ? argv[1] : "all";
	long lost, made = orphans(1);
	int st = audit(&lost);
	CHECK(st >= 0);
	result_str(&R, "case", which);
	result_int(&R, "status", st);
	result_int(&R, "avail_lost", lost);
	result_int(&R, "made", orphans(1) - made);
	result_int(&R, "freed", orphans(2));
	result_int(&R, "now", orphans(0));
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
