/*
 * POSIX message queues (<mqueue.h>), named system-wide and shared by
 * every process, as on Linux. A queue is a file, /dev/mqueue/NAME, on
 * the kernel's file system (the disk, or the RAM disk the kernel makes
 * without one; as shm_open's /dev/shm), that each process maps
 * MAP_SHARED: a header (the attributes, the lock, the words waits sleep
 * on, the notification) and maxmsg slots of msgsize bytes. A mqd_t is
 * the file's descriptor (O_CLOEXEC, as Linux's), so fork copies it and
 * the child uses the same queue; the mapping and the descriptor's
 * O_ACCMODE and O_NONBLOCK are this process's (tab[fd]).
 *
 * Order: the highest priority first, the oldest first within one (each
 * message gets the queue's next order number). A send fills a slot and
 * marks it used last, a receive copies it out and marks it free, so the
 * slots are the truth and the count can be made again from them.
 *
 * The lock (why not a process-shared pthread mutex: a process that dies
 * holding one leaves it held for ever): a word holding the holder's pid,
 * LK_WAIT set once someone may sleep on it. A waiter sleeps on the word
 * (the kernel futex, keyed by the file's frame) at most PLK_POLL_NS at a
 * time, then asks whether the holder lives (kill(pid, 0): a process that
 * ended is ESRCH, a zombie too); if not, it takes the lock over and
 * makes the count and the order number again from the slots (repair).
 * Waits for room or a message sleep on a word each send or receive
 * bumps (psh_word_wait, ulib/pthread/pshared.c), the lock released
 * meanwhile: a signal handler runs inside them and ends them with EINTR
 * unless it has SA_RESTART, pthread_cancel ends them (cancellation
 * points), a deadline is CLOCK_REALTIME's. The lock and the sleeps are
 * plock.c's, which System V semaphore sets share (sysvsem.c).
 *
 * mq_notify: one registration per queue, the registering process's pid
 * in the header (a registration whose process ended is dropped when
 * found). The send that makes the queue non-empty with no receiver
 * waiting takes it and, after the lock, signals that process
 * (SYS_sigmesgq: si_code SI_MESGQ, the value; the process itself:
 * __sig_queue) or, for SIGEV_THREAD, starts the thread there: in the
 * process itself at once, in another by the internal signal SIG_MQTHR
 * (32: below SIGRTMIN, no program's), whose handler wakes a service
 * thread that starts it. Linux's limits and error numbers.
 */
#include <mqueue.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/upcall.h>
#include <animart/fence.h>
#include "../pthread/pwait.h"
#include "../pthread/pshared.h"
#include "nocancel.h"
#include "plock.h"

#define MQDIR       "/dev/mqueue/"
#define DEF_MAXMSG  10               /* Linux's msg_default and msgsize_default */
#define DEF_MSGSIZE 8192
#define MAX_MAXMSG  65536            /* its hard limits (a process here is root) */
#define MAX_MSGSIZE (16L << 20)
#define MAX_BYTES   819200L          /* RLIMIT_MSGQUEUE's default: bytes a queue takes (EMFILE) */
#define MAGIC       0x314e514dU      /* "MQN1", written last when a queue is made */
#define NRW         16               /* receivers remembered by process (the notification's rule) */
#define SIG_MQTHR   32               /* SIGEV_THREAD in another process (glibc keeps 32 too) */
#define HDR         512              /* the header's room at the file's start */

struct slot {                        /* then msgsize bytes, rounded up to 8 */
	uint32_t used, prio;
	uint64_t seq, len;
};

struct mqh {
	uint32_t magic;
	uint32_t lock;                   /* 0, or the holder's pid | LK_WAIT */
	uint32_t sent, taken;            /* bumped by each send, each receive: what waits sleep on */
	uint32_t ssleep, rsleep;         /* threads asleep for room, for a message */
	int64_t maxmsg, msgsize, cur;
	uint64_t seq;                    /* the next message's order number */
	int32_t npid, nkind, nsig, ntok; /* the notification: pid (0: none), SIGEV_*, signal, token */
	uint64_t nval;                   /* its value */
	struct rw { int32_t pid, n; } rw[NRW];   /* receivers waiting, by process */
	int32_t rmore;                   /* ... past NRW processes */
};
_Static_assert(sizeof(struct mqh) <= HDR, "the header fits");

