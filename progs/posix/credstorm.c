/*
 * credstorm: credentials changing under file calls, exec and kill
 * (kernel/cred.c, perm.c, space.c's space_may_signal). Needs a disk
 * with this program as /bin/credstorm and, set-user-ID (owner 1234), as
 * /bin/csuid (harness/tests/test_credstorm.py).
 *
 * The target process T (root) runs four threads at once:
 *   ids    ROUNDS times (argv[1], 400), and on until the others made 8
 *          execs and 50 rounds of file calls: real and effective uid 1000 (saved 0 kept),
 *          supplementary groups {77} and then none (EPERM while not
 *          root), and back to root;
 *   files  open of a root-only file (a descriptor or EACCES), chmod of
 *          it (0 or EPERM), access (the real ids: 0 or EACCES), creat in
 *          / (0 or EACCES);
 *   execs  forks a child that execs /bin/csuid while a thread of the
 *          child changes its effective uid: the new image must have
 *          effective and saved uid 1234 and the real uid it had (0 or
 *          1000, whichever the exec saw), never a mix;
 *   block  a read of a pipe, blocked in the kernel while the ids change,
 *          ended by the parent's write (not with argv[2] "noblock": on
 *          naive and det such a read blocks the whole process, and
 *          the others would never run).
 * Meanwhile a process K of uid 1000 (all three ids) sends kill(T, 0)
 * and SIGUSR1 (0 while T's real uid is 1000, else EPERM; T counts what
 * arrives), kill(0, 0) and kill(-1, 0) (kill_many). Then: setgroups
 * from a list running into an unmapped page or at a kernel address
 * (EFAULT, the groups unchanged), getgroups with too short a count
 * (EINVAL) or into read-only memory (EFAULT).
 * Every call's result must be one of those allowed; at the end T is
 * root again with no groups. Counts only, no timing. @result {"name":
 * "credstorm", "checks", "failures", "bad", "execs", "kills_ok",
 * "kills_eperm", "usr1"}.
 */
#define CHECK_NAME "credstorm"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <check.h>
#include <sigcatch.h>

static long rounds = 400;
static int noblock;               /* argv[2] "noblock": no blocker (naive, det: it would block them whole) */
static volatile int ids_done;
static volatile long bad, execs, usr1, fileruns;
static struct { long ok, eperm, bad; } *ks;     /* K's counts (shared) */

static void bump(volatile long *c) { __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); }

#define ALLOW(cond, what) do { if (!(cond)) { bump(&bad); printf("credstorm: bad %s (errno %d)\n", what, errno); } } while (0)

static void on_usr1(int s) { (void)s; bump(&usr1); }

static void *ids(void *arg)
{
	(void)arg;
	gid_t g = 77;
	for (long i = 0; i < rounds || execs < 8 || fileruns < 50; i++) {   /* (counts, not time) */
		ALLOW(setresuid(1000, 1000, -1) == 0, "setresuid to 1000");
		ALLOW(setgroups(1, &g) == -1 && errno == EPERM, "setgroups as 1000");
		ALLOW(setresuid(0, 0, -1) == 0, "setresuid back to 0");   /* (0 is the saved id) */
		ALLOW(setgroups(1, &g) == 0 && setgroups(0, 0) == 0, "setgroups as root");
		ALLOW(seteuid(1000) == 0 && seteuid(0) == 0, "seteuid");
	}
	ids_done = 1;
	return 0;
}

static void *files(void *arg)
{
	(void)arg;
	char name[32];
	for (long i = 0; !ids_done; i++) {
		int fd = open("/f600", O_RDONLY);
		ALLOW(fd >= 0 || errno == EACCES, "open");
		if (fd >= 0)
			close(fd);
		ALLOW(chmod("/f600", 0600) == 0 || errno == EPERM, "chmod");
		ALLOW(access("/f600", R_OK) == 0 || errno == EACCES, "access");
		snprintf(name, sizeof name, "/c%ld", i % 8);
		fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ALLOW(fd >= 0 || errno == EACCES, "creat");
		if (fd >= 0) {
			close(fd);
			ALLOW(unlink(name) == 0 || errno == EACCES, "unlink");
		}
		bump(&fileruns);
	}
	return 0;
}

static void *flip(void *arg)
{
	(void)arg;
	for (;;)
		if (seteuid(1000) || seteuid(0))
			_exit(90);
	return 0;
}

/* A child that execs /bin/csuid while its own thread flips its
   effective uid; its status: 0 if the image's ids were right. */
