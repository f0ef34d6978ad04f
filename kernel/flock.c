/*
 * Advisory file locks (SYS_lock, SYS_lock_wait; <anima/flock.h>), as
 * Linux has them:
 *
 * - record locks (fcntl's F_GETLK, F_SETLK, F_SETLKW; lockf) are owned
 *   by a process, its pid: its threads never conflict with each other; a
 *   process's locks on a file merge and split by byte range, so it holds
 *   each byte at most once; they go when the process closes any
 *   descriptor of the file (POSIX's rule: sys_file_close, and LK_CLOSE
 *   for a ulib close that leaves the kernel's descriptor open), when it
 *   ends, and at an exec for the files the new image does not keep; a
 *   fork's child has none of them (its pid differs);
 * - open-file-description (OFD) record locks (F_OFD_SETLK, F_OFD_SETLKW,
 *   F_OFD_GETLK) are record locks owned by an open file instead: shared
 *   by its dups and a fork's child, apart for two opens of one file (so
 *   two threads of one process with their own opens conflict), kept by
 *   a close while another descriptor names the open file, gone with its
 *   last reference (lock_file_gone). They and POSIX record locks conflict
 *   with each other (the owners differ); GETLK names an OFD owner's pid
 *   as -1;
 * - flock(2) locks are owned by an open file (shared by its dups and a
 *   fork's child), cover the whole file, and go with the open file's last
 *   reference (lock_file_gone). flock and record locks never conflict.
 *
 * The calls never wait: a request another owner's lock is in the way of
 * is -EAGAIN. ulib waits (ulib/libc/flock.c) with SYS_lock_wait, which
 * looks again and, if still in the way, waits as a pipe's waiter does
 * (pipe.c: a BLK_PIPE kop on the file's bucket's list and on the
 * thread's park word, so its package can end it for a signal or a
 * cancel) until a lock in the bucket changes; then ulib tries again. A
 * POSIX record lock's waiter is -EDEADLK when the chain of POSIX waits
 * from the owner in its way (that owner waits on a lock whose owner
 * waits on ...) comes back to the caller's process within MAXDEADLK
 * steps, as Linux walks it (10 steps there too; OFD locks and flock are
 * not in the chain, as on Linux). A queued wait's kop keeps the record
 * in its way (op->arg), valid while the kop is queued: a record is freed
 * only after its bucket's waiters were woken, which needs kop_lock.
 *
 * Memory: every lock is a record of the kernel heap. A record (POSIX or
 * OFD) is charged to the space of the process whose call built it
 * (kzalloc_user: its quota) before it is built, at most MAXLOCK_SPACE
 * charged to one process; a flock lock is one per open file at most,
 * whose own charge bounds them per process; all count against
 * MAXLOCK_ALL in all. Past a bound a request is -ENOLCK, so a program
 * splitting ranges cannot eat the heap. A record's charge is dropped
 * (under lk_lock, so its space is alive) when it leaves the table. A
 * process's POSIX records go with it; an OFD record it paid for outlives
 * it with its open file (a fork's child holds it): the charge moves to a
 * live space whose descriptor names that file (holder: the exec's image
 * first), past that space's MAXLOCK_SPACE if need be (it holds the file,
 * so it pays; it can then make no record more), so a chain of forks and
 * exits leaves no record unpaid. Only when no live space holds the file
 * (it is about to go) is a record unpaid (INFO_LOCKS 2 counts those),
 * until the file's last close frees it. An open file's locks go with
 * it; a file's locks thus all go before its inode can be freed (a lock
 * needs an open file).
 *
 * Locks: kop_lock, then lk_lock (a waiter looks and queues under both; a
 * change is made under lk_lock and its waiters are then woken);
 * table_lock, then lk_lock, then a file table's lock (lock_space_gone
 * searches the spaces for a holder of an open file).
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/file.h>
#include <anima/flock.h>
#include <anima/syscall.h>

#define LK_EOF INT64_MAX       /* a range's end "to the end of the file" */
#define NBUCKET 64
#define MAXDEADLK 10           /* steps of a wait-for chain walked (Linux's MAX_DEADLK_ITERATIONS) */

enum { K_POSIX, K_OFD, K_FLOCK };   /* a lock's kind: its owner, and what it conflicts with */