struct reg {                         /* a SIGEV_THREAD registration of this process, its descriptor's */
	void (*fn)(union sigval);
	union sigval v;
	pthread_attr_t a;
	int set;
};

struct mqd {                         /* an open queue, this process's */
	struct mqh *h;
	size_t len;
	long maxmsg, msgsize, slotsz;    /* copied at open: never read back from the file */
	int refs;                        /* the table's, and calls under way */
	int flags;                       /* O_ACCMODE, O_NONBLOCK */
	struct reg reg;                  /* (here, not in a table of MQ_OPEN_MAX: 80 KiB) */
};

struct note {                        /* a taken notification, done after the lock */
	int pid, kind, sig, tok;
	uint64_t val;
};

static struct mqd *tab[MQ_OPEN_MAX];
static int hi;                       /* one past the highest descriptor tab has held (tlk) */
static pthread_mutex_t tlk = PTHREAD_MUTEX_INITIALIZER;  /* tab, refs, each reg */

int __sig_queue(int sig, int code, union sigval v);     /* signal.c */
int __pt_daemon_once(int *started, void *(*fn)(void *));
void __pt_daemon_enter(void);

static int fail(int e)
{
	errno = e;
	return -1;
}

/* ---- names ---- */

/* name's file into p: 0, or -1 with errno. Linux wants one leading '/'
   and no other. */
static int path(const char *name, char *p)
{
	if (!name || name[0] != '/' || !name[1])
		return fail(EINVAL);
	if (strchr(name + 1, '/'))
		return fail(EACCES);
	if (strlen(name + 1) > NAME_MAX)
		return fail(ENAMETOOLONG);
	strcpy(p, MQDIR);
	strcat(p, name + 1);
	return 0;
}

static int mkdirs(void)
{
	struct stat st;
	if (stat(MQDIR, &st) == 0)
		return 0;
	if ((mkdir("/dev", 01777) < 0 && errno != EEXIST) || (mkdir(MQDIR, 01777) < 0 && errno != EEXIST))
		return -1;
	return 0;
}

/* ---- the lock ---- */

static struct slot *slot(struct mqd *q, long i)
{
	return (struct slot *)((char *)q->h + HDR + i * q->slotsz);
}

/* The lock held: the count and the order number made again from the
   slots (after a holder died, or when they disagree with the slots),
   and every waiter woken to look again. */
static void repair(struct mqd *q)
{
	struct mqh *h = q->h;
	long n = 0;
	uint64_t top = 0;
	for (long i = 0; i < q->maxmsg; i++) {
		struct slot *s = slot(q, i);
		if (s->used) {
			n++;
			top = s->seq + 1 > top ? s->seq + 1 : top;
		}
	}
	h->cur = n;
	if (h->seq < top)
		h->seq = top;
	__atomic_add_fetch(&h->sent, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&h->taken, 1, __ATOMIC_SEQ_CST);
	psh_word_wake(&h->sent, INT_MAX);
	psh_word_wake(&h->taken, INT_MAX);
}

static void repair_cb(void *q) { repair(q); }
static int self(void) { return plk_self(); }
static int alive(int pid) { return plk_alive(pid); }
static void qlock(struct mqd *q) { plk_lock(&q->h->lock, repair_cb, q); }
static void qunlock(struct mqd *q) { plk_unlock(&q->h->lock); }

static int sleep_on(struct mqd *q, volatile uint32_t *word, volatile uint32_t *count, uint64_t deadline)
{
	return plk_sleep(&q->h->lock, repair_cb, q, word, count, deadline, 1);
}

/* ---- descriptors ---- */

/* d's queue, held for one call; 0 with EBADF if d is not one */
static struct mqd *get(mqd_t d)
{
	struct mqd *q = 0;
	pthread_mutex_lock(&tlk);
	if (d >= 0 && d < MQ_OPEN_MAX && (q = tab[d]))
		q->refs++;
	pthread_mutex_unlock(&tlk);
	if (!q)
		errno = EBADF;
	return q;
}