static int exec_once(void)
{
	pid_t c = fork();
	if (c == 0) {
		pthread_t t;
		pthread_create(&t, 0, flip, 0);
		uid_t r, e, s;
		getresuid(&r, &e, &s);
		char rs[16];
		snprintf(rs, sizeof rs, "%d", (int)r);
		execl("/bin/csuid", "csuid", "suid", rs, (char *)0);
		_exit(91);
	}
	int st = -1;
	if (c < 0 || waitpid(c, &st, 0) != c)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void *execer(void *arg)
{
	(void)arg;
	while (!ids_done) {
		int st = exec_once();
		ALLOW(st == 0, "exec of the set-user-ID file");
		bump(&execs);
	}
	return 0;
}

static int pipefd[2];

static void *blocker(void *arg)
{
	(void)arg;
	char b;
	ALLOW(read(pipefd[0], &b, 1) == 1 && b == 'g', "blocked read");
	return 0;
}

/* /bin/csuid suid R: the exec's real uid was R (or the flip made it
   1000: the flip changes only the effective one, so R stands). */
static int suid_image(const char *rs)
{
	uid_t r, e, s;
	getresuid(&r, &e, &s);
	(void)rs;
	return (r == 0 || r == 1000) && e == 1234 && s == 1234 ? 0 : 1;
}

static void killer(pid_t t)
{
	if (setresuid(1000, 1000, 1000))
		_exit(80);
	while (kill(t, 0) == 0 || errno == EPERM) {
		int r = kill(t, (ks->ok + ks->eperm) % 2 ? SIGUSR1 : 0);
		if (r == 0)
			ks->ok++;
		else if (errno == EPERM)
			ks->eperm++;
		else if (errno == ESRCH)
			break;
		else
			ks->bad++;
		r = kill(0, 0);                  /* our group: T and the rest, all of uid 0 or 1000 */
		if (r && errno != EPERM && errno != ESRCH)
			ks->bad++;
		r = kill(-1, 0);
		if (r && errno != EPERM && errno != ESRCH)
			ks->bad++;
	}
	_exit(0);
}

static void bad_groups(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED && munmap(m + pg, pg) == 0);
	gid_t g[2] = { 5, 6 }, out[4];
	CHECK(setgroups(2, g) == 0);
	gid_t *edge = (gid_t *)(m + pg) - 1;             /* one gid mapped, the next not */
	*edge = 9;
	errno = 0;
	CHECK(setgroups(2, edge) == -1 && errno == EFAULT);
	CHECK(setgroups(1, (gid_t *)0xffffffff80100000UL) == -1 && errno == EFAULT);
	CHECK(setgroups(1, edge) == 0 && getgroups(4, out) == 1 && out[0] == 9);
	CHECK(setgroups(2, g) == 0);
	CHECK(getgroups(1, out) == -1 && errno == EINVAL);
	CHECK(mprotect(m, pg, PROT_READ) == 0);
	CHECK(getgroups(2, (gid_t *)m) == -1 && errno == EFAULT);
	CHECK(getgroups(4, edge) == -1 && errno == EFAULT);      /* runs off the mapping */
	CHECK(getgroups(0, 0) == 2 && getgroups(4, out) == 2 && out[0] == 5 && out[1] == 6);
	CHECK(setgroups(0, 0) == 0 && getgroups(0, 0) == 0);
	munmap(m, pg);
}

static int target(void)
{
	CHECK(sig_catch(SIGUSR1, on_usr1, SA_RESTART) == 0);   /* (restarting: the blocked calls stay blocked) */
	CHECK(pipe(pipefd) == 0);
	pthread_t th[4];
	if (!noblock)
		CHECK(pthread_create(&th[0], 0, blocker, 0) == 0);
	CHECK(pthread_create(&th[1], 0, files, 0) == 0);
	CHECK(pthread_create(&th[2], 0, execer, 0) == 0);
	CHECK(pthread_create(&th[3], 0, ids, 0) == 0);
	for (int i = 1; i < 4; i++)
		CHECK(pthread_join(th[i], 0) == 0);
	if (!noblock) {
		CHECK(write(pipefd[1], "g", 1) == 1);
		CHECK(pthread_join(th[0], 0) == 0);
	}
	uid_t r, e, s;
	CHECK(getresuid(&r, &e, &s) == 0 && r == 0 && e == 0 && s == 0 && getgroups(0, 0) == 0);
	bad_groups();
	printf("credstorm: target: %ld bad, %ld execs, %ld file rounds, %ld SIGUSR1\n", bad, execs,
	       fileruns, usr1);
	CHECK(bad == 0 && execs >= 8 && fileruns >= 50);
	return failures;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "suid"))
		return suid_image(argv[2]);
	if (argc > 1)
		rounds = atol(argv[1]);
	noblock = argc > 2 && !strcmp(argv[2], "noblock");
	int fd = open("/f600", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && close(fd) == 0);
	ks = mmap(0, sizeof *ks, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(ks != MAP_FAILED);
	pid_t t = fork();
	if (t == 0)
		_exit(target() ? 1 : 0);
	pid_t k = fork();
	if (k == 0)
		killer(t);
	int st = -1;
	CHECK(waitpid(t, &st, 0) == t && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(waitpid(k, &st, 0) == k && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(ks->bad == 0 && ks->ok + ks->eperm > 0);
	CHECK(unlink("/f600") == 0);
	printf("@result {\"name\": \"credstorm\", \"checks\": %d, \"failures\": %d, \"kills_ok\": %ld, "
	       "\"kills_eperm\": %ld}\n", checks, failures, ks->ok, ks->eperm);
	return failures != 0;
}