struct lk {
	struct lk *next;
	uint32_t ino;
	int kind;                  /* K_POSIX, K_OFD, K_FLOCK */
	int type;                  /* LK_RD or LK_WR */
	int pid;                   /* a POSIX lock's owner; 0 for the others */
	const void *file;          /* an OFD or flock lock's owner, its open file; 0 for POSIX */
	struct space *sp;          /* a record's payer (for POSIX its process's image now); 0 for
				      flock and for an OFD record whose payer ended */
	int64_t start, end;        /* bytes [start, end]; end LK_EOF: however far the file grows */
};

static struct spinlock lk_lock = SPINLOCK_INIT("flock");
static struct lk *bucket[NBUCKET];        /* the locks, by inode */
static struct kop *waiters[NBUCKET];      /* SYS_lock_wait's waits, by inode (kop_lock) */
static int nall, nfile, nfree;            /* locks in all, those an open file owns, uncharged
					     OFD records (lk_lock) */

static int hash(uint32_t ino)
{
	return (int)(ino % NBUCKET);
}

static int overlap(const struct lk *a, int64_t s, int64_t e)
{
	return a->start <= e && s <= a->end;
}

/* Do [s, e] and a's range overlap or touch? */
static int touch(const struct lk *a, int64_t s, int64_t e)
{
	return (e == LK_EOF || a->start <= e + 1) && (a->end == LK_EOF || s <= a->end + 1);
}

static int same_owner(const struct lk *a, const struct lk *q)
{
	return a->kind == q->kind && a->pid == q->pid && a->file == q->file;
}

/* The first lock in the way of request q (its range and type), or 0:
   flock locks meet only flock locks; POSIX and OFD ones meet both. */
static struct lk *in_way(const struct lk *q)
{
	for (struct lk *a = bucket[hash(q->ino)]; a; a = a->next)
		if (a->ino == q->ino && (a->kind == K_FLOCK) == (q->kind == K_FLOCK) && !same_owner(a, q) &&
		    overlap(a, q->start, q->end) && (a->type == LK_WR || q->type == LK_WR))
			return a;
	return 0;
}

static int mine(const struct lk *a, const struct lk *q)
{
	return a->ino == q->ino && same_owner(a, q);
}

/* q's range grown over the owner's locks of its type that it touches. */
static void merge_range(struct lk *q)
{
	for (int again = 1; again && q->type != LK_UN;) {
		again = 0;
		for (struct lk *a = bucket[hash(q->ino)]; a; a = a->next)
			if (mine(a, q) && a->type == q->type && touch(a, q->start, q->end) &&
			    (a->start < q->start || a->end > q->end)) {
				q->start = MIN(q->start, a->start);
				q->end = MAX(q->end, a->end);
				again = 1;
			}
	}
}

/* Does the owner's lock a go, given q (merged: merge_range)? */
static int goes(const struct lk *a, const struct lk *q)
{
	if (q->type != LK_UN && a->type == q->type)
		return touch(a, q->start, q->end);
	return a->start >= q->start && a->end <= q->end;
}

/* Records q takes (the new lock, a split: paid by q->sp), those it
   frees, and those among them q->sp paid for. */
static void records(const struct lk *q, int *takes, int *frees, int *frees_sp)
{
	*takes = q->type != LK_UN;
	*frees = *frees_sp = 0;
	for (struct lk *a = bucket[hash(q->ino)]; a; a = a->next)
		if (mine(a, q) && goes(a, q)) {
			++*frees;
			*frees_sp += a->sp && a->sp == q->sp;
		} else if (mine(a, q) && a->start < q->start && a->end > q->end)
			++*takes;
}

static void count(const struct lk *a, int sign)
{
	nall += sign;
	if (a->kind != K_POSIX)
		nfile += sign;
	if (a->sp)
		a->sp->nlocks += sign;
	else if (a->kind == K_OFD)
		nfree += sign;
}

/* A spare record of spare[2], taken (its slot emptied). */
static struct lk *take(struct lk **spare)
{
	struct lk *b = spare[0] ? spare[0] : spare[1];
	spare[spare[0] ? 0 : 1] = 0;
	return b;
}

/* Take every lock of ino's bucket for which drop(a, arg) holds off the
   table onto *gone; lk_lock held. How many. */
