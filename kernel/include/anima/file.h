/*
 * Files (SYS_open .. SYS_stat, <anima/syscall.h>; kernel/ext2.c,
 * kernel/sysfile.c): the flags and the stat record. Flag values are
 * Linux's, so ulib's O_* are these (ulib asserts it).
 */
#ifndef ANIMA_FILE_H
#define ANIMA_FILE_H
#include <stdint.h>

#define FO_ACCMODE   03
#define FO_RDONLY    00
#define FO_CREAT     0100
#define FO_EXCL      0200
#define FO_TRUNC     01000
#define FO_APPEND    02000
#define FO_DIRECTORY 0200000
#define FO_NOFOLLOW  0400000  /* a last component that is a symbolic link: -ELOOP */
/* accepted and ignored: O_NONBLOCK 04000, O_LARGEFILE 0100000, O_CLOEXEC 02000000 */

#define MAXFILE_SPACE 64      /* open descriptors per space (-EMFILE past it) */
#define FPATH_MAX     1024    /* a path, with its NUL (-ENAMETOOLONG) */
#define FLINK_MAX     4096    /* a symbolic link's target, with a NUL (-ENAMETOOLONG) */

struct kstat {
	uint64_t ino, size;
	uint64_t blocks;          /* 512-byte units allocated */
	uint32_t mode, nlink;     /* mode: S_IF* type bits and permissions, as on disk */
	uint32_t uid, gid;
	uint32_t atime, mtime, ctime;   /* seconds since 1970 */
	uint32_t blksize;
};

/* SYS_file_getdents fills its buffer with these, each `reclen` bytes (a
   multiple of 8): the entry's inode, its type (FT_*, as on disk), and its
   NUL-terminated name. */
struct kdirent {
	uint64_t ino;
	uint16_t reclen;
	uint8_t type;
	char name[];
};
#define FT_REG 1
#define FT_DIR 2
#define FT_LNK 7

#endif
