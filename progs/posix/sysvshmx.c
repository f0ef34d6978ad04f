/*
 * sysvshmx: System V shared memory (<sys/shm.h>, ulib/libc/sysvshm.c;
 * harness/tests/test_sysvshmx.py): ftok; a private segment written,
 * described (IPC_STAT: size, mode, maker, attachments) and shared with
 * a fork's child, which finds it attached (two attachments), writes and
 * detaches; a keyed segment made once (IPC_EXCL: EEXIST the second
 * time), found by key with a size no larger (EINVAL larger), attached by
 * a child of its own and read only (SHM_RDONLY); another user refused
 * write (EACCES at shmget and shmat) but let read; an attach address
 * rounded (SHM_RND) or refused unaligned; shmdt of no attachment; mode
 * changed (IPC_SET); IPC_RMID: the key goes at once (ENOENT), the id
 * attaches while something is attached (SHM_DEST shown, as Linux) and
 * goes with the last shmdt (EINVAL). A child that exits attached is
 * detached (shm_nattch drops, as Linux). Before, ulib had no <sys/shm.h> (the Open
 * POSIX suite's sys/shm_h tests did not build).
 */
#define CHECK_NAME "sysvshmx"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#define SIZE 10000

static int status_of(pid_t pid)
{
	int st = -1;
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void keys(void)
{
	key_t a = ftok("/", 'A'), b = ftok("/", 'B');
	CHECK(a != -1 && b != -1 && a != b && ftok("/", 'A') == a);
	CHECK(ftok("/no/such/file", 'A') == -1 && errno == ENOENT);
}

static void private_segment(void)
{
	int id = shmget(IPC_PRIVATE, SIZE, IPC_CREAT | 0600);
	CHECK(id >= 0);
	char *m = shmat(id, 0, 0);
	CHECK(m != (char *)-1);
	if (id < 0 || m == (char *)-1)
		return;
	CHECK(m[0] == 0 && m[SIZE - 1] == 0);
	strcpy(m, "parent");
	struct shmid_ds ds;
	CHECK(shmctl(id, IPC_STAT, &ds) == 0);
	CHECK(ds.shm_segsz == SIZE && ds.shm_nattch == 1 && ds.shm_cpid == getpid());
	CHECK((ds.shm_perm.mode & 0777) == 0600 && ds.shm_perm.__key == IPC_PRIVATE);
	CHECK(ds.shm_lpid == getpid() && ds.shm_atime != 0);

	pid_t pid = fork();
	if (pid == 0) {
		struct shmid_ds c;
		int ok = shmctl(id, IPC_STAT, &c) == 0 && c.shm_nattch == 2 && !strcmp(m, "parent");
		strcpy(m + 100, "child");
		ok = ok && shmdt(m) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && status_of(pid) == 0);
	CHECK(!strcmp(m + 100, "child"));
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1);
	/* a child that ends attached (an inherited one and its own): both
	   dropped, as Linux detaches at the exit */
	pid = fork();
	if (pid == 0)
		_exit(shmat(id, 0, 0) == (void *)-1 ? 1 : 0);
	CHECK(pid > 0 && status_of(pid) == 0);
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1);

	CHECK(shmdt(m) == 0);
	CHECK(shmdt(m) == -1 && errno == EINVAL);
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 0 && ds.shm_dtime != 0);

	/* an address of our choosing: rounded with SHM_RND, else aligned */
	char *at = shmat(id, 0, 0);
	CHECK(at != (char *)-1 && shmdt(at) == 0);
	errno = 0;
	CHECK(shmat(id, at + 100, 0) == (void *)-1 && errno == EINVAL);
	char *again = shmat(id, at + 100, SHM_RND);
	CHECK(again == at && !strcmp(again + 100, "child"));

	ds.shm_perm.mode = 0640;
	CHECK(shmctl(id, IPC_SET, &ds) == 0);
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & 0777) == 0640);

	CHECK(shmctl(id, IPC_RMID, 0) == 0);
	strcpy(again, "still here");          /* attached: stays, as does the id (Linux) */
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & SHM_DEST) && ds.shm_nattch == 1);
	char *more = shmat(id, 0, 0);
	CHECK(more != (char *)-1 && !strcmp(more, "still here") && shmdt(more) == 0);
	CHECK(shmdt(again) == 0);             /* the last: now it goes */
	errno = 0;
	CHECK(shmat(id, 0, 0) == (void *)-1 && errno == EINVAL);
	errno = 0;
	CHECK(shmctl(id, IPC_STAT, &ds) == -1 && errno == EINVAL);
}

static void keyed_segment(void)
{
	key_t k = ftok("/", 'Z');
	shmctl(shmget(k, 1, 0), IPC_RMID, 0);  /* (one left by an earlier run) */
	errno = 0;
	CHECK(shmget(k, 4096, 0) == -1 && errno == ENOENT);
	int id = shmget(k, 4096, IPC_CREAT | IPC_EXCL | 0644);
	CHECK(id >= 0);
	errno = 0;
	CHECK(shmget(k, 4096, IPC_CREAT | IPC_EXCL | 0644) == -1 && errno == EEXIST);
	CHECK(shmget(k, 100, 0) == id && shmget(k, 4096, IPC_CREAT) == id);
	errno = 0;
	CHECK(shmget(k, 8192, 0) == -1 && errno == EINVAL);

	pid_t pid = fork();
	if (pid == 0) {
		int cid = shmget(k, 0, 0);
		char *c = cid >= 0 ? shmat(cid, 0, 0) : (char *)-1;
		if (c == (char *)-1)
			_exit(2);
		strcpy(c, "by key");
		_exit(shmdt(c) == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && status_of(pid) == 0);
	/* another user (nobody): its mode 0644 lets it read, not write */
	pid = fork();
	if (pid == 0) {
		if (setuid(65534) < 0)
			_exit(2);
		errno = 0;
		int denied = shmget(k, 0, 0600) == -1 && errno == EACCES;
		int cid = shmget(k, 0, 0444);
		errno = 0;
		int rw = shmat(cid, 0, 0) == (void *)-1 && errno == EACCES;
		char *c = cid == id ? shmat(cid, 0, SHM_RDONLY) : (char *)-1;
		_exit(denied && rw && c != (char *)-1 && !strcmp(c, "by key") && shmdt(c) == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && status_of(pid) == 0);
	const char *r = shmat(id, 0, SHM_RDONLY);
	CHECK(r != (char *)-1 && !strcmp(r, "by key"));
	struct shmid_ds ds;
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1 && ds.shm_perm.__key == k);
	CHECK(shmctl(id, IPC_RMID, 0) == 0);
	errno = 0;
	CHECK(shmget(k, 4096, 0) == -1 && errno == ENOENT);
	CHECK(!strcmp(r, "by key") && shmdt(r) == 0);
}

int main(void)
{
	struct result res;
	errno = 0;
	CHECK(shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600) == -1 && errno == EINVAL);
	keys();
	private_segment();
	keyed_segment();
	result_begin(&res, "sysvshmx");
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
