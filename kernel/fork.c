/*
 * Processes: SYS_fork, SYS_waitpid, SYS_kill.
 *
 * A fork makes a child space whose user memory is a copy-on-write copy
 * of the caller's (cow.c), in which only the calling thread lives: the
 * child's one VP (index 0, with fresh pseudo-register and VP pages)
 * resumes at the caller's user context with 0 in rax; the parent gets
 * the child's id. Private frames are shared, W off in both (PTE_COW
 * where writable); shared segments stay shared (the mapping and its
 * reference are copied, as MAP_SHARED); demand-zero regions are copied
 * as regions; handles to segments are copied (each a reference), VP
 * handles are not (they would name the parent's VPs). The child's file
 * table names the parent's open files under the same descriptors, each
 * a reference (file_fork: the offset is shared, as POSIX says).
 *
 * Charges: the child is charged like any space, before each piece is
 * built: its struct, its VP, every table (space_pte_room), a whole
 * page for every frame it shares (docs/security.md), its file table and
 * each open file it names; its id and slot
 * come from space_register (MAXCHILD per parent, MAXSPACE in all). So a
 * fork bomb ends in -EAGAIN or -ENOMEM.
 *
 * TLB: the parent's entries made read-only are shot down on every CPU
 * that runs it before the child runs and before the fork returns; until
 * then (sp->forking) a write fault of the parent is retried rather than
 * copied (cow.c), and no new page is mapped (space_lock_settled).
 * Lock order: the parent's space lock, then seg_lock (seg_fork), then
 * the heap's and the allocator's.
 */
#include "kernel.h"
#include "disk.h"
#include <anima/exit.h>
#include <anima/vp.h>

/* Is va in a segment the (not yet running) child maps? */
static int child_maps_seg(struct space *ch, uint64_t va)
{
	for (int i = 0; i < MAXSEG_SPACE; i++) {
		struct seg *s = ch->segmaps[i].seg;
		if (s && va >= s->base && va < s->base + s->len)
			return 1;
	}
	return 0;
}

/* Copy one entry of the parent into the child; sp->lock held. */
static long copy_pte(struct space *ch, uint64_t va, uint64_t *pte)
{
	uint64_t e = *pte;
	if (e & PTE_KERNEL)
		return 0;                        /* VP pages: the child's own (vp_create) */
	if (e & PTE_SHARED) {                    /* a segment's frame: shared as it is */
		if (!child_maps_seg(ch, va))
			return 0;                /* (being revoked: not copied) */
		uint64_t *c = space_pte(ch, va);
		if (!c)
			return -ENOMEM;
		*c = e;
		return 0;
	}
	uint64_t *c = space_pte_room(ch, va, 1);  /* a page for its hold, and tables */
	if (!c)
		return -ENOMEM;
	if (!frame_share(e & PTE_ADDR))
		return -EAGAIN;
	if ((e & PTE_W) && !fshare_is(e & PTE_ADDR))   /* (a shared file page stays shared: fshare.c) */
		*pte = e = (e & ~PTE_W) | PTE_COW;
	*c = e & ~(PTE_A | PTE_D);
	ch->pages++;
	return 0;
}

/* The child's copy of sp's memory, regions and segment mappings; sp's
   lock held. A failure leaves a child that space_put tears down. */
static long copy_space(struct space *sp, struct space *ch)
{
	long r = lazy_room(ch, sp->nlazy);
	if (r)
		return r;
	memcpy(ch->lazy, sp->lazy, sp->nlazy * sizeof *sp->lazy);
	ch->nlazy = sp->nlazy;
	ino_regions(ch->lazy, ch->nlazy, 1);        /* (the child's file regions hold their inodes) */
	ch->fshared = sp->fshared;       /* (its shared file regions: fkey.c) */
	seg_fork(sp, ch);
	uint64_t va = 0, *pte;
	while ((pte = vm_next(sp->pml4, &va, USER_TOP))) {
		if ((r = copy_pte(ch, va, pte)) < 0)
			return r;
		va += PGSIZE;
	}
	for (int i = 0; i < MAXCAP_SPACE; i++)
		if (sp->caps[i].kind == CAP_SEG) {
			ch->caps[i] = sp->caps[i];
			cap_hold(&ch->caps[i]);
		}
	ch->map_next = sp->map_next;
	ch->robust = sp->robust;
	ch->nrobust = sp->nrobust;
	psig_fork(sp, ch);
	return 0;
}

