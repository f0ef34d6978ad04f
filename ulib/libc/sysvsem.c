/*
 * System V semaphore sets (<sys/sem.h>) over files, as sysvshm.c's
 * segments: set ID is the file /dev/shm/.sysvsem.ID (struct set, then
 * nsems struct sem), its key and mode as sysvipc.c makes them.
 *
 * Every call maps the file MAP_SHARED and takes the set's lock (plock.c:
 * mqueue.c's, which a process that died holding it does not keep). A
 * semop whose operations cannot all be done sleeps on `seq`, which every
 * change bumps, the lock released (plk_sleep: a handler ends the sleep
 * with EINTR; semop is no cancellation point in POSIX's list, so no
 * cancel acts there). IPC_RMID marks the set removed and bumps `seq`:
 * its sleepers, still mapping it, wake and fail with EIDRM; the file
 * and the key go at once.
 *
 * SEM_UNDO: the adjustments are in the set, by pid (struct undo), not in
 * the process, since nothing in this library runs at a kill: whoever
 * takes the lock next applies those of processes that ended (kill(pid,
 * 0): ESRCH, a zombie too), as Linux does at their exit; a sleeper looks
 * each PLK_POLL_NS while there are any. A fork's child starts with
 * none (its pid has none), an exec keeps them (its pid does), as Linux.
 * At most UNDO_MAX (pid, semaphore) pairs a set: ENOSPC past them
 * (Linux: ENOMEM when it cannot allocate one).
 *
 * A process that may read a set but not write it (its mode) reads the
 * values (GET*, IPC_STAT) without the lock, which it cannot write; its
 * semop waiting for zero is EACCES (Linux lets it wait).
 */
#include <sys/sem.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <animart/clock.h>
#include "../pthread/pshared.h"
#include "plock.h"
#include "sysvipc.h"

#define SET_MAGIC 0x53797353u          /* "SsyS" */
#define UNDO_MAX 128

struct undo { int32_t pid, adj; uint32_t num; };   /* adj: what the process's end adds */
struct sem { int32_t val, pid; uint32_t ncnt, zcnt; };

struct set {
	uint32_t magic, lock;          /* lock: plock.c's */
	uint32_t seq, sleepers;        /* bumped by each change; semops asleep on it */
	int32_t key, nsems, removed, nundo;
	int64_t otime, ctime;
	struct undo undo[UNDO_MAX];
	struct sem sem[];
};

union semun_ { int val; struct semid_ds *buf; unsigned short *array; };

static void set_path(char *p, int id) { sysv_path(p, "sem", id); }
static size_t set_len(int n) { return sizeof(struct set) + (size_t)n * sizeof(struct sem); }

/* Set id mapped (its descriptor's stat in *st if st), or 0 with errno:
   EINVAL for no such set, else open's (EACCES). */
static struct set *set_map(int id, int oflag, struct stat *st)
{
	char p[48];
	struct stat s0;
	if (!st)
		st = &s0;
	set_path(p, id);
	int fd = id < 0 ? -1 : open(p, oflag | O_CLOEXEC);
	if (fd < 0) {
		if (id < 0 || errno == ENOENT)
			errno = EINVAL;
		return 0;
	}
	struct set *s = MAP_FAILED;
	if (fstat(fd, st) == 0 && (size_t)st->st_size >= sizeof *s)
		s = mmap(0, st->st_size, PROT_READ | ((oflag & O_ACCMODE) == O_RDWR ? PROT_WRITE : 0),
			 MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED || s->magic != SET_MAGIC || st->st_size < (off_t)set_len(s->nsems)) {
		if (s != MAP_FAILED)
			munmap(s, st->st_size);
		errno = EINVAL;                /* (one being made: not there yet) */
		return 0;
	}
	return s;
}

static void unmap(struct set *s) { munmap(s, set_len(s->nsems)); }

/* ---- undo ---- */

static void changed(struct set *s)
{
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
	if (s->sleepers)
		psh_word_wake(&s->seq, INT_MAX);
}

static void clamp_add(struct sem *m, int d)
{
	int v = m->val + d;
	m->val = v < 0 ? 0 : v > SEMVMX ? SEMVMX : v;   /* Linux clamps an exit's undo too */
}

/* The lock held: apply and drop the adjustments of processes that ended. */
static void reap(void *arg)
{
	struct set *s = arg;
	int n = 0, any = 0;
	for (int i = 0; i < s->nundo; i++) {
		struct undo u = s->undo[i];
		if (u.pid && !plk_alive(u.pid)) {
			if (u.num < (uint32_t)s->nsems)
				clamp_add(&s->sem[u.num], u.adj);
			any = 1;
		} else if (u.pid && u.adj)
			s->undo[n++] = u;
	}
	s->nundo = n;
	if (any)
		changed(s);
}

static void lock(struct set *s)
{
	plk_lock(&s->lock, reap, s);
	reap(s);
}

static void unlock(struct set *s) { plk_unlock(&s->lock); }

