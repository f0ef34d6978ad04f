/*
 * Address spaces and virtual processors: the only things the kernel
 * schedules are VPs; a space owns page tables and one or more VPs.
 */
#ifndef KERNEL_VP_H
#define KERNEL_VP_H
#include <anima/file.h>
#include <stdint.h>
#include <anima/layout.h>
#include "spinlock.h"
#include "trap.h"
#include <anima/vp.h>
#include <anima/syscall.h>
#include <anima/seg.h>
#include <anima/psig.h>

#define KSTACK_SIZE  (16 * 1024)
#define MAXSPACE     256
/* Per-VP kernel event queue: a fixed ring allocated with the VP, so
   posting an event never allocates (upcall.c has the admission rule). */
#define EVQ_SIZE     128
#define EVQ_PAGES    ((EVQ_SIZE * sizeof(struct event) + PGSIZE - 1) / PGSIZE)
#define EVQ_SPARE    16         /* places a completion leaves free, for EV_BLOCKED and signals */
#define MAXKOP_SPACE 1024      /* outstanding blocking ops per space (a VP's timer is its own) */
/* Child spaces per space still in the table (-EAGAIN past it): half the
   table, so one process may fork 100 from signal handlers before it
   waits (musl's libc-test), and still leaves the other half to the rest;
   a fork bomb fills the table (MAXSPACE) and ends in -EAGAIN there. */
#define MAXCHILD     (MAXSPACE / 2)

/* A capability: an entry of a space's handle table (vpsys.c). A VP entry
   names its VP by ids, never by pointer: a VP id is never reused, so the
   entry stops working the moment that VP exits, even if its slot is
   reused. A segment entry holds a counted reference (seg.c): the segment
   lives while any handle or mapping does. */
enum { CAP_FREE, CAP_VP, CAP_SEG };
struct capent {
	int kind;                    /* CAP_*; CAP_FREE: a free entry */
	int space_id;                /* CAP_VP */
	int vp_index;
	uint64_t vp_id;              /* never reused: 64 bits do not wrap */
	struct seg *seg;             /* CAP_SEG: a reference (seg_hold) */
	int rights;                  /* CAP_SEG: SEG_* */
};

/* A shared segment (seg.c): frames allocated at creation, charged to the
   creator, mapped at the same address `base` in every space that maps it. */
struct seg {
	int id;                      /* never reused: futex keys name it */
	int creator;                 /* space id charged for its frames */
	uint64_t payer;              /* and that space's serial (an exec keeps the id) */
	uint64_t base, len;          /* its range of the segment window */
	uint64_t *frames;            /* physical address of each page (0 once freed) */
	int npages, fpages;          /* frames, and pages of the frames array */
	int nhandles, nmaps;         /* seg_lock */
	int revoked;                 /* seg_lock: no new map; handles give -EIDRM */
};
struct segmap {                  /* a space's mapping of a segment (space lock) */
	struct seg *seg;             /* 0: free entry */
	int prot;
};

/* A blocking operation (kop.c): sleep, simulated I/O, futex wait, a
   demand-zero page fault with latency, or a user timer. */
enum { KOP_VP, KOP_THREAD, KOP_UTIMER, KOP_DONE };   /* KOP_DONE: a thread's, completed,
							      its EV_UNBLOCKED not yet queued */
struct kop {
	uint64_t token;
	int kind;                    /* BLK_* or 0 for a user timer */
	int mode;                    /* KOP_VP: the VP waits; KOP_THREAD: only the thread */
	volatile int done;
	int own;                     /* a VP's own_kop or timer_kop: never freed, not counted */
	int prio;                    /* BLK_FUTEX: the waiter's priority (futex_wake_key) */
	struct vp *vp;               /* who blocked */
	struct space *sp;
	uint64_t wake_ns;            /* completes then (0: no deadline) */
	struct cpu *tcpu;            /* whose timer heap holds it */
	struct kop *tchild, *tsib, *tprev;   /* the timer heap (timerq.c) */
	uint64_t fkey;               /* futex: physical address of the word */
	struct kop *fnext, **fpprev; /* futex queue (fpprev: what points to us, for O(1) removal) */
	uint64_t fpin;               /* a shared file page's frame held while it waits (fkey.c), or 0 */
	struct kop *pnext, **pprev;  /* a pipe's waiters (pipe.c) or a file's locks' (flock.c), as the futex queue */
	struct kop *snext;           /* space->kops */
	struct kop *dnext;           /* its VP's done list (KOP_DONE, kop_lock) */
	uint64_t result, thread, arg;   /* arg: SYS_lock_wait's, the pid whose record lock it waits on (flock.c) */
	union {                      /* (one word: a futex wait is no fault; kop_init's memset stays as long) */
		uint64_t fault_va;   /* BLK_PAGE, BLK_FPAGE: the faulting address */
		uint64_t cut;        /* BLK_FUTEX: SYS_futex_wait_cut's cut word (a user address of sp), or 0 */
	};
	struct uctx ctx;             /* the blocked thread (KOP_THREAD) */
};

