/*
 * ramfs MODE: the file system every program has without a disk (the RAM
 * disk, kernel/ramdisk.c and mkfs.c; harness/tests/test_ramdisk.py).
 *   use    / is writable; /tmp and /dev/shm are 1777 directories;
 *          statvfs("/") gives the RAM disk's size (INFO_RAMDISK); a
 *          mkstemp file's bytes come back by read and by a shared mmap;
 *          a shm_open object sized by ftruncate and mapped shared carries
 *          bytes both ways between the parent and a forked child; mkdir,
 *          rename, unlink, rmdir; filling /tmp ends in ENOSPC, after
 *          which the file is removed and a new file is written and read
 *   dump   (booted with `rawdisk`) a few files and directories made, the
 *          cache synced, then every block of the RAM disk that is not all
 *          zeros printed as `ramblk N HEX` for the host's e2fsck
 */
#define CHECK_NAME "ramfs"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <check.h>

#define BS 4096
static struct result R;
static char buf[64 * 1024];

static long info(long what)
{
	return syscall2(SYS_getinfo, INFO_RAMDISK, what);
}

static void dirs(void)
{
	struct stat st;
	CHECK(stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 01777);
	CHECK(stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 01777);
	CHECK(access("/", W_OK) == 0);
	struct statvfs v;
	CHECK(statvfs("/", &v) == 0);
	long blocks = info(0);
	CHECK(blocks > 0 && (long)v.f_blocks * (long)v.f_frsize == blocks * BS);
	CHECK(v.f_bfree > 0 && v.f_bfree < v.f_blocks && v.f_ffree > 0);
	result_int(&R, "blocks", blocks);
	result_int(&R, "statvfs_blocks", (long)v.f_blocks);
}

static void tmpfile_map(void)
{
	char t[] = "/tmp/rXXXXXX";
	int fd = mkstemp(t);
	CHECK(fd >= 0);
	for (int i = 0; i < (int)sizeof buf; i++)
		buf[i] = (char)(i * 7 + 1);
	CHECK(write(fd, buf, sizeof buf) == (long)sizeof buf);
	static char back[sizeof buf];
	CHECK(pread(fd, back, sizeof back, 0) == (long)sizeof back && !memcmp(buf, back, sizeof buf));
	char *m = mmap(0, sizeof buf, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(!memcmp(m, buf, sizeof buf));
	m[100] = 'Z';
	CHECK(msync(m, sizeof buf, MS_SYNC) == 0 && munmap(m, sizeof buf) == 0);
	char c = 0;
	CHECK(pread(fd, &c, 1, 100) == 1 && c == 'Z');
	CHECK(close(fd) == 0 && unlink(t) == 0 && access(t, F_OK) == -1 && errno == ENOENT);
}

static void shm(void)
{
	int fd = shm_open("/ramfs", O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && ftruncate(fd, BS) == 0);
	struct stat st;
	CHECK(stat("/dev/shm/ramfs", &st) == 0 && st.st_size == BS);
	volatile int *m = mmap(0, BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	m[0] = 1;
	pid_t p = fork();
	if (p == 0) {                  /* the child: sees 1, writes 2, waits for 3 */
		int ok = m[0] == 1;
		m[1] = 2;
		for (long i = 0; i < 2000000000L && m[2] != 3; i++)
			sched_yield();
		_exit(ok && m[2] == 3 ? 0 : 1);
	}
	CHECK(p > 0);
	for (long i = 0; p > 0 && i < 2000000000L && m[1] != 2; i++)
		sched_yield();
	CHECK(m[1] == 2);
	m[2] = 3;
	int status = -1;
	CHECK(waitpid(p, &status, 0) == p && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(munmap((void *)m, BS) == 0 && close(fd) == 0 && shm_unlink("/ramfs") == 0);
	CHECK(shm_open("/ramfs", O_RDWR, 0) == -1 && errno == ENOENT);
}

static void names(void)
{
	CHECK(mkdir("/tmp/d", 0755) == 0 && mkdir("/tmp/d", 0755) == -1 && errno == EEXIST);
	int fd = open("/tmp/d/a", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3 && close(fd) == 0);
	CHECK(rename("/tmp/d/a", "/tmp/d/b") == 0 && access("/tmp/d/a", F_OK) == -1);
	char s[4] = { 0 };
	fd = open("/tmp/d/b", O_RDONLY);
	CHECK(fd >= 0 && read(fd, s, 3) == 3 && !strcmp(s, "abc") && close(fd) == 0);
	CHECK(rmdir("/tmp/d") == -1 && errno == ENOTEMPTY);
	CHECK(unlink("/tmp/d/b") == 0 && rmdir("/tmp/d") == 0 && access("/tmp/d", F_OK) == -1);
	CHECK(mkdir("/top", 0700) == 0 && rmdir("/top") == 0);
}

/* Fill the disk: ENOSPC, not a kernel out of memory; then room again. */
static void fill(void)
{
	int fd = open("/tmp/big", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	long total = 0, w = 0;
	memset(buf, 'f', sizeof buf);
	while ((w = write(fd, buf, sizeof buf)) > 0)
		total += w;
	CHECK(w == -1 && errno == ENOSPC);
	result_int(&R, "filled", total);
	result_int(&R, "frames", info(1));
	CHECK(total > info(0) * BS / 2 && total <= info(0) * BS);
	CHECK(close(fd) == 0 && unlink("/tmp/big") == 0);
	fd = open("/tmp/again", O_RDWR | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, buf, sizeof buf) == (long)sizeof buf);
	char c = 0;
	CHECK(pread(fd, &c, 1, 1000) == 1 && c == 'f' && close(fd) == 0 && unlink("/tmp/again") == 0);
}

static void dump(void)
{
	CHECK(mkdir("/tmp/sub", 0755) == 0);
	int fd = open("/tmp/sub/file", O_WRONLY | O_CREAT, 0644);
	memset(buf, 'd', sizeof buf);
	CHECK(fd >= 0 && write(fd, buf, sizeof buf) == (long)sizeof buf && close(fd) == 0);
	fd = shm_open("/obj", O_RDWR | O_CREAT, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 3 * BS) == 0 && close(fd) == 0);
	sync();
	CHECK(syscall3(SYS_disk, DISK_SYNC, 0, 0) == 0);
	static uint8_t b[BS];
	static char hex[2 * BS + 1];
	long n = info(0), shown = 0;
	for (long i = 0; i < n; i++) {
		if (syscall3(SYS_disk, DISK_READ, i, b) != 0) {
			CHECK(0);
			break;
		}
		int zero = 1;
		for (int j = 0; j < BS && zero; j++)
			zero = !b[j];
		if (zero)
			continue;
		for (int j = 0; j < BS; j++)
			sprintf(hex + 2 * j, "%02x", b[j]);
		printf("ramblk %ld %s\n", i, hex);
		shown++;
	}
	result_int(&R, "shown", shown);
	result_int(&R, "blocks", n);
}

int main(int argc, char **argv)
{
	result_begin(&R, "ramfs");
	if (argc > 1 && !strcmp(argv[1], "dump"))
		dump();
	else {
		dirs();
		tmpfile_map();
		shm();
		names();
		fill();
	}
	result_int(&R, "checks", checks);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