static int drop_if(int b, int (*drop)(const struct lk *, const void *), const void *arg, struct lk **gone)
{
	int n = 0;
	for (struct lk **pp = &bucket[b], *a; (a = *pp);) {
		if (!drop(a, arg)) {
			pp = &a->next;
			continue;
		}
		*pp = a->next;
		count(a, -1);
		if (a->sp)                   /* (its payer is alive while we hold lk_lock) */
			__atomic_sub_fetch(&a->sp->kbytes, kheap_charge(sizeof *a), __ATOMIC_RELAXED);
		a->sp = 0;
		a->next = *gone;
		*gone = a;
		n++;
	}
	return n;
}

static int of_req(const struct lk *a, const void *q)
{
	return mine(a, q) && goes(a, q);
}

/* Apply q (merged) to its owner's locks with spare[2], two records
   taken as needed: the ranges dropped, trimmed, split and q's added.
   Records that go are put on *gone (freed after the lock). */
static void apply(const struct lk *q, struct lk **spare, struct lk **gone)
{
	drop_if(hash(q->ino), of_req, q, gone);
	for (struct lk *a = bucket[hash(q->ino)]; a; a = a->next) {
		if (!mine(a, q) || !overlap(a, q->start, q->end))
			continue;
		if (a->start < q->start && a->end > q->end) {   /* split: the part past q */
			struct lk *b = take(spare);
			*b = *a;
			b->sp = q->sp;           /* (the spare's payer: an OFD lock's parts may differ) */
			b->start = q->end + 1;
			a->next = b;
			count(b, 1);
		}
		if (a->start < q->start)
			a->end = q->start - 1;
		else
			a->start = q->end + 1;
	}
	if (q->type != LK_UN) {
		struct lk *b = take(spare);
		*b = *q;
		b->next = bucket[hash(q->ino)];
		bucket[hash(q->ino)] = b;
		count(b, 1);
	}
}

/* Wake the waiters of ino's bucket: they look again. */
static void changed(uint32_t ino)
{
	if (__atomic_load_n(&waiters[hash(ino)], __ATOMIC_ACQUIRE))
		kop_wake_list(&waiters[hash(ino)]);
}

/* Records off the table (their charges dropped: drop_if). */
static void free_list(struct lk *l)
{
	while (l) {
		struct lk *n = l->next;
		kfree(l);
		l = n;
	}
}

/* Set (or clear) q for its owner (q->sp, the caller's space, pays for
   any record it builds): 0, -EAGAIN, -ENOLCK. */
static long set(struct lk *q, struct space *sp)
{
	struct lk *spare[2], *gone = 0;
	for (int i = 0; i < 2; i++)      /* (charged before they are built) */
		spare[i] = q->kind == K_FLOCK ? kmalloc_reserve(sizeof(struct lk))
					      : kzalloc_user(sp, sizeof(struct lk));
	long r = 0;
	spin_lock(&lk_lock);
	merge_range(q);
	int takes, frees, frees_sp;
	records(q, &takes, &frees, &frees_sp);
	int n = takes - frees;           /* (a split frees nothing: q is inside one lock) */
	int n_sp = takes - frees_sp;     /* (what sp pays for more) */
	if (q->type != LK_UN && in_way(q))
		r = -EAGAIN;
	else if (takes > !!spare[0] + !!spare[1] || (n > 0 && nall + n > MAXLOCK_ALL) ||
		 (n_sp > 0 && q->kind != K_FLOCK && sp->nlocks + n_sp > MAXLOCK_SPACE))
		r = -ENOLCK;
	else
		apply(q, spare, &gone);
	spin_unlock(&lk_lock);
	if (!r)
		changed(q->ino);
	free_list(gone);
	for (int i = 0; i < 2; i++)      /* those apply did not take */
		if (spare[i] && q->kind == K_FLOCK)
			kfree(spare[i]);
		else if (spare[i])
			kfree_user(sp, spare[i], sizeof *spare[i]);
	return r;
}

static int of_rec(const struct lk *a, const void *q)
{
	return mine(a, q);
}

/* POSIX: the process closed a descriptor of ino: its record locks on
   the file go. */
void lock_close(struct space *sp, uint32_t ino)
{
	if (!__atomic_load_n(&sp->nlocks, __ATOMIC_RELAXED))
		return;
	struct lk q = { .ino = ino, .kind = K_POSIX, .pid = sp->id }, *gone = 0;
	spin_lock(&lk_lock);
	int n = drop_if(hash(ino), of_rec, &q, &gone);
	spin_unlock(&lk_lock);
	if (n)
		changed(ino);
	free_list(gone);
}

