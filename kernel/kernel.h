/*
 * Kernel-wide declarations (the role of xv6's defs.h): every kernel .c
 * includes this one header. Grouped by the file that defines them.
 */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <anima/errno.h>
#include <anima/layout.h>
#include <anima/vstat.h>
#include "x86.h"
#include "mmu.h"
#include "spinlock.h"
#include "cpu.h"
#include "trap.h"
#include "vp.h"
#include "trace.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* Read user-writable shared memory exactly once (the value is then checked). */
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))

/* string.c (shared with ulib) */
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
size_t strlen(const char *);
size_t strnlen(const char *, size_t);
int strcmp(const char *, const char *);
int strncmp(const char *, const char *, size_t);
char *strchr(const char *, int);
size_t strlcpy(char *, const char *, size_t);

/* console.c */
void console_init(void);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void console_write(const char *s, size_t n);
void console_lock(void);
void console_unlock(void);

/* tty.c */
void tty_write(const char *s, size_t n);

/* panic.c */
extern volatile int panicking;
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void panic_trap(struct trapframe *tf, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void ksyms_load(uint64_t pa, uint64_t len);
const char *ksym_lookup(uint64_t addr, uint64_t *off);
void backtrace(uint64_t rbp);
void panic_stopped(struct trapframe *tf) __attribute__((noreturn));
void qemu_exit(int v) __attribute__((noreturn));

/* multiboot.c */
struct module {
	char name[MAX_PROGNAME];
	uint64_t start, end;          /* physical */
};
/* Boot modules: ksyms and every program of the build (harness/iso.py
   reads this number and refuses an ISO with more). The build has about
   240 programs; 256 left room for 16 more, so a sweep of third-party
   tests (one program each) had to run in batches, and a tree with a
   few dozen programs of its own added could boot none. 48 bytes each. */
#define MAXMODULES 1024
struct memrange {
	uint64_t base, len;
	uint32_t type;                /* 1 = usable RAM */
};
#define MAXMEMRANGES 64
extern struct memrange mmap_ranges[MAXMEMRANGES];
extern int nmmap;
extern struct module modules[MAXMODULES];
extern int nmodules;
extern int modules_dropped;          /* past MAXMODULES: said at boot */
extern char boot_cmdline[1024];
extern uint64_t acpi_rsdp_pa;
void multiboot_parse(uint32_t magic, uint64_t mbi_pa);
struct module *module_find(const char *name);

/* pmm.c */
void pmm_init(void);
void pmm_reserve(uint64_t start, uint64_t end);
void *page_alloc(void);               /* one zeroed page, kernel virtual; 0 if none */
void *pages_alloc(size_t n);          /* n contiguous zeroed pages */
void page_free(void *va);
void pages_free(void *va, size_t n);
uint64_t pmm_free_pages(void);
uint32_t pmm_lock_waits(void);
int pmm_direct(uint64_t va);
int mem_user_ok(struct space *sp, uint64_t n);
int mem_user_fits(struct space *sp, uint64_t n);
int mem_quota_ok(struct space *sp, uint64_t bytes);
uint64_t mem_charged(struct space *sp);
void *pages_alloc_user(size_t n);     /* like pages_alloc, but leaves the reserve */
void *page_alloc_user_raw(void);      /* one of those, not zeroed: the caller fills it whole */
void *page_alloc_cache(void);          /* a block-cache page while 2x the reserve stays free */
uint64_t mem_quota_pages(void);
extern uint64_t mem_total_bytes, phys_top;

/* vm.c */
extern uint64_t *kernel_pml4;
extern uint64_t kernel_cr3;
void vm_init(void);
uint64_t *vm_walk(uint64_t *pml4, uint64_t va, int create);
int vm_map(uint64_t *pml4, uint64_t va, uint64_t pa, uint64_t flags);
uint64_t *vm_new_pml4(void);
void vm_free_user(uint64_t *pml4, uint64_t n[2]);
uint64_t *space_pte(struct space *sp, uint64_t va);
uint64_t *space_pte_room(struct space *sp, uint64_t va, uint64_t extra);
int space_pte_missing(struct space *sp, uint64_t va);
int vm_mapped(uint64_t *pml4, uint64_t va, uint64_t len);
uint64_t *vm_next(uint64_t *pml4, uint64_t *va, uint64_t end);
struct frame_batch;
int vm_prune(struct space *sp, uint64_t lo, uint64_t hi, struct frame_batch *b);

/* tlb.c */
struct frame_batch {              /* frames unmapped, to free after the shootdown */
	uint64_t pa[64];
	int n;
	uint64_t unmapped;               /* PTEs cleared (owned or not) */
	uint64_t tab[16];                /* page tables unlinked (vm_prune), to free likewise */
	int nt;
};
int vm_unmap_collect(uint64_t *pml4, uint64_t *va, uint64_t end, struct frame_batch *b);
uint64_t space_unmap(struct space *sp, uint64_t va, uint64_t len);
void space_prune(struct space *sp, uint64_t lo, uint64_t hi);
void tlb_shootdown(struct space *sp);
void tlb_check(void);

/* kheap.c */
void *kmalloc(size_t n);
void *kzalloc(size_t n);
void kfree(void *p);
void *kmalloc_user(struct space *sp, size_t n);   /* charged to sp, leaves the reserve */
void *kmalloc_reserve(size_t n);                  /* leaves the reserve, charged by the caller */
void *kzalloc_user(struct space *sp, size_t n);
void kfree_user(struct space *sp, void *p, size_t n);
#define KHEAP_MAXBLOCK 2048       /* the largest slab block; above, page runs */
#define KHEAP_RUNHDR   16
/* What n bytes really take from the heap: a block of its power-of-two
   class (32 .. 2048), or a run of whole pages with a 16-byte tag. Inline,
   so that a constant n folds to a constant. */
static inline size_t kheap_charge(size_t n)
{
	if (n > KHEAP_MAXBLOCK)
		return (n + KHEAP_RUNHDR + PGSIZE - 1) / PGSIZE * PGSIZE;
	return n <= 32 ? 32 : 1UL << (64 - __builtin_clzl(n - 1));
}
uint64_t kheap_spare_pages(void);

/* cmdline.c (here for smap_check below) */
extern int memcheck;             /* the `memcheck` word: test-build checks on */

/* cpu.c */
extern int have_smap, have_smep;
void cpu_init(struct cpu *c);
/* One %gs-relative load: the GS base is this CPU's struct cpu from the
   first instruction of kmain and ap_main on (spin locks use it). */
static inline int mycpu_id(void)
{
	int id;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(CPU_ID));
	return id;
}

