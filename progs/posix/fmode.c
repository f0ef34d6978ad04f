/*
 * fmode: file modes, times and hard links on the disk, and the umask an
 * exec keeps (ulib/libc/fmode.c, kernel/sysmode.c, ext2w.c: ext2_link,
 * ext2_setattr). harness/tests/test_fmode.py. Run from a disk holding
 * /bin/fmode, /t/old (its ctime, mtime and atime set by the host to
 * 1000, 2000, 3000) and /t/sub/ (an empty directory).
 *   fmode all      chmod, fchmod, fchmodat; root's permission checks
 *                  (reads and writes ignore the mode, access X_OK and
 *                  exec want an x bit); link, linkat, unlink and rename
 *                  over links, an open file's last link; utimensat,
 *                  futimens, utime, utimes; the umask kept across an
 *                  exec and a posix_spawn; what it leaves on the disk
 *                  for the host: /t/h1 and /t/h2 (links of one file of
 *                  "hard link\n", nlink 2), /t/times (atime 1000, mtime
 *                  2000), /t/suid (mode 04750).
 *   fmode emlink   32,000 links of one file (EXT2_LINK_MAX), 128 in each
 *                  of 250 directories; the next is EMLINK.
 *   fmode dirmax   /t/big's link count is 32,000 (the host set it):
 *                  mkdir in it and rename of a directory into it are
 *                  EMLINK, a file still goes in.
 *   fmode crash    links /t/old as /t/c1 and /t/sub/c2, fsyncs, says so
 *                  and waits for good: the harness kills QEMU.
 *   fmode umask    (exec'd or spawned by `all`) reports its umask and
 *                  the mode a 0666 create gets.
 */
#define CHECK_NAME "fmode"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <time.h>
#include <utime.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <check.h>

static int err(int r)
{
	return r < 0 ? errno : r;
}

static mode_t mode_of(const char *p)
{
	struct stat st;
	return stat(p, &st) ? 0 : st.st_mode;
}

static long nlink_of(const char *p)
{
	struct stat st;
	return stat(p, &st) ? -1 : (long)st.st_nlink;
}

static int make(const char *p, const char *data, mode_t mode)
{
	int fd = open(p, O_CREAT | O_EXCL | O_RDWR, mode);
	size_t n = strlen(data);
	CHECK(fd >= 0 && write(fd, data, n) == (ssize_t)n);
	return fd;
}

static void modes(struct result *R)
{
	struct stat st, before;
	CHECK(umask(022) == 022);                                   /* a boot's first image */
	close(make("/t/f", "mode\n", 0666));
	CHECK(mode_of("/t/f") == (S_IFREG | 0644));
	CHECK(chmod("/t/f", 04755) == 0 && mode_of("/t/f") == (S_IFREG | 04755));
	CHECK(chmod("/t/f", 07777) == 0 && mode_of("/t/f") == (S_IFREG | 07777));
	CHECK(chmod("/t/f", S_IFDIR | 0600) == 0 && mode_of("/t/f") == (S_IFREG | 0600));   /* type stays */
	CHECK(chmod("/t/sub", 01777) == 0 && mode_of("/t/sub") == (S_IFDIR | 01777));
	CHECK(stat("/t/old", &before) == 0 && before.st_ctime == 1000 && before.st_mtime == 2000);
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	int o = open("/t/old", O_RDONLY);                          /* nothing to change: ctime stays */
	CHECK(utimensat(AT_FDCWD, "/t/old", omit, 0) == 0 && futimens(o, omit) == 0 && close(o) == 0);
	CHECK(stat("/t/old", &before) == 0 && before.st_ctime == 1000);
	CHECK(chmod("/t/old", 0604) == 0 && stat("/t/old", &st) == 0);
	result_int(R, "old_ctime", st.st_ctime);                    /* now: set by chmod */
	CHECK(st.st_mode == (S_IFREG | 0604) && st.st_mtime == 2000 && st.st_atime == 3000);
	/* bad paths and descriptors */
	static char longp[1100];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	char longn[300] = "/t/";
	memset(longn + 3, 'n', 280);
	result_object(R, "chmod_err");
	result_int(R, "missing", err(chmod("/t/nothere", 0644)));
	result_int(R, "notdir", err(chmod("/t/f/x", 0644)));
	result_int(R, "toolong", err(chmod(longp, 0644)));
	result_int(R, "longname", err(chmod(longn, 0644)));
	result_int(R, "empty", err(chmod("", 0644)));
	result_int(R, "badfd", err(fchmod(99, 0644)));
	result_int(R, "negfd", err(fchmod(-1, 0644)));
	int p[2];
	CHECK(pipe(p) == 0);
	result_int(R, "pipe", err(fchmod(p[0], 0644)));   /* (Linux keeps a pipe's mode: 0) */
	close(p[0]), close(p[1]);
	result_int(R, "atflag", err(fchmodat(AT_FDCWD, "/t/f", 0644, 0x4000)));
	result_close(R);
	/* through links, and *at */
	CHECK(symlink("/t/f", "/t/sl") == 0);
	CHECK(chmod("/t/sl", 0640) == 0 && mode_of("/t/f") == (S_IFREG | 0640));
	CHECK(lstat("/t/sl", &st) == 0 && st.st_mode == (S_IFLNK | 0777));
	CHECK(err(fchmodat(AT_FDCWD, "/t/sl", 0600, AT_SYMLINK_NOFOLLOW)) == EOPNOTSUPP);
	CHECK(fchmodat(AT_FDCWD, "/t/f", 0600, AT_SYMLINK_NOFOLLOW) == 0 && mode_of("/t/f") == (S_IFREG | 0600));
	int d = open("/t", O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0 && fchmodat(d, "f", 0604, 0) == 0 && mode_of("/t/f") == (S_IFREG | 0604));
	close(d);
	/* fchmod, on an open file and on one whose last link went */
	int fd = open("/t/f", O_RDWR);
	CHECK(fchmod(fd, 02711) == 0 && fstat(fd, &st) == 0 && st.st_mode == (S_IFREG | 02711));
	CHECK(unlink("/t/f") == 0 && fchmod(fd, 0400) == 0 && fstat(fd, &st) == 0);
	CHECK(st.st_mode == (S_IFREG | 0400) && st.st_nlink == 0);
	CHECK(close(fd) == 0 && unlink("/t/sl") == 0);
	close(make("/t/suid", "s\n", 0600));
	CHECK(chmod("/t/suid", 04750) == 0);
}