static void put(struct mqd *q)
{
	pthread_mutex_lock(&tlk);
	int last = --q->refs == 0;
	pthread_mutex_unlock(&tlk);
	if (last) {
		munmap(q->h, q->len);
		free(q);
	}
}

static long slotsz(long msgsize)
{
	return (long)sizeof(struct slot) + ((msgsize + 7) & ~7L);
}

/* A new queue's file (fd, just made, empty): sized, mapped, its header
   written, the magic last. 0 or an errno. */
static int init(int fd, struct mqd *q, long maxmsg, long msgsize)
{
	q->maxmsg = maxmsg;
	q->msgsize = msgsize;
	q->slotsz = slotsz(msgsize);
	q->len = HDR + (size_t)(maxmsg * q->slotsz);
	if (ftruncate(fd, (off_t)q->len) < 0)
		return errno;
	void *p = mmap(0, q->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return errno;
	q->h = p;
	q->h->maxmsg = maxmsg;
	q->h->msgsize = msgsize;
	__atomic_store_n(&q->h->magic, MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* An existing queue's file: mapped once its maker has written it (a
   maker that died before that leaves a file that never becomes one:
   ENOENT after about a second). 0 or an errno. */
static int attach(int fd, struct mqd *q)
{
	struct stat st;
	for (int i = 0; i < 1000; i++) {
		if (fstat(fd, &st) < 0)
			return errno;
		if (st.st_size >= HDR) {
			void *p = mmap(0, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED)
				return errno;
			q->h = p;
			q->len = (size_t)st.st_size;
			if (__atomic_load_n(&q->h->magic, __ATOMIC_ACQUIRE) == MAGIC)
				break;
			munmap(p, q->len);
			q->h = 0;
		}
		usleep(1000);
	}
	if (!q->h)
		return ENOENT;
	q->maxmsg = q->h->maxmsg;        /* checked against the file: it may have been written by anyone */
	q->msgsize = q->h->msgsize;
	if (q->maxmsg <= 0 || q->maxmsg > MAX_MAXMSG || q->msgsize <= 0 || q->msgsize > MAX_MSGSIZE ||
	    q->len != HDR + (size_t)(q->maxmsg * slotsz(q->msgsize))) {
		munmap(q->h, q->len);
		q->h = 0;
		return EINVAL;
	}
	q->slotsz = slotsz(q->msgsize);
	return 0;
}

/* attr's sizes for a new queue: 0, EINVAL or EMFILE (its bytes) */
static int check_attr(const struct mq_attr *a, long *maxmsg, long *msgsize)
{
	*maxmsg = a ? a->mq_maxmsg : DEF_MAXMSG;
	*msgsize = a ? a->mq_msgsize : DEF_MSGSIZE;
	if (*maxmsg <= 0 || *msgsize <= 0 || *maxmsg > MAX_MAXMSG || *msgsize > MAX_MSGSIZE)
		return EINVAL;
	return *maxmsg * slotsz(*msgsize) > MAX_BYTES ? EMFILE : 0;
}

/* The file p opened (read-write, close-on-exec), made if oflag says;
   *made says whether it was. -1 with errno. */
static int open_file(const char *p, int oflag, mode_t mode, int bad, int *made)
{
	*made = 0;
	for (;;) {
		if ((oflag & O_CREAT) && !bad) {
			if (mkdirs() < 0)
				return -1;
			int fd = __open_nocancel(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
			if (fd >= 0) {
				*made = 1;
				return fd;
			}
			if (errno != EEXIST || (oflag & O_EXCL))
				return -1;
		}
		int fd = __open_nocancel(p, O_RDWR | O_CLOEXEC, 0);
		if (fd >= 0 && bad && (oflag & O_EXCL)) {
			__close_nocancel(fd);
			return fail(EEXIST);
		}
		if (fd >= 0 || errno != ENOENT)
			return fd;
		if (bad || !(oflag & O_CREAT))
			return fail(bad ? bad : ENOENT);
		/* unlinked between the two opens: make it again */
	}
}

mqd_t mq_open(const char *name, int oflag, ...)
{
	const struct mq_attr *attr = 0;
	mode_t mode = 0;
	if (oflag & O_CREAT) {
		va_list ap;
		va_start(ap, oflag);
		mode = (mode_t)va_arg(ap, int);
		attr = va_arg(ap, const struct mq_attr *);
		va_end(ap);
	}
	FENCED(mq_open(name, oflag, mode, attr));   /* det=par: each call a serial operation */
	char p[sizeof MQDIR + NAME_MAX + 1];
	if ((oflag & O_ACCMODE) == O_ACCMODE)
		return fail(EINVAL);
	if (path(name, p) < 0)
		return -1;
	long maxmsg = 0, msgsize = 0;
	int bad = (oflag & O_CREAT) ? check_attr(attr, &maxmsg, &msgsize) : 0, made;
	int fd = open_file(p, oflag, mode, bad, &made);
	if (fd < 0)
		return -1;
	struct mqd *q = calloc(1, sizeof *q);
	int e = !q ? ENOMEM : fd >= MQ_OPEN_MAX ? EMFILE : made ? init(fd, q, maxmsg, msgsize) : attach(fd, q);
	if (e) {
		if (made)
			unlink(p);
		if (q && q->h)
			munmap(q->h, q->len);
		free(q);
		__close_nocancel(fd);
		return fail(e);
	}
	q->refs = 1;
	q->flags = oflag & (O_ACCMODE | O_NONBLOCK);
	pthread_mutex_lock(&tlk);
	tab[fd] = q;
	if (fd >= hi)
		hi = fd + 1;
	pthread_mutex_unlock(&tlk);
	return fd;
}

int mq_close(mqd_t d)
{
	FENCED(mq_close(d));
	pthread_mutex_lock(&tlk);
	struct mqd *q = d >= 0 && d < MQ_OPEN_MAX ? tab[d] : 0;
	if (q)
		tab[d] = 0;
	pthread_mutex_unlock(&tlk);
	if (!q)
		return fail(EBADF);
	qlock(q);
	if (q->h->npid == self())      /* the registering process closes it: it goes (Linux) */
		q->h->npid = 0;
	qunlock(q);
	__close_nocancel(d);
	put(q);
	return 0;
}

int mq_unlink(const char *name)
{
	char p[sizeof MQDIR + NAME_MAX + 1];
	if (path(name, p) < 0)
		return -1;
	return unlink(p);                /* open descriptors keep the queue (the file) */
}

/* ---- waiting ---- */

/* Note a receiver of this process waiting (+1) or no more (-1). */
static void note_receiver(struct mqh *h, int d)
{
	int me = self(), free_i = -1;
	for (int i = 0; i < NRW; i++) {
		if (h->rw[i].pid == me && (h->rw[i].n > 0 || d > 0)) {
			if ((h->rw[i].n += d) <= 0)
				h->rw[i] = (struct rw){ 0, 0 };
			return;
		}
		if (free_i < 0 && h->rw[i].n <= 0)
			free_i = i;
	}
	if (d > 0 && free_i >= 0)
		h->rw[free_i] = (struct rw){ me, 1 };
	else
		h->rmore += d;
}

/* Is a receiver waiting? (One of a process that ended is forgotten.) */
static int receiver_waits(struct mqh *h)
{
	for (int i = 0; i < NRW; i++)
		if (h->rw[i].n > 0) {
			if (alive(h->rw[i].pid))
				return 1;
			h->rw[i] = (struct rw){ 0, 0 };
		}
	return h->rmore > 0;
}

/* Wait (the lock held) while `full(q)`: 0, or EAGAIN (O_NONBLOCK),
   ETIMEDOUT, EINTR, EINVAL (a bad abstime: looked at only when the call
   must wait, as POSIX says); a cancel acts here, the lock dropped. */
static int wait_while(struct mqd *q, int (*full)(struct mqd *), int recv, const struct timespec *abstime)
{
	int64_t dl = 0;
	int e = 0;
	while (!e && full(q)) {
		if (q->flags & O_NONBLOCK)
			return EAGAIN;
		if (abstime && !dl && (dl = pdeadline(CLOCK_REALTIME, abstime)) < 0)
			return EINVAL;
		if (recv)
			note_receiver(q->h, 1);
		e = recv ? sleep_on(q, &q->h->sent, &q->h->rsleep, (uint64_t)dl)
			 : sleep_on(q, &q->h->taken, &q->h->ssleep, (uint64_t)dl);
		if (recv)
			note_receiver(q->h, -1);
		if (e == ECANCELED) {
			qunlock(q);
			put(q);
			pcancel_act();
		}
	}
	return e == ETIMEDOUT && !full(q) ? 0 : e;
}

static int is_full(struct mqd *q) { return q->h->cur >= q->maxmsg; }
static int is_empty(struct mqd *q) { return q->h->cur <= 0; }

/* ---- notification ---- */

static void *notice_thread(void *arg)
{
	struct reg r = *(struct reg *)arg;
	free(arg);
	r.fn(r.v);
	return 0;
}

/* This process's SIGEV_THREAD registration tok: its thread started. */
static void start_notice(int tok)
{
	struct reg *r = malloc(sizeof *r);
	if (!r)
		return;
	pthread_mutex_lock(&tlk);
	struct mqd *q = tok >= 0 && tok < MQ_OPEN_MAX ? tab[tok] : 0;
	r->set = 0;
	if (q)
		*r = q->reg;
	pthread_mutex_unlock(&tlk);
	pthread_t th;
	pthread_attr_setdetachstate(&r->a, PTHREAD_CREATE_DETACHED);
	if (!r->set || pthread_create(&th, &r->a, notice_thread, r))
		free(r);
}

/* SIG_MQTHR from another process: its handler only marks the token and
   wakes the service thread, which starts the threads (a handler may
   have interrupted malloc). */
static uint64_t due;                 /* tokens whose thread is to start */
static sem_t due_sem;
static int svc_started, svc_pid;

static void *svc_thread(void *arg)
{
	(void)arg;
	__pt_daemon_enter();
	for (;;) {
		while (sem_wait(&due_sem) < 0)
			;
		uint64_t b = __atomic_exchange_n(&due, 0, __ATOMIC_ACQ_REL);
		for (int t = 0; b; t++, b >>= 1)
			if (b & 1)
				start_notice(t);
	}
	return 0;
}

static void on_mqthr(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	int t = si->si_value.sival_int;
	if (si->si_code == SI_MESGQ && t >= 0 && t < MQ_OPEN_MAX) {
		__atomic_or_fetch(&due, 1ULL << t, __ATOMIC_ACQ_REL);
		sem_post(&due_sem);
	}
}

/* Ready to start SIGEV_THREAD threads that another process's send asks
   for: the handler and the service thread (again in a forked child). 0
   or an errno. */
static int svc_ready(void)
{
	if (svc_pid != self()) {
		svc_started = 0;
		sem_init(&due_sem, 0, 0);
		struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART };
		sa.sa_sigaction = on_mqthr;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIG_MQTHR, &sa, 0) < 0)
			return errno;
		svc_pid = self();
	}
	return __pt_daemon_once(&svc_started, svc_thread);
}

