/*
 * <sys/mman.h>: anonymous memory over SYS_map / SYS_unmap / SYS_protect
 * (ulib/mman.c, docs/libc.md), and files on the disk over SYS_fmap and
 * SYS_msync (ulib/libc/fmap.c): MAP_SHARED pages go back to the file on
 * msync, munmap and exit().
 * mprotect changes the access of mapped pages (ENOMEM if one is not);
 * PROT_NONE reserves address space without memory, made accessible later
 * by mprotect.
 */
#ifndef ULIB_SYS_MMAN_H
#define ULIB_SYS_MMAN_H

#include <sys/types.h>

#ifndef PROT_READ                    /* (also <anima/syscall.h>'s: the same values) */
#define PROT_READ  1
#define PROT_WRITE 2
#define PROT_EXEC  4
#endif
#define PROT_NONE  0

/* Linux's flag values */
#define MAP_SHARED          0x01
#define MAP_PRIVATE         0x02
#define MAP_FIXED           0x10
#define MAP_ANONYMOUS       0x20
#define MAP_ANON            MAP_ANONYMOUS
#define MAP_GROWSDOWN       0x0100
#define MAP_NORESERVE       0x4000    /* demand-zero (SYS_map's MAP_LAZY) */
#define MAP_POPULATE        0x8000    /* the default: pages are there at once */
#define MAP_STACK           0x20000
#define MAP_FIXED_NOREPLACE 0x100000
#define MAP_FAILED          ((void *)-1)

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);
#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC       4             /* also waits until the blocks are on the disk */
int msync(void *addr, size_t len, int flags);

/* madvise (Linux's values): MADV_DONTNEED and MADV_FREE zero the whole
   pages (they read back as zeros, as Linux's anonymous memory does; the
   frames stay the program's); the other known advice is accepted and
   changes nothing; unknown advice or an unaligned address is EINVAL. */
#define MADV_NORMAL      0
#define MADV_RANDOM      1
#define MADV_SEQUENTIAL  2
#define MADV_WILLNEED    3
#define MADV_DONTNEED    4
#define MADV_FREE        8
#define MADV_REMOVE      9
#define MADV_DONTFORK    10
#define MADV_DOFORK      11
#define MADV_MERGEABLE   12
#define MADV_UNMERGEABLE 13
#define MADV_HUGEPAGE    14
#define MADV_NOHUGEPAGE  15
#define MADV_DONTDUMP    16
#define MADV_DODUMP      17
#define POSIX_MADV_NORMAL     0
#define POSIX_MADV_RANDOM     1
#define POSIX_MADV_SEQUENTIAL 2
#define POSIX_MADV_WILLNEED   3
#define POSIX_MADV_DONTNEED   4
int madvise(void *addr, size_t len, int advice);
/* Memory is never paged out here, so a locked page stays in memory as
   POSIX asks; which ranges are locked is kept, counted against
   RLIMIT_MEMLOCK and seen by msync(MS_INVALIDATE) (ulib/libc/mlock.c). */
#define MCL_CURRENT 1
#define MCL_FUTURE  2
#define MCL_ONFAULT 4
int mlock(const void *addr, size_t len);
int munlock(const void *addr, size_t len);
int mlockall(int flags);
int munlockall(void);
int posix_madvise(void *addr, size_t len, int advice);   /* an error number; DONTNEED keeps the data, as glibc */

/* POSIX shared memory objects as files in /dev/shm on the disk
   (ulib/libc/shm.c): read, write, ftruncate; mmap of them is ENODEV. */
int shm_open(const char *name, int oflag, mode_t mode);
int shm_unlink(const char *name);

#endif