/* As Linux's root: the mode bits never stop a read or a write; access
   X_OK and exec want an x bit on a file (a directory: always). */
static void root(struct result *R, const char *self)
{
	char b[8] = { 0 };
	close(make("/t/r", "root\n", 0644));
	CHECK(chmod("/t/r", 0) == 0 && mode_of("/t/r") == S_IFREG);
	int fd = open("/t/r", O_RDWR);
	CHECK(fd >= 0 && read(fd, b, 5) == 5 && !memcmp(b, "root\n", 5));
	CHECK(pwrite(fd, "R", 1, 0) == 1 && close(fd) == 0);
	result_object(R, "access");
	result_int(R, "rw0", err(access("/t/r", R_OK | W_OK)));
	result_int(R, "x0", err(access("/t/r", X_OK)));
	CHECK(chmod("/t/r", 0001) == 0);
	result_int(R, "x1", err(access("/t/r", X_OK)));
	CHECK(chmod("/t/sub", 0) == 0);
	result_int(R, "xdir0", err(access("/t/sub", X_OK)));
	close(make("/t/sub/in", "in\n", 0644));                     /* a mode-0 directory: root goes in */
	CHECK(chmod("/t/sub", 0755) == 0 && unlink("/t/sub/in") == 0);
	/* exec: no x bit, EACCES */
	CHECK(chmod(self, 0644) == 0);
	pid_t pid;
	char *argv[] = { (char *)self, "umask", 0 };
	result_int(R, "spawn_nox", posix_spawn(&pid, self, 0, 0, argv, 0));
	pid = fork();
	if (pid == 0) {
		execv(self, argv);
		_exit(errno == EACCES ? 40 : 41);
	}
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid);
	result_int(R, "exec_nox", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	CHECK(chmod(self, 0100) == 0);                              /* one x bit is enough */
	result_int(R, "x_owner", err(access(self, X_OK)));
	result_close(R);
}

