/*
 * Pipes between spaces: a ring of PIPE_CAP bytes whose two ends are open
 * files of the file table (sysfile.c), so read, write, close, dup, fstat,
 * fork's sharing and exec's keeping are the file calls' own.
 *
 * The calls never wait: a read of an empty pipe with a writer, or a
 * write that finds too little room, is -EAGAIN. Waiting is the caller's
 * business, in one of two ways (SYS_pipe_wait, ulib/libc/pipe.c): while
 * no other space names the pipe (PIPE_PRIVATE), only the caller's own
 * threads can change it, so it waits for them at user level (a blocked
 * read can then be cancelled or interrupted as any wait of its package);
 * otherwise it waits here, a BLK_PIPE kop: on upcall VPs only the thread
 * blocks, on classic ones the VP. Every change (bytes moved, an end's
 * last open file gone) completes every kop on the pipe's list, and each
 * waiter looks again. The kop also sits on the futex queue of the
 * waiter's park word (<animart/thread.h>), so the thread's own package
 * can end the wait (a signal, a cancel) with a futex wake, as it does a
 * timed park.
 *
 * A write of at most PIPE_ATOMIC bytes goes in whole or not at all; a
 * longer one takes whatever room there is. With no read end left a
 * write is -EPIPE (ulib raises SIGPIPE); with no write end left a read
 * of an empty pipe is 0, the end of file.
 *
 * Memory: the ring (PIPE_CAP / PGSIZE pages) and this header, taken
 * outside the kernel's reserve. The read end's open file is charged the
 * ring and the header, the write end's the header, to every space whose
 * table names that end (sysfile.c: cost; pipe_charge), from SYS_pipe on,
 * before anything is built; the ring is freed when the read end's open
 * file goes, the pipe when the last end's does (pipe_end_gone),
 * whichever space drops it.
 *
 * Locks: kop_lock, then a pipe's lock. A waiter is put on the list under
 * both, and a changer reads the list head under the pipe's lock, so a
 * change after the waiter's look always finds it.
 */
#include "kernel.h"
#include <anima/file.h>

#define NPG ((int)(PIPE_CAP / PGSIZE))

struct pipe {
	struct spinlock lock;
	int ends;                  /* bit 0: the read end's open file exists; bit 1: the write end's */
	int refs;                  /* ends not yet through pipe_end_gone (atomic): the last frees */
	int named;                 /* (table, end) pairs naming it, of every space (atomic) */
	uint64_t head, len;        /* the bytes [head, head + len) of the ring */
	struct kop *waiters;       /* BLK_PIPE waits: kop_lock (and the pipe's lock to add) */
	uint8_t *pg[NPG];
	uint32_t mode;             /* permission bits fchmod set, plus 01000000 (0: never set, 0600) */
};

/* What end w's open file costs each space that names it. The ring lives
   as long as the read end (pipe_end_gone frees it then: nothing can read
   it, a write is -EPIPE), so the read end pays for it; the header lives
   as long as either end, so each pays for it whole. So a space holding
   one end, the other gone, pays for all the pipe still holds (each end
   paid half the pipe before: a survivor held up to 2 MiB unpaid). */
uint64_t pipe_charge(int w)
{
	return kheap_charge(sizeof(struct pipe)) + (w ? 0 : NPG * PGSIZE);
}

void pipe_discard(struct pipe *p)
{
	for (int i = 0; p && i < NPG; i++)
		if (p->pg[i])
			page_free(p->pg[i]);
	kfree(p);
}

/* A new pipe, both ends open; uncharged (the caller charged its space). */
struct pipe *pipe_new(void)
{
	struct pipe *p = kmalloc_reserve(sizeof *p);
	if (!p)
		return 0;
	memset(p, 0, sizeof *p);
	spin_init(&p->lock, "pipe");
	p->ends = 3;
	p->refs = 2;
	for (int i = 0; i < NPG; i++)
		if (!(p->pg[i] = pages_alloc_user(1))) {
			pipe_discard(p);
			return 0;
		}
	return p;
}

/* A table started (+1) or stopped (-1) naming one of p's ends. */
void pipe_named(struct pipe *p, int sign)
{
	__atomic_add_fetch(&p->named, sign, __ATOMIC_ACQ_REL);
}

/* Every waiter looks again; the caller holds an end (p lives). */
static void changed(struct pipe *p, int any)
{
	if (any)
		kop_wake_list(&p->waiters);
}

