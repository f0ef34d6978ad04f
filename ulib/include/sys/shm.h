/*
 * <sys/shm.h>: System V shared memory (XSI), over files in /dev/shm
 * (ulib/libc/sysvshm.c, docs/libc.md): a segment is a file named by its
 * identifier, a key a symbolic link to it, so forks, execs and unrelated
 * processes share them as Linux's kernel objects are shared.
 */
#ifndef ULIB_SYS_SHM_H
#define ULIB_SYS_SHM_H

#include <sys/ipc.h>

typedef unsigned long shmatt_t;

struct shmid_ds {
	struct ipc_perm shm_perm;
	size_t shm_segsz;       /* bytes asked for at shmget */
	time_t shm_atime;       /* last shmat */
	time_t shm_dtime;       /* last shmdt */
	time_t shm_ctime;       /* made, or last IPC_SET */
	pid_t shm_cpid;         /* the maker */
	pid_t shm_lpid;         /* the last to shmat or shmdt */
	shmatt_t shm_nattch;    /* attachments, in all processes */
};

#define SHM_RDONLY 010000       /* shmat: read only */
#define SHM_RND    020000       /* shmat: round the address down to SHMLBA */
#define SHMLBA     4096         /* the page */
#define SHM_DEST   01000        /* shm_perm.mode (Linux): removed, goes at the last shmdt */

int shmget(key_t key, size_t size, int flags);
void *shmat(int id, const void *addr, int flags);
int shmdt(const void *addr);
int shmctl(int id, int cmd, struct shmid_ds *buf);

#endif