/* The caller's adjustment of semaphore num: its slot, or 0 if none is
   left. */
static struct undo *undo_of(struct set *s, int num)
{
	int me = plk_self();
	for (int i = 0; i < s->nundo; i++)
		if (s->undo[i].pid == me && s->undo[i].num == (uint32_t)num)
			return &s->undo[i];
	if (s->nundo == UNDO_MAX)
		return 0;
	s->undo[s->nundo] = (struct undo){ me, 0, (uint32_t)num };
	return &s->undo[s->nundo++];
}

/* SETVAL, SETALL: the semaphore's adjustments are dropped (Linux). */
static void undo_clear(struct set *s, int num)
{
	for (int i = 0; i < s->nundo; i++)
		if (num < 0 || s->undo[i].num == (uint32_t)num)
			s->undo[i].adj = 0;
}

/* ---- semget ---- */

/* semget's test of an existing set (sysv_get) */
static int fits(int id, void *nsems)
{
	struct set *s = set_map(id, O_RDONLY, 0);
	if (!s)
		return errno == EINVAL ? 1 : -1;
	int have = s->nsems;
	unmap(s);
	if (*(int *)nsems > have) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int semget(key_t key, int nsems, int flags)
{
	if (nsems < 0 || nsems > SEMMSL) {
		errno = EINVAL;
		return -1;
	}
	struct set h = { .magic = SET_MAGIC, .key = key, .nsems = nsems, .ctime = time(0) };
	return sysv_get("sem", key, flags, set_len(nsems), &h, sizeof h, nsems ? 0 : EINVAL, fits, &nsems);
}

/* ---- semop ---- */

/* Can every operation be done now? 0; or 1 + the index of the first
   that would wait; or -2 - the index of one past SEMVMX (ERANGE). */
static int blocked(struct set *s, struct sembuf *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sem *m = &s->sem[ops[i].sem_num];
		int op = ops[i].sem_op;
		int v = m->val;                /* (with the earlier operations on it) */
		for (size_t j = 0; j < i; j++)
			if (ops[j].sem_num == ops[i].sem_num)
				v += ops[j].sem_op;
		if (op > 0 && v + op > SEMVMX)
			return -2 - (int)i;
		if ((op < 0 && v + op < 0) || (op == 0 && v != 0))
			return (int)i + 1;
	}
	return 0;
}

int semtimedop(int id, struct sembuf *ops, size_t nops, const struct timespec *timeout)
{
	if (nops == 0 || nops > SEMOPM) {
		errno = nops ? E2BIG : EINVAL;
		return -1;
	}
	int alter = 0, undo = 0;
	for (size_t i = 0; i < nops; i++) {
		alter |= ops[i].sem_op != 0;
		undo |= (ops[i].sem_flg & SEM_UNDO) && ops[i].sem_op;
	}
	uint64_t dl = 0;
	if (timeout) {
		if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000L) {
			errno = EINVAL;
			return -1;
		}
		dl = now_ns() + (uint64_t)timeout->tv_sec * 1000000000ULL + (uint64_t)timeout->tv_nsec;
	}
	struct set *s = set_map(id, alter ? O_RDWR : O_RDONLY, 0);
	if (!s)
		return -1;
	/* a reader (sem_op 0 only) still writes the counts and the lock */
	struct set *w = alter ? s : set_map(id, O_RDWR, 0);
	if (!w) {
		unmap(s);
		return -1;
	}
	int e = 0;
	for (size_t i = 0; i < nops; i++)
		if (ops[i].sem_num >= (unsigned)s->nsems)
			e = EFBIG;
	lock(w);
	while (!e) {
		if (w->removed) {
			e = EIDRM;
			break;
		}
		int b = blocked(w, ops, nops);
		if (b <= -2) {
			e = ERANGE;
			break;
		}
		if (b == 0) {
			struct undo *u[SEMOPM] = { 0 };
			for (size_t i = 0; undo && i < nops; i++)
				if ((ops[i].sem_flg & SEM_UNDO) && ops[i].sem_op &&
				    !(u[i] = undo_of(w, ops[i].sem_num)))
					e = ENOSPC;
			if (e)
				break;
			for (size_t i = 0; i < nops; i++) {
				struct sem *m = &w->sem[ops[i].sem_num];
				m->val += ops[i].sem_op;
				m->pid = plk_self();
				if (u[i])
					u[i]->adj -= ops[i].sem_op;
			}
			w->otime = time(0);
			changed(w);
			break;
		}
		struct sembuf *o = &ops[b - 1];
		if (o->sem_flg & IPC_NOWAIT) {
			e = EAGAIN;
			break;
		}
		if (plk_past(dl)) {
			e = EAGAIN;                    /* semtimedop's timeout (Linux) */
			break;
		}
		struct sem *m = &w->sem[o->sem_num];
		uint32_t *cnt = o->sem_op ? &m->ncnt : &m->zcnt;
		++*cnt;
		/* while some adjustments wait, look each PLK_POLL_NS for their processes' end */
		uint64_t d = w->nundo ? now_ns() + PLK_POLL_NS : 0;
		if (dl && (!d || dl < d))
			d = dl;
		int r = plk_sleep(&w->lock, reap, w, &w->seq, &w->sleepers, d, 0);
		--*cnt;
		if (r == EINTR)
			e = EINTR;
		else
			reap(w);
	}
	unlock(w);
	if (w != s)
		unmap(w);
	unmap(s);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

