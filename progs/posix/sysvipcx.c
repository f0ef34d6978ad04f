/*
 * sysvipcx: System V semaphore sets (<sys/sem.h>, ulib/libc/sysvsem.c;
 * harness/tests/test_sysvipcx.py), between a parent and forked
 * children: a private set made, set (SETVAL, SETALL) and read (GETVAL,
 * GETALL, GETPID, IPC_STAT); a child blocked taking more than is there
 * (GETNCNT shows it) and woken by the parent's post, a child waiting for
 * zero (GETZCNT) woken when the count drains; several operations done
 * all or none; IPC_NOWAIT's EAGAIN; SEMVMX's ERANGE; SEM_UNDO undone
 * when its process ends (a child that exits, one killed); a keyed set
 * found by key, EEXIST, EACCES for another user; semtimedop's timeout
 * (EAGAIN); a handled signal ends a wait with EINTR; IPC_RMID wakes the
 * waiters with EIDRM. And message queues (<sys/msg.h>, sysvmsg.c): by
 * type, E2BIG or MSG_NOERROR, ENOMSG; a full queue's EAGAIN and waiting
 * send; a receive waiting for its type; IPC_RMID's EIDRM; by key. Before,
 * ulib had no <sys/sem.h> or <sys/msg.h>.
 */
#define CHECK_NAME "sysvipcx"
#define _GNU_SOURCE                     /* glibc's semtimedop */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#ifndef MSGMAX
#define MSGMAX 8192
#define MSGMNB 16384
#endif
#ifndef SEMVMX
#define SEMVMX 32767                    /* (glibc keeps Linux's limits in <linux/sem.h>) */
#define SEMMSL 32000
#endif

union semun { int val; struct semid_ds *buf; unsigned short *array; };