static void deliver(const struct note *n)
{
	union sigval v = { .sival_ptr = (void *)(uintptr_t)n->val };
	int mine = n->pid == self();
	if (n->kind == SIGEV_SIGNAL && n->sig) {
		if (mine)
			__sig_queue(n->sig, SI_MESGQ, v);
		else
			syscall3(SYS_sigmesgq, n->pid, n->sig, n->val);
	} else if (n->kind == SIGEV_THREAD) {
		if (mine)
			start_notice(n->tok);
		else
			syscall3(SYS_sigmesgq, n->pid, SIG_MQTHR, n->tok);
	}
}

/* The lock held, a message just put in: the registration taken into *n
   if it is due (the queue was empty and no receiver waits). */
static void take_note(struct mqh *h, struct note *n)
{
	if (h->cur != 1 || !h->npid || receiver_waits(h))
		return;
	*n = (struct note){ h->npid, h->nkind, h->nsig, h->ntok, h->nval };
	h->npid = 0;
}

/* ---- send and receive ---- */

static long free_slot(struct mqd *q)
{
	for (long i = 0; i < q->maxmsg; i++)
		if (!slot(q, i)->used)
			return i;
	return -1;
}

/* The slot of the message to receive: the highest priority, the oldest */
static long best_slot(struct mqd *q)
{
	long b = -1;
	for (long i = 0; i < q->maxmsg; i++) {
		struct slot *s = slot(q, i);
		if (s->used && (b < 0 || s->prio > slot(q, b)->prio ||
				(s->prio == slot(q, b)->prio && s->seq < slot(q, b)->seq)))
			b = i;
	}
	return b;
}

