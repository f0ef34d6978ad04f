/*
 * binattack: hostile calls on /bin/NAME, the boot module a path names
 * when the file system lacks it (kernel/binpath.c: exec, spawn, stat and
 * lstat fall back to it after the file system said ENOENT, reading the
 * user's path a second time). Every call must give an error number, never
 * kill the caller or hurt the kernel, and memory must come back.
 *   - bad path pointers (null, kernel, non-canonical, unmapped, a path
 *     running into an unmapped page), overlong names, odd names;
 *   - bad stat buffers (null, kernel, unmapped, read-only, one that
 *     crosses into an unmapped page);
 *   - exec of each bad path (the caller must run on), with bad argv;
 *   - a race (-smp 2): one thread stats, lstats and spawns /bin/binattack
 *     from a page that another thread unmaps and maps again (zeroed, then
 *     the path written back) and whose stat buffer it unmaps the same way.
 * argv[1] "child": exit 3 (what the spawns run). argv[1] N: race rounds.
 */
#define CHECK_NAME "binattack"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <animart/sys.h>
#include <anima/file.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

#define PG 4096
#define SELF "/bin/binattack"
#define ARENA ((char *)0x0000300000000000UL)   /* fixed pages for the attacks */

static long st_(const void *path, void *buf) { return syscall2(SYS_file_stat, (long)path, (long)buf); }
static long lst_(const void *path, void *buf) { return syscall2(SYS_file_lstat, (long)path, (long)buf); }

static long spawn_(const void *path)
{
	const char *argv[] = { SELF, "child" };
	return syscall3(SYS_spawn, (long)path, 2, (long)argv);
}

/* Spawned: collect it; its status must be 3. 1 if it was. */
static int reap(long id)
{
	int st = 0;
	return waitpid((int)id, &st, 0) == id && WIFEXITED(st) && WEXITSTATUS(st) == 3;
}

static char *page(int i)
{
	return ARENA + (long)i * PG;
}

static void pointers(void)
{
	/* page 0: read-write; page 1: never mapped; page 2: read-only */
	CHECK(sys_map(page(0), PG, PROT_READ | PROT_WRITE) == page(0));
	CHECK(sys_map(page(2), PG, PROT_READ) == page(2));
	struct kstat ks;
	const void *bad[] = { 0, (void *)1, (void *)0xffffffff80000000UL, (void *)0xffff800000000000UL,
			      (void *)0x0000800000000000UL, page(1), page(1) - 1 };
	for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
		CHECK(st_(bad[i], &ks) == -EFAULT || (i == 6 && st_(bad[i], &ks) == -ENOENT));
		CHECK(lst_(bad[i], &ks) == -EFAULT || (i == 6 && lst_(bad[i], &ks) == -ENOENT));
		CHECK(spawn_(bad[i]) < 0);
	}
	/* A path whose last bytes run into the unmapped page: no NUL. */
	char *edge = page(1) - 8;
	memcpy(edge, "/bin/bin", 8);
	CHECK(st_(edge, &ks) == -EFAULT);
	CHECK(lst_(edge, &ks) == -EFAULT);
	CHECK(spawn_(edge) == -EFAULT);
	/* The whole path, its NUL the page's last byte: fine. */
	char *fit = page(1) - sizeof SELF;
	memcpy(fit, SELF, sizeof SELF);
	CHECK(st_(fit, &ks) == 0 && (ks.mode & 0170000) == 0100000 && ks.size > 0);
	CHECK(lst_(fit, &ks) == 0);
	long id = spawn_(fit);
	CHECK(id > 0 && reap(id));
	/* Bad stat buffers for a name that exists only as a module. */
	void *bufs[] = { 0, (void *)0xffffffff80000000UL, page(1), page(2), page(1) - 8,
			 (void *)0x00007ffffffffff0UL };
	for (unsigned i = 0; i < sizeof bufs / sizeof *bufs; i++) {
		CHECK(st_(SELF, bufs[i]) == -EFAULT);
		CHECK(lst_(SELF, bufs[i]) == -EFAULT);
	}
	CHECK(st_(SELF, page(0)) == 0);
}

static void names(void)
{
	struct kstat ks;
	static char longp[8192];
	memcpy(longp, "/bin/", 5);
	memset(longp + 5, 'a', sizeof longp - 6);
	CHECK(st_(longp, &ks) == -ENAMETOOLONG);
	CHECK(lst_(longp, &ks) == -ENAMETOOLONG);
	CHECK(spawn_(longp) < 0);
	longp[300] = 0;                       /* a long name no module has */
	CHECK(st_(longp, &ks) < 0);
	CHECK(spawn_(longp) < 0);
	const char *odd[] = { "/bin/", "/bin//", "/bin/binattack/", "/bin/ksyms", "/usr/bin/",
			      "/bin/../bin/nothere", "/bin/bin\001attack" };
	for (unsigned i = 0; i < sizeof odd / sizeof *odd; i++) {
		CHECK(st_(odd[i], &ks) < 0);
		CHECK(lst_(odd[i], &ks) < 0);
		CHECK(spawn_(odd[i]) < 0);
	}
	CHECK(st_("/usr/bin/binattack", &ks) == 0);
	long id = spawn_("/usr/bin/binattack");
	CHECK(id > 0 && reap(id));
}

