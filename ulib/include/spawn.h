/* <spawn.h>: posix_spawn, as fork and then the exec family in the child
   (ulib/libc/spawn.c): the file actions and attributes run in the child
   before its exec; an exec that fails ends the child with status 127. */
#ifndef ULIB_SPAWN_H
#define ULIB_SPAWN_H

#include <sys/types.h>
#include <signal.h>

#define POSIX_SPAWN_RESETIDS      0x01
#define POSIX_SPAWN_SETPGROUP     0x02
#define POSIX_SPAWN_SETSIGDEF     0x04
#define POSIX_SPAWN_SETSIGMASK    0x08
#define POSIX_SPAWN_SETSCHEDPARAM 0x10
#define POSIX_SPAWN_SETSCHEDULER  0x20

struct __spawn_action;
typedef struct {
	int n, cap;
	struct __spawn_action *a;
} posix_spawn_file_actions_t;

typedef struct {
	short flags;
	pid_t pgroup;
	sigset_t mask, def;
} posix_spawnattr_t;

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa);
int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa);
int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path,
				     int oflag, mode_t mode);
int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd);
int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int newfd);
int posix_spawnattr_init(posix_spawnattr_t *a);
int posix_spawnattr_destroy(posix_spawnattr_t *a);
int posix_spawnattr_setflags(posix_spawnattr_t *a, short flags);
int posix_spawnattr_getflags(const posix_spawnattr_t *a, short *flags);
int posix_spawnattr_setpgroup(posix_spawnattr_t *a, pid_t pg);
int posix_spawnattr_getpgroup(const posix_spawnattr_t *a, pid_t *pg);
int posix_spawnattr_setsigmask(posix_spawnattr_t *a, const sigset_t *m);
int posix_spawnattr_getsigmask(const posix_spawnattr_t *a, sigset_t *m);
int posix_spawnattr_setsigdefault(posix_spawnattr_t *a, const sigset_t *m);
int posix_spawnattr_getsigdefault(const posix_spawnattr_t *a, sigset_t *m);

#endif
