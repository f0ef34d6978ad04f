/*
 * creds: process credentials (kernel/cred.c, perm.c; ulib/libc/ids.c),
 * booted as root with its own file on the disk as /bin/creds, and as
 * /bin/suid (set-user-ID, owner 1234) and /bin/sgid (set-group-ID,
 * group 4321) (harness/tests/test_creds.py).
 *   creds              the checks below, each unprivileged part in a
 *                      forked child (its exit status counts its checks'
 *                      failures), then @result "creds"
 *   creds expect R E S RG EG SG [G...]
 *                      exits 0 if its ids (getresuid, getresgid) and
 *                      supplementary groups are those, else 1
 * Checks: a boot program is root with no groups; setgroups/getgroups
 * and their errors (EINVAL, EPERM, EFAULT); ids and groups kept by fork,
 * exec and posix_spawn, and a set-ID file's owner taken at exec; root
 * dropping to other ids and then EPERM; seteuid among real and saved;
 * setreuid's saved-id rule; setuid in one thread changes the process;
 * file access by owner, group (supplementary too) and other: EACCES for
 * read, write, exec, search, create, unlink, access(); root passes;
 * access() uses the real ids, AT_EACCESS the effective; chmod and chown
 * only by owner or root (EPERM); a sticky directory's entries (EPERM);
 * new files owned by the creator's effective ids; kill EPERM across
 * users, allowed to the same user and to root; chdir needs search;
 * clock_settime is root's; <pwd.h>'s nobody; sched_setparam of another
 * user's process EPERM.
 */
#define CHECK_NAME "creds"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <time.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

extern char **environ;

static int ids_are(uid_t r, uid_t e, uid_t s, gid_t rg, gid_t eg, gid_t sg)
{
	uid_t a, b, c;
	gid_t x, y, z;
	return getresuid(&a, &b, &c) == 0 && getresgid(&x, &y, &z) == 0 && a == r && b == e &&
	       c == s && x == rg && y == eg && z == sg && getuid() == r && geteuid() == e &&
	       getgid() == rg && getegid() == eg;
}

static int expect(int argc, char **argv)
{
	if (argc < 8)
		return 2;
	unsigned v[6];
	for (int i = 0; i < 6; i++)
		v[i] = (unsigned)strtoul(argv[2 + i], 0, 10);
	if (!ids_are(v[0], v[1], v[2], v[3], v[4], v[5]))
		return 1;
	gid_t g[NGROUPS_MAX];
	int n = getgroups(NGROUPS_MAX, g);
	if (n != argc - 8)
		return 1;
	for (int i = 0; i < n; i++)
		if (g[i] != (gid_t)strtoul(argv[8 + i], 0, 10))
			return 1;
	return 0;
}

/* Run fn in a child: its failures as its status. */
static void in_child(void (*fn)(void))
{
	pid_t c = fork();
	if (c == 0) {
		failures = 0;
		fn();
		_exit(failures > 100 ? 100 : failures);
	}
	int st = -1;
	CHECK(c > 0 && waitpid(c, &st, 0) == c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFEXITED(st))
		failures += WEXITSTATUS(st);
}

