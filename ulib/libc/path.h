/* Paths relative to the working directory (cwd.c), private to ulib's
   libc: every call that takes a path makes it absolute with abs_path
   before it goes to the kernel, whose lookups start at "/" always. */
#ifndef ULIB_PATH_H
#define ULIB_PATH_H

#include <limits.h>

/* path made absolute into out (PATH_MAX bytes): a relative path starts
   at the working directory, dirfd's directory for abs_path_at (AT_FDCWD:
   the working directory); "." and ".." are removed by name (before the
   kernel follows any symbolic link: "link/.." is link's own directory),
   "//" is "/", and a
   path that ends in "/", "/." or "/.." keeps one "/" so the kernel asks
   for a directory. 0, or -1 with errno: EFAULT (null), ENOENT (""),
   ENAMETOOLONG (path or result PATH_MAX bytes or more), EBADF or ENOTDIR
   (a dirfd that names no directory ulib knows the path of). */
int abs_path(const char *path, char *out);
int abs_path_at(int dirfd, const char *path, char *out);

/* file searched along PATH as execvp does (pathsearch.c): try(p, arg)
   for each place p, which returns 0 (found: the search ends) or an
   errno. 0, or the errno the search ends with. */
int path_search(const char *file, int (*try)(const char *path, void *arg), void *arg);

/* open() made descriptor fd from the absolute path: remembered, so
   openat, fstatat and fchdir can use the descriptor as a directory. */
void path_opened(int fd, const char *abs);

#endif