static void put_msg(struct mqd *q, long i, const char *msg, size_t len, unsigned prio)
{
	struct slot *s = slot(q, i);
	s->prio = prio;
	s->seq = q->h->seq++;
	s->len = len;
	memcpy(s + 1, msg, len);
	__atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
	q->h->cur++;
	__atomic_add_fetch(&q->h->sent, 1, __ATOMIC_SEQ_CST);
	if (q->h->rsleep)
		psh_word_wake(&q->h->sent, INT_MAX);
}

/* The sends and receives are cancellation points: as they begin, and
   while they wait (wait_while) */
int mq_timedsend(mqd_t d, const char *msg, size_t len, unsigned prio, const struct timespec *abstime)
{
	pcancel_point();
	FENCED(mq_timedsend(d, msg, len, prio, abstime));
	struct mqd *q = get(d);
	if (!q)
		return -1;
	int e = (q->flags & O_ACCMODE) == O_RDONLY ? EBADF : len > (size_t)q->msgsize ? EMSGSIZE
		: prio >= MQ_PRIO_MAX ? EINVAL : 0;
	struct note n = { .kind = SIGEV_NONE };
	long i = -1;
	if (e) {
		put(q);
		return fail(e);
	}
	qlock(q);
	while ((e = wait_while(q, is_full, 0, abstime)) == 0 && (i = free_slot(q)) < 0)
		repair(q);               /* the count said there was room: it is made again */
	if (!e) {
		put_msg(q, i, msg, len, prio);
		take_note(q->h, &n);
	}
	qunlock(q);
	put(q);
	if (!e)
		deliver(&n);             /* after the lock: a handler may use the queue */
	return e ? fail(e) : 0;
}