/* exec (or posix_spawn) argv, waited for: its exit status. */
static int run(int spawn, char *const argv[])
{
	if (spawn) {
		pid_t p;
		int st = -1;
		if (posix_spawn(&p, argv[0], 0, 0, argv, environ) != 0 || waitpid(p, &st, 0) != p)
			return -1;
		return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	}
	pid_t c = fork();
	if (c == 0) {
		execv(argv[0], argv);
		_exit(99);
	}
	int st = -1;
	return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int err_of(int r)
{
	return r == -1 ? errno : 0;
}

/* Root becomes 1000/100 with groups {7, 8} (all three of each). */
static void become_user(void)
{
	gid_t g[2] = { 7, 8 };
	CHECK(setgroups(2, g) == 0);
	CHECK(setresgid(100, 100, 100) == 0);
	CHECK(setresuid(1000, 1000, 1000) == 0);
	CHECK(ids_are(1000, 1000, 1000, 100, 100, 100));
}

static void dropped(void)
{
	/* as root: any ids */
	CHECK(setresuid(1000, 1001, 1002) == 0 && ids_are(1000, 1001, 1002, 0, 0, 0));
	/* unprivileged now: only among 1000, 1001, 1002 */
	CHECK(err_of(setuid(5)) == EPERM);
	CHECK(err_of(seteuid(0)) == EPERM);
	CHECK(err_of(setresuid(-1, -1, 0)) == EPERM);
	CHECK(err_of(setgid(3)) == EPERM && err_of(setegid(3)) == EPERM);
	CHECK(err_of(setresgid(0, 0, 0)) == 0);          /* (ids equal to the current ones) */
	gid_t g = 1;
	CHECK(err_of(setgroups(1, &g)) == EPERM);
	CHECK(seteuid(1000) == 0 && ids_are(1000, 1000, 1002, 0, 0, 0));   /* real */
	CHECK(seteuid(1002) == 0 && ids_are(1000, 1002, 1002, 0, 0, 0));   /* saved */
	/* setreuid: setting the real id makes saved = the new effective one */
	CHECK(setreuid(1002, 1000) == 0 && ids_are(1002, 1000, 1000, 0, 0, 0));
	CHECK(err_of(setreuid(1001, -1)) == EPERM);      /* 1001 is no longer ours */
	/* unprivileged setuid changes the effective id only */
	CHECK(setuid(1002) == 0 && ids_are(1002, 1002, 1000, 0, 0, 0));
	CHECK(setresuid(-1, 1000, -1) == 0 && ids_are(1002, 1000, 1000, 0, 0, 0));
	CHECK(err_of(seteuid(-1)) == EINVAL && err_of(setuid(-1)) == EINVAL);
}

static void saved_root(void)
{
	/* root lends itself an unprivileged effective id and takes it back */
	CHECK(seteuid(1000) == 0 && ids_are(0, 1000, 0, 0, 0, 0));
	CHECK(err_of(open("/t/secret", O_RDONLY)) == EACCES);
	CHECK(seteuid(0) == 0 && ids_are(0, 0, 0, 0, 0, 0));
	int fd = open("/t/secret", O_RDONLY);
	CHECK(fd >= 0 && close(fd) == 0);
	/* root's setuid sets all three: no way back */
	CHECK(setuid(1000) == 0 && ids_are(1000, 1000, 1000, 0, 0, 0));
	CHECK(err_of(seteuid(0)) == EPERM && err_of(setuid(0)) == EPERM);
	/* gids: setregid by root, then unprivileged setgid among them */
	CHECK(err_of(setregid(50, 60)) == EPERM);
}

static void *thread_drop(void *arg)
{
	(void)arg;
	return (void *)(long)seteuid(1000);
}

static void threads(void)
{
	pthread_t t;
	void *r = (void *)1;
	CHECK(pthread_create(&t, 0, thread_drop, 0) == 0 && pthread_join(t, &r) == 0 && r == 0);
	CHECK(geteuid() == 1000 && getuid() == 0);       /* the whole process changed */
	CHECK(seteuid(0) == 0 && geteuid() == 0);
}

static void files_user(void)
{
	become_user();
	struct stat st;
	CHECK(err_of(open("/t/secret", O_RDONLY)) == EACCES);      /* 0600 root */
	CHECK(err_of(open("/t/open", O_RDWR)) == EACCES);          /* 0644 root: read only */
	int fd = open("/t/open", O_RDONLY);
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(err_of(open("/t/open", O_RDONLY | O_TRUNC)) == EACCES);
	CHECK(err_of(access("/t/secret", R_OK)) == EACCES && access("/t/open", R_OK) == 0);
	CHECK(err_of(access("/t/open", W_OK)) == EACCES && access("/t/open", F_OK) == 0);
	fd = open("/t/grp7", O_RDONLY);                            /* 0640, group 7: a supplementary */
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(err_of(open("/t/grp9", O_RDONLY)) == EACCES);        /* 0640, group 9 */
	CHECK(err_of(open("/t/other", O_RDONLY)) == EACCES);       /* 0066 owner 1000: owner class */
	CHECK(err_of(stat("/t/closed/f", &st)) == EACCES);         /* 0700 directory: no search */
	CHECK(err_of(open("/t/closed/f", O_RDONLY)) == EACCES);
	CHECK(err_of(open("/t/new", O_CREAT | O_WRONLY, 0644)) == EACCES);   /* 0755 root dir */
	CHECK(err_of(mkdir("/t/newdir", 0755)) == EACCES);
	CHECK(err_of(unlink("/t/open")) == EACCES);
	CHECK(err_of(rename("/t/open", "/t/pub/x")) == EACCES);
	CHECK(err_of(chmod("/t/open", 0666)) == EPERM);
	CHECK(err_of(chown("/t/open", 1000, 100)) == EPERM);
	char *noexec[] = { "/t/rootonly", "expect", 0 };           /* 0700 root */
	CHECK(err_of(execv(noexec[0], noexec)) == EACCES);
	CHECK(err_of(access("/t/rootonly", X_OK)) == EACCES);
	/* in the sticky 01777 directory: new files are ours */
	fd = open("/t/pub/mine", O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 1000 && st.st_gid == 100);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1 && close(fd) == 0);
	CHECK(mkdir("/t/pub/d", 0700) == 0 && stat("/t/pub/d", &st) == 0 && st.st_uid == 1000);
	CHECK(chmod("/t/pub/mine", 0640) == 0);                     /* its owner may */
	CHECK(chown("/t/pub/mine", -1, 8) == 0 && stat("/t/pub/mine", &st) == 0 && st.st_gid == 8);
	CHECK(err_of(chown("/t/pub/mine", -1, 9)) == EPERM);        /* not our group */
	CHECK(err_of(chown("/t/pub/mine", 2000, -1)) == EPERM);     /* give it away: root only */
	CHECK(err_of(unlink("/t/pub/rootfile")) == EPERM);          /* sticky: not ours */
	CHECK(err_of(chdir("/t/closed")) == EACCES);
	struct timespec now;
	CHECK(clock_gettime(CLOCK_REALTIME, &now) == 0);
	CHECK(err_of(clock_settime(CLOCK_REALTIME, &now)) == EPERM);   /* root only */
	CHECK(err_of(utimensat(AT_FDCWD, "/t/open", 0, 0)) == EACCES);   /* now: needs write */
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	CHECK(err_of(utimensat(AT_FDCWD, "/t/open", ts, 0)) == EPERM);   /* a time: the owner */
	CHECK(utimensat(AT_FDCWD, "/t/pub/mine", ts, 0) == 0);
}

