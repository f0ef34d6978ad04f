/*
 * Advisory file locks (SYS_lock, SYS_lock_wait; kernel/flock.c): POSIX
 * record locks owned by a process, open-file-description record locks
 * and flock(2) locks owned by an open file. struct kflock has Linux's struct flock layout on x86-64, so
 * ulib's struct flock is it (ulib asserts it).
 */
#ifndef ANIMA_FLOCK_H
#define ANIMA_FLOCK_H
#include <stdint.h>

struct kflock {
	int16_t type;              /* LK_RD, LK_WR, LK_UN (F_RDLCK, F_WRLCK, F_UNLCK) */
	int16_t whence;            /* 0 SEEK_SET, 1 SEEK_CUR, 2 SEEK_END */
	int32_t pad0;
	int64_t start;             /* from whence */
	int64_t len;               /* 0: to the end of the file, however far it grows; < 0: the bytes before */
	int32_t pid;               /* LK_GETLK: the owner of the lock in the way */
	int32_t pad1;
};
_Static_assert(sizeof(struct kflock) == 32, "struct flock's size on Linux x86-64");

#define LK_RD 0
#define LK_WR 1
#define LK_UN 2

/* SYS_lock commands */
#define LK_GETLK  0   /* the first record lock of another process in the way of *fl (written back,
                         type LK_UN if none) */
#define LK_SETLK  1   /* set or clear *fl's range for the caller's process; -EAGAIN if another's is in the way */
#define LK_FLOCK  2   /* flock(2): fl->type for the whole file, owned by the open file; -EAGAIN likewise */
#define LK_CLOSE  3   /* drop the caller's record locks on fd's file, as a close does (a ulib close of one
                         of several descriptors sharing the kernel's) */
#define LK_OFD_GETLK 4 /* as LK_GETLK for fd's open file as the owner (F_OFD_GETLK); fl->pid must be 0 */
#define LK_OFD_SETLK 5 /* as LK_SETLK for fd's open file (F_OFD_SETLK): an open-file-description lock,
                         shared by dups and a fork's child, gone with the open file's last reference;
                         conflicts with POSIX record locks; fl->pid must be 0 (else -EINVAL) */

#define LKW_BLOCK 1   /* SYS_lock_wait: wait if the request is still in the way */

#define MAXLOCK_SPACE 128   /* record locks (POSIX and OFD) a process pays for, of every file (-ENOLCK past it) */
#define MAXLOCK_ALL   4096  /* locks (record and flock) in the kernel in all (-ENOLCK past it) */

#endif
