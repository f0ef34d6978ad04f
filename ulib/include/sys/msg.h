/*
 * <sys/msg.h>: System V message queues (XSI), over files in /dev/shm as
 * <sys/shm.h>'s segments (ulib/libc/sysvmsg.c, docs/libc.md).
 */
#ifndef ULIB_SYS_MSG_H
#define ULIB_SYS_MSG_H

#include <sys/ipc.h>
#include <time.h>

typedef unsigned long msgqnum_t;
typedef unsigned long msglen_t;

struct msqid_ds {
	struct ipc_perm msg_perm;
	time_t msg_stime;          /* last msgsnd */
	time_t msg_rtime;          /* last msgrcv */
	time_t msg_ctime;          /* made, or last IPC_SET */
	unsigned long __msg_cbytes; /* bytes in the queue (glibc's name) */
	msgqnum_t msg_qnum;        /* messages in the queue */
	msglen_t msg_qbytes;       /* most bytes it holds */
	pid_t msg_lspid, msg_lrpid;
};

#define MSG_NOERROR 010000         /* msgrcv: cut a longer message to size */
#define MSG_EXCEPT  020000         /* msgrcv (Linux): the first of another type */
#define MSGMAX 8192                /* bytes in a message */
#define MSGMNB 16384               /* a queue's msg_qbytes at first, and at most */

int msgget(key_t key, int flags);
int msgsnd(int id, const void *msg, size_t len, int flags);
ssize_t msgrcv(int id, void *msg, size_t len, long type, int flags);
int msgctl(int id, int cmd, struct msqid_ds *buf);

#endif