static void links(struct result *R)
{
	struct stat a, b;
	char buf[32] = { 0 };
	close(make("/t/h1", "hard", 0644));
	CHECK(stat("/t/h1", &a) == 0);
	CHECK(link("/t/h1", "/t/h2") == 0 && stat("/t/h2", &b) == 0);
	CHECK(a.st_ino == b.st_ino && b.st_nlink == 2 && nlink_of("/t/h1") == 2);
	int fd = open("/t/h2", O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, " link\n", 6) == 6 && close(fd) == 0);
	fd = open("/t/h1", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 10 && !strcmp(buf, "hard link\n") && close(fd) == 0);
	result_object(R, "link_err");
	result_int(R, "exists", err(link("/t/h1", "/t/h2")));
	result_int(R, "dir", err(link("/t/sub", "/t/sub2")));
	result_int(R, "missing", err(link("/t/nothere", "/t/x")));
	result_int(R, "nodir", err(link("/t/h1", "/t/nodir/x")));
	result_int(R, "notdir", err(link("/t/h1", "/t/h1/x")));
	result_int(R, "root", err(link("/t/h1", "/")));
	result_int(R, "empty", err(link("", "/t/x")));
	result_int(R, "flag", err(linkat(AT_FDCWD, "/t/h1", AT_FDCWD, "/t/x", 0x4000)));
	result_close(R);
	CHECK(nlink_of("/t/h1") == 2);                              /* the failures changed nothing */
	/* a link to a symbolic link: the link itself, or (AT_SYMLINK_FOLLOW) its file */
	CHECK(symlink("h1", "/t/sl") == 0);
	CHECK(link("/t/sl", "/t/sub/sl2") == 0 && lstat("/t/sub/sl2", &b) == 0 && S_ISLNK(b.st_mode));
	CHECK(readlink("/t/sub/sl2", buf, sizeof buf) == 2 && !memcmp(buf, "h1", 2));
	CHECK(lstat("/t/sl", &b) == 0 && b.st_nlink == 2);
	CHECK(linkat(AT_FDCWD, "/t/sl", AT_FDCWD, "/t/h3", AT_SYMLINK_FOLLOW) == 0);
	CHECK(lstat("/t/h3", &b) == 0 && S_ISREG(b.st_mode) && b.st_ino == a.st_ino && b.st_nlink == 3);
	int d = open("/t/sub", O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0 && linkat(d, "sl2", AT_FDCWD, "/t/sl3", 0) == 0 && close(d) == 0);
	CHECK(lstat("/t/sl", &b) == 0 && b.st_nlink == 3);
	CHECK(unlink("/t/sl") == 0 && unlink("/t/sl3") == 0 && lstat("/t/sub/sl2", &b) == 0 && b.st_nlink == 1);
	CHECK(rename("/t/sub/sl2", "/t/slr") == 0 && lstat("/t/slr", &b) == 0 && S_ISLNK(b.st_mode));
	CHECK(stat("/t/slr", &b) == 0 && b.st_ino == a.st_ino);    /* ("h1", relative to /t now) */
	/* rename over a link of the same file: nothing happens (POSIX) */
	CHECK(rename("/t/h1", "/t/h3") == 0 && nlink_of("/t/h1") == 3 && nlink_of("/t/h3") == 3);
	CHECK(unlink("/t/h3") == 0 && nlink_of("/t/h1") == 2);
	/* unlink takes one link; the file goes with the last link and the last holder */
	close(make("/t/o1", "orphan\n", 0644));
	long o0 = syscall2(SYS_getinfo, INFO_ORPHAN, 0), f0 = syscall2(SYS_getinfo, INFO_ORPHAN, 2);
	CHECK(link("/t/o1", "/t/o2") == 0 && (fd = open("/t/o1", O_RDONLY)) >= 0);
	CHECK(unlink("/t/o1") == 0 && fstat(fd, &b) == 0 && b.st_nlink == 1);
	CHECK(syscall2(SYS_getinfo, INFO_ORPHAN, 0) == o0);        /* one link left: no orphan */
	CHECK(unlink("/t/o2") == 0 && fstat(fd, &b) == 0 && b.st_nlink == 0);
	CHECK(syscall2(SYS_getinfo, INFO_ORPHAN, 0) == o0 + 1);
	CHECK(pread(fd, buf, 7, 0) == 7 && !memcmp(buf, "orphan\n", 7));
	CHECK(err(linkat(AT_FDCWD, "/t/o2", AT_FDCWD, "/t/o3", 0)) == ENOENT);
	CHECK(close(fd) == 0 && stat("/", &b) == 0);                /* (frees it) */
	CHECK(syscall2(SYS_getinfo, INFO_ORPHAN, 0) == o0 && syscall2(SYS_getinfo, INFO_ORPHAN, 2) == f0 + 1);
	result_int(R, "h1_nlink", nlink_of("/t/h1"));
}

