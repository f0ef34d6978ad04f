/*
 * statvfs and fstatvfs: the disk's one ext2 file system, from its
 * superblock (SYS_file_statfs, kernel/sysstatfs.c). f_blocks counts every
 * block, the metadata's too (Linux's ext2 mounted with minixdf; without
 * it Linux takes the bitmaps and inode tables out); f_bavail leaves out
 * the blocks reserved for root, f_favail is f_ffree; f_fsid is 0; f_flag
 * has ST_NOATIME (no read updates atime). The
 * path or descriptor must exist; without a disk, an empty read-only
 * file system. A pipe's or the console's descriptor gets Linux's figures
 * for them: 4096-byte blocks, none counted.
 */
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <string.h>
#include <errno.h>
#include <animart/sys.h>
#include <anima/syscall.h>
#include <anima/file.h>

int __fd_kfd(int fd);            /* fd.c: the kernel descriptor of a file's fd, or -1 */

static int fill(struct statvfs *b, int disk)
{
	struct kstatfs k;
	memset(b, 0, sizeof *b);
	b->f_bsize = b->f_frsize = 4096;
	b->f_namemax = 255;
	if (!disk)
		return 0;
	long r = syscall1(SYS_file_statfs, &k);
	/* reads never update a file's atime (docs/files.md): noatime's
	   flag, so that a program can tell (the public suite's mmap 13-1
	   tests for it before expecting an mmap to touch atime) */
	b->f_flag = ST_NOATIME;
	if (r == -ENODEV) {
		b->f_flag |= ST_RDONLY;
		return 0;
	}
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	b->f_bsize = b->f_frsize = k.bsize;
	b->f_blocks = k.blocks;
	b->f_bfree = k.bfree;
	b->f_bavail = k.bavail;
	b->f_files = k.files;
	b->f_ffree = b->f_favail = k.ffree;
	b->f_namemax = k.namemax;
	return 0;
}

int statvfs(const char *path, struct statvfs *buf)
{
	struct stat st;
	if (stat(path, &st) < 0 && !(errno == ENOENT && path && !strcmp(path, "/")))
		return -1;               /* ("/" is there even without a disk) */
	return fill(buf, 1);
}

int fstatvfs(int fd, struct statvfs *buf)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	return fill(buf, __fd_kfd(fd) >= 0 && !S_ISFIFO(st.st_mode));
}