/* The child's VP resumes where the caller is: its registers, FPU state
   and FS base, with 0 as the call's result. The FS base is the live one:
   self->fs_base is only what it was when the VP last left a CPU, and
   user code switches it since (wrfsbase at each thread switch), so a
   fork from a thread other than the one the VP ran then gave the child
   another thread's TLS (or none). */
static void copy_context(struct vp *self, struct vp *v)
{
	*v->tf = *self->tf;
	v->tf->rax = 0;
	uint64_t fs = rdmsr(MSR_FS_BASE);    /* (the caller's, live: the kernel leaves FS alone) */
	if ((uint64_t)((int64_t)(fs << 16) >> 16) != fs) {
		v->bad_fs = fs;              /* never loaded: the child dies at its first return, as sched.c does */
		fs = 0;
	}
	v->fs_base = fs;
	__asm__ volatile("fxsave64 (%0)" : : "r"(v->fpu) : "memory");   /* (the caller's, live) */
}

/*
 * sp->lock, taken where no fork of sp sits between its copy and its
 * shootdown (sp->forking), for a path that maps a new page: a page the
 * copy did not see (a demand-zero or file page's first touch) must not
 * appear in the parent then. Its thread would run on, on a CPU still
 * holding writable entries of pages now shared with the child, and
 * store through them: the child would see stores made after its page
 * was copied, such as a pointer into the new page, which it has not
 * got (forkwake, kthread-2: a child read a mutex's queue head naming a
 * waiter node on a worker's stack page, zero in the child, and died at
 * address 0x28, 2 boots in 16). Waits with tlb_check: the fork's
 * shootdown waits for our flush, with interrupts off here as there.
 */
void space_lock_settled(struct space *sp)
{
	for (;;) {
		spin_lock(&sp->lock);
		if (!__atomic_load_n(&sp->forking, __ATOMIC_ACQUIRE))
			return;          /* (forking rises under the lock: a later fork copies ours) */
		spin_unlock(&sp->lock);
		while (__atomic_load_n(&sp->forking, __ATOMIC_ACQUIRE)) {
			tlb_check();
			pause();
		}
	}
}

/* Tear down a child that never ran. */
static void discard_child(struct space *ch)
{
	ch->state = SP_DEAD;
	while (ch->vps) {
		struct vp *v = ch->vps;
		v->state = VP_ZOMBIE;
		vp_free(v);
	}
	space_put(ch);
}

long sys_fork(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	struct vp *self = myvp();
	struct space *sp = self->space;
	if (self->view)
		return -EBUSY;           /* its uncommitted stores (its stack, maybe) are in no space */
	struct space *ch = space_create(sp->name);
	if (!ch)
		return -ENOMEM;
	struct vp *v = vp_create(ch, 0, 0);
	long r = v ? 0 : -ENOMEM;
	if (!r) {
		spin_lock(&sp->lock);
		__atomic_fetch_add(&sp->forking, 1, __ATOMIC_ACQ_REL);   /* (a count: two VPs may fork) */
		r = copy_space(sp, ch);
		spin_unlock(&sp->lock);
		shake();                         /* (other CPUs still write through writable entries) */
		tlb_shootdown(sp);               /* no CPU writes through an old entry now */
		__atomic_fetch_sub(&sp->forking, 1, __ATOMIC_ACQ_REL);
	}
	if (!r)
		r = file_fork(sp, ch);           /* its descriptors: sp's open files (sysfile.c) */
	if (!r)
		r = space_register(ch, sp);
	if (r < 0) {
		discard_child(ch);
		return r;
	}
	copy_context(self, v);
	v->pp->space_id = ch->id;
	kprintf("@fork {\"space\": %d, \"parent\": %d, \"prog\": \"%s\"}\n", ch->id, sp->id, ch->name);
	long id = ch->id;                        /* (once it runs, an exec may free ch) */
	v->state = VP_RUNNABLE;
	sched_enqueue(v);
	space_put(ch);                           /* the creator's reference */
	return id;
}

/* The POSIX signal a kill of sp stands for: the kernel's cause of a
   fault, as Linux maps the exception. */
int space_signo(const struct space *sp)
{
	static const struct { const char *cause; int signo; } map[] = {
		{ "page fault", 11 }, { "general protection", 11 }, { "stack fault", 11 },
		{ "segment not present", 11 }, { "divide error", 8 }, { "x87 floating point", 8 },
		{ "SIMD floating point", 8 }, { "invalid opcode", 4 }, { "breakpoint", 5 },
		{ "debug", 5 }, { "alignment check", 7 },
	};
	if (sp->kill_signo)
		return sp->kill_signo;
	for (size_t i = 0; sp->kill_cause && i < NELEM(map); i++)
		if (!strcmp(sp->kill_cause, map[i].cause))
			return map[i].signo;
	return 9;                                /* anything else: as SIGKILL */
}