static void times(struct result *R)
{
	struct stat st;
	close(make("/t/times", "t\n", 0644));
	struct timespec ts[2] = { { 1000, 0 }, { 2000, 500 } };
	CHECK(utimensat(AT_FDCWD, "/t/times", ts, 0) == 0 && stat("/t/times", &st) == 0);
	CHECK(st.st_atime == 1000 && st.st_mtime == 2000);
	long t0 = (long)time(0);
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = UTIME_NOW;
	CHECK(utimensat(AT_FDCWD, "/t/times", ts, 0) == 0 && stat("/t/times", &st) == 0);
	result_int(R, "now_off", (long)st.st_mtime - t0);        /* the kernel's clock: about 0 */
	CHECK(st.st_atime == 1000);
	int fd = open("/t/times", O_RDONLY);
	struct timespec f[2] = { { 5000, 0 }, { 6000, 0 } };
	CHECK(futimens(fd, f) == 0 && fstat(fd, &st) == 0 && st.st_atime == 5000 && st.st_mtime == 6000);
	ts[0].tv_nsec = ts[1].tv_nsec = UTIME_OMIT;
	CHECK(futimens(fd, ts) == 0 && fstat(fd, &st) == 0 && st.st_mtime == 6000);
	close(fd);
	struct utimbuf u = { 7000, 8000 };
	CHECK(utime("/t/times", &u) == 0 && stat("/t/times", &st) == 0 && st.st_atime == 7000 && st.st_mtime == 8000);
	struct timeval tv[2] = { { 1000, 0 }, { 2000, 999999 } };
	CHECK(utimes("/t/times", tv) == 0 && stat("/t/times", &st) == 0 && st.st_atime == 1000 && st.st_mtime == 2000);
	struct timespec bad[2] = { { 0, 1000000000L }, { 0, 0 } };
	result_object(R, "time_err");
	result_int(R, "nsec", err(utimensat(AT_FDCWD, "/t/times", bad, 0)));
	result_int(R, "missing", err(utimensat(AT_FDCWD, "/t/nothere", 0, 0)));
	result_int(R, "badfd", err(futimens(99, 0)));
	result_close(R);
	CHECK(stat("/t/times", &st) == 0 && st.st_atime == 1000 && st.st_mtime == 2000);
}

/* The umask across an exec and a posix_spawn (which execs in its child). */
static int child_umask(const char *self, int spawn, mode_t mask)
{
	char *argv[] = { (char *)self, "umask", 0 };
	pid_t pid;
	int st = -1;
	mode_t old = umask(mask);
	if (spawn) {
		CHECK(posix_spawn(&pid, self, 0, 0, argv, 0) == 0);
	} else if ((pid = fork()) == 0) {
		execv(self, argv);
		_exit(99);
	}
	umask(old);
	CHECK(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int umask_report(void)
{
	pid_t kid = fork();                  /* first: no umask call before it in this image */
	if (kid == 0)
		_exit((int)umask(0));
	int ws = -1;
	waitpid(kid, &ws, 0);
	mode_t m = umask(0);
	umask(m);
	char p[32];
	snprintf(p, sizeof p, "/t/um%03o", (unsigned)m);
	int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0666);
	struct stat st;
	int ok = fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == (0666 & ~m);
	close(fd);
	unlink(p);
	struct result R;
	result_begin(&R, "fmode_umask");
	result_int(&R, "umask", m);
	result_int(&R, "fork_umask", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	result_bool(&R, "create_ok", ok);
	result_end(&R);
	return 0;
}

static void emlink(struct result *R)
{
	close(make("/t/many", "m\n", 0644));
	char p[64];
	int bad = 0;
	for (int d = 0; d < 250; d++) {
		snprintf(p, sizeof p, "/t/m%d", d);
		bad += mkdir(p, 0755) != 0;
		for (int i = d ? 0 : 1; i < 128; i++) {       /* (/t/many is the first) */
			snprintf(p, sizeof p, "/t/m%d/l%d", d, i);
			bad += link("/t/many", p) != 0;
		}
	}
	result_int(R, "bad", bad);
	result_int(R, "nlink", nlink_of("/t/many"));
	result_int(R, "next", err(link("/t/many", "/t/m0/next")));
	result_int(R, "after", nlink_of("/t/many"));
}

int main(int argc, char **argv)
{
	struct result R;
	const char *self = "/bin/fmode";
	const char *what = argc > 1 ? argv[1] : "all";
	if (!strcmp(what, "umask"))
		return umask_report();
	result_begin(&R, "fmode");
	if (!strcmp(what, "emlink")) {
		emlink(&R);
	} else if (!strcmp(what, "dirmax")) {
		result_int(&R, "mkdir", err(mkdir("/t/big/x", 0755)));
		result_int(&R, "rename", err(rename("/t/sub", "/t/big/sub")));
		result_int(&R, "file", err(rename("/t/old", "/t/big/old")));
		result_int(&R, "nlink", nlink_of("/t/big"));
	} else if (!strcmp(what, "crash")) {
		int fd = open("/t/old", O_RDONLY);
		CHECK(link("/t/old", "/t/c1") == 0 && link("/t/c1", "/t/sub/c2") == 0);
		CHECK(fd >= 0 && fsync(fd) == 0);
		result_int(&R, "nlink", nlink_of("/t/old"));
		result_int(&R, "failures", failures);
		result_end(&R);
		for (;;)
			pause();
	} else {
		modes(&R);
		root(&R, self);
		links(&R);
		times(&R);
		result_int(&R, "exec_umask", child_umask(self, 0, 027));
		result_int(&R, "spawn_umask", child_umask(self, 1, 077));
		CHECK(chmod(self, 0755) == 0);
	}
	result_int(&R, "checks", checks);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
