/*
 * System V message queues (<sys/msg.h>) over files, as sysvshm.c's
 * segments: queue ID is the file /dev/shm/.sysvmsg.ID (struct queue,
 * then the messages packed in order of sending: struct rec and the
 * text, rounded to 8), its key and mode as sysvipc.c makes them. The
 * area holds the worst Linux allows (MSGMNB messages of one byte), so
 * a send waits only for the limits: the bytes (msg_qbytes) and, as on
 * Linux, as many messages as msg_qbytes. A receive takes its message
 * out and moves the later ones down.
 *
 * Every call maps the file MAP_SHARED and takes the queue's lock
 * (plock.c, mqueue.c's: taken over from a holder that died, and the
 * records walked again, a torn one and those after it dropped). Waits
 * for room or a message sleep on words each receive or send bumps, the
 * lock released: a handler without SA_RESTART ends them with EINTR, a
 * cancel acts there (msgsnd and msgrcv are cancellation points), and
 * IPC_RMID wakes them to EIDRM (the file and the key go at once, the
 * sleepers still map it).
 */
#include <sys/msg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "../pthread/pwait.h"
#include "../pthread/pshared.h"
#include "plock.h"
#include "sysvipc.h"

#define Q_MAGIC 0x53797351u            /* "QsyS" */

struct rec { int64_t type; uint32_t len, pad; };
#define AREA ((size_t)MSGMNB * (sizeof(struct rec) + 8))

struct queue {
	uint32_t magic, lock;          /* lock: plock.c's */
	uint32_t sent, taken;          /* bumped by each send, each receive: what waits sleep on */
	uint32_t ssleep, rsleep;       /* asleep for room, for a message */
	int32_t key, removed;
	int64_t qbytes, cbytes, qnum, used;   /* used: bytes of the area in records */
	int32_t lspid, lrpid;
	int64_t stime, rtime, ctime;
};                                     /* then AREA bytes of records */
#define QLEN (sizeof(struct queue) + AREA)

static size_t rec_len(size_t n) { return sizeof(struct rec) + ((n + 7) & ~(size_t)7); }
static struct rec *at(struct queue *q, int64_t off) { return (struct rec *)((char *)(q + 1) + off); }

/* Queue id mapped (its stat in *st if st), or 0 with errno: EINVAL for
   no such queue, else open's (EACCES). */
static struct queue *q_map(int id, int oflag, struct stat *st)
{
	char p[48];
	struct stat s0;
	if (!st)
		st = &s0;
	sysv_path(p, "msg", id);
	int fd = id < 0 ? -1 : open(p, oflag | O_CLOEXEC);
	if (fd < 0) {
		if (id < 0 || errno == ENOENT)
			errno = EINVAL;
		return 0;
	}
	struct queue *q = MAP_FAILED;
	if (fstat(fd, st) == 0 && (size_t)st->st_size == QLEN)
		q = mmap(0, QLEN, PROT_READ | ((oflag & O_ACCMODE) == O_RDWR ? PROT_WRITE : 0),
			 MAP_SHARED, fd, 0);
	close(fd);
	if (q == MAP_FAILED || q->magic != Q_MAGIC) {
		if (q != MAP_FAILED)
			munmap(q, QLEN);
		errno = EINVAL;                /* (one being made: not there yet) */
		return 0;
	}
	return q;
}

static void unmap(struct queue *q) { munmap(q, QLEN); }

static void wake(uint32_t *word, uint32_t sleepers)
{
	__atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
	if (sleepers)
		psh_word_wake(word, INT_MAX);
}

/* The lock taken over from a holder that died: the records walked
   again, the first torn one and those after it dropped. */
static void repair(void *arg)
{
	struct queue *q = arg;
	int64_t off = 0, n = 0, bytes = 0;
	while (off + (int64_t)sizeof(struct rec) <= q->used && (size_t)q->used <= AREA) {
		struct rec *r = at(q, off);
		if (r->type < 1 || r->len > MSGMAX || off + (int64_t)rec_len(r->len) > q->used)
			break;
		n++;
		bytes += r->len;
		off += (int64_t)rec_len(r->len);
	}
	q->used = off;
	q->qnum = n;
	q->cbytes = bytes;
	wake(&q->sent, 1);
	wake(&q->taken, 1);
}

static int fits(int id, void *arg)
{
	(void)arg;
	struct queue *q = q_map(id, O_RDONLY, 0);
	if (!q)
		return errno == EINVAL ? 1 : -1;
	unmap(q);
	return 0;
}

int msgget(key_t key, int flags)
{
	struct queue h = { .magic = Q_MAGIC, .key = key, .qbytes = MSGMNB, .ctime = time(0) };
	return sysv_get("msg", key, flags, QLEN, &h, sizeof h, 0, fits, 0);
}

static void lock(struct queue *q) { plk_lock(&q->lock, repair, q); }
static void unlock(struct queue *q) { plk_unlock(&q->lock); }

/* The lock held: sleep on *word (a cancel acts here, the lock and the
   mapping dropped). 0 (look again), EINTR or EIDRM. */
static int sleep_on(struct queue *q, uint32_t *word, uint32_t *count)
{
	int r = plk_sleep(&q->lock, repair, q, word, count, 0, 1);
	if (r == ECANCELED) {
		unlock(q);
		unmap(q);
		pcancel_act();
	}
	if (q->removed)
		return EIDRM;
	return r == EINTR ? EINTR : 0;
}

