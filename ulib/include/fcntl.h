/*
 * <fcntl.h>: the names, so code that opens files builds. Anima has no
 * file system: open and creat fail with ENOENT (nothing exists, and
 * O_CREAT cannot make anything: EROFS); fcntl knows only the console
 * descriptors 0-2 (ulib/nofile.c, docs/libc.md).
 */
#ifndef ULIB_FCNTL_H
#define ULIB_FCNTL_H

#include <sys/types.h>

#define O_RDONLY    00
#define O_WRONLY    01
#define O_RDWR      02
#define O_ACCMODE   03
#define O_CREAT     0100
#define O_EXCL      0200
#define O_NOCTTY    0400
#define O_TRUNC     01000
#define O_APPEND    02000
#define O_NONBLOCK  04000
#define O_SYNC      04010000
#define O_DSYNC     010000      /* aio_fsync's op (Linux's value) */
#define O_RSYNC     O_SYNC
#define O_DIRECTORY 0200000
#define O_NOFOLLOW  0400000
#define O_CLOEXEC   02000000

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1

/* Advisory record locks, owned by the process (ulib/libc/flock.c) */
#define F_GETLK  5
#define F_SETLK  6
#define F_SETLKW 7
/* Open-file-description locks (Linux's): record locks owned by the open
   file, not the process; l_pid must be 0 */
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38
#define F_RDLCK  0
#define F_WRLCK  1
#define F_UNLCK  2
struct flock {
	short l_type;      /* F_RDLCK, F_WRLCK, F_UNLCK */
	short l_whence;    /* SEEK_SET, SEEK_CUR, SEEK_END */
	off_t l_start;
	off_t l_len;       /* 0: to the end of the file, however far it grows */
	pid_t l_pid;       /* F_GETLK: the owner of the lock in the way (-1: an open file's) */
};
#ifndef SEEK_SET
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif

#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR        0x200
#define AT_EACCESS          0x200   /* (faccessat: the same bit) */
#define AT_SYMLINK_FOLLOW   0x400
#define AT_EMPTY_PATH       0x1000

int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int creat(const char *path, mode_t mode);
int fcntl(int fd, int cmd, ...);

#endif
