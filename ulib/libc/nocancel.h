/* The calls POSIX makes cancellation points (read, write, open, close,
   fsync, waitpid), without the point: for the library's own use inside
   calls that are none (sync, mq_open, shm_open, stdio, execve's script
   line), or that must not act while they hold a lock or a child. */
#ifndef ULIB_NOCANCEL_H
#define ULIB_NOCANCEL_H

#include <sys/types.h>

ssize_t __read_nocancel(int fd, void *buf, size_t n);     /* fd.c */
ssize_t __write_nocancel(int fd, const void *buf, size_t n);
int __close_nocancel(int fd);
int __open_nocancel(const char *path, int flags, mode_t mode);   /* nofile.c */
int __fsync_nocancel(int fd);                             /* fswrite.c */
pid_t __waitpid_nocancel(pid_t pid, int *status, int options);   /* proc.c */

#endif