int mq_send(mqd_t d, const char *msg, size_t len, unsigned prio)
{
	return mq_timedsend(d, msg, len, prio, 0);
}

ssize_t mq_timedreceive(mqd_t d, char *msg, size_t len, unsigned *prio, const struct timespec *abstime)
{
	pcancel_point();
	FENCED(mq_timedreceive(d, msg, len, prio, abstime));
	struct mqd *q = get(d);
	if (!q)
		return -1;
	int e = (q->flags & O_ACCMODE) == O_WRONLY ? EBADF : len < (size_t)q->msgsize ? EMSGSIZE : 0;
	long i = -1;
	if (e) {
		put(q);
		return fail(e);
	}
	qlock(q);
	while ((e = wait_while(q, is_empty, 1, abstime)) == 0 && (i = best_slot(q)) < 0)
		repair(q);
	if (!e) {
		struct slot *s = slot(q, i);
		len = s->len <= (uint64_t)q->msgsize ? s->len : (size_t)q->msgsize;
		memcpy(msg, s + 1, len);
		if (prio)
			*prio = s->prio;
		__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
		q->h->cur--;
		__atomic_add_fetch(&q->h->taken, 1, __ATOMIC_SEQ_CST);
		if (q->h->ssleep)
			psh_word_wake(&q->h->taken, INT_MAX);
	}
	qunlock(q);
	put(q);
	return e ? fail(e) : (ssize_t)len;
}

ssize_t mq_receive(mqd_t d, char *msg, size_t len, unsigned *prio)
{
	return mq_timedreceive(d, msg, len, prio, 0);
}

/* ---- attributes and notification ---- */

int mq_getattr(mqd_t d, struct mq_attr *attr)
{
	FENCED(mq_getattr(d, attr));
	struct mqd *q = get(d);
	if (!q)
		return -1;
	qlock(q);
	*attr = (struct mq_attr){ q->flags & O_NONBLOCK, q->maxmsg, q->msgsize, q->h->cur, { 0 } };
	qunlock(q);
	put(q);
	return 0;
}