enum vpstate { VP_NEW, VP_RUNNABLE, VP_RUNNING, VP_BLOCKED, VP_ZOMBIE };

/* Callee-saved registers, as swtch.S pushes them. */
struct context {
	uint64_t r15, r14, r13, r12, rbx, rbp, rip;
};

/* Catches a completion for a VP already freed (kop.c): a left-behind
   timer once posted into freed memory. */
#define VP_MAGIC 0x56504f4bu

/* How the kernel would have killed for a fault it sent as EV_FAULT
   (fault.c): what SYS_sigdie's SIGDIE_FAULT kills with if the runtime
   cannot deliver it. Written under the space's lock. */
struct fault_kill {
	uint32_t seq;                /* the EV_FAULT's event seq (low 32 bits) */
	int sig;
	const char *cause;           /* space_kill's arguments */
	uint64_t addr, rip;
	char detail[96];
};

struct vp {
	uint64_t id;                 /* unique across the system's life (vp.c) */
	int index;                   /* 0..nvp-1 within its space */
	struct space *space;
	volatile int state;          /* enum vpstate; changed with atomics */
	uint32_t magic;              /* VP_MAGIC from vp_create to vp_free */
	volatile int on_cpu;         /* still running on some CPU's stack */
	volatile int sigwake;        /* a classic VP was told of a signal from another process
					and has not had a wait cut short for it (kop.c, psig.c) */
	int queued;                  /* on a run queue (rq_lock): a second enqueue is a kernel bug */
	struct cpu *cpu;             /* CPU whose run queue it belongs to */
	struct vp *rq_next;          /* run-queue link */
	uint8_t *kstack;
	struct context *ctx;         /* saved by swtch when not running */
	struct trapframe *tf;        /* user registers, top of kstack */
	struct vp *space_next;       /* link in space->vps */

	/* The two shared pages, through the kernel's direct map. */
	struct pseudo_page *pp;      /* kernel writes; user read-only */
	uint64_t gs_base;            /* user GS base: PSEUDO_BASE + index*4096, computed, never read
					from a shared page */
	struct vp_page *vpp;         /* user writes: read each field once, check it */
	uint64_t fs_base;            /* user FS base (its TLS pointer, set with wrfsbase): any
					canonical value is fine, the kernel never uses FS */
	uint64_t bad_fs;             /* a non-canonical FS base found at a switch (sched.c);
					the VP's space is killed on its way back to user */

	/* Events not yet copied into the VP page ring (upcall.c): a ring of
	   EVQ_SIZE, evq_len of them from evq_head on; ev_reserved more are
	   promised to operations in flight (evq_len + ev_reserved <= EVQ_SIZE). */
	struct spinlock evlock;
	struct event *evq;           /* EVQ_PAGES pages */
	uint32_t evq_head;
	int evq_len, ev_reserved;
	uint64_t ev_seq;
	uint32_t ring_tail;          /* the kernel's own copy of the ring tail */
	uint32_t ring_seen;          /* ring_tail when it last returned to user mode */
	int idle_wait;               /* blocked in SYS_vp_idle until an event */
	int fault_out;               /* an EV_FAULT went into the ring (fault.c): until the user's
					ring_head reaches fault_at, it is not taken, and a fault kills */
	uint32_t fault_at;           /* ring_tail just past that EV_FAULT */
	struct fault_kill fkill;     /* the kill that EV_FAULT stands for */
	int wake_lost;               /* an EV_WAKE found the queue full: owe an EV_WAKE(0) (evlock) */
	struct kop *done, **done_tail;   /* thread waits completed while its queue was full, in
					    order (kop_lock; kop.c): their EV_UNBLOCKED is owed */
	int preempted;               /* post EV_PREEMPTED when it next runs */
	int probation;               /* quanta left without warnings: it ignored one (warn.c) */
	int honor_streak;            /* warnings honored in a row, up to WARN_FORGIVE */
	uint64_t penalty_ns, debt_ns; /* what they are cut by (warn.c) */
	int parked;                  /* created at start; waits for SYS_vp_start */
	struct vp *wait_next;        /* link in a child space's waiters (table_lock) */
	struct kop *utimer;          /* armed user timer, if any: &timer_kop */
	int stopkick;                /* kicked by a stop, not yet off its CPU (pstop.c; space lock) */
	struct vp *stop_next;        /* link in its space's stopq, or in a stopped space's stopwait */
	uint64_t run_ns, switches;   /* accounting */
	uint8_t fpu[512] __attribute__((aligned(16)));  /* fxsave area */
	struct buf *fmap_wait;       /* a copy met a file page on its way from the disk (fmap.c) */
	struct view *view;           /* its isolated view, if any (view.c; only it touches it) */
	int realids;                 /* in SYS_file_access: file checks use the real ids (perm.c) */
	/* Last: vp_create does not clear them (kop_init does, at each use). */
	struct kop own_kop;          /* blocks it classically when the heap refuses a kop (kop.c) */
	struct kop timer_kop;        /* its user timer (utimer_set) */
};