static int status_of(pid_t pid)
{
	int st = -1;
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int op(int id, int num, int o, int flg)
{
	struct sembuf b = { (unsigned short)num, (short)o, (short)flg };
	return semop(id, &b, 1);
}

/* Wait (without counting time) until semctl(id, num, cmd) is want. */
static int until(int id, int num, int cmd, int want)
{
	for (int i = 0; i < 100000; i++) {
		if (semctl(id, num, cmd) == want)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void values(void)
{
	int id = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
	CHECK(id >= 0);
	union semun u;
	struct semid_ds ds;
	u.buf = &ds;
	CHECK(semctl(id, 0, IPC_STAT, u) == 0 && ds.sem_nsems == 3 && (ds.sem_perm.mode & 0777) == 0600);
	CHECK(semctl(id, 0, GETVAL) == 0 && semctl(id, 2, GETVAL) == 0);
	u.val = 5;
	CHECK(semctl(id, 1, SETVAL, u) == 0 && semctl(id, 1, GETVAL) == 5);
	CHECK(semctl(id, 1, GETPID) == getpid());
	unsigned short all[3] = { 1, 2, 3 }, got[3] = { 0, 0, 0 };
	u.array = all;
	CHECK(semctl(id, 0, SETALL, u) == 0);
	u.array = got;
	CHECK(semctl(id, 0, GETALL, u) == 0 && got[0] == 1 && got[1] == 2 && got[2] == 3);
	errno = 0;
	CHECK(semctl(id, 3, GETVAL) == -1 && errno == EINVAL);
	u.val = SEMVMX + 1;
	errno = 0;
	CHECK(semctl(id, 0, SETVAL, u) == -1 && errno == ERANGE);
	u.val = SEMVMX;
	CHECK(semctl(id, 0, SETVAL, u) == 0);
	errno = 0;
	CHECK(op(id, 0, 1, 0) == -1 && errno == ERANGE && semctl(id, 0, GETVAL) == SEMVMX);
	errno = 0;
	CHECK(op(id, 1, -3, IPC_NOWAIT) == -1 && errno == EAGAIN && semctl(id, 1, GETVAL) == 2);
	errno = 0;
	CHECK(op(id, 3, 1, 0) == -1 && errno == EFBIG);
	/* all or none: the second cannot, so the first is not done */
	struct sembuf two[2] = { { 2, -1, 0 }, { 1, -5, IPC_NOWAIT } };
	errno = 0;
	CHECK(semop(id, two, 2) == -1 && errno == EAGAIN && semctl(id, 2, GETVAL) == 3);
	two[1].sem_op = -2;
	CHECK(semop(id, two, 2) == 0 && semctl(id, 2, GETVAL) == 2 && semctl(id, 1, GETVAL) == 0);
	struct timespec ts = { 0, 20000000 };
	struct sembuf one = { 1, -1, 0 };
	errno = 0;
	CHECK(semtimedop(id, &one, 1, &ts) == -1 && errno == EAGAIN);
	CHECK(semctl(id, 0, IPC_RMID) == 0);
	errno = 0;
	CHECK(semctl(id, 0, GETVAL) == -1 && errno == EINVAL);
}

/* A child takes 3 from an empty semaphore (it waits: GETNCNT 1), the
   parent posts one at a time; another waits for zero. */
static void waits(void)
{
	int id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	CHECK(id >= 0);
	pid_t a = fork();
	if (a == 0)
		_exit(op(id, 0, -3, 0) == 0 ? 0 : 1);
	CHECK(until(id, 0, GETNCNT, 1));
	CHECK(op(id, 0, 1, 0) == 0 && op(id, 0, 1, 0) == 0);
	CHECK(semctl(id, 0, GETVAL) == 2 && semctl(id, 0, GETNCNT) == 1);
	CHECK(op(id, 0, 1, 0) == 0);
	CHECK(status_of(a) == 0 && semctl(id, 0, GETVAL) == 0 && semctl(id, 0, GETPID) == a);

	CHECK(op(id, 1, 2, 0) == 0);
	pid_t z = fork();
	if (z == 0)
		_exit(op(id, 1, 0, 0) == 0 ? 0 : 1);
	CHECK(until(id, 1, GETZCNT, 1));
	CHECK(op(id, 1, -1, 0) == 0 && semctl(id, 1, GETZCNT) == 1);
	CHECK(op(id, 1, -1, 0) == 0);
	CHECK(status_of(z) == 0 && semctl(id, 1, GETZCNT) == 0);
	CHECK(semctl(id, 0, IPC_RMID) == 0);
}

/* SEM_UNDO: what a child took with it comes back when it ends, by exit
   or by a kill; what it took without it does not. */
static void undo(void)
{
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	union semun u = { .val = 5 };
	CHECK(id >= 0 && semctl(id, 0, SETVAL, u) == 0);
	pid_t c = fork();
	if (c == 0)
		_exit(op(id, 0, -2, SEM_UNDO) == 0 && op(id, 0, -1, 0) == 0 ? 0 : 1);
	CHECK(status_of(c) == 0 && semctl(id, 0, GETVAL) == 4);
	int p[2];
	CHECK(pipe(p) == 0);
	c = fork();
	if (c == 0) {
		char x = op(id, 0, -4, SEM_UNDO) == 0 ? 'y' : 'n';
		if (write(p[1], &x, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char x = 0;
	CHECK(read(p[0], &x, 1) == 1 && x == 'y' && semctl(id, 0, GETVAL) == 0);
	int st = 0;
	CHECK(kill(c, SIGKILL) == 0 && waitpid(c, &st, 0) == c && WIFSIGNALED(st));
	CHECK(semctl(id, 0, GETVAL) == 4);
	close(p[0]);
	close(p[1]);
	/* the parent's own undo stays while it lives */
	CHECK(op(id, 0, 1, SEM_UNDO) == 0 && semctl(id, 0, GETVAL) == 5);
	CHECK(semctl(id, 0, IPC_RMID) == 0);
}

static void on_usr1(int s) { (void)s; }

/* A handled signal (no SA_RESTART) ends a wait with EINTR; IPC_RMID ends
   the waits of two children with EIDRM. */
static void interrupt_and_remove(void)
{
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	CHECK(id >= 0);
	pid_t c = fork();
	if (c == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, 0);
		errno = 0;
		_exit(op(id, 0, -1, 0) == -1 && errno == EINTR ? 0 : 1);
	}
	CHECK(until(id, 0, GETNCNT, 1));
	CHECK(kill(c, SIGUSR1) == 0 && status_of(c) == 0 && semctl(id, 0, GETNCNT) == 0);

	pid_t w[2];
	for (int i = 0; i < 2; i++) {
		w[i] = fork();
		if (w[i] == 0) {
			errno = 0;
			_exit(op(id, 0, -1 - i, 0) == -1 && errno == EIDRM ? 0 : 1);
		}
	}
	CHECK(until(id, 0, GETNCNT, 2));
	CHECK(semctl(id, 0, IPC_RMID) == 0);
	CHECK(status_of(w[0]) == 0 && status_of(w[1]) == 0);
}

static void keyed(void)
{
	key_t k = ftok("/", 'S');
	semctl(semget(k, 0, 0), 0, IPC_RMID);     /* (one left by an earlier run) */
	errno = 0;
	CHECK(semget(k, 1, 0) == -1 && errno == ENOENT);
	int id = semget(k, 2, IPC_CREAT | IPC_EXCL | 0644);
	CHECK(id >= 0);
	errno = 0;
	CHECK(semget(k, 2, IPC_CREAT | IPC_EXCL | 0644) == -1 && errno == EEXIST);
	errno = 0;
	CHECK(semget(k, 3, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(semget(IPC_PRIVATE, SEMMSL + 1, IPC_CREAT | 0600) == -1 && errno == EINVAL);
	pid_t c = fork();
	if (c == 0)
		_exit(semget(k, 0, 0) == id && op(id, 1, 7, 0) == 0 ? 0 : 1);
	CHECK(status_of(c) == 0 && semctl(id, 1, GETVAL) == 7);
	c = fork();
	if (c == 0) {
		if (setuid(65534) < 0)
			_exit(2);
		errno = 0;
		int denied = semget(k, 0, 0600) == -1 && errno == EACCES;
		errno = 0;
		int rw = op(id, 1, -1, IPC_NOWAIT) == -1 && errno == EACCES;
		_exit(denied && rw && semget(k, 0, 0444) == id && semctl(id, 1, GETVAL) == 7 ? 0 : 1);
	}
	CHECK(status_of(c) == 0);
	CHECK(semctl(id, 0, IPC_RMID) == 0);
	errno = 0;
	CHECK(semget(k, 0, 0) == -1 && errno == ENOENT);
}

struct m { long type; char text[MSGMAX]; };

static int send(int id, long type, const char *text, int flg)
{
	static struct m b;
	b.type = type;
	strcpy(b.text, text);
	return msgsnd(id, &b, strlen(text) + 1, flg);
}

/* Messages by type: 0 the oldest, >0 the oldest of that type, <0 the
   lowest type up to its size; E2BIG or MSG_NOERROR; ENOMSG; the limits. */
static void queue_types(void)
{
	int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	CHECK(id >= 0);
	static struct m b;
	CHECK(send(id, 3, "three", 0) == 0 && send(id, 2, "two", 0) == 0 && send(id, 1, "one", 0) == 0 &&
	      send(id, 2, "two again", 0) == 0);
	struct msqid_ds ds;
	CHECK(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 4 && ds.msg_qbytes == MSGMNB &&
	      ds.msg_lspid == getpid() && (ds.msg_perm.mode & 0777) == 0600);
	CHECK(msgrcv(id, &b, sizeof b.text, 2, 0) == 4 && b.type == 2 && !strcmp(b.text, "two"));
	CHECK(msgrcv(id, &b, sizeof b.text, -2, 0) == 4 && b.type == 1 && !strcmp(b.text, "one"));
	errno = 0;
	CHECK(msgrcv(id, &b, 3, 0, 0) == -1 && errno == E2BIG);
	CHECK(msgrcv(id, &b, 3, 0, MSG_NOERROR) == 3 && b.type == 3 && !memcmp(b.text, "thr", 3));
	CHECK(msgrcv(id, &b, sizeof b.text, 0, 0) == 10 && !strcmp(b.text, "two again"));
	errno = 0;
	CHECK(msgrcv(id, &b, sizeof b.text, 0, IPC_NOWAIT) == -1 && errno == ENOMSG);
	CHECK(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 0 && ds.msg_lrpid == getpid());
	errno = 0;
	CHECK(msgsnd(id, &b, MSGMAX + 1, 0) == -1 && errno == EINVAL);
	b.type = 0;
	errno = 0;
	CHECK(msgsnd(id, &b, 1, 0) == -1 && errno == EINVAL);
	CHECK(msgctl(id, IPC_RMID, 0) == 0);
	errno = 0;
	CHECK(msgsnd(id, &b, 1, 0) == -1 && errno == EINVAL);
}

static int removed_in_wait(void);

/* A full queue (MSGMNB bytes): IPC_NOWAIT's EAGAIN, and a child's send
   that waits until the parent takes one; a child's receive of a type
   that waits past another type's message; removal ends a wait with
   EIDRM. */
static void queue_waits(void)
{
	int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	CHECK(id >= 0);
	static struct m b;
	b.type = 1;
	memset(b.text, 'x', MSGMAX);
	CHECK(msgsnd(id, &b, MSGMAX, 0) == 0 && msgsnd(id, &b, MSGMAX, 0) == 0);
	errno = 0;
	CHECK(msgsnd(id, &b, 1, IPC_NOWAIT) == -1 && errno == EAGAIN);
	pid_t c = fork();
	if (c == 0)
		_exit(send(id, 2, "after", 0) == 0 ? 0 : 1);
	CHECK(msgrcv(id, &b, MSGMAX, 1, 0) == MSGMAX);
	CHECK(status_of(c) == 0);
	struct msqid_ds ds;
	CHECK(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 2 && ds.__msg_cbytes == MSGMAX + 6 &&
	      ds.msg_lspid == c);
	CHECK(msgrcv(id, &b, MSGMAX, 1, 0) == MSGMAX && msgrcv(id, &b, MSGMAX, 2, 0) == 6);

	c = fork();
	if (c == 0) {
		static struct m r;
		_exit(msgrcv(id, &r, MSGMAX, 5, 0) == 5 && r.type == 5 && !strcmp(r.text, "five") ? 0 : 1);
	}
	CHECK(send(id, 4, "four", 0) == 0 && send(id, 5, "five", 0) == 0);
	CHECK(status_of(c) == 0);
	CHECK(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 1);

	CHECK(msgctl(id, IPC_RMID, 0) == 0);
	CHECK(removed_in_wait());
}

/* IPC_RMID ends a child's wait with EIDRM. Nothing shows that it waits
   (no count of waiters, as on Linux): it says it is about to, the
   parent lets it go on a while, and if the removal still came first (its
   msgrcv: EINVAL) the round is done again with a longer while. */
static int removed_in_wait(void)
{
	for (int round = 1; round <= 5; round++) {
		int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600), p[2];
		if (id < 0 || pipe(p) < 0)
			return 0;
		pid_t c = fork();
		if (c == 0) {
			static struct m r;
			char x = 'w';
			if (write(p[1], &x, 1) != 1)
				_exit(2);
			errno = 0;
			int n = (int)msgrcv(id, &r, MSGMAX, 9, 0);
			_exit(n == -1 && errno == EIDRM ? 0 : n == -1 && errno == EINVAL ? 3 : 1);
		}
		char x = 0;
		int ok = read(p[0], &x, 1) == 1;
		close(p[0]);
		close(p[1]);
		usleep(100000 * round);
		ok = ok && msgctl(id, IPC_RMID, 0) == 0;
		int st = status_of(c);
		if (!ok || (st != 0 && st != 3))
			return 0;
		if (st == 0)
			return 1;
	}
	return 0;
}

static void queue_keyed(void)
{
	key_t k = ftok("/", 'Q');
	msgctl(msgget(k, 0), IPC_RMID, 0);        /* (one left by an earlier run) */
	errno = 0;
	CHECK(msgget(k, 0) == -1 && errno == ENOENT);
	int id = msgget(k, IPC_CREAT | IPC_EXCL | 0600);
	CHECK(id >= 0);
	errno = 0;
	CHECK(msgget(k, IPC_CREAT | IPC_EXCL | 0600) == -1 && errno == EEXIST);
	pid_t c = fork();
	if (c == 0)
		_exit(msgget(k, 0) == id && send(id, 7, "by key", 0) == 0 ? 0 : 1);
	CHECK(status_of(c) == 0);
	static struct m b;
	CHECK(msgrcv(id, &b, MSGMAX, 7, IPC_NOWAIT) == 7 && !strcmp(b.text, "by key"));
	c = fork();
	if (c == 0) {
		if (setuid(65534) < 0)
			_exit(2);
		errno = 0;
		_exit(msgget(k, 0600) == -1 && errno == EACCES ? 0 : 1);
	}
	CHECK(status_of(c) == 0);
	CHECK(msgctl(id, IPC_RMID, 0) == 0);
}

int main(void)
{
	struct result res;
	values();
	waits();
	undo();
	interrupt_and_remove();
	keyed();
	queue_types();
	queue_waits();
	queue_keyed();
	result_begin(&res, "sysvipcx");
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
