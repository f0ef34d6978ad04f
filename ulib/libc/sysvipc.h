/* System V IPC's identifiers and keys as files in /dev/shm (sysvipc.c):
   sysvshm.c's segments, sysvsem.c's semaphore sets, sysvmsg.c's message
   queues. Internal. */
#ifndef ULIB_SYSVIPC_H
#define ULIB_SYSVIPC_H
#include <sys/ipc.h>
#include <stddef.h>

/* kind: "shm", "sem" or "msg"; p: 48 bytes */
void sysv_path(char *p, const char *kind, int id);          /* /dev/shm/.sysvKIND.ID */
int sysv_key_find(const char *kind, key_t k);               /* the id, or -1 */
void sysv_key_drop(const char *kind, key_t k, int id);      /* the key goes, if it names id */

/* shmget, semget, msgget: the id of key's object (IPC_PRIVATE: a new
   one), or -1 with errno. An existing one is checked against flags
   (IPC_EXCL: EEXIST; its mode: EACCES) and by fits(id, arg): 0 it
   fits, 1 it went meanwhile (look again), -1 errno. A new one is a file
   of len bytes (mode: flags' low 9 bits) beginning with hdr (hlen bytes,
   its first 4 the magic, written last), unless nonew: then that errno. */
int sysv_get(const char *kind, key_t key, int flags, size_t len, const void *hdr, size_t hlen,
	     int nonew, int (*fits)(int id, void *arg), void *arg);
#endif