static int of_file(const struct lk *a, const void *file)
{
	return a->file == file;
}

/* An open file's last reference went: its flock and OFD locks go. */
void lock_file_gone(const void *file, uint32_t ino)
{
	if (!__atomic_load_n(&nfile, __ATOMIC_RELAXED))
		return;
	struct lk *gone = 0;
	spin_lock(&lk_lock);
	int n = drop_if(hash(ino), of_file, file, &gone);
	spin_unlock(&lk_lock);
	if (n)
		changed(ino);
	free_list(gone);
}

/* Record a's charge moves to space to (0: no one). lk_lock held (a's
   payer and to are alive: neither's lock_space_gone has passed). The
   move is not refused past to's bounds: to holds the record's open file,
   which keeps it, so to pays; its nlocks past MAXLOCK_SPACE then refuses
   it any record more (set) until they go. */
static void move(const struct lk *a, struct space *to)
{
	struct lk *m = (struct lk *)a;
	count(a, -1);
	if (a->sp)
		__atomic_sub_fetch(&a->sp->kbytes, kheap_charge(sizeof *a), __ATOMIC_RELAXED);
	m->sp = to;
	if (to)
		__atomic_add_fetch(&to->kbytes, kheap_charge(sizeof *a), __ATOMIC_RELAXED);
	count(a, 1);
}

/* A space other than sp whose descriptor names open file `file` and that
   can still pay (its locks not gone), sp's exec image first; or 0.
   table_lock (the spaces stay in the table) and lk_lock held. */
static struct space *holder(struct space *sp, const void *file)
{
	struct space *nw = sp->exec_to;
	if (nw && !nw->locks_gone && file_names(nw, file))
		return nw;
	for (int i = 0; i < MAXSPACE; i++) {
		struct space *s = space_at(i);
		if (s && s != sp && !s->locks_gone && file_names(s, file))
			return s;
	}
	return 0;
}

#define NSEEN 8

/* A space's end: its OFD records' open files looked up so far (the
   last NSEEN, round robin), each with the holder that pays from now:
   a search walks the whole space table, so it is made once a file, not
   once a record, for the usual few files. */
struct ending {
	struct space *sp;
	const void *file[NSEEN];
	struct space *to[NSEEN];
	int next;
};

static struct space *payer_for(struct ending *e, const void *file)
{
	for (int i = 0; i < NSEEN; i++)
		if (e->file[i] == file)
			return e->to[i];
	int i = e->next++ % NSEEN;
	e->file[i] = file;
	return e->to[i] = holder(e->sp, file);
}

/* Does a record lock sp pays for go with it? Not an OFD one: its open
   file keeps it, so a space holding that file pays for it from now (an
   exec's image first), or no one if none does (the file is then only
   sp's, or a passing call's, and its last close frees the record soon).
   Not a POSIX one on a file sp's exec image keeps a descriptor of: it
   takes it over. lk_lock held. */
static int of_space(const struct lk *a, const void *arg)
{
	struct ending *e = (struct ending *)arg;
	struct space *sp = e->sp, *nw = sp->exec_to;
	if (a->kind == K_FLOCK || a->sp != sp)
		return 0;
	if (a->kind == K_POSIX && (!nw || !file_names_ino(nw, a->ino)))
		return 1;
	move(a, a->kind == K_OFD ? payer_for(e, a->file) : nw);
	return 0;
}

/* sp's last VP has ended (file_space_free): no record is charged to it
   from now; its records go, or to the image its exec made, or (OFD) to
   another holder of their open file. */