static void files_other(void)
{
	/* a second user may not remove the first's file in the sticky dir */
	CHECK(setresuid(2000, 2000, 2000) == 0);
	CHECK(err_of(unlink("/t/pub/mine")) == EPERM);
	CHECK(err_of(open("/t/pub/mine", O_RDONLY)) == EACCES);      /* 0640 */
}

static void access_real(void)
{
	/* real 1000, effective root: access asks for the real ids */
	CHECK(setresuid(1000, 0, 0) == 0);
	CHECK(err_of(access("/t/secret", R_OK)) == EACCES);
	CHECK(faccessat(AT_FDCWD, "/t/secret", R_OK, AT_EACCESS) == 0);
	int fd = open("/t/secret", O_RDONLY);
	CHECK(fd >= 0 && close(fd) == 0);
}

static volatile int got;
static void on_usr1(int s) { (void)s; got++; }

static void kills(void)
{
	/* a sleeper of root's and one of 1000's; 1000 may signal only its own */
	pid_t rootkid = fork();
	if (rootkid == 0) {
		for (;;)
			usleep(1000);
	}
	pid_t userkid = fork();
	if (userkid == 0) {
		CHECK(setresuid(1000, 1000, 1000) == 0);
		for (;;)
			usleep(1000);
	}
	pid_t k = fork();
	if (k == 0) {
		failures = 0;
		usleep(20000);
		CHECK(setresuid(1000, 1000, 1000) == 0);
		CHECK(err_of(kill(rootkid, 0)) == EPERM);
		CHECK(err_of(kill(rootkid, SIGKILL)) == EPERM);
		CHECK(kill(userkid, 0) == 0);
		CHECK(kill(rootkid, SIGCONT) == 0);                      /* same session: any ids */
		struct sched_param sp;
		CHECK(sched_getparam(0, &sp) == 0);
		CHECK(err_of(sched_setparam(rootkid, &sp)) == EPERM);   /* another user's */
		CHECK(err_of(sched_setparam(userkid, &sp)) == ESRCH);   /* ours, out of reach */
		CHECK(err_of(kill(getppid(), SIGUSR1)) == EPERM);      /* root's: no */
		_exit(failures);
	}
	int st = -1;
	CHECK(waitpid(k, &st, 0) == k && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFEXITED(st))
		failures += WEXITSTATUS(st);
	CHECK(got == 0);
	/* root may signal both */
	CHECK(kill(userkid, SIGKILL) == 0 && waitpid(userkid, &st, 0) == userkid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(kill(rootkid, SIGKILL) == 0 && waitpid(rootkid, &st, 0) == rootkid);
}

static void execs_user(void)
{
	become_user();
	char *keep[] = { "/bin/creds", "expect", "1000", "1000", "1000", "100", "100", "100", "7", "8", 0 };
	CHECK(run(0, keep) == 0);                                 /* exec keeps them */
	CHECK(run(1, keep) == 0);                                 /* and posix_spawn */
	char *su[] = { "/bin/suid", "expect", "1000", "1234", "1234", "100", "100", "100", "7", "8", 0 };
	CHECK(run(0, su) == 0);
	CHECK(run(1, su) == 0);
	char *sg[] = { "/bin/sgid", "expect", "1000", "1000", "1000", "100", "4321", "4321", "7", "8", 0 };
	CHECK(run(0, sg) == 0);
}

static void setup(void)
{
	mkdir("/t", 0755);
	CHECK(chmod("/t", 0755) == 0);
	struct { const char *path; int mode; uid_t uid; gid_t gid; } f[] = {
		{ "/t/secret", 0600, 0, 0 }, { "/t/open", 0644, 0, 0 }, { "/t/grp7", 0640, 0, 7 },
		{ "/t/grp9", 0640, 0, 9 }, { "/t/other", 0066, 1000, 100 }, { "/t/rootonly", 0700, 0, 0 },
	};
	for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++) {
		int fd = open(f[i].path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		CHECK(fd >= 0 && write(fd, "data\n", 5) == 5 && close(fd) == 0);
		CHECK(chown(f[i].path, f[i].uid, f[i].gid) == 0 && chmod(f[i].path, f[i].mode) == 0);
	}
	CHECK(mkdir("/t/closed", 0700) == 0 || errno == EEXIST);
	int fd = open("/t/closed/f", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(mkdir("/t/pub", 0777) == 0 || errno == EEXIST);
	CHECK(chmod("/t/pub", 01777) == 0);
	fd = open("/t/pub/rootfile", O_CREAT | O_WRONLY, 0666);
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(chmod("/t/pub/rootfile", 0666) == 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "expect"))
		return expect(argc, argv);
	signal(SIGUSR1, on_usr1);
	/* a boot program: root, no groups */
	CHECK(ids_are(0, 0, 0, 0, 0, 0));
	CHECK(getgroups(0, 0) == 0);
	CHECK(sysconf(_SC_NGROUPS_MAX) == NGROUPS_MAX && NGROUPS_MAX == 32);
	struct passwd *nobody = getpwnam("nobody");
	CHECK(nobody && nobody->pw_uid == 65534 && getpwuid(65534) == nobody);
	/* groups: set, read, the errors */
	gid_t g[NGROUPS_MAX + 1] = { 10, 20, 30 }, back[NGROUPS_MAX];
	CHECK(setgroups(3, g) == 0 && getgroups(0, 0) == 3);
	CHECK(getgroups(NGROUPS_MAX, back) == 3 && back[0] == 10 && back[1] == 20 && back[2] == 30);
	CHECK(err_of(getgroups(2, back)) == EINVAL && err_of(getgroups(-1, back)) == EINVAL);
	CHECK(err_of(setgroups(NGROUPS_MAX + 1, g)) == EINVAL);
	gid_t *volatile bad = (gid_t *)8;                     /* (no page there) */
	CHECK(err_of(getgroups(3, bad)) == EFAULT);
	CHECK(err_of(setgroups(2, bad)) == EFAULT);
	CHECK(setgroups(NGROUPS_MAX, g) == 0 && getgroups(0, 0) == NGROUPS_MAX);
	CHECK(setgroups(0, 0) == 0 && getgroups(0, 0) == 0);
	/* a fork's child has them */
	CHECK(setgroups(2, g) == 0 && setresgid(5, 6, 7) == 0);
	pid_t c = fork();
	if (c == 0) {
		int n = getgroups(NGROUPS_MAX, back);
		_exit(ids_are(0, 0, 0, 5, 6, 7) && n == 2 && back[0] == 10 && back[1] == 20 ? 0 : 1);
	}
	int st = -1;
	CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* (exec makes the saved ids the effective ones, as Linux: sgid 7 -> 6) */
	char *asroot[] = { "/bin/creds", "expect", "0", "0", "0", "5", "6", "6", "10", "20", 0 };
	CHECK(run(0, asroot) == 0 && run(1, asroot) == 0);
	char *rootsu[] = { "/bin/suid", "expect", "0", "1234", "1234", "5", "6", "6", "10", "20", 0 };
	CHECK(run(0, rootsu) == 0);                  /* root too takes a set-user-ID file's owner */
	CHECK(setresgid(0, 0, 0) == 0 && setgroups(0, 0) == 0 && ids_are(0, 0, 0, 0, 0, 0));

	setup();
	in_child(dropped);
	in_child(saved_root);
	in_child(threads);
	in_child(files_user);
	in_child(files_other);
	in_child(access_real);
	in_child(execs_user);
	kills();
	/* root passes every check but exec's x bit */
	int fd = open("/t/other", O_RDWR);
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(access("/t/closed/f", R_OK | W_OK) == 0 && unlink("/t/pub/mine") == 0);
	CHECK(chmod("/t/open", 0644) == 0 && err_of(access("/t/open", X_OK)) == EACCES);

	struct result r;
	result_begin(&r, "creds");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