/* Only O_NONBLOCK can change (this process's descriptor's); the rest is ignored. */
int mq_setattr(mqd_t d, const struct mq_attr *attr, struct mq_attr *old)
{
	FENCED(mq_setattr(d, attr, old));
	if (attr->mq_flags & ~(long)O_NONBLOCK)
		return fail(EINVAL);
	struct mqd *q = get(d);
	if (!q)
		return -1;
	if (old)
		mq_getattr(d, old);
	pthread_mutex_lock(&tlk);
	q->flags = (q->flags & ~O_NONBLOCK) | (int)(attr->mq_flags & O_NONBLOCK);
	pthread_mutex_unlock(&tlk);
	put(q);
	return 0;
}

static int valid_event(const struct sigevent *sev)
{
	return sev->sigev_notify == SIGEV_NONE ||
	       (sev->sigev_notify == SIGEV_SIGNAL && sev->sigev_signo >= 0 && sev->sigev_signo < NSIG) ||
	       (sev->sigev_notify == SIGEV_THREAD && sev->sigev_notify_function);
}

/* This process's SIGEV_THREAD registration for q (kept here: the
   function and attributes mean something in this process only). */
static int keep_thread_reg(struct mqd *q, const struct sigevent *sev)
{
	int e = svc_ready();
	if (e)
		return e;
	pthread_mutex_lock(&tlk);
	struct reg *r = &q->reg;
	r->fn = sev->sigev_notify_function;
	r->v = sev->sigev_value;
	if (sev->sigev_notify_attributes)
		r->a = *(pthread_attr_t *)sev->sigev_notify_attributes;
	else
		pthread_attr_init(&r->a);
	r->set = 1;
	pthread_mutex_unlock(&tlk);
	return 0;
}

/* exec closes every queue descriptor (O_CLOEXEC), so, as mq_close,
   this process's registrations go (POSIX); a SIGEV_THREAD one would
   else have a send raise SIG_MQTHR in the new image, which has no
   handler nor service thread for it, and another process's mq_notify
   get EBUSY while it lives. undo: the exec failed, and the ones nobody
   took meanwhile come back. (ulib/libc/exec.c) */
static uint64_t dropped[MQ_OPEN_MAX / 64 + 1];

void __mq_exec_keep(int undo)
{
	int me = self();
	pthread_mutex_lock(&tlk);
	int top = hi;                    /* (the ones past it never were queues) */
	pthread_mutex_unlock(&tlk);
	for (int d = 0; d < top; d++) {
		int was = (int)(dropped[d / 64] >> (d % 64) & 1);
		if (undo && !was)
			continue;
		struct mqd *q = get(d);
		if (!q)
			continue;
		qlock(q);
		struct mqh *h = q->h;
		if (!undo && h->npid == me) {
			h->npid = 0;
			dropped[d / 64] |= 1ULL << (d % 64);
		} else if (undo && !h->npid)
			h->npid = me;
		qunlock(q);
		put(q);
	}
	if (undo)
		memset(dropped, 0, sizeof dropped);
}

/* One registration per queue (EBUSY; one whose process ended is
   dropped); sev 0 removes the caller's own. */
int mq_notify(mqd_t d, const struct sigevent *sev)
{
	FENCED(mq_notify(d, sev));
	if (sev && !valid_event(sev))
		return fail(EINVAL);
	struct mqd *q = get(d);
	if (!q)
		return -1;
	int e = sev && sev->sigev_notify == SIGEV_THREAD ? keep_thread_reg(q, sev) : 0, me = self();
	if (!e) {
		qlock(q);
		struct mqh *h = q->h;
		if (!sev) {
			if (h->npid == me)
				h->npid = 0;
		} else if (h->npid == me || (h->npid && alive(h->npid)))
			e = EBUSY;       /* (one whose process ended is taken over) */
		else {
			h->nkind = sev->sigev_notify;
			h->nsig = sev->sigev_signo;
			h->nval = (uint64_t)(uintptr_t)sev->sigev_value.sival_ptr;
			h->ntok = d;
			h->npid = me;
		}
		qunlock(q);
	}
	put(q);
	return e ? fail(e) : 0;
}
