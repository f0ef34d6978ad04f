/*
 * <sys/mman.h>: anonymous memory over SYS_map / SYS_unmap (ulib/mman.c,
 * docs/libc.md). There are no files, so file mappings fail; protections
 * are fixed at mmap time (mprotect: ENOSYS, the kernel has no call to
 * change them); PROT_NONE is refused (ENOTSUP): a mapped page is always
 * readable on Anima.
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
int mprotect(void *addr, size_t len, int prot);   /* -1, ENOSYS */

#endif
