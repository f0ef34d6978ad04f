/*
 * <sys/ipc.h>: System V IPC's keys, permissions and flags (Linux's
 * values): shared memory (<sys/shm.h>), semaphore sets (<sys/sem.h>)
 * and message queues (<sys/msg.h>).
 */
#ifndef ULIB_SYS_IPC_H
#define ULIB_SYS_IPC_H

#include <sys/types.h>

struct ipc_perm {
	key_t __key;          /* the key it was made with */
	uid_t uid, gid;       /* the owner (IPC_SET changes it) */
	uid_t cuid;           /* the creator */
	gid_t cgid;
	mode_t mode;          /* the low 9 bits: read and write for owner, group, others */
	unsigned short __seq;
};

#define IPC_PRIVATE ((key_t)0)   /* a new object no key finds */
#define IPC_CREAT   01000
#define IPC_EXCL    02000
#define IPC_NOWAIT  04000
#define IPC_RMID    0            /* remove the identifier */
#define IPC_SET     1            /* set the owner and mode */
#define IPC_STAT    2            /* read the object's description */

/* A key from a file's identity and a byte, as glibc's: the byte, the
   device's low byte and the inode number's low 16 bits. */
key_t ftok(const char *path, int id);

#endif
