/*
 * Named semaphores have an owner and permission bits, as glibc's files
 * /dev/shm/sem.NAME on Linux: sem_open of a name another user made
 * without read and write for us is EACCES, and only the owner (or root)
 * may sem_unlink it (EACCES); root passes every check; the mode is taken
 * less the umask. Root makes the names; a forked child turns into user
 * 65534 (seteuid) and tries them; a name the child makes itself with
 * 0444 is closed to it too (glibc opens O_RDWR).
 */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "semperm"
#include "check.h"

#define NOBODY 65534

static int err_of(sem_t *s)
{
	return s == SEM_FAILED ? errno : 0;
}

/* The child's part, as user NOBODY: its exit status is its failures. */
static int as_nobody(void)
{
	int bad = 0;
	if (seteuid(NOBODY) != 0)
		return 100;
	bad += err_of(sem_open("/sp_ro", 0)) != EACCES;          /* root's 0600 */
	bad += err_of(sem_open("/sp_ro", O_CREAT, 0666, 1)) != EACCES;
	bad += err_of(sem_open("/sp_ro", O_CREAT | O_EXCL, 0666, 1)) != EEXIST;
	bad += err_of(sem_open("/sp_rw", 0)) != 0;               /* root's 0666 */
	bad += err_of(sem_open("/sp_um", 0)) != EACCES;          /* 0666 less umask 022 */
	bad += !(sem_unlink("/sp_rw") == -1 && errno == EACCES); /* not ours */
	bad += !(sem_unlink("/sp_none") == -1 && errno == ENOENT);
	sem_t *mine = sem_open("/sp_mine", O_CREAT | O_EXCL, 0444, 0);
	bad += mine == SEM_FAILED;                               /* making it needs no bits */
	bad += err_of(sem_open("/sp_mine", 0)) != EACCES;        /* r-- for its owner too */
	bad += sem_unlink("/sp_mine") != 0;                      /* but it is ours */
	return bad;
}

int main(void)
{
	sem_unlink("/sp_ro");
	sem_unlink("/sp_rw");
	sem_unlink("/sp_um");
	sem_unlink("/sp_mine");
	umask(0);
	sem_t *ro = sem_open("/sp_ro", O_CREAT | O_EXCL, 0600, 1);
	sem_t *rw = sem_open("/sp_rw", O_CREAT | O_EXCL, 0666, 1);
	umask(022);
	sem_t *um = sem_open("/sp_um", O_CREAT | O_EXCL, 0666, 1);
	CHECK(ro != SEM_FAILED && rw != SEM_FAILED && um != SEM_FAILED);
	pid_t c = fork();
	if (c == 0)
		_exit(as_nobody());
	int st = -1;
	CHECK(waitpid(c, &st, 0) == c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFEXITED(st) && WEXITSTATUS(st))
		printf("semperm: %d failures as user %d\n", WEXITSTATUS(st), NOBODY);
	/* root: every name opens, whatever its bits, and unlinks */
	sem_t *again = sem_open("/sp_ro", 0);
	CHECK(again == ro);
	int v = -1;
	CHECK(sem_getvalue(again, &v) == 0 && v == 1);
	CHECK(sem_close(again) == 0);
	CHECK(sem_unlink("/sp_ro") == 0);
	CHECK(sem_unlink("/sp_rw") == 0);
	CHECK(sem_unlink("/sp_um") == 0);
	CHECK(sem_unlink("/sp_mine") == -1 && errno == ENOENT);  /* the child's went */
	sem_close(ro);
	sem_close(rw);
	sem_close(um);
	printf("@result {\"name\": \"semperm\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
