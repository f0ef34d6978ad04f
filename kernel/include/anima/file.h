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

#define MAXFILE_SPACE 1024    /* open descriptors per space (-EMFILE past it): Linux's
                                 default RLIMIT_NOFILE; SYS_exec's keep is int16_t[] */
#define FPATH_MAX     1024    /* a path, with its NUL (-ENAMETOOLONG) */
#define FLINK_MAX     4096    /* a symbolic link's target, with a NUL (-ENAMETOOLONG) */

/* SYS_file_setattr and SYS_file_fsetattr: the times to set, seconds since
   1970 (signed) and nanoseconds, or KT_NOW in the nanoseconds (the
   realtime clock now, as the kernel's writes stamp files) or KT_OMIT
   (keep it); other nanoseconds past 999999999: -EINVAL. A time is held to
   what the inode keeps (kernel/ext2time.c): with room for the large
   inode's extra fields 1901..2446 and nanoseconds, else whole seconds of
   1901..2038, as Linux does. */
struct ktimes {
	int64_t atime, mtime;
	int64_t atime_ns, mtime_ns;
};
#define KT_NOW  ((1L << 30) - 1)
#define KT_OMIT ((1L << 30) - 2)
#define FA_KEEP 0xffffffffUL  /* mode: keep the permission bits */
#define FA_NOFOLLOW 1         /* SYS_file_setattr's and SYS_file_chown's flag: a last link itself */

struct kstat {
	uint64_t ino, size;
	uint64_t blocks;          /* 512-byte units allocated */
	uint32_t mode, nlink;     /* mode: S_IF* type bits and permissions, as on disk */
	uint32_t uid, gid;
	int64_t atime, mtime, ctime;   /* seconds since 1970, signed */
	uint32_t atime_ns, mtime_ns, ctime_ns;
	uint32_t blksize;
};

/* SYS_file_statfs: the mounted ext2 file system's figures, from its
   superblock (kept current by every allocation and freeing). */
struct kstatfs {
	uint64_t bsize;           /* bytes per block */
	uint64_t blocks;          /* blocks in the file system, its metadata included */
	uint64_t bfree;           /* free blocks */
	uint64_t bavail;          /* free blocks less those reserved for root */
	uint64_t files, ffree;    /* inodes, and free ones */
	uint32_t namemax;         /* a name's longest (255) */
	uint32_t pad;
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
/* What a descriptor names (INFO_FILE_KIND) */
#define FK_FILE     0         /* a file or directory on the disk */
#define FK_PIPE_R   1         /* the read end of a pipe (SYS_pipe) */
#define FK_PIPE_W   2         /* the write end */
#define FK_CONS_IN  3         /* the console's input, always at its end (SYS_file_special) */
#define FK_CONS_OUT 4         /* the console's output */
#define FK_NULL     5         /* /dev/null */

/* Pipes (SYS_pipe, SYS_pipe_wait; kernel/pipe.c) */
#define PIPE_CAP    65536     /* bytes a pipe holds (Linux's default) */
#define PIPE_ATOMIC 4096      /* a write of at most this many bytes goes in whole or not at all */
#define PIPE_READY   1        /* SYS_pipe_wait: the end can go on without waiting (data, end of file,
                                 room for `want` bytes, or no reader left: EPIPE) */
#define PIPE_HUP     2        /* the other end is closed */
#define PIPE_PRIVATE 4        /* no other space names the pipe: only the caller's own threads can
                                 change it, so the caller may wait for them at user level */
#define PIPEW_BLOCK  1        /* SYS_pipe_wait waits if neither ready nor private */

#define FT_REG 1
#define FT_DIR 2
#define FT_LNK 7

#endif
