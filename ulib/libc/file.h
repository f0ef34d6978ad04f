/* FILE, private to ulib's stdio (stdio.c, stdfile.c). */
#ifndef ULIB_FILE_H
#define ULIB_FILE_H

#include <animart/sync.h>

struct __file {
	int fd;
	int eof, err;
	/* flockfile's recursive lock: the owning thread (0: none) and its
	   depth, over a mutex other threads wait on (stdio.c) */
	struct thread *volatile owner;
	int depth;
	struct mutex lock;
};

#endif
