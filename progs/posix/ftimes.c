/*
 * ftimes: owners and times of files on the disk, as Linux keeps them
 * (ulib/libc/chown.c, fmode.c; kernel/sysown.c, ext2time.c, ext2w.c's
 * ext2_setattr). harness/tests/test_ftimes.py. Run from a disk holding
 * /t/ (a directory); the host then reads what it left with debugfs.
 *   ftimes large   256-byte inodes (mke2fs -I 256, the harness's images):
 *                  chown/fchown/lchown/fchownat set 32-bit owners (-1
 *                  keeps one) and clear set-user-ID and set-group-ID as
 *                  Linux does; utimensat keeps nanoseconds, dates past
 *                  2038 and before 1970 (held to 1901..2446); the
 *                  kernel's own stamps (create, write) carry the realtime
 *                  clock's nanoseconds; utimensat(AT_SYMLINK_NOFOLLOW)
 *                  sets a link's own times; linkat(AT_EMPTY_PATH) links
 *                  an open file; fchmod of a pipe keeps its mode. Leaves
 *                  /t/own (70000:80000), /t/ns (atime 1000.123456789,
 *                  mtime 2000.987654321), /t/far (atime 2^33, mtime
 *                  4102444800.5), /t/past (atime -2^31, mtime -86400),
 *                  /t/sl (a link to /t/own, its times 3000, 4000.25),
 *                  /t/e1 and /t/e2 (one file), /t/w (written now).
 *   ftimes small   128-byte inodes: whole seconds, held to 1901..2038.
 *   ftimes reread  (a second boot) the owners and times of what `large`
 *                  left, and of /t/h, whose times the host set.
 */
#define CHECK_NAME "ftimes"
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/stat.h>
#include <animalib/result.h>
#include <check.h>

static int err(int r)
{
	return r < 0 ? errno : r;
}

static struct stat st_of(const char *p)
{
	struct stat st;
	memset(&st, 0, sizeof st);
	CHECK(stat(p, &st) == 0);
	return st;
}

static void make(const char *p, mode_t mode)
{
	int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, mode);
	CHECK(fd >= 0 && write(fd, "x\n", 2) == 2 && close(fd) == 0);
}