/* exec of bad paths and argv: each fails, and we run on. */
static void execs(void)
{
	const char *argv[] = { SELF, "child" };
	const void *bad[] = { 0, (void *)0xffffffff80000000UL, page(1), page(1) - 8, "/bin/",
			      "/bin/ksyms", "/bin/nothere" };
	for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(syscall6(SYS_exec, (long)bad[i], 2, (long)argv, 0, 0, 0) < 0);
	CHECK(syscall6(SYS_exec, (long)SELF, 2, (long)page(1), 0, 0, 0) == -EFAULT);
	CHECK(syscall6(SYS_exec, (long)SELF, 2, (long)(page(1) - 8), 0, 0, 0) == -EFAULT);
	const char *argbad[] = { SELF, (const char *)page(1) };
	CHECK(syscall6(SYS_exec, (long)SELF, 2, (long)argbad, 0, 0, 0) == -EFAULT);
	CHECK(syscall6(SYS_exec, (long)SELF, 1 << 30, (long)argv, 0, 0, 0) < 0);
}

/* The race: pages 4 (the path) and 5 (the stat buffer) come and go. */
static volatile int race_done;
static long bad_results;

static void *unmapper(void *arg)
{
	(void)arg;
	while (!race_done) {
		sys_unmap(page(4), 2 * PG);
		for (volatile int k = 0; k < 100; k++)
			;
		sys_map(page(4), 2 * PG, PROT_READ | PROT_WRITE);
		memcpy(page(5) - sizeof SELF, SELF, sizeof SELF);
		for (volatile int k = 0; k < 20000; k++)
			;
	}
	return 0;
}

static void race(int rounds)
{
	CHECK(sys_map(page(4), 2 * PG, PROT_READ | PROT_WRITE) == page(4));
	char *path = page(5) - sizeof SELF;
	memcpy(path, SELF, sizeof SELF);
	pthread_t t;
	CHECK(pthread_create(&t, 0, unmapper, 0) == 0);
	long ok = 0, fault = 0, noent = 0, spawned = 0, reaped = 0;
	for (int i = 0; i < rounds; i++) {
		long r;
		switch (i % 3) {
		case 0: r = st_(path, page(5) - 16); break;   /* (the buffer crosses: -EFAULT at best) */
		case 1: r = lst_(path, page(4) + 64); break;
		default:
			r = spawn_(path);
			if (r > 0) {
				spawned++;
				reaped += reap(r);
				r = 0;
			}
		}
		if (r == 0)
			ok++;
		else if (r == -EFAULT)
			fault++;
		else if (r == -ENOENT || r == -ENODEV)
			noent++;                 /* (the page was fresh: an empty path) */
		else {
			if (bad_results++ < 5)
				printf("binattack: race call %d gave %ld\n", i, r);
		}
	}
	race_done = 1;
	pthread_join(t, 0);
	CHECK(bad_results == 0);
	CHECK(reaped == spawned);
	CHECK(ok + fault + noent == rounds);
	printf("binattack: race ok %ld fault %ld noent %ld spawned %ld\n", ok, fault, noent, spawned);
}

/* The attacks run in a child, so that its page tables and thread
   stacks are back when it ends: then memory must be back exactly. */
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return 3;
	int rounds = argc > 1 ? atoi(argv[1]) : 3000;
	/* The first waitpid that sleeps sets up the runtime's sleeping (64
	   KiB and a page on fifo) in this process, for good: made here, so
	   the figure counts only what the child leaves. Else a loaded host,
	   whose slow child made main's wait sleep for the first time only
	   after `before`, read avail_lost 69,632 (17 pages: fifo-2 in a
	   fresh-clone CI, tutor-2 once before). */
	fork_warm();
	long before = avail_settled(1);
	pid_t c = fork();
	if (c == 0) {
		pointers();
		names();
		execs();
		race(rounds);
		struct result r;
		result_begin(&r, "binattack");
		result_str(&r, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
		result_int(&r, "rounds", rounds);
		result_int(&r, "checks", checks);
		result_int(&r, "failures", failures);
		result_end(&r);
		_exit(failures != 0);
	}
	int st = -1;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	long lost = before - avail_settled(1);
	struct result r;
	result_begin(&r, "binattack.mem");
	result_int(&r, "avail_lost", lost);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