/* End w's open file is gone (no descriptor, no call): the other end's
   waiters see the end of file or EPIPE. The pipe is freed by the last of
   the two ends to be through here (the other end may be going at the
   same time on another CPU: its waking must not find the pipe freed). */
void pipe_end_gone(struct pipe *p, int w)
{
	uint8_t *ring[NPG] = { 0 };
	spin_lock(&p->lock);
	p->ends &= ~(1 << w);
	int any = p->waiters != 0;
	for (int i = 0; !w && i < NPG; i++) {    /* unreadable now: the ring goes */
		ring[i] = p->pg[i];
		p->pg[i] = 0;
	}
	if (!w)
		p->head = p->len = 0;    /* and its bytes: none waits (fstat) */
	spin_unlock(&p->lock);
	changed(p, any);
	for (int i = 0; i < NPG; i++)
		if (ring[i])
			page_free(ring[i]);
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0)
		pipe_discard(p);     /* (no waiter left: no call holds an end to queue one) */
}

/* n bytes between the ring at `at` and user memory u (out: ring to
   user); lock held. A fault leaves the ring's bookkeeping to the caller.
   A user page that is not there yet is -EFAULT here, not brought in
   (copyout_locked): bringing in a copy-on-write page takes kop_lock,
   which comes before this lock, and shoots down TLBs, which no lock
   holder may do. A forked reader's first read into its copy-on-write
   buffer did so while its writer, holding kop_lock in sys_pipe_wait,
   spun on this lock: both CPUs stopped for good with interrupts off
   (test_kpipe's hang; progs/posix/pipewake.c). The callers let go,
   bring the pages in (user_prefault) and try again. */
static long ring(struct pipe *p, uint64_t at, uint64_t u, uint64_t n, int out)
{
	for (uint64_t done = 0; done < n;) {
		uint64_t i = (at + done) % PIPE_CAP, run = MIN(n - done, PGSIZE - i % PGSIZE);
		uint8_t *k = p->pg[i / PGSIZE] + i % PGSIZE;
		if ((out ? copyout_locked(u + done, k, run) : copyin_locked(k, u + done, run)) < 0)
			return -EFAULT;
		done += run;
	}
	return 0;
}

/* Up to n bytes of the ring out to user memory u; lock held. The bytes
   moved, -EAGAIN (empty, a writer left), 0 (the end), -EFAULT; *k what
   it tried to move. */
static long take(struct pipe *p, uint64_t u, uint64_t n, uint64_t *k)
{
	long r = p->ends & 2 ? -EAGAIN : 0;
	*k = MIN(n, p->len);
	if (*k && !(r = ring(p, p->head, u, *k, 1))) {
		p->head = (p->head + *k) % PIPE_CAP;
		p->len -= *k;
		r = (long)*k;
	}
	return r;
}

/* Up to n bytes of user memory u into the ring (at most PIPE_ATOMIC
   whole or not at all); lock held. The bytes moved, -EPIPE, -EAGAIN,
   -EFAULT; *k what it tried to move. */
static long put(struct pipe *p, uint64_t u, uint64_t n, uint64_t *k)
{
	uint64_t room = PIPE_CAP - p->len;
	*k = MIN(n, room);
	long r = !(p->ends & 1) ? -EPIPE : room < (n <= PIPE_ATOMIC ? n : 1) ? -EAGAIN : 0;
	if (!r && !(r = ring(p, (p->head + p->len) % PIPE_CAP, u, *k, 0))) {
		p->len += *k;
		r = (long)*k;
	}
	return r;
}

/* A read (w 0) or write (w 1) of n bytes at ubuf: take or put under the
   lock, then the waiters told; a user page not there yet is brought in
   with the lock let go, and it tries again (see ring). */
static long move(struct pipe *p, uint64_t ubuf, uint64_t n, int w)
{
	if (!user_range_ok(ubuf, n))
		return -EFAULT;
	if (!n)
		return 0;
	for (;;) {
		uint64_t k;
		spin_lock(&p->lock);
		long r = w ? put(p, ubuf, n, &k) : take(p, ubuf, n, &k);
		int any = r > 0 && p->waiters;
		spin_unlock(&p->lock);
		changed(p, any);
		if (r != -EFAULT || user_prefault(ubuf, k, !w) < 0)
			return r;
		/* (the pages are there now, see ring: again) */
	}
}

long pipe_read(struct pipe *p, uint64_t ubuf, uint64_t n)
{
	return move(p, ubuf, n, 0);
}