static void owners(struct result *R, int large)
{
	struct stat st;
	make("/t/own", 0644);
	st = st_of("/t/own");
	CHECK(st.st_uid == 0 && st.st_gid == 0);
	CHECK(chown("/t/own", 1234, 5678) == 0);
	st = st_of("/t/own");
	CHECK(st.st_uid == 1234 && st.st_gid == 5678);
	CHECK(chown("/t/own", -1, 99) == 0);
	st = st_of("/t/own");
	CHECK(st.st_uid == 1234 && st.st_gid == 99);
	CHECK(chown("/t/own", 70000, -1) == 0);             /* high 16 bits: osd2 */
	st = st_of("/t/own");
	CHECK(st.st_uid == 70000 && st.st_gid == 99);
	int fd = open("/t/own", O_RDONLY);
	CHECK(fd >= 0 && fchown(fd, -1, 80000) == 0 && fstat(fd, &st) == 0);
	CHECK(st.st_uid == 70000 && st.st_gid == 80000);
	CHECK(fchownat(fd, "", 70000, 80000, AT_EMPTY_PATH) == 0);
	close(fd);
	/* a link's own owner with lchown and AT_SYMLINK_NOFOLLOW */
	CHECK(symlink("/t/own", "/t/sl") == 0 && lchown("/t/sl", 7, 8) == 0);
	CHECK(lstat("/t/sl", &st) == 0 && st.st_uid == 7 && st.st_gid == 8);
	st = st_of("/t/sl");
	CHECK(st.st_uid == 70000 && st.st_gid == 80000);
	CHECK(fchownat(AT_FDCWD, "/t/sl", 9, -1, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(lstat("/t/sl", &st) == 0 && st.st_uid == 9 && st.st_gid == 8);
	/* set-ID bits: Linux's chown clears S_ISUID, and S_ISGID with group
	   exec (without it the bit means mandatory locking and stays), even
	   for root and even with -1, -1; a directory keeps both */
	make("/t/suid", 06755);
	CHECK(chmod("/t/suid", 06755) == 0 && chown("/t/suid", -1, -1) == 0);
	result_int(R, "suid_after", st_of("/t/suid").st_mode & 07777);
	CHECK(chmod("/t/suid", 06745) == 0 && chown("/t/suid", 1, 1) == 0);
	result_int(R, "sgid_nox_after", st_of("/t/suid").st_mode & 07777);
	CHECK(mkdir("/t/sdir", 0755) == 0 && chmod("/t/sdir", 06775) == 0 && chown("/t/sdir", 5, 5) == 0);
	result_int(R, "dir_after", st_of("/t/sdir").st_mode & 07777);
	CHECK(symlink("/t/nothere", "/t/dl") == 0 && lchown("/t/dl", 3, 3) == 0);
	/* ctime moves, to the nanosecond where the inode keeps them */
	if (large) {
		st = st_of("/t/suid");
		struct timespec c0 = st.st_ctim;
		struct timespec pause = { 0, 2000000 };
		nanosleep(&pause, 0);
		CHECK(chown("/t/suid", 2, 2) == 0);
		st = st_of("/t/suid");
		CHECK(st.st_ctim.tv_sec > c0.tv_sec || (st.st_ctim.tv_sec == c0.tv_sec && st.st_ctim.tv_nsec > c0.tv_nsec));
	}
	result_object(R, "chown_err");
	result_int(R, "missing", err(chown("/t/nothere", 0, 0)));
	result_int(R, "flag", err(fchownat(AT_FDCWD, "/t/own", 0, 0, 0x4)));
	result_int(R, "badfd", err(fchown(99, 0, 0)));
	result_int(R, "dangling", err(chown("/t/dl", 0, 0)));
	result_close(R);
}

static void times(struct result *R, int large)
{
	struct stat st;
	make("/t/ns", 0644);
	struct timespec ts[2] = { { 1000, 123456789 }, { 2000, 987654321 } };
	CHECK(utimensat(AT_FDCWD, "/t/ns", ts, 0) == 0);
	st = st_of("/t/ns");
	result_int(R, "ns_atime", st.st_atim.tv_sec);
	result_int(R, "ns_atime_ns", st.st_atim.tv_nsec);
	result_int(R, "ns_mtime", st.st_mtim.tv_sec);
	result_int(R, "ns_mtime_ns", st.st_mtim.tv_nsec);
	make("/t/far", 0644);
	struct timespec far[2] = { { 1L << 33, 0 }, { 4102444800L, 500000000 } };   /* 2242, 2100 */
	CHECK(utimensat(AT_FDCWD, "/t/far", far, 0) == 0);
	st = st_of("/t/far");
	result_int(R, "far_atime", st.st_atim.tv_sec);
	result_int(R, "far_mtime", st.st_mtim.tv_sec);
	result_int(R, "far_mtime_ns", st.st_mtim.tv_nsec);
	make("/t/past", 0644);
	struct timespec past[2] = { { -(1L << 31), 0 }, { -86400, 0 } };
	CHECK(utimensat(AT_FDCWD, "/t/past", past, 0) == 0);
	st = st_of("/t/past");
	result_int(R, "past_atime", st.st_atim.tv_sec);
	result_int(R, "past_mtime", st.st_mtim.tv_sec);
	/* past either end: held to it */
	make("/t/clamp", 0644);
	struct timespec cl[2] = { { -(1L << 40), 0 }, { 1L << 40, 7 } };
	CHECK(utimensat(AT_FDCWD, "/t/clamp", cl, 0) == 0);
	st = st_of("/t/clamp");
	result_int(R, "clamp_atime", st.st_atim.tv_sec);
	result_int(R, "clamp_mtime", st.st_mtim.tv_sec);
	/* what the kernel stamps itself: the realtime clock's, with its ns */
	struct timespec t0, t1;
	clock_gettime(CLOCK_REALTIME, &t0);
	make("/t/w", 0644);
	int fd = open("/t/w", O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "more\n", 5) == 5 && fstat(fd, &st) == 0 && close(fd) == 0);
	clock_gettime(CLOCK_REALTIME, &t1);
	int64_t a = t0.tv_sec * 1000000000L + t0.tv_nsec, b = t1.tv_sec * 1000000000L + t1.tv_nsec;
	int64_t m = st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec;
	int64_t c = st.st_ctim.tv_sec * 1000000000L + st.st_ctim.tv_nsec;
	/* (the kernel's clock and ulib's read one source; 1 ms of slack for
	   their rounding, and whole seconds in a small inode) */
	int64_t slack = large ? 1000000 : 1000000000;
	result_int(R, "w_in_window", m >= a - slack && m <= b + slack && c == m);
	result_int(R, "w_ns", st.st_mtim.tv_nsec);
	result_int(R, "w_sec", st.st_mtim.tv_sec);
	result_int(R, "t0_sec", t0.tv_sec);
	if (!large)
		return;
	/* a link's own times: the target's stay */
	struct stat target = st_of("/t/own");
	struct timespec lt[2] = { { 3000, 0 }, { 4000, 250000000 } };
	CHECK(utimensat(AT_FDCWD, "/t/sl", lt, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(lstat("/t/sl", &st) == 0);
	result_int(R, "link_atime", st.st_atim.tv_sec);
	result_int(R, "link_mtime", st.st_mtim.tv_sec);
	result_int(R, "link_mtime_ns", st.st_mtim.tv_nsec);
	st = st_of("/t/own");
	CHECK(st.st_mtim.tv_sec == target.st_mtim.tv_sec && st.st_mtim.tv_nsec == target.st_mtim.tv_nsec);
	CHECK(st.st_atim.tv_sec == target.st_atim.tv_sec);
	CHECK(utimensat(AT_FDCWD, "/t/dl", lt, AT_SYMLINK_NOFOLLOW) == 0);
	result_int(R, "dangling_follow", err(utimensat(AT_FDCWD, "/t/dl", lt, 0)));
}

static void links(struct result *R)
{
	struct stat st, st2;
	make("/t/e1", 0644);
	int fd = open("/t/e1", O_RDONLY);
	CHECK(fd >= 0 && linkat(fd, "", AT_FDCWD, "/t/e2", AT_EMPTY_PATH) == 0);
	CHECK(stat("/t/e1", &st) == 0 && stat("/t/e2", &st2) == 0);
	CHECK(st.st_ino == st2.st_ino && st.st_nlink == 2);
	close(fd);
	result_object(R, "flink_err");
	result_int(R, "noflag", err(linkat(AT_FDCWD, "", AT_FDCWD, "/t/e3", 0)));
	make("/t/gone", 0644);
	fd = open("/t/gone", O_RDONLY);
	CHECK(fd >= 0 && unlink("/t/gone") == 0);
	result_int(R, "unlinked", err(linkat(fd, "", AT_FDCWD, "/t/e3", AT_EMPTY_PATH)));
	close(fd);
	fd = open("/t", O_RDONLY | O_DIRECTORY);
	result_int(R, "dir", err(linkat(fd, "", AT_FDCWD, "/t/e3", AT_EMPTY_PATH)));
	close(fd);
	fd = open("/t/e1", O_RDONLY);
	result_int(R, "exists", err(linkat(fd, "", AT_FDCWD, "/t/e2", AT_EMPTY_PATH)));
	close(fd);
	result_int(R, "badfd", err(linkat(99, "", AT_FDCWD, "/t/e3", AT_EMPTY_PATH)));
	int p[2];
	CHECK(pipe(p) == 0);
	result_int(R, "pipe", err(linkat(p[0], "", AT_FDCWD, "/t/e3", AT_EMPTY_PATH)));
	result_close(R);
	/* fchmod of a pipe: Linux keeps its mode */
	result_int(R, "pipe_fchmod", err(fchmod(p[0], 0640)));
	CHECK(fstat(p[1], &st) == 0);
	result_int(R, "pipe_mode", st.st_mode);
	result_int(R, "pipe_fchown", err(fchown(p[0], 0, 0)));
	close(p[0]), close(p[1]);
	CHECK(access("/t/e3", F_OK) == -1 && errno == ENOENT);
}

/* path's owner and times (lstat's with `l`) as the object `name` */
static void report(struct result *R, const char *name, const char *path, int l)
{
	struct stat st;
	memset(&st, 0, sizeof st);
	CHECK((l ? lstat(path, &st) : stat(path, &st)) == 0);
	result_object(R, name);
	result_int(R, "uid", st.st_uid);
	result_int(R, "gid", st.st_gid);
	result_int(R, "atime", st.st_atim.tv_sec);
	result_int(R, "atime_ns", st.st_atim.tv_nsec);
	result_int(R, "mtime", st.st_mtim.tv_sec);
	result_int(R, "mtime_ns", st.st_mtim.tv_nsec);
	result_close(R);
}

static void reread(struct result *R)
{
	static const char *const names[] = { "own", "ns", "far", "past", "h", "sl" };
	char path[16];
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "/t/%s", names[i]);
		report(R, names[i], path, i == 5);
	}
}

int main(int argc, char **argv)
{
	struct result R;
	int large = argc < 2 || strcmp(argv[1], "small");
	result_begin(&R, "ftimes");
	if (argc > 1 && !strcmp(argv[1], "reread")) {
		reread(&R);
	} else {
		owners(&R, large);
		times(&R, large);
		if (large)
			links(&R);
	}
	result_int(&R, "checks", checks);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