/* An ended space's status as waitpid reports it (Linux's encoding). */
int wait_status(const struct space *sp)
{
	if (sp->exit_status == EXIT_KILLED && sp->kill_cause)
		return space_signo(sp) & 0x7f;
	return (sp->exit_status & 0xff) << 8;
}

/* (pid, int *wstatus, options): pid > 0 is that child, -1 any child, 0
   any in the caller's group, < -1 any in group -pid; WNOHANG (1) returns
   0 if none has ended; KWNOWAIT leaves the child to be waited for. */
long sys_waitpid(uint64_t pid, uint64_t ustatus, uint64_t options, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	if (options & ~(1UL | KWNOWAIT | KWUNTRACED | KWCONTINUED | KWNOEXIT))
		return -EINVAL;
	if ((options & KWNOEXIT) && !(options & (KWUNTRACED | KWCONTINUED)))
		return -EINVAL;          /* (nothing it could report: waitid's EINVAL) */
	int how = ((options & KWNOWAIT) ? 3 : 1) | ((options & KWUNTRACED) ? WAIT_STOP : 0) |
		  ((options & KWCONTINUED) ? WAIT_CONT : 0) | ((options & KWNOEXIT) ? WAIT_NOEXIT : 0);
	int64_t p = (int64_t)pid;
	if (p == -1 || p == 0)
		return space_wait_any(p ? 0 : myvp()->space->pgid, (int)options, (int *)ustatus);
	if (p < -0x7fffffffL || p > 0x7fffffff)
		return -ECHILD;
	if (p < 0)
		return space_wait_any((int)-p, (int)options, (int *)ustatus);
	if (options & 1) {
		int ended = space_child_ended((int)pid);
		if (ended < 0 || (!ended && !(how & (WAIT_STOP | WAIT_CONT))))
			return ended;
		if (!ended || (how & WAIT_NOEXIT))
			how |= WAIT_POLL;   /* a stop or continue, or 0 (space_wait) */
	}
	return space_wait((int)pid, (int *)ustatus, how);
}

/* A reference to space `id` (with its tables alive), or 0. */
struct space *space_hold(int id)
{
	struct space *t = 0;
	spin_lock(&table_lock);
	struct space *sp = space_lookup(id);
	if (sp && sp->state != SP_DEAD) {
		int r = __atomic_load_n(&sp->refs, __ATOMIC_ACQUIRE);
		while (r > 0 && !__atomic_compare_exchange_n(&sp->refs, &r, r + 1, 0,
							     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
		t = r > 0 ? sp : 0;
	}
	spin_unlock(&table_lock);
	return t;
}

/* (pid, sig): sig to a process. pid > 0: that process, if it is a
   process the caller may signal (space_may_signal: its session, its
   descendants, its parent; -EPERM for another that exists, -ESRCH if
   none does); pid 0, -1 and below: many (pgrp.c: kill_many). sig 0
   checks only. SIGSTOP, and SIGTSTP, SIGTTIN, SIGTTOU unless caught or
   ignored, stop the target, SIGCONT continues it (pstop.c). A target
   that catches sig gets it pending (psig.c); otherwise SIGCHLD, SIGCONT,
   SIGURG and SIGWINCH (ignored by default, or by it) do nothing, and
   every other signal ends the space, WTERMSIG = sig; a real-time signal
   past the target's queue is -EAGAIN. */
long sys_kill(uint64_t pid, uint64_t sig, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if (sig > 64)
		return -EINVAL;
	if ((int64_t)pid < -0x7fffffffL || (int64_t)pid > 0x7fffffff)
		return -ESRCH;
	if ((int64_t)pid <= 0)
		return kill_many((int)(int64_t)pid, (int)sig);
	struct space *me = myvp()->space, *t = space_hold((int)pid);
	if (!t)
		return -ESRCH;
	shake();                                 /* (t may exec here too: space_may_signal) */
	long r = space_may_signal(me, t, (int)sig) ? 0 : -EPERM;
	shake();                                 /* (t may exec meanwhile: send follows it) */
	if (!r && sig)
		r = psig_kill(me, t, (int)sig, KSI_USER, 0);   /* (-EAGAIN: its real-time queue is full) */
	space_put(t);
	return r;
}