enum spstate { SP_ALIVE, SP_DYING, SP_DEAD };

/* Signals from other processes (psig.c), under the space's lock: a fixed
   record per signal number, so no sender can make it grow. */
struct psig {
	uint64_t catch, ign, pend;   /* bit sig: caught, ignored (SYS_sigdisp); pending */
	int nocldwait;               /* children reaped at their end (SIGCHLD SIG_IGN, SA_NOCLDWAIT) */
	int nocldstop;               /* no SIGCHLD for a child's stop or continue (SA_NOCLDSTOP) */
	int cldign;                  /* SIGCHLD's action is SIG_IGN though held: none sent for a child */
	int told;                    /* EV_PSIG sent since the last take */
	int late;                    /* a signal that ends it, sent while it was ending (an exec's
	                                new image gets it: psig_exec) */
	int latestop;                /* the last stop signal, or 18 (SIGCONT), sent while it was
	                                ending: the same for an exec's new image (psig_exec) */
	int ended;                   /* its end was told to its parent (table_lock; space_finish) */
	uint64_t notices, takes;     /* EV_PSIG posted, SYS_sigtake calls (INFO_SIGPEND) */
	struct ksiginfo info[PSIG_MAX];   /* the pending ones' senders (standard signals) */
	struct ksiginfo rtq[PSIG_RTQ_MAX];   /* real-time sends, oldest first (psig.c) */
	int nrtq;
	uint64_t keepmask, keeppend; /* what the next exec keeps (SYS_sigexec) */
	uint64_t keepign;            /* ulib's SIG_IGN set for it: a held one is caught here */
	struct ksiginfo keepq[PSIG_RTQ_MAX];   /* ulib's queued records the next exec keeps, in order */
	int nkeepq;
	uint64_t execign, execmask;  /* what the exec that made this image kept (INFO_SIGEXEC) */
	uint64_t keepalarm[2];       /* ITIMER_REAL's due and period the next exec keeps (SYS_alarmexec) */
	uint64_t execalarm[2];       /* and what the exec that made this image kept (INFO_ALARMEXEC) */
	uint64_t keepcpu[4];         /* ITIMER_VIRTUAL's, ITIMER_PROF's time left and period (SYS_itimerexec) */
	uint64_t execcpu[4];         /* and what the exec that made this image kept (INFO_ITIMEREXEC) */
	uint32_t keepumask, execumask;   /* the umask the next exec keeps, this image's: 01000 | mask
	                                    once said (SYS_umaskexec; 0: never, 022) */
};

/* A process's credentials (cred.c; its space's lock for a change; the
   file checks read them without it: perm.c). */
#define SETID_IMAGE 1
struct cred {
	uint32_t uid, euid, suid;    /* real, effective, saved user ids */
	uint32_t gid, egid, sgid;
	int ngroups;                 /* supplementary groups: 0..CRED_NGROUPS */
	uint32_t groups[CRED_NGROUPS];
};