/* Both are cancellation points: as they begin, and while they wait. */
int msgsnd(int id, const void *msg, size_t len, int flags)
{
	pcancel_point();
	long type = *(const long *)msg;
	if (len > MSGMAX || type < 1) {
		errno = EINVAL;
		return -1;
	}
	struct queue *q = q_map(id, O_RDWR, 0);
	if (!q)
		return -1;
	int e = 0;
	lock(q);
	while (!e && !q->removed && (q->cbytes + (int64_t)len > q->qbytes || q->qnum + 1 > q->qbytes))
		e = flags & IPC_NOWAIT ? EAGAIN : sleep_on(q, &q->taken, &q->ssleep);
	if (!e && q->removed)
		e = EIDRM;
	if (!e) {
		struct rec *r = at(q, q->used);
		memcpy(r + 1, (const long *)msg + 1, len);
		r->len = (uint32_t)len;
		r->type = type;
		q->used += (int64_t)rec_len(len);
		q->qnum++;
		q->cbytes += (int64_t)len;
		q->lspid = plk_self();
		q->stime = time(0);
		wake(&q->sent, q->rsleep);
	}
	unlock(q);
	unmap(q);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* The offset of the message msgrcv's type asks for, or -1. */
static int64_t pick(struct queue *q, long type, int flags)
{
	int64_t best = -1;
	for (int64_t off = 0; off < q->used; off += (int64_t)rec_len(at(q, off)->len)) {
		int64_t t = at(q, off)->type;
		if (type == 0 || (type > 0 && (flags & MSG_EXCEPT ? t != type : t == type)))
			return off;
		if (type < 0 && t <= -type && (best < 0 || t < at(q, best)->type))
			best = off;
	}
	return best;
}

ssize_t msgrcv(int id, void *msg, size_t len, long type, int flags)
{
	pcancel_point();
	if ((ssize_t)len < 0) {
		errno = EINVAL;
		return -1;
	}
	struct queue *q = q_map(id, O_RDWR, 0);
	if (!q)
		return -1;
	int e = 0;
	int64_t off = -1;
	size_t n = 0;
	lock(q);
	while (!e && !q->removed && (off = pick(q, type, flags)) < 0)
		e = flags & IPC_NOWAIT ? ENOMSG : sleep_on(q, &q->sent, &q->rsleep);
	if (!e && q->removed)
		e = EIDRM;
	if (!e) {
		struct rec *r = at(q, off);
		n = r->len;
		if (n > len && !(flags & MSG_NOERROR))
			e = E2BIG;                 /* the message stays */
	}
	if (!e) {
		struct rec *r = at(q, off);
		size_t rl = rec_len(n);
		*(long *)msg = (long)r->type;
		n = n < len ? n : len;
		memcpy((long *)msg + 1, r + 1, n);
		q->qnum--;
		q->cbytes -= r->len;
		memmove(r, (char *)r + rl, (size_t)(q->used - off - (int64_t)rl));
		q->used -= (int64_t)rl;
		q->lrpid = plk_self();
		q->rtime = time(0);
		wake(&q->taken, q->ssleep);
	}
	unlock(q);
	unmap(q);
	if (e) {
		errno = e;
		return -1;
	}
	return (ssize_t)n;
}

static int stat_q(int id, struct msqid_ds *buf)
{
	struct stat st;
	struct queue *q = q_map(id, O_RDONLY, &st);
	if (!q)
		return -1;
	memset(buf, 0, sizeof *buf);
	buf->msg_perm.__key = q->key;
	buf->msg_perm.uid = buf->msg_perm.cuid = st.st_uid;
	buf->msg_perm.gid = buf->msg_perm.cgid = st.st_gid;
	buf->msg_perm.mode = st.st_mode & 0777;
	buf->msg_stime = q->stime;
	buf->msg_rtime = q->rtime;
	buf->msg_ctime = q->ctime;
	buf->__msg_cbytes = (unsigned long)q->cbytes;
	buf->msg_qnum = (msgqnum_t)q->qnum;
	buf->msg_qbytes = (msglen_t)q->qbytes;
	buf->msg_lspid = q->lspid;
	buf->msg_lrpid = q->lrpid;
	unmap(q);
	return 0;
}

/* IPC_SET: owner, group, mode, and msg_qbytes up to MSGMNB (EPERM past
   it, as Linux for a process without CAP_SYS_RESOURCE: the area holds
   no more). */
static int set_q(int id, struct msqid_ds *buf)
{
	if (buf->msg_qbytes > MSGMNB) {
		errno = EPERM;
		return -1;
	}
	char p[48];
	sysv_path(p, "msg", id);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = EINVAL;
		return -1;
	}
	int r = fchown(fd, buf->msg_perm.uid, buf->msg_perm.gid);
	if (r == 0)
		r = fchmod(fd, buf->msg_perm.mode & 0777);
	close(fd);
	struct queue *q;
	if (r == 0 && (q = q_map(id, O_RDWR, 0))) {
		lock(q);
		q->qbytes = (int64_t)buf->msg_qbytes;
		q->ctime = time(0);
		wake(&q->taken, q->ssleep);      /* more room, perhaps */
		unlock(q);
		unmap(q);
	}
	return r;
}

static int remove_q(int id)
{
	struct queue *q = q_map(id, O_RDWR, 0);
	if (!q)
		return -1;
	char p[48];
	lock(q);
	sysv_key_drop("msg", q->key, id);
	q->removed = 1;                /* its sleepers wake to EIDRM */
	q->key = IPC_PRIVATE;
	sysv_path(p, "msg", id);
	int r = unlink(p);
	wake(&q->sent, 1);
	wake(&q->taken, 1);
	unlock(q);
	unmap(q);
	return r;
}

int msgctl(int id, int cmd, struct msqid_ds *buf)
{
	if (cmd == IPC_STAT)
		return stat_q(id, buf);
	if (cmd == IPC_SET)
		return set_q(id, buf);
	if (cmd == IPC_RMID)
		return remove_q(id);
	errno = EINVAL;
	return -1;
}
