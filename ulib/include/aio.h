/*
 * POSIX asynchronous I/O, done in user space as glibc does it: a small
 * pool of helper threads of the running package takes the requests in
 * turn and does pread, pwrite or fsync for them (ulib/libc/aio.c,
 * aiowait.c, lio.c; docs/libc.md).
 */
#ifndef ULIB_AIO_H
#define ULIB_AIO_H

#include <stddef.h>
#include <sys/types.h>
#include <fcntl.h>
#include <signal.h>
#include <bits/time.h>

struct aiocb {
	int aio_fildes;
	int aio_lio_opcode;              /* lio_listio's: LIO_READ, LIO_WRITE, LIO_NOP */
	int aio_reqprio;                 /* 0 .. AIO_PRIO_DELTA_MAX (else EINVAL); no effect */
	volatile void *aio_buf;
	size_t aio_nbytes;
	struct sigevent aio_sigevent;
	off_t aio_offset;
	/* the library's, while a request is queued or done: */
	struct aiocb *__next;            /* in the queue */
	void *__group;                   /* lio_listio's list it belongs to */
	int __op;                        /* what it does (LIO_*, or AIO_OP_SYNC) */
	int __error;                     /* aio_error's: EINPROGRESS while queued */
	ssize_t __return;                /* aio_return's */
	long __pad[4];
};

#define AIO_CANCELED    0   /* aio_cancel: every request asked for was cancelled */
#define AIO_NOTCANCELED 1   /* ... at least one was running: not cancelled */
#define AIO_ALLDONE     2   /* ... all were done already */

#define LIO_READ  0
#define LIO_WRITE 1
#define LIO_NOP   2

#define LIO_WAIT   0
#define LIO_NOWAIT 1

int aio_read(struct aiocb *cb);
int aio_write(struct aiocb *cb);
int aio_fsync(int op, struct aiocb *cb);
int aio_error(const struct aiocb *cb);
ssize_t aio_return(struct aiocb *cb);
int aio_suspend(const struct aiocb *const list[], int n, const struct timespec *timeout);
int aio_cancel(int fd, struct aiocb *cb);
int lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev);

/* off_t is 64 bits already: the *64 names are the same calls (glibc's) */
#ifdef _LARGEFILE64_SOURCE
#define aiocb64      aiocb
#define aio_read64   aio_read
#define aio_write64  aio_write
#define aio_fsync64  aio_fsync
#define aio_error64  aio_error
#define aio_return64 aio_return
#define aio_suspend64 aio_suspend
#define aio_cancel64 aio_cancel
#define lio_listio64 lio_listio
#endif

#endif