/* vstat.c */
#define VSTAT_ROW 24                 /* a row per CPU: at least VS_NSTAT, 64-byte lines */
extern uint64_t vstat_n[MAXCPU][VSTAT_ROW];
/* count n events of kind VS_k on this CPU (interrupts off: no atomics) */
static inline void vstat(int k, uint64_t n)
{
	vstat_n[mycpu_id()][k] += n;
}
long vstat_info(uint64_t what);

/* trap.c */
void idt_init(void);
void idt_load(void);
void trap(struct trapframe *tf);
const char *trap_name(uint64_t vector);
void user_return_checks(struct trapframe *tf);
/* memcheck: the entry code cleared EFLAGS.AC, so SMAP guards this path. */
static inline void smap_check(const char *where)
{
	if (unlikely(memcheck) && have_smap && (read_rflags() & RFLAGS_AC))
		panic("%s: entered the kernel with EFLAGS.AC set (SMAP off)", where);
}

/* acpi.c */
extern uint32_t madt_apic_ids[MAXCPU];
extern int madt_ncpu;
extern uint64_t lapic_pa;
void acpi_init(void);

/* lapic.c */
void lapic_init(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_timer_at(uint64_t when, uint64_t now);
void lapic_timer_fired(void);
uint64_t timer_late_count(void);
void lapic_ipi(uint32_t apic_id, int vector);
void lapic_ipi_others(int vector, int nmi);
void lapic_startup(uint32_t apic_id, uint32_t tramp_pa);

/* time.c */
extern uint64_t tsc_hz, lapic_hz, lapic_ns_mult, tsc_boot, tsc_ns_mult;
extern int cal_windows;                /* PIT windows the calibration measured (@boot) */
void time_calibrate(void);
uint64_t now_ns(void);
void delay_us(uint64_t us);

/* rtc.c */
extern uint64_t boot_epoch;
void rtc_init(void);

/* rtclock.c */
extern int64_t rt_off;
uint64_t rt_boot_ns(uint64_t rt_ns, uint64_t now);
void rt_wait_add(struct kop *op);

/* smp.c */
void smp_boot(void);

/* swtch.S */
void swtch(struct context **from, struct context *to);

/* sched.c */
extern uint64_t quantum_ns;
extern uint64_t tick_ns;        /* a timer interrupt at least this often (0: none) */
void sched_init_cpu(struct cpu *c);
void scheduler(void) __attribute__((noreturn));
void sched_enqueue(struct vp *vp);
void sched(void);
void vp_yield(void);
void sched_point(void);             /* take interrupts, yield past the quantum: no lock held */
void vp_yield_to(struct vp *t, int queued);
void vp_block(struct spinlock *held);
int vp_wake(struct vp *vp);
int vp_claim(struct vp *vp);
void sched_arm_timer(void);
void sched_arm_timer_at(uint64_t now);
void timer_interrupt(void);
void sched_quantum_end(void);
static inline uint64_t warn_cap_ns(void) { return quantum_ns / 2; }   /* the longest warning */

/* warn.c */
extern uint64_t warn_probation;   /* quanta of probation after an ignored warning */
#define WARN_FORGIVE 4           /* honored warnings in a row that forgive one miss */
int warn_contended(struct cpu *c);
void warn_arm(struct cpu *c, struct vp *vp);
void warn_ignored(struct cpu *c, struct vp *vp, uint64_t now);
void warn_honored(struct vp *vp);
void warn_due(struct cpu *c);
void warn_deliver(struct vp *vp);

/* kop.c */
extern struct spinlock kop_lock;
struct kop *kop_alloc(int kind);
void kop_free(struct kop *op);
long kop_wait(struct kop *op, struct trapframe *tf);
void kop_expire(struct kop *op);
void kop_post_done(struct vp *vp);
void kop_timers(struct cpu *c, uint64_t now);
uint64_t kop_next_deadline(struct cpu *c);
int futex_wake_key(uint64_t key, int n, struct space *sp);
void futex_cancel_seg(int seg_id, struct space *sp, long err);
long utimer_set(uint64_t deadline, uint64_t token, uint64_t off);
void kop_space_cleanup(struct space *sp);
void kop_vp_cleanup(struct vp *vp);
void kop_interrupt(struct space *sp);
void kop_interrupt_held(struct space *sp);
int kop_cut(struct space *sp, uint64_t cut);
void kop_wake_list(struct kop **list);

/* timerq.c */
void timerq_insert(struct kop **root, struct kop *op);
void timerq_remove(struct kop **root, struct kop *op);

/* upcall.c */
void ctx_from_tf(struct uctx *c, const struct trapframe *tf);
int upcalls_on(struct vp *vp, const struct trapframe *tf);
enum { EVP_RESERVED, EVP_START, EVP_ADMIT, EVP_ADVISORY, EVP_WAKE, EVP_DONE, EVP_WAKE_KEEP };   /* event_post's admission rules (upcall.c) */
int event_reserve(struct vp *vp, int n);
void event_unreserve(struct vp *vp, int n);
int event_post(struct vp *vp, const struct event *ev, int how);
void event_drain(struct vp *vp);
int event_post_fault(struct vp *vp, struct event *ev, int classic);
void upcall_return(struct vp *vp, struct trapframe *tf);
/* intr.c */
void intr_return(struct vp *vp, struct trapframe *tf);
/* fault.c */
struct fault_kill;
int fault_signal(struct trapframe *tf, int sig, int code, uint64_t addr, const struct fault_kill *k);
int fault_of_trap(struct trapframe *tf, int prot, const struct fault_kill *k);
long fault_die(int sig, uint64_t vpi, uint64_t seq);

/* Anything for upcall_return to do? Most returns to user mode find
   nothing: no event queued or owed, none copied since the last return,
   no preemption notice, and the VP has read its whole ring (head ==
   tail: nothing undelivered, enabled or not). A few loads here instead
   of a call that saves six registers to find that out. The VP page's
   ring_head is the user's: only compared (upcall_return checks it). */
static inline int upcall_due(const struct vp *vp)
{
	return vp->preempted | vp->evq_len | vp->wake_lost | (vp->done != 0) | (int)(vp->ring_tail ^ vp->ring_seen) |
	       (int)(READ_ONCE(vp->vpp->ring_head) ^ vp->ring_tail);
}

/* lazy.c */
long lazy_add(struct space *sp, uint64_t addr, uint64_t len, uint64_t flags, uint64_t latency);
long lazy_remove(struct space *sp, uint64_t a, uint64_t len);
long lazy_room(struct space *sp, int n);
void lazy_join(struct space *sp, int i);
void lazy_cover(struct space *sp, uint64_t a, uint64_t b, uint64_t flags);
void lazy_free(struct space *sp);
struct lazy *lazy_region(struct space *sp, uint64_t va);
struct lazy *lazy_first(struct space *sp, uint64_t addr, uint64_t len);
int lazy_overlaps(struct space *sp, uint64_t addr, uint64_t len);
uint64_t lazy_flags(struct space *sp, uint64_t va);
int lazy_fault(struct trapframe *tf, uint64_t va, uint64_t err);
int lazy_fill(struct space *sp, uint64_t va, uint64_t err);
void lazy_unreserve(struct space *sp, void *pg);
long lazy_add_r(struct space *sp, struct lazy n);
void *fill_take(struct space *sp, uint64_t va, uint64_t **pte);

/* fmap.c */
#define LAZY_SHARED    1         /* struct lazy's shared: MAP_SHARED, written back */
#define LAZY_SHARED_RO 2         /* MAP_SHARED through a read-only descriptor: never writable */
int fmap_fault(struct trapframe *tf, uint64_t va, uint64_t err);
int fmap_fill(struct space *sp, uint64_t va, uint64_t err);
long fmap_flush(uint64_t addr, uint64_t len);
void fmap_copy_reset(void);
long fmap_copy_wait(long r, long redo_below);

/* fmapcoh.c */
long fmap_file_flush(uint32_t ino, uint64_t off, uint64_t len);
void fmap_file_drop(uint32_t ino, uint64_t off, uint64_t len);

/* sysmem.c */
long map_file(uint64_t addr, uint64_t len, uint64_t prot, uint32_t ino, int shared, uint64_t off);

/* view.c */
struct view;
int view_fault(uint64_t va, uint64_t err);
int view_user_fault(struct trapframe *tf, uint64_t va, uint64_t err);
void view_load(struct vp *vp);
void view_unload(struct cpu *c);
void view_free(struct vp *vp);
void view_unlink(struct space *sp, uint64_t va, int level, uint64_t e);

/* orphan.c (FSW_* in ext2.h) */
long ino_open(uint32_t ino);
void ino_hold(uint32_t ino);
void ino_drop(uint32_t ino);
void ino_regions(const struct lazy *r, int n, int d);
int ino_held(uint32_t ino);
int ino_orphan(uint32_t ino, int keep);
void ino_reaped(uint32_t ino);
long orphan_reap(int how);
void orphan_halt(void);
long orphan_info(uint64_t what);

/* fshare.c */
long fshare_flush(int how);
void fshare_halt_space(uint64_t *pml4);
int fshare_busy(uint32_t ino);
void fshare_init(uint64_t nframes);
int fshare_is(uint64_t pa);
uint64_t fshare_get(uint32_t ino, uint64_t pg);
uint64_t fshare_add(uint32_t ino, uint64_t pg, uint64_t pa);
int fshare_put(uint64_t pa);
void fshare_dirty(uint64_t pa);
void fshare_trunc(uint32_t ino, uint64_t size);
void fshare_write(uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n);
void fshare_read(uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n);

/* cow.c */
void cow_init(void);
int frame_share(uint64_t pa);
int frame_shared(uint64_t pa);
int frame_unhold(uint64_t pa);
void frame_put(uint64_t pa);
uint64_t cow_pte(uint64_t pa, uint64_t fl);
extern volatile int cow_breaking;
int cow_break(struct space *sp, uint64_t va);
int cow_fault(struct trapframe *tf, uint64_t va, uint64_t err);

/* fork.c */
int space_signo(const struct space *sp);
void space_lock_settled(struct space *sp);
int wait_status(const struct space *sp);
struct space *space_hold(int id);

/* protect.c */
int all_mapped(struct space *sp, uint64_t a, uint64_t len);
long own_range(uint64_t addr, uint64_t *len);

/* cap.c */
int cap_get(struct space *sp, uint64_t handle, struct capent *out);
long cap_put(struct space *sp, const struct capent *c);
void cap_hold(const struct capent *c);
void cap_release(const struct capent *c);

/* seg.c */
#define SEGKEY_TAG (1UL << 63)   /* a futex key in a segment: tag | id << 32 | offset */
uint64_t seg_key(struct seg *s, uint64_t off);
int in_seg_window(uint64_t addr, uint64_t len);
void seg_hold(struct seg *s);
void seg_release(struct seg *s, int handle);
int seg_unmap_in(struct space *sp, struct seg *s);
void seg_space_died(struct space *sp);
void seg_space_free(struct space *sp);
void seg_charge_to(struct seg *s, struct space *from, struct space *to);
void seg_fork(struct space *from, struct space *to);
int seg_futex_key(struct space *sp, uint64_t a, uint64_t *key);
void seg_fault_detail(struct space *sp, uint64_t a, char *buf, size_t n);
int seg_id_at(struct space *sp, uint64_t a);
int seg_mapped(struct space *sp, int id);
struct segmap *segmap_at(struct space *sp, uint64_t a);
struct segmap *segmap_in(struct space *sp, uint64_t a, uint64_t end);

/* segpay.c */
void seg_settle(struct seg *s);
struct space *seg_payer(int id, uint64_t serial);

/* segwake.c */
void seg_wake_all(struct space *sp);
void wake_hand_off(struct space *sp, struct vp *self);

/* fkey.c */
#define FSHKEY_TAG (1UL << 62)   /* a futex key in a shared file page: tag | frame + offset */
uint64_t fkey_of(uint64_t pa, uint64_t off);
long fkey_pin(struct space *sp, uint64_t uaddr, struct kop *op);
void fkey_unpin(struct kop *op);
long fkey_shared_at(struct space *sp, uint64_t uaddr);

/* vp.c */
extern uint64_t next_vp_id;      /* vpidbase=N sets it (cmdline.c; tests) */
struct vp *vp_create(struct space *sp, uint64_t rip, uint64_t rsp);
struct vp *vp_lookup(struct space *sp, uint64_t index);
void vp_free(struct vp *vp);
void vp_exit(void) __attribute__((noreturn));
static inline struct vp *myvp(void) { return mycpu()->vp; }

/* space.c */
extern volatile int live_spaces;
extern volatile int held_spaces;
extern struct spinlock table_lock;
int space_write(struct space *sp, uint64_t va, const void *src, size_t n);
struct space *space_create(const char *name);
void space_get(struct space *sp);
void space_put(struct space *sp);
long space_tree_held(struct space *me);
void space_exit(struct space *sp, int status);
void space_kill(struct space *sp, const char *cause, uint64_t addr, uint64_t rip, const char *detail);
/* (argv[argc..] is the new program's environment, to a null) */
int space_spawn(const char *prog, int argc, char **argv, struct space *parent, int boot_slot, int nvp,
		const struct capent *caps, int ncaps);
struct elfsrc;
int space_spawn_src(const char *prog, const struct elfsrc *src, int argc, char **argv,
		    struct space *parent, int boot_slot, int nvp, const struct capent *caps, int ncaps);
struct space *space_build(const char *prog, const struct elfsrc *src, int argc, char **argv,
			  int nvp, const struct capent *caps, int ncaps, int *err);
void space_discard(struct space *sp);
void space_announce(struct space *sp, const char *tag, int argc, char **argv);
void space_start(struct space *sp);
int space_exec(struct space *old, struct space *nw, const int16_t *keep);
struct space *space_lookup(int id);
int space_may_signal(struct space *me, struct space *t, int sig);
int space_hold_all(struct space **out, int max);
/* space_wait's posix bits beyond 1 (Linux's status) and 2 (KWNOWAIT):
   a stop (WUNTRACED), a continue (WCONTINUED) reports too; WAIT_POLL:
   0 if nothing is due (pstop.c); WAIT_NOEXIT: not an end (KWNOEXIT) */
#define WAIT_STOP 4
#define WAIT_CONT 8
#define WAIT_POLL 16
#define WAIT_NOEXIT 32
long space_wait(int id, int *ustatus, int posix);
long space_wait_any(int pgid, int options, int *ustatus);
int space_child_ended(int id);
int space_signal(struct space *sp, int signo);
void space_finish(struct space *sp);
struct space *space_at(int slot);
int space_register(struct space *sp, struct space *parent);

/* elf.c */
struct fsctx;
struct inode;
struct elfsrc {                       /* a program's bytes: a module's, or a file's */
	uint64_t size;
	uint64_t maxload;                 /* the most bytes its segments may take from it (0: any) */
	long (*read)(const struct elfsrc *s, uint64_t off, void *dst, uint64_t n);  /* 0 or -errno */
	const uint8_t *img;               /* a module */
	struct fsctx *c;                  /* a file (execfile.c) */
	const struct inode *ip;
	const char *path;                 /* a file's path (AT_EXECFN), or 0 */
};
struct auxinfo {                      /* what the auxiliary vector says (auxv.c) */
	uint64_t entry, phdr;
	int phnum;
	const char *execfn;
};
void elf_module_src(struct elfsrc *s, const uint8_t *img, uint64_t size);
int elf_load_src(struct space *sp, const struct elfsrc *s, struct auxinfo *ai);
long elf_prepare(const struct elfsrc *s);

/* execfile.c */
long spawn_file(const char *path, int argc, char **argv, const struct capent *caps, int ncaps);
long file_prog(struct fsctx *c, const char *path, struct inode *ip, struct elfsrc *s);
const char *file_base(const char *path);

/* binpath.c */
const char *bin_module(const char *path);
long bin_lookup(uint64_t upath, uint64_t ustat, long err);

/* pgrp.c */
long kill_many(int pid, int sig);

/* psig.c */
long psig_kill(struct space *me, struct space *t, int sig, int code, uint64_t value);
int psig_child_end(struct space *ch);
int psig_reaps(struct space *sp);
int psig_cldign(struct space *sp);
void psig_fork(struct space *sp, struct space *ch);
long psig_pending(struct space *sp, uint64_t what);
int psig_rt_queue(struct psig *p, const struct ksiginfo *si);
void psig_chld(struct space *par, int id, int code, int status);
int psig_dfl_ignored(int sig);

/* pstop.c */
int pstop_stop(struct space *t, int sig);
void pstop_cont(struct space *t);
void pstop_release(struct space *t);
void pstop_park(void);
void pstop_left(struct vp *v);
int pstop_due(struct space *ch, int how, int consume);

/* psigexec.c */
int psig_exec(struct space *old, struct space *nw, int *jc);
long psig_exec_info(struct space *sp, uint64_t what);
long psig_alarm_info(struct space *sp, uint64_t what);
long psig_itimer_info(struct space *sp, uint64_t what);

/* auxv.c */
size_t auxv_strbytes(const char *execfn);
int auxv_build(struct space *sp, uint64_t lo, const struct auxinfo *in, uint64_t *aux);

/* args.c (spawn's and exec's argv and envp, copied in, charged to sp) */
struct uargs {
	char *name;                 /* the program's name or path */
	char **v;                   /* argv[0..argc-1], the environment, a null */
	int argc;
	void *buf;
	size_t size;
	struct space *sp;
};
long args_copyin(uint64_t uprog, uint64_t argc, uint64_t uargv, uint64_t uenvp, struct uargs *a);
void args_free(struct uargs *a);

/* uaccess.S / uaccess.c */
int copyin(void *dst, uint64_t usrc, size_t n);
int copyout(uint64_t udst, const void *src, size_t n);
long copyin_str(char *dst, uint64_t usrc, size_t max);
int user_range_ok(uint64_t uva, size_t n);
int uaccess_fixup(struct trapframe *tf);
int copyin_locked(void *dst, uint64_t usrc, size_t n);
int copyout_locked(uint64_t udst, const void *src, size_t n);
int user_prefault(uint64_t uva, size_t n, int w);

/* vpsys.c */
long futex_key(uint64_t uaddr, uint64_t *key);

/* pipe.c */
struct pipe;
struct kstat;
uint64_t pipe_charge(int w);
struct pipe *pipe_new(void);
void pipe_discard(struct pipe *p);
void pipe_named(struct pipe *p, int sign);
void pipe_end_gone(struct pipe *p, int w);
long pipe_read(struct pipe *p, uint64_t ubuf, uint64_t n);
long pipe_write(struct pipe *p, uint64_t ubuf, uint64_t n);
void pipe_stat(struct pipe *p, struct kstat *st);
long pipe_setattr(struct pipe *p, uint32_t mode);
long kop_enqueue(struct kop *op, struct kop **list, uint64_t park, uint64_t val, uint64_t key);

/* sysfile.c (pipes and the console's descriptors) */
long file_pipe_make(struct space *sp, uint64_t ufd);
struct pipe *file_pipe(struct space *sp, uint64_t fd, void **hold, int *w, int *mine);
void file_pipe_put(struct space *sp, void *hold);
struct fattr;
long file_setattr_fd(uint64_t fd, const struct fattr *a);   /* (sysmode.c, sysown.c) */
long file_link_fd(uint64_t fd, const char *to);   /* (sysown.c) */

/* sysfile.c (for locks) */
long file_lock_info(struct space *sp, uint64_t fd, void **hold, uint32_t *ino, int *flags,
		    int64_t *off, int64_t *size);
int file_names_ino(struct space *sp, uint32_t ino);
int file_names(struct space *sp, const void *file);

/* sysfile.c (for the other file calls: sysmode.c, syslink.c) */
long getpath(uint64_t upath, char *path);

/* flock.c */
long lock_info(int what);
void lock_close(struct space *sp, uint32_t ino);
void lock_file_gone(const void *file, uint32_t ino);
void lock_space_gone(struct space *sp);

/* syscall.c */
void syscall_init_cpu(void);
void syscall(struct trapframe *tf);

/* syslink.c */
long file_symlink(uint64_t upath, uint64_t utarget);   /* SYS_file_mkdir with S_IFLNK */

/* cred.c */
void cred_inherit(struct space *sp, struct space *from);
void cred_image(struct space *sp, const struct inode *ip);
long cred_info(uint64_t which);           /* INFO_CRED */
long cred_owner_info(uint64_t pid);       /* INFO_OWNER */
int cred_may_kill(struct space *me, struct space *t);

/* perm.c */
uint32_t perm_uid(void);
uint32_t perm_gid(void);
int perm_group(uint32_t gid);
int perm_ok(const struct inode *ip, int want);
int perm_owner(const struct inode *ip);
long perm_unlink(const struct inode *dp, const struct inode *ip);

/* sysmode.c */
long umask_info(struct space *sp);   /* INFO_UMASKEXEC */

/* debug.c */
extern uint64_t watchdog_ns;
void debug_dump(void);
void watchdog_check(uint64_t now);

/* idlepoll.c */
extern uint64_t idlepoll_ns;
int idle_poll(struct cpu *c);

/* cmdline.c */
extern uint64_t memquota_mb;     /* memquota=MB: per-space page quota (0: default) */
void cmdline_parse(const char *s);
void cmdline_start_programs(void);
int boot_status(void);
void boot_record_exit(int slot, int status);
void kernel_finish(void);

#endif