void lock_space_gone(struct space *sp)
{
	spin_lock(&lk_lock);
	sp->locks_gone = 1;              /* (holder passes it over from now) */
	int n = sp->nlocks;
	spin_unlock(&lk_lock);
	if (!n)
		return;
	uint64_t hit = 0;
	struct lk *gone = 0;
	struct ending e = { .sp = sp };
	spin_lock(&table_lock);
	spin_lock(&lk_lock);
	for (int b = 0; b < NBUCKET; b++)
		if (drop_if(b, of_space, &e, &gone))
			hit |= 1UL << b;
	spin_unlock(&lk_lock);
	spin_unlock(&table_lock);
	for (int b = 0; b < NBUCKET; b++)
		if ((hit >> b) & 1)
			changed((uint32_t)b);
	free_list(gone);
}

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* [s, e] of fl from base: 0, -EINVAL (before byte 0), -EOVERFLOW. */
static long range(const struct kflock *fl, int64_t base, struct lk *q)
{
	int64_t s, e;
	if (__builtin_add_overflow(base, fl->start, &s))
		return -EOVERFLOW;
	if (fl->len > 0 && __builtin_add_overflow(s, fl->len - 1, &e))
		return -EOVERFLOW;
	if (fl->len == 0)
		e = LK_EOF;
	if (fl->len < 0) {           /* the bytes [s + len, s - 1] */
		e = s - 1;
		if (__builtin_add_overflow(s, fl->len, &s))
			return -EINVAL;
	}
	if (s < 0)
		return -EINVAL;
	q->start = s;
	q->end = e;
	return 0;
}

static int is_get(int cmd)
{
	return cmd == LK_GETLK || cmd == LK_OFD_GETLK;
}

static int is_ofd(int cmd)
{
	return cmd == LK_OFD_GETLK || cmd == LK_OFD_SETLK;
}

/* The user's *ufl (copied in, checked) as request q of the caller's
   process (cmd LK_GETLK, LK_SETLK), of fd's open file (LK_OFD_GETLK,
   LK_OFD_SETLK: l_pid must be 0, as on Linux) or of its whole file
   (LK_FLOCK): 0 or an error; *hold the open file, if it is not 0
   (file_pipe_put it). q->sp is the caller's space, the payer. */
static long request(struct space *sp, uint64_t fd, uint64_t ufl, int cmd, struct lk *q,
		    void **hold, struct kflock *fl)
{
	*hold = 0;
	memset(q, 0, sizeof *q);
	if (copyin(fl, ufl, sizeof *fl) < 0)
		return -EFAULT;
	if (fl->type < LK_RD || fl->type > LK_UN || (cmd != LK_FLOCK && (fl->whence < 0 || fl->whence > 2)))
		return -EINVAL;
	if (is_ofd(cmd) && fl->pid != 0)
		return -EINVAL;
	int flags;
	int64_t off, size = 0;
	long r = file_lock_info(sp, fd, hold, &q->ino, &flags, &off,
				cmd != LK_FLOCK && fl->whence == 2 ? &size : 0);
	if (r)
		return r;
	int acc = flags & FO_ACCMODE;
	if ((cmd == LK_SETLK || cmd == LK_OFD_SETLK) &&
	    ((fl->type == LK_RD && acc == 1) || (fl->type == LK_WR && acc == FO_RDONLY)))
		return -EBADF;
	if (is_get(cmd) && fl->type == LK_UN)
		return -EINVAL;
	q->type = fl->type;
	q->sp = sp;
	if (cmd == LK_FLOCK) {
		q->kind = K_FLOCK;
		q->sp = 0;
		q->file = *hold;
		q->end = LK_EOF;
		return 0;
	}
	q->kind = is_ofd(cmd) ? K_OFD : K_POSIX;
	if (is_ofd(cmd))
		q->file = *hold;
	else
		q->pid = sp->id;
	return range(fl, fl->whence == 0 ? 0 : fl->whence == 1 ? off : size, q);
}

/* F_GETLK: the first lock in q's way into *fl, at ufl. */
static long get(const struct lk *q, struct kflock *fl, uint64_t ufl)
{
	spin_lock(&lk_lock);
	const struct lk *a = in_way(q);
	if (a) {
		fl->type = (int16_t)a->type;
		fl->whence = 0;
		fl->start = a->start;
		fl->len = a->end == LK_EOF ? 0 : a->end - a->start + 1;
		fl->pid = a->kind == K_OFD ? -1 : a->pid;   /* (an open file has no pid: Linux's -1) */
	} else
		fl->type = LK_UN;
	spin_unlock(&lk_lock);
	return copyout(ufl, fl, sizeof *fl);
}

/* (fd, LK_* command, struct kflock *) */
long sys_lock(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct kflock fl;
	struct lk q;
	void *hold = 0;
	long r;
	if (a1 == LK_CLOSE) {
		int flags;
		int64_t off;
		if (!(r = file_lock_info(sp, a0, &hold, &q.ino, &flags, &off, 0)))
			lock_close(sp, q.ino);
	} else if (a1 > LK_OFD_SETLK)
		r = -EINVAL;
	else if (!(r = request(sp, a0, a2, (int)a1, &q, &hold, &fl)))
		r = is_get((int)a1) ? get(&q, &fl, a2) : set(&q, sp);
	if (hold)
		file_pipe_put(sp, hold);
	return r == -EBWAIT ? 0 : r;   /* (the thread blocked for the size: the call runs again) */
}