int semop(int id, struct sembuf *ops, size_t nops)
{
	return semtimedop(id, ops, nops, 0);
}

/* ---- semctl ---- */

static int stat_set(int id, struct semid_ds *buf)
{
	struct stat st;
	struct set *s = set_map(id, O_RDONLY, &st);
	if (!s)
		return -1;
	memset(buf, 0, sizeof *buf);
	buf->sem_perm.__key = s->key;
	buf->sem_perm.uid = buf->sem_perm.cuid = st.st_uid;
	buf->sem_perm.gid = buf->sem_perm.cgid = st.st_gid;
	buf->sem_perm.mode = st.st_mode & 0777;
	buf->sem_otime = s->otime;
	buf->sem_ctime = s->ctime;
	buf->sem_nsems = s->nsems;
	unmap(s);
	return 0;
}

static int set_perm(int id, struct semid_ds *buf)
{
	char p[48];
	set_path(p, id);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = EINVAL;
		return -1;
	}
	int r = fchown(fd, buf->sem_perm.uid, buf->sem_perm.gid);
	if (r == 0)
		r = fchmod(fd, buf->sem_perm.mode & 0777);
	close(fd);
	struct set *s;
	if (r == 0 && (s = set_map(id, O_RDWR, 0))) {
		s->ctime = time(0);
		unmap(s);
	}
	return r;
}

static int remove_set(int id)
{
	struct set *s = set_map(id, O_RDWR, 0);
	if (!s)
		return -1;
	char p[48];
	lock(s);
	sysv_key_drop("sem", s->key, id);
	s->removed = 1;                /* its sleepers wake to EIDRM */
	s->key = IPC_PRIVATE;
	set_path(p, id);
	int r = unlink(p);
	changed(s);
	unlock(s);
	unmap(s);
	return r;
}

/* GETVAL and the rest, the lock held: the result, or -1 with errno */
static int values(struct set *s, int num, int cmd, union semun_ a)
{
	if ((cmd == GETVAL || cmd == SETVAL || cmd == GETPID || cmd == GETNCNT || cmd == GETZCNT) &&
	    (num < 0 || num >= s->nsems)) {
		errno = EINVAL;
		return -1;
	}
	switch (cmd) {
	case GETVAL:  return s->sem[num].val;
	case GETPID:  return s->sem[num].pid;
	case GETNCNT: return (int)s->sem[num].ncnt;
	case GETZCNT: return (int)s->sem[num].zcnt;
	case GETALL:
		for (int i = 0; i < s->nsems; i++)
			a.array[i] = (unsigned short)s->sem[i].val;
		return 0;
	case SETVAL:
		if (a.val < 0 || a.val > SEMVMX) {
			errno = ERANGE;
			return -1;
		}
		s->sem[num].val = a.val;
		s->sem[num].pid = plk_self();
		undo_clear(s, num);
		break;
	case SETALL:
		for (int i = 0; i < s->nsems; i++)
			if (a.array[i] > SEMVMX) {
				errno = ERANGE;
				return -1;
			}
		for (int i = 0; i < s->nsems; i++) {
			s->sem[i].val = a.array[i];
			s->sem[i].pid = plk_self();
		}
		undo_clear(s, -1);
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	s->ctime = time(0);
	changed(s);
	return 0;
}

int semctl(int id, int num, int cmd, ...)
{
	union semun_ a = { 0 };
	va_list ap;
	va_start(ap, cmd);
	if (cmd == SETVAL)
		a.val = va_arg(ap, int);
	else if (cmd == IPC_STAT || cmd == IPC_SET || cmd == GETALL || cmd == SETALL)
		a.array = va_arg(ap, unsigned short *);
	va_end(ap);
	if (cmd == IPC_STAT)
		return stat_set(id, a.buf);
	if (cmd == IPC_SET)
		return set_perm(id, a.buf);
	if (cmd == IPC_RMID)
		return remove_set(id);
	int wr = cmd == SETVAL || cmd == SETALL;
	struct set *s = set_map(id, wr ? O_RDWR : O_RDONLY, 0);
	if (!s)
		return -1;
	/* the lock is written by a reader too; one that may not write reads
	   without it (each value one load: GETALL is no snapshot then) */
	struct set *w = wr ? s : set_map(id, O_RDWR, 0);
	if (!w && errno != EACCES) {
		unmap(s);
		return -1;
	}
	if (w)
		lock(w);
	int r = values(w ? w : s, num, cmd, a);
	if (w)
		unlock(w);
	if (w && w != s)
		unmap(w);
	unmap(s);
	return r;
}