struct space {
	int id;
	uint64_t serial;             /* never reused, not even by exec (which keeps id) */
	char name[MAX_PROGNAME];
	struct spinlock lock;        /* protects the fields below and the page tables */
	int state;                   /* enum spstate */
	uint64_t *pml4;              /* kernel virtual address of the top table */
	uint64_t cr3;
	volatile int refs;           /* VPs + CPUs with cr3 loaded + parent's record */
	struct vp *vps;
	int nvp, live_vps;           /* nvp: VP slots ever used (pages mapped) */
	int nparked;                 /* live VPs never started (run=prog:N) */
	struct vp *slot[MAXVP];      /* VP by index; 0 = free (reusable) slot */
	struct event *slot_evq[MAXVP];   /* each slot's event ring, kept for its next VP */
	struct space *parent;
	int boot_slot;               /* index on the kernel command line, or -1 */
	int exit_status;
	int waited;                  /* parent collected the status */
	uint64_t map_next;           /* SYS_map placement for addr == 0 */
	uint64_t pages;              /* user pages mapped (with its VPs' shared pages) */
	uint64_t ptpages;            /* page-table pages of its user half */
	uint64_t kpages;             /* kernel stacks of its VPs */
	uint64_t kbytes;             /* kernel heap objects it caused (atomic; kzalloc_user) */
	volatile uint64_t vruntime;  /* CPU time its VPs used (ns): fairness among spaces */
	uint64_t cpu_ns;             /* processor time it used, set when it ends (an exec's new
					image starts from its old one's) (space_finish) */
	uint64_t child_ns;           /* its children's that it collected with a wait, their own
					collected children's included (times' tms_cutime; table_lock) */
	struct kop *kops;            /* outstanding blocking operations (kop_lock) */
	int nkops;                   /* how many (atomic): at most MAXKOP_SPACE */
	struct lazy { uint64_t start, end, flags, latency;
		uint32_t ino, shared;  /* a file's pages (fmap.c) if ino: its byte va + fdelta */
		int64_t fdelta; } *lazy;  /* demand-zero regions: sorted, */
	int nlazy, lazycap;          /* disjoint, heap-grown (lock; lazy.c) */
	int fshared;                 /* it has had a MAP_SHARED file region: futex keys look (fkey.c) */
	struct vp *waiters;          /* parent VPs blocked in SYS_wait on us (table_lock) */
	int nwaiters;                /* parent VPs inside SYS_wait on us (table_lock) */
	int collected;               /* one of them got the status (table_lock) */
	struct vp *anywait;          /* its VPs blocked in waitpid(-1) (table_lock; space_wait_any) */
	struct capent caps[MAXCAP_SPACE];   /* handle table (lock); handle = CAP_BASE + index */
	int tables_freed;            /* refs reached zero (table_lock) */
	struct space *ended_next;    /* on space.c's list of ended spaces not yet taken down */
	struct space *held_next, *held_prev;   /* space.c's list of spaces whose memory is not
					    all back, create to take-down (held_lock) */
	struct segmap segmaps[MAXSEG_SPACE];   /* segments it maps (lock) */
	int nsegs;                   /* live segments it created (atomic) */
	uint64_t segpages;           /* pages charged for them (atomic; counts in the quota) */
	uint64_t viewpages;          /* pages its VPs' views hold (atomic; in the quota; view.c) */
	uint64_t viewraces;          /* bytes two views changed between one's twin and its commit (atomic) */
	uint64_t robust;             /* its robust list (SYS_seg_robust): user address */
	int nrobust;                 /* entries */
	const char *kill_cause;      /* set when the kernel killed the space */
	uint64_t kill_addr, kill_rip;
	struct ftable *files;        /* open files (sysfile.c), made at the first open */
	int kill_signo;              /* the POSIX signal a kill stands for (fork.c: space_signo) */
	volatile int breaking;       /* copy-on-write breaks between their share check and their
	                                drop of the old frame (cow.c; counted by INFO_TREE_HELD) */
	volatile int forking;        /* forks whose entries are read-only, its shootdown not done (cow.c) */
	struct space *exec_to;       /* the image that took its place (exec.c; table_lock and lock) */
	int pgid, sid;               /* process group and session (pgrp.c; table_lock) */
	int execd;                   /* an image an exec made: its parent's setpgid is -EACCES (pgrp.c) */
	struct psig psig;            /* signals from other processes (psig.c; lock) */
	int nlocks;                  /* record locks it pays for (flock.c; lk_lock): at most MAXLOCK_SPACE
					of its own making (an OFD record whose payer ended may be moved
					onto it past that) */
	int locks_gone;              /* it pays for no record from now on (flock.c; lk_lock) */
	/* Stopped (pstop.c; lock): its VPs parked on stopq; stop_busy of them
	   kicked and still on a CPU, whose senders wait on stopwait; stopev
	   the stop (KSI_CLD_STOPPED, stopsig) or continue not yet waited for. */
	int stopped, stop_busy, stopev, stopsig;
	int orphaned;                /* its parent ended first: getppid says 1, as Linux's reaper (table_lock) */
	int root;                    /* the boot program it comes from, which an adoption keeps (table_lock) */
	int subreaper;               /* it adopts its descendants' orphans (SYS_subreaper; table_lock) */
	uint64_t stopseq, stoptold;  /* stops and continues so far; the last one told */
	struct vp *stopq, *stopwait;
	struct cred cred;            /* who it runs as (cred.c; a boot program: root, 0) */
	uint32_t setid, setuid, setgid;   /* an image's SETID_IMAGE, its file's set-ID bits (04000,
					     02000) and owner, which cred_inherit applies (cred.c) */
};

#endif
