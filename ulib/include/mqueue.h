/*
 * POSIX message queues, named system-wide and shared by every process
 * (ulib/libc/mqueue.c, docs/posix.md): a queue is a file under
 * /dev/mqueue, and a mqd_t is its file descriptor (below MQ_OPEN_MAX).
 */
#ifndef ULIB_MQUEUE_H
#define ULIB_MQUEUE_H

#include <stddef.h>
#include <sys/types.h>
#include <fcntl.h>
#include <signal.h>
#include <bits/time.h>

typedef int mqd_t;

struct mq_attr {
	long mq_flags;           /* O_NONBLOCK or 0 (the descriptor's) */
	long mq_maxmsg;          /* messages the queue holds */
	long mq_msgsize;         /* bytes in a message, at most */
	long mq_curmsgs;         /* messages in it now */
	long __pad[4];
};

#define MQ_OPEN_MAX 1024    /* a mqd_t is a descriptor: the table's 1,024 (sysconf(_SC_OPEN_MAX)) */
#define MQ_PRIO_MAX 32768

mqd_t mq_open(const char *name, int oflag, ...);
int mq_close(mqd_t d);
int mq_unlink(const char *name);
int mq_send(mqd_t d, const char *msg, size_t len, unsigned prio);
int mq_timedsend(mqd_t d, const char *msg, size_t len, unsigned prio,
		 const struct timespec *abstime);
ssize_t mq_receive(mqd_t d, char *msg, size_t len, unsigned *prio);
ssize_t mq_timedreceive(mqd_t d, char *msg, size_t len, unsigned *prio,
			const struct timespec *abstime);
int mq_getattr(mqd_t d, struct mq_attr *attr);
int mq_setattr(mqd_t d, const struct mq_attr *attr, struct mq_attr *old);
int mq_notify(mqd_t d, const struct sigevent *sev);

#endif
