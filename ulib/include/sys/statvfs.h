/* <sys/statvfs.h>: a file system's size and free room (ulib/libc/statvfs.c).
   struct statvfs and the ST_* values are glibc's (x86-64). */
#ifndef ULIB_SYS_STATVFS_H
#define ULIB_SYS_STATVFS_H

#ifndef __fsblkcnt_t_defined
#define __fsblkcnt_t_defined
typedef unsigned long fsblkcnt_t;
typedef unsigned long fsfilcnt_t;
#endif

struct statvfs {
	unsigned long f_bsize;     /* block size */
	unsigned long f_frsize;    /* the unit of f_blocks, f_bfree, f_bavail (the block size) */
	fsblkcnt_t f_blocks, f_bfree, f_bavail;
	fsfilcnt_t f_files, f_ffree, f_favail;
	unsigned long f_fsid;
	unsigned long f_flag;      /* ST_* */
	unsigned long f_namemax;
	int __f_spare[6];
};

#define ST_RDONLY 1
#define ST_NOSUID 2
#define ST_NOATIME 1024

int statvfs(const char *path, struct statvfs *buf);
int fstatvfs(int fd, struct statvfs *buf);

#endif