/* The POSIX record lock a POSIX lock wait of sp's is queued behind, or
   0 (Linux looks at one blocked request of the owner too). kop_lock
   and lk_lock held: the record is not freed while the kop is queued. */
static const struct lk *waits_for(struct space *sp)
{
	for (struct kop *op = sp->kops; op; op = op->snext)
		if (op->kind == BLK_PIPE && op->arg && op->pprev)
			return (const struct lk *)op->arg;   /* (a pipe's and a flock or OFD wait's
								arg is 0) */
	return 0;
}

/* Does the chain of POSIX waits from a's owner (a's owner waits on a
   lock whose owner waits on ...) reach process pid within MAXDEADLK
   steps? kop_lock and lk_lock held. */
static int cycle(const struct lk *a, int pid)
{
	for (int i = 0; i < MAXDEADLK && a && a->sp; i++) {   /* (sp 0: off the table, going) */
		if (!(a = waits_for(a->sp)))
			return 0;
		if (a->pid == pid)
			return 1;
	}
	return 0;
}

/* q's state under kop_lock and lk_lock: 1 if nothing is in its way, 0
   if something is (op, if not 0, queued to wait), -EDEADLK (a POSIX
   wait that would close a cycle of POSIX waits), or kop_enqueue's
   error. */
static long look(const struct lk *q, struct kop *op, uint64_t park, uint64_t val, uint64_t key)
{
	const struct lk *a = q->type == LK_UN ? 0 : in_way(q);
	if (!a)
		return 1;
	int posix = q->kind == K_POSIX && a->kind == K_POSIX;
	if (posix && cycle(a, q->pid))
		return -EDEADLK;
	if (!op)
		return 0;
	op->arg = posix ? (uint64_t)a : 0;   /* (the edge cycle follows) */
	return kop_enqueue(op, &waiters[hash(q->ino)], park, val, key);
}

/* (fd, struct kflock *, park word or 0, park value, LKW_* flags, LK_SETLK, LK_OFD_SETLK or
   LK_FLOCK) */
long sys_lock_wait(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct kflock fl;
	struct lk q;
	void *hold = 0;
	uint64_t key = 0;
	long r = a5 == LK_SETLK || a5 == LK_OFD_SETLK || a5 == LK_FLOCK ? request(sp, a0, a1, (int)a5, &q, &hold, &fl) : -EINVAL;
	if (!r && a2)
		r = futex_key(a2, &key);
	struct kop *op = r || !(a4 & LKW_BLOCK) ? 0 : kop_alloc(BLK_PIPE);
	if (!r && (a4 & LKW_BLOCK) && !op)
		r = -EAGAIN;                     /* MAXKOP_SPACE outstanding */
	if (!r) {
		spin_lock(&kop_lock);
		spin_lock(&lk_lock);
		r = look(&q, op, a2, a3, key);
		spin_unlock(&lk_lock);
		if (op && r == 0) {
			r = kop_wait(op, myvp()->tf);    /* (releases kop_lock; op is its now) */
			op = 0;
		} else
			spin_unlock(&kop_lock);
	}
	if (op)
		kop_free(op);                    /* no wait after all */
	if (hold)
		file_pipe_put(sp, hold);
	return r == -EBWAIT ? 0 : r;
}

/* INFO_LOCKS */
long lock_info(int what)
{
	if (what == 0)
		return __atomic_load_n(&myvp()->space->nlocks, __ATOMIC_RELAXED);
	if (what == 1)
		return __atomic_load_n(&nall, __ATOMIC_RELAXED);
	if (what == 2)
		return __atomic_load_n(&nfree, __ATOMIC_RELAXED);
	if (what == 3) {                 /* (a test sees its waiters queued: no timing) */
		long n = 0;
		spin_lock(&kop_lock);
		for (int b = 0; b < NBUCKET; b++)
			for (struct kop *op = waiters[b]; op; op = op->pnext)
				n++;
		spin_unlock(&kop_lock);
		return n;
	}
	return -EINVAL;
}
