/*
 * <sys/sem.h>: System V semaphore sets (XSI), over files in /dev/shm as
 * <sys/shm.h>'s segments (ulib/libc/sysvsem.c, docs/libc.md). `union
 * semun` is the program's to declare, as POSIX says.
 */
#ifndef ULIB_SYS_SEM_H
#define ULIB_SYS_SEM_H

#include <sys/ipc.h>
#include <time.h>

struct semid_ds {
	struct ipc_perm sem_perm;
	time_t sem_otime;          /* last semop */
	time_t sem_ctime;          /* made, or last IPC_SET or SETVAL/SETALL */
	unsigned long sem_nsems;
};

struct sembuf {
	unsigned short sem_num;
	short sem_op;
	short sem_flg;             /* IPC_NOWAIT, SEM_UNDO */
};

#define SEM_UNDO 0x1000
#define GETPID  11                 /* Linux's numbers */
#define GETVAL  12
#define GETALL  13
#define GETNCNT 14
#define GETZCNT 15
#define SETVAL  16
#define SETALL  17

#define SEMMSL 32000               /* semaphores in a set */
#define SEMOPM 500                 /* operations in one semop */
#define SEMVMX 32767               /* a semaphore's largest value */

int semget(key_t key, int nsems, int flags);
int semop(int id, struct sembuf *ops, size_t nops);
int semtimedop(int id, struct sembuf *ops, size_t nops, const struct timespec *timeout);
int semctl(int id, int num, int cmd, ...);

#endif