long pipe_write(struct pipe *p, uint64_t ubuf, uint64_t n)
{
	return move(p, ubuf, n, 1);
}

void pipe_stat(struct pipe *p, struct kstat *st)
{
	memset(st, 0, sizeof *st);
	uint32_t m = __atomic_load_n(&p->mode, __ATOMIC_RELAXED);
	st->mode = 0010000 | (m ? m & 07777 : 0600);   /* S_IFIFO */
	st->nlink = 1;
	st->blksize = PGSIZE;
	st->size = __atomic_load_n(&p->len, __ATOMIC_RELAXED);   /* bytes waiting, as Linux says */
}

/* fchmod and futimens of a pipe: Linux keeps a pipe's mode (fstat shows
   it) and succeeds; so does this (its times stay 0). mode ~0: keep. */
long pipe_setattr(struct pipe *p, uint32_t mode)
{
	if (mode != ~0u)
		__atomic_store_n(&p->mode, 01000000 | (mode & 07777), __ATOMIC_RELAXED);
	return 0;
}

/* End w's PIPE_* state for a caller whose table names `mine` of the
   pipe's ends (0: someone else holds one, file_pipe); lock held. want:
   bytes a write needs room for. Private only if nothing but the
   caller's threads can change the pipe any more: its table names both
   ends and nothing else holds them (the other end gone: then it is
   ready for good). A table that let go of the other end still had its
   last change to come, the end's hang-up (pipe_end_gone, after the
   charge went) or a write under way, and a reader told "private" then
   waited at user level for its own threads, for ever (pipewake). */
static long state(struct pipe *p, int w, uint64_t want, int mine)
{
	int hup = !(p->ends & (w ? 1 : 2));
	want = want == 0 || want > PIPE_ATOMIC ? 1 : want;
	int ready = hup || (w ? PIPE_CAP - p->len >= want : p->len > 0);
	int priv = __atomic_load_n(&p->named, __ATOMIC_ACQUIRE) <= mine && (mine == 2 || hup);
	return (ready ? PIPE_READY : 0) | (hup ? PIPE_HUP : 0) | (priv ? PIPE_PRIVATE : 0);
}

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* (int fd[2]) */
long sys_pipe(ARGS)
{
	UNUSED();
	return file_pipe_make(myvp()->space, a0);
}

/* The caller's park word's futex key, checked to hold `val`, the kop on
   its queue and on `list` (a pipe's waiters, or a file's locks' waiters:
   flock.c); kop_lock held. 0, or -EAGAIN (the word has moved on: an
   unblock came first), -EFAULT. */
long kop_enqueue(struct kop *op, struct kop **list, uint64_t park, uint64_t val, uint64_t key)
{
	uint32_t v;
	if (park && (copyin(&v, park, 4) < 0 || v != (uint32_t)val))
		return -EAGAIN;
	op->fkey = park ? key : 0;
	op->pnext = *list;
	if (*list)
		(*list)->pprev = &op->pnext;
	op->pprev = list;
	*list = op;
	return 0;
}

/* (fd, want, park word or 0, park value, PIPEW_* flags, timeout ns or 0) */
long sys_pipe_wait(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	void *hold;
	int w, mine;
	struct pipe *p = file_pipe(sp, a0, &hold, &w, &mine);
	if (!p)
		return -EBADF;
	uint64_t key = 0;
	long r = a2 ? futex_key(a2, &key) : 0;
	struct kop *op = r || !(a4 & PIPEW_BLOCK) ? 0 : kop_alloc(BLK_PIPE);
	if (!r && (a4 & PIPEW_BLOCK) && !op)
		r = -EAGAIN;                     /* MAXKOP_SPACE outstanding */
	if (op && a5)                            /* a timed wait ends as a change does: look again */
		op->wake_ns = now_ns() + MIN(a5, 1UL << 62);
	if (op)
		spin_lock(&kop_lock);
	spin_lock(&p->lock);
	if (!r && ((r = state(p, w, a1, mine)) & (PIPE_READY | PIPE_PRIVATE)) == 0 && op)
		r = kop_enqueue(op, &p->waiters, a2, a3, key);
	spin_unlock(&p->lock);
	if (op && r) {                           /* no wait after all */
		spin_unlock(&kop_lock);
		kop_free(op);
	} else if (op)
		r = kop_wait(op, myvp()->tf);    /* (releases kop_lock) */
	file_pipe_put(sp, hold);
	return r;
}
