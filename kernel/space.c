/*
 * Address spaces ("spaces"): page tables plus the VPs that run in them.
 *
 * Lifetimes: `refs` counts what may touch the page tables (each VP, each
 * CPU with the tables loaded); at zero the tables are freed. The struct
 * itself stays in the table until its status has been collected: by its
 * parent's SYS_wait, or at once if it has no parent.
 */
#include "kernel.h"
#include "disk.h"
#include <anima/exit.h>
#include <anima/auxv.h>
#include <anima/file.h>

static struct space *table[MAXSPACE];
struct spinlock table_lock = SPINLOCK_INIT("spaces");
/* Space ids are never reused either (a capability, a segment's creator,
   a futex waiter's owner name spaces by id), and must fit a robust lock
   word's owner field (XM_OWNER, 30 bits): past it, spawn is -EAGAIN for
   the rest of the system's life (10^9 spawns: days of nothing else). */
#define SPACE_ID_MAX XM_OWNER
static int next_id = 1;
static uint64_t serials;            /* struct space's serial: an exec'd image has its own */
volatile int live_spaces;
/* Spaces that ended (space_finish) and whose memory is not taken down
   yet (space_put: some CPU still held them): the halt queues their
   stored shared file pages too (halt_ended), not only the last space's. */
static struct space *ended;
static struct spinlock ended_lock = SPINLOCK_INIT("ended");
/* Take-downs under way (space_put, from ended_drop until the pages are
   let go): the halt waits for them, since a space off the list whose
   pages are not yet let go has its stores in neither place. */
static int tearing;

/* Take sp off the list; the caller's take-down counts in `tearing`
   (in the same step, so the halt sees the one or the other). */
static void ended_drop(struct space *sp)
{
	spin_lock(&ended_lock);
	__atomic_fetch_add(&tearing, 1, __ATOMIC_RELAXED);
	for (struct space **pp = &ended; *pp; pp = &(*pp)->ended_next)
		if (*pp == sp) {
			*pp = sp->ended_next;
			break;
		}
	spin_unlock(&ended_lock);
}

static void halt_ended(void)
{
	spin_lock(&ended_lock);
	for (struct space *sp = ended; sp; sp = sp->ended_next)
		fshare_halt_space(sp->pml4);
	spin_unlock(&ended_lock);
	/* A take-down on another CPU queues its stores as it lets its pages
	   go (fshare_put); it takes no lock we hold and never waits, so this
	   ends. (A CPU that was tearing a space down at the halt lost its
	   stores: test_orphcrash's ended-child test, 'k's at -smp 2.) */
	while (__atomic_load_n(&tearing, __ATOMIC_ACQUIRE))
		__asm__ volatile("" ::: "memory");   /* (no pause: jitter.c) */
}
volatile int held_spaces;           /* page tables not yet freed (INFO_SPACES_HELD) */
/* The same spaces as a list, so one tree's ended ones can be counted
   (INFO_TREE_HELD): a space is on it from space_create until its memory
   is back, its struct too if that may go then (held_drop): its struct
   never goes before its place on it. A leaf lock, but for the struct's
   kfree under it. */
static struct space *held_list;
static struct spinlock held_lock = SPINLOCK_INIT("held");

static void held_add(struct space *sp)
{
	spin_lock(&held_lock);
	sp->held_next = held_list;
	if (held_list)
		held_list->held_prev = sp;
	held_list = sp;
	spin_unlock(&held_lock);
}

/* Take sp off the list, its memory back; with `gone`, its struct too,
   freed in the same step under held_lock: a reader must never count
   the space as back while its struct (a 3-page run) is still held.
   Dropped first and freed after (table_lock between), a test polling
   INFO_TREE_HELD from the other CPU could read available memory in
   between: kopflood's audit read avail_lost 12,288 once in CI. */
static void held_drop(struct space *sp, int gone)
{
	spin_lock(&held_lock);
	if (sp->held_prev)
		sp->held_prev->held_next = sp->held_next;
	else
		held_list = sp->held_next;
	if (sp->held_next)
		sp->held_next->held_prev = sp->held_prev;
	shake();                         /* (the old window: off the list, struct not yet free) */
	if (gone)
		kfree(sp);
	spin_unlock(&held_lock);
}

/* INFO_TREE_HELD: the spaces of me's boot-program tree (struct space's
   root: me's boot program and all it forked, spawned or exec'd, at any
   depth, orphans an adopter took included) whose memory is not all
   back: the running ones, me too, and the ended ones a CPU or a parent's
   record still holds. INFO_SPACES_HELD counted as this in a boot of one
   program; another boot program's tree does not count here, so one that
   runs for ever does not hold up a test that waits for its own
   children's frames. The walk is bounded by the spaces the kernel holds
   (MAXSPACE in the table, plus ended ones not yet taken down) and reads
   only kernel fields; a space is on the list until after its frees.
   Each copy-on-write break in flight in them counts one more (cow.c):
   the old frame may be an ended child's page whose last hold is the
   break's, freed only as it ends (kopflood's audit read avail_lost
   -4,096 once in 60-240 loaded runs: the parent's other VP, descheduled
   mid-break across both `before` readings, freed it in the body). */
long space_tree_held(struct space *me)
{
	long n = 0;
	int root = __atomic_load_n(&me->root, __ATOMIC_RELAXED);
	spin_lock(&held_lock);
	for (struct space *sp = held_list; sp; sp = sp->held_next)
		if (__atomic_load_n(&sp->root, __ATOMIC_RELAXED) == root)
			n += 1 + __atomic_load_n(&sp->breaking, __ATOMIC_SEQ_CST);
	spin_unlock(&held_lock);
	return n;
}

/* A new space: its struct and top table leave the kernel's reserve (a
   spawn tree must not drain it) and count in its own quota. */
struct space *space_create(const char *name)
{
	struct space *sp = kzalloc_user(0, sizeof *sp);
	if (!sp)
		return 0;
	sp->pml4 = vm_new_pml4();
	if (!sp->pml4) {
		kfree(sp);
		return 0;
	}
	sp->kbytes = kheap_charge(sizeof *sp);
	sp->ptpages = 1;
	sp->cr3 = V2P(sp->pml4);
	__atomic_fetch_add(&held_spaces, 1, __ATOMIC_RELAXED);
	held_add(sp);
	sp->refs = 1;                      /* the creator's, until it is running */
	sp->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	sp->boot_slot = -1;
	sp->map_next = USER_MAP_BASE;
	strlcpy(sp->name, name, sizeof sp->name);
	spin_init(&sp->lock, "space");
	return sp;
}

void space_get(struct space *sp)
{
	__atomic_fetch_add(&sp->refs, 1, __ATOMIC_RELAXED);
}

/* May the struct go: nothing refers to it and nobody will wait for it
   (table_lock held)? */
static int freeable(const struct space *sp)
{
	return sp->tables_freed && sp->state == SP_DEAD && (sp->waited || !sp->parent);
}

/* Free the struct if it may go: a wait or an adoption, of a space
   already off the held list (its tables were freed). */
static void maybe_free(struct space *sp)
{
	if (freeable(sp))
		kfree(sp);
}

void space_put(struct space *sp)
{
	if (__atomic_sub_fetch(&sp->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	shake();                         /* the last reference is gone */
	seg_space_free(sp);              /* no CPU runs it: its segment frames are unreachable;
					    those it paid for and others hold are theirs now */
	uint64_t n[2];
	ended_drop(sp);                  /* (before its tables go: the halt may walk them) */
	shake();                         /* (the halt's window: halt_ended waits for us) */
	vm_free_user(sp->pml4, n);
	sp->pml4 = 0;
	lazy_free(sp);
	file_space_free(sp);             /* its descriptors (sysfile.c) */
	__atomic_fetch_sub(&tearing, 1, __ATOMIC_RELEASE);   /* (its stores are queued: halt_ended) */
	/* What the space was charged for must be what it held: a charge
	   without a page (or a page without one) lets a space pass its quota
	   or locks it out of memory it never used (test builds only). */
	if (memcheck && sp->viewpages)
		panic("space %d (%s): its views' %lu pages outlived it", sp->id, sp->name, sp->viewpages);
	if (memcheck && (n[0] != sp->pages || n[1] != sp->ptpages))
		panic("space %d (%s): %lu pages and %lu tables, charged %lu and %lu",
		      sp->id, sp->name, n[0], n[1], sp->pages, sp->ptpages);
	for (int i = 0; i < MAXVP; i++)          /* the VP slots' event rings */
		if (sp->slot_evq[i])
			pages_free(sp->slot_evq[i], EVQ_PAGES);
	spin_lock(&table_lock);
	sp->tables_freed = 1;
	/* Its memory is back: off the list, and the struct freed with it if
	   it may go now (collected already, or an exec's old image); else a
	   wait frees it later, in the waiter's own call (maybe_free). */
	held_drop(sp, freeable(sp));
	__atomic_fetch_sub(&held_spaces, 1, __ATOMIC_RELEASE);   /* after the frees above */
	spin_unlock(&table_lock);
}

/* Ask every VP of sp to end; each notices on its way back to user mode.
   The state changes under every lock a VP may block under (kop_lock,
   table_lock, its event lock), so a VP either sees SP_DYING before it
   blocks or is already blocked when we wake it: none sleeps forever.
   Only the first call ends the space: it sets the status and, for a
   kill, the cause (with the state, so the two agree). Returns whether
   this call did. */
static int space_end(struct space *sp, int status, const char *cause, int signo)
{
	spin_lock(&kop_lock);
	spin_lock(&table_lock);
	spin_lock(&sp->lock);
	if (sp->state != SP_ALIVE) {
		spin_unlock(&sp->lock);
		spin_unlock(&table_lock);
		spin_unlock(&kop_lock);
		return 0;
	}
	sp->state = SP_DYING;
	pstop_release(sp);               /* stopped: its parked VPs run to their exit */
	sp->exit_status = status;
	sp->kill_cause = cause;
	sp->kill_signo = signo;
	for (struct vp *v = sp->vps; v; v = v->space_next) {
		if (v == myvp())
			continue;
		spin_lock(&v->evlock);
		int woke = !v->parked && vp_wake(v);
		spin_unlock(&v->evlock);
		if (v->parked) {         /* never started: let it run straight to its exit */
			v->parked = 0;
			sp->nparked--;
			v->state = VP_RUNNABLE;
			sched_enqueue(v);
		} else if (!woke && v->state == VP_RUNNING && v->cpu != mycpu())
			lapic_ipi(v->cpu->apic_id, T_RESCHED);
	}
	spin_unlock(&sp->lock);
	spin_unlock(&table_lock);
	spin_unlock(&kop_lock);
	shake();                         /* dying: its VPs woken, on their way out */
	return 1;
}

void space_exit(struct space *sp, int status)
{
	space_end(sp, status, 0, 0);
}

/* End sp because of something it did; one line says what. Only if sp
   was still alive: VPs faulting at once on several CPUs all come here,
   and the first reports (each printed its own line before, and @exit
   named the last); a fault after the space began to end, by an exit on
   another VP or an earlier kill, is moot and says nothing (an exit(0)
   racing a fault was reported as status 0 and killed). The caller is a
   VP of sp, so @exit (its last VP's) comes after the line and sees the
   address and rip. */
void space_kill(struct space *sp, const char *cause, uint64_t addr, uint64_t rip, const char *detail)
{
	if (!space_end(sp, EXIT_KILLED, cause, 0))
		return;
	sp->kill_addr = addr;
	sp->kill_rip = rip;
	kprintf("%s[space %d]: killed: %s at 0x%lx, rip 0x%lx%s%s%s\n", sp->name, sp->id,
		cause, addr, rip, *detail ? " (" : "", detail, *detail ? ")" : "");
}

/* End sp as a POSIX signal's default action would (SYS_kill, fork.c):
   its exit status is EXIT_KILLED, and a waitpid sees WTERMSIG = signo.
   Whether this call ended it (0: it was ending already). */
int space_signal(struct space *sp, int signo)
{
	if (!space_end(sp, EXIT_KILLED, "signal", signo))
		return 0;
	kprintf("%s[space %d]: killed: signal %d\n", sp->name, sp->id, signo);
	return 1;
}

/* Who adopts the children of sp, which is ending (par: its parent): the
   nearest living ancestor that asked to (SYS_subreaper, Linux's
   PR_SET_CHILD_SUBREAPER), else space 1, the boot's first program, if it
   asked (it is then Linux's init), else nobody: the kernel collects them
   at their end. Opt-in, because a boot program is an ordinary program:
   on Linux its grandchildren go to an init that is not it, so a wait of
   its own must not get them (nor may their zombies fill its MAXCHILD).
   table_lock held; a parent link always names a space not yet through
   space_finish, which relinks its children first. */
static struct space *adopter(struct space *sp, struct space *par)
{
	for (struct space *a = par; a; a = a->parent)
		if (a->subreaper && a->state == SP_ALIVE)
			return a;
	struct space *init = space_lookup(1);
	return init && init != sp && init->subreaper && init->state == SP_ALIVE ? init : 0;
}

/* (on): the caller adopts its descendants' orphans (1) or not (0); 2
   reads the flag. */
long sys_subreaper(uint64_t on, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct space *me = myvp()->space;
	if (on > 2)
		return -EINVAL;
	spin_lock(&table_lock);
	long r = on == 2 ? me->subreaper : 0;
	if (on < 2)
		me->subreaper = (int)on;
	spin_unlock(&table_lock);
	return r;
}

/* Space 1 adopted ch: a zombie already through space_finish tells it at
   once (SIGCHLD, as Linux's reparenting does); is ch to be collected now
   (init ignores SIGCHLD)? table_lock held. */
static int adopt_zombie(struct space *ch)
{
	return ch->state == SP_DEAD && ch->psig.ended && psig_child_end(ch) && !ch->nwaiters;
}

/* The processor time sp's VPs used, from their slots' pseudo pages
   (a slot's run_ns outlives its VPs, vp.c), at the process's end, off
   every switch path: with the stint under way of a VP still on its CPU
   (the last one is: it calls this on its way out). */
static uint64_t space_ran_ns(struct space *sp)
{
	uint64_t ns = 0, now = now_ns();
	for (int i = 0; i < MAXVP; i++) {
		uint64_t *pte = vm_walk(sp->pml4, PSEUDO_BASE + i * PGSIZE, 0);
		if (!pte || !(*pte & PTE_P) || !(*pte & PTE_KERNEL))
			continue;
		struct pseudo_page *pp = P2V(*pte & PTE_ADDR);
		uint64_t start = pp->run_start;
		ns += pp->run_ns + (pp->oncpu && now > start ? now - start : 0);
	}
	return ns;
}

/* The last VP of sp has exited: report, and wake whoever waits. */
void space_finish(struct space *sp)
{
	sp->cpu_ns += space_ran_ns(sp);
	if (sp->exec_to) {               /* POSIX: the process's times go on across an exec */
		sp->exec_to->cpu_ns = sp->cpu_ns;
		__atomic_store_n(&sp->exec_to->child_ns, __atomic_load_n(&sp->child_ns, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	}
	if (sp->exec_to)                 /* no VP of ours is left: the new image takes over */
		file_exec_move(sp, sp->exec_to);
	kop_space_cleanup(sp);
	file_space_free(sp);             /* its descriptors now, before a wait can see it dead (not
					    once every CPU let go of it): its pipes' ends are closed */
	spin_lock(&sp->lock);
	sp->state = SP_DEAD;
	spin_unlock(&sp->lock);
	shake();                         /* dead, its kops and waiters still there */
	if (sp->exec_to) {
		space_start(sp->exec_to);
	} else if (sp->kill_cause)
		kprintf("@exit {\"space\": %d, \"prog\": \"%s\", \"status\": %d, \"killed\": \"%s\", "
			"\"addr\": \"0x%lx\", \"rip\": \"0x%lx\"}\n", sp->id, sp->name, sp->exit_status,
			sp->kill_cause, sp->kill_addr, sp->kill_rip);
	else
		kprintf("@exit {\"space\": %d, \"prog\": \"%s\", \"status\": %d}\n",
			sp->id, sp->name, sp->exit_status);
	if (sp->boot_slot >= 0)
		boot_record_exit(sp->boot_slot, sp->exit_status);
	kop_space_cleanup(sp);
	seg_space_died(sp);              /* robust locks it held: their waiters learn it */
	shake();

	spin_lock(&kop_lock);            /* (first: SIGCHLD may cut a wait short, psig.c) */
	spin_lock(&table_lock);
	struct space *par = sp->parent;
	sp->psig.ended = 1;
	if (par && psig_child_end(sp) && !sp->nwaiters)
		sp->parent = 0;          /* its parent ignores SIGCHLD: collected now (psig.c) */
	struct space *init = adopter(sp, par);
	for (int i = 0; i < MAXSPACE; i++) {       /* orphan our children */
		struct space *ch = table[i];
		if (ch && ch->parent == sp) {
			ch->parent = init;
			ch->orphaned = !init;    /* getppid: its adopter's id, else 1 (INFO_PARENT) */
			if (init ? adopt_zombie(ch) : ch->state == SP_DEAD) {
				table[i] = 0;
				ch->parent = 0;
				maybe_free(ch);
			}
		}
	}
	for (struct vp *w = init ? init->anywait : 0; w; w = w->wait_next)
		vp_wake(w);              /* its waitpid(-1) may have a zombie now */
	if (!sp->parent)
		for (int i = 0; i < MAXSPACE; i++)
			if (table[i] == sp)
				table[i] = 0;
	for (struct vp *w = sp->waiters; w; w = w->wait_next)
		vp_wake(w);              /* each unlinks itself (space_wait) */
	for (struct vp *w = par ? par->anywait : 0; w; w = w->wait_next)
		vp_wake(w);              /* a waitpid(-1) of the parent (space_wait_any) */
	spin_unlock(&table_lock);
	spin_unlock(&kop_lock);

	spin_lock(&ended_lock);
	sp->ended_next = ended;
	ended = sp;
	spin_unlock(&ended_lock);
	if (__atomic_sub_fetch(&live_spaces, 1, __ATOMIC_ACQ_REL) == 0) {
		halt_ended();                /* (their memory outlives the halt: their stores first) */
		kernel_finish();
	}
}

/* exec (exec.c): image nw, built and not started, takes old's place:
   its id, parent, children, table slot and boot slot; keep[i] is the
   descriptor of old that becomes nw's i (-1: none). old ends as if by
   exit, but silently: its status goes nowhere, and its last VP starts nw
   (space_finish) once none of its own runs. -EINTR if old is already
   ending (nw is then the caller's to discard). */
int space_exec(struct space *old, struct space *nw, const int16_t *keep)
{
	if (!space_end(old, 0, 0, 0))
		return -EINTR;
	file_exec_keep(old, keep);       /* (only the one exec that ended it) */
	shake();                         /* (a kill of old meanwhile is nw's: psig_exec) */
	cred_inherit(nw, old);
	spin_lock(&table_lock);
	for (int i = 0; i < MAXSPACE; i++) {
		if (table[i] == old)
			table[i] = nw;
		else if (table[i] && table[i]->parent == old)
			table[i]->parent = nw;
	}
	nw->id = old->id;
	nw->pgid = old->pgid;
	nw->sid = old->sid;
	nw->root = old->root;
	nw->execd = 1;
	nw->parent = old->parent;
	nw->orphaned = old->orphaned;
	nw->boot_slot = old->boot_slot;
	old->boot_slot = -1;
	nw->waiters = old->waiters;      /* the parent's waits go on with the new image */
	nw->nwaiters = old->nwaiters;
	old->waiters = 0;
	old->nwaiters = 0;
	old->parent = 0;
	/* old's signals, and from here every send to old, are nw's: in
	   one step with the table's, so none finds old ended and nw not
	   yet in its place (a kill there ended nothing: psig.c) */
	int jc, late = psig_exec(old, nw, &jc);   /* (sets old->exec_to) */
	__atomic_fetch_add(&live_spaces, 1, __ATOMIC_ACQ_REL);   /* old's ending takes its own off */
	spin_unlock(&table_lock);
	if (late)
		space_signal(nw, late);  /* a kill that met the exec ends the new image */
	else if (jc == 18)
		pstop_cont(nw);          /* a stop or continue that met it is the new image's: */
	else if (jc)
		pstop_stop(nw, jc);      /* (not started, so no VP of it runs: no wait) */
	return 0;
}

/* Append s as a JSON string (after sep) to buf, cut short if it does
   not fit, or nothing if not even sep and two quotes do; returns bytes
   added. (A user chooses the argv: all control characters, 6 bytes each
   escaped, once left a bare separator and the line unparsable.) */
static size_t json_str(char *buf, size_t room, const char *s, const char *sep)
{
	size_t n = 0;
	if (strlen(sep) + 3 > room) {        /* sep, "", and the NUL */
		if (room)
			buf[0] = 0;
		return 0;
	}
	for (const char *p = sep; *p; p++)
		buf[n++] = *p;
	buf[n++] = '"';
	for (; *s && n + 7 < room; s++) {
		unsigned char c = *s;
		if (c == '"' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = c;
		} else if (c < 0x20 || c >= 0x7f)
			n += ksnprintf(buf + n, room - n, "\\u%04x", c);
		else
			buf[n++] = c;
	}
	buf[n++] = '"';                      /* (the loop left room for it and the NUL) */
	buf[n] = 0;
	return n;
}

/* The space with this id in the table, or 0; table_lock held (which
   keeps it there: a struct leaves the table before it is freed). */
struct space *space_lookup(int id)
{
	for (int i = 0; i < MAXSPACE; i++)
		if (table[i] && table[i]->id == id)
			return table[i];
	return 0;
}

/* A reference to every space in the table whose tables are still alive
   (refs > 0: never revive one being torn down); returns how many. */
int space_hold_all(struct space **out, int max)
{
	int n = 0;
	spin_lock(&table_lock);
	for (int i = 0; i < MAXSPACE && n < max; i++) {
		struct space *sp = table[i];
		int r = sp ? __atomic_load_n(&sp->refs, __ATOMIC_ACQUIRE) : 0;
		while (r > 0 && !__atomic_compare_exchange_n(&sp->refs, &r, r + 1, 0,
							     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
		if (r > 0)
			out[n++] = sp;
	}
	spin_unlock(&table_lock);
	return n;
}

/* Child spaces of sp in the table (live, or ended and not yet collected);
   table_lock held. */
static int nchildren(struct space *sp)
{
	int n = 0;
	for (int i = 0; i < MAXSPACE; i++)
		if (table[i] && table[i]->parent == sp)
			n++;
	return n;
}

/* The boot program s descends from (or the highest ancestor still
   recorded, for an orphan). table_lock held. */
static struct space *tree_of(struct space *s)
{
	for (int n = 0; s->parent && n < MAXSPACE; n++)
		s = s->parent;
	return s;
}

/* May `me` send t a signal? Never itself here (ulib runs a process's
   own signals, and SYS_sigdie its own default actions and stops). t is in me's session (siblings, the
   whole job), one of me's
   descendants (a child, its children, ...) or me's parent: what the
   kernel recorded of the two is the authority, never the pid alone
   (pids are guessable: docs/security.md). Session 0 holds every boot
   program, which are separate logins, not one job: there the two must
   also come from the same boot program, so one boot program's
   kill(-1) or guessed pid never reaches another's tree. Neither does
   an adoption: space 1's orphans from another boot program's tree
   stay out of reach of space 1's tree (`root`), each way. And the ids
   must allow it, as Linux's (cred_may_kill), but for SIGCONT (18) in
   the same session, which Linux allows whatever the ids. */
int space_may_signal(struct space *me, struct space *t, int sig)
{
	spin_lock(&table_lock);
	struct space *img = t->exec_to ? space_lookup(t->id) : 0;
	if (img)
		t = img;             /* t: an exec's old image, held before the exec put the new one
					in its place (and unlinked old from its parent): the process
					is that one (before, a kill there was EPERM: lost) */
	int sess = t->sid == me->sid;
	int ok = t != me && t->root == me->root && (me->parent == t ||
		 (sess && (me->sid != 0 || tree_of(t) == tree_of(me))));
	struct space *a = t->parent;
	for (int n = 0; !ok && a && n < MAXSPACE; a = a->parent, n++)
		ok = a == me;
	int cred = cred_may_kill(me, t);
	spin_unlock(&table_lock);
	return ok && ((sig == 18 && sess) || cred);   /* and by their ids (cred.c) */
}

/* Table slot i, for debug dumps (no lock: the dump is best effort), and
   flock.c's search for a holder of an open file (table_lock held). */
struct space *space_at(int i)
{
	return table[i];
}

/* Copy bytes into sp's memory through the direct map (sp not loaded). */
int space_write(struct space *sp, uint64_t va, const void *src, size_t n)
{
	while (n) {
		uint64_t *pte = vm_walk(sp->pml4, va, 0);
		if (!pte || !(*pte & PTE_P))
			return -EFAULT;
		size_t chunk = MIN(n, PGSIZE - va % PGSIZE);
		memcpy((uint8_t *)P2V(*pte & PTE_ADDR) + va % PGSIZE, src, chunk);
		va += chunk;
		src = (const uint8_t *)src + chunk;
		n -= chunk;
	}
	return 0;
}

/* Build the initial stack as the System V ABI lays it out: argc,
   argv[], NULL, envp[], NULL, the auxiliary vector (auxv.c: AUXV_PAIRS
   pairs to AT_NULL), then its random bytes and strings, then the
   argument strings; 16-byte aligned at argc. v holds argc words of
   argv, then the environment to a null (the callers' are bounded by
   MAX_ARGLEN; the auxiliary vector's part by AUXV_BYTES, beside it: an
   execfn is a path of at most FPATH_MAX; both well inside the mapped
   part). */
#define AUXV_BYTES (64 + 16 * AUXV_PAIRS + 16 + 16 + FPATH_MAX)
_Static_assert(MAX_ARGLEN + AUXV_BYTES < USER_STACK_SIZE, "the arguments fit the mapped stack");
static int setup_stack(struct space *sp, int argc, char **v, const struct auxinfo *ai, uint64_t *rsp)
{
	uint64_t lo = USER_STACK_TOP - USER_STACK_SIZE;
	for (uint64_t va = lo; va < USER_STACK_TOP; va += PGSIZE) {
		uint64_t *pte = space_pte(sp, va);
		void *pg = pte && mem_user_ok(sp, 1) ? page_alloc() : 0;
		if (!pg)
			return -ENOMEM;
		*pte = V2P(pg) | PTE_P | PTE_U | PTE_W | PTE_NX;
		sp->pages++;
	}
	/* Below the mapped part, demand-zero down to USER_STACK_MAX, as a
	   Linux main thread's stack grows to 8 MiB: programs put large
	   arrays in main. Nothing is mapped below it, so an overflow faults. */
	spin_lock(&sp->lock);
	long r = lazy_add(sp, USER_STACK_TOP - USER_STACK_MAX, USER_STACK_MAX - USER_STACK_SIZE,
			  PTE_U | PTE_W | PTE_NX, 0);
	spin_unlock(&sp->lock);
	if (r < 0)
		return -ENOMEM;
	int n = argc;
	size_t bytes = 0;
	while (v[n])
		n++;
	for (int i = 0; i < n; i++)
		bytes += strlen(v[i]) + 1;
	uint64_t str = USER_STACK_TOP - bytes;
	uint64_t alo = (str - auxv_strbytes(ai->execfn)) & ~15UL;   /* AT_RANDOM's bytes, strings */
	uint64_t top = (alo - (uint64_t)(n + 3 + 2 * AUXV_PAIRS) * 8) & ~15UL;   /* argc, 2 nulls */
	if (USER_STACK_TOP - top > MAX_ARGLEN + AUXV_BYTES)
		return -E2BIG;               /* (callers' bound: MAX_ARGLEN and 3 words) */
	uint64_t w = top, zero = 0, c = (uint64_t)argc;
	r = space_write(sp, w, &c, 8);
	for (int i = 0; i < n && !r; i++) {
		size_t len = strlen(v[i]) + 1;
		w += 8;
		if (i == argc)               /* argv's null */
			r = space_write(sp, w, &zero, 8), w += 8;
		r = r ? r : space_write(sp, str, v[i], len);
		r = r ? r : space_write(sp, w, &str, 8);
		str += len;
	}
	if (n == argc && !r)
		r = space_write(sp, w += 8, &zero, 8);
	uint64_t aux[2 * AUXV_PAIRS];
	r = r ? r : space_write(sp, w += 8, &zero, 8);   /* envp's null */
	r = r ? r : auxv_build(sp, alo, ai, aux);
	r = r ? r : space_write(sp, w + 8, aux, sizeof aux);
	if (r < 0)
		return -EFAULT;
	*rsp = top;
	return 0;
}

/* Give sp (built, not yet running) an id and a slot in the table, as a
   child of parent (or none): its id, or -EAGAIN if the parent already
   has MAXCHILD children in the table, the table is full, or the ids ran
   out (then sp->parent is 0 again). */
int space_register(struct space *sp, struct space *parent)
{
	cred_inherit(sp, parent);        /* (a boot program: root) */
	sp->parent = parent;
	spin_lock(&table_lock);
	int slot = -1;
	/* A per-parent quota: one space must not fill the global table. */
	int room = (!parent || nchildren(parent) < MAXCHILD) && next_id <= (int)SPACE_ID_MAX;
	for (int i = 0; room && i < MAXSPACE && slot < 0; i++)
		if (!table[i])
			slot = i;
	if (slot >= 0) {
		sp->id = next_id++;
		sp->pgid = parent ? parent->pgid : sp->id;   /* a child starts in its parent's group */
		sp->sid = parent ? parent->sid : 0;          /* a boot program: session 0, as under a shell */
		sp->root = parent ? parent->root : sp->id;   /* (space_may_signal) */
		table[slot] = sp;
		__atomic_fetch_add(&live_spaces, 1, __ATOMIC_ACQ_REL);
	} else
		sp->parent = 0;
	spin_unlock(&table_lock);
	return slot < 0 ? -EAGAIN : sp->id;
}

/* Start program `prog` in a new space, with copies of caps[0..ncaps-1]
   as its handles CAP_BASE+0... Returns the space id or -errno: -EAGAIN if
   the parent already has MAXCHILD children in the table, or the table is
   full. */
int space_spawn(const char *prog, int argc, char **argv, struct space *parent, int boot_slot, int nvp,
		const struct capent *caps, int ncaps)
{
	struct module *m = module_find(prog);
	if (!m || !strcmp(prog, "ksyms"))
		return -ENOENT;
	struct elfsrc src;
	elf_module_src(&src, P2V(m->start), m->end - m->start);
	return space_spawn_src(prog, &src, argc, argv, parent, boot_slot, nvp, caps, ncaps);
}

/* Tear down a space built here that never ran (space_build). */
void space_discard(struct space *sp)
{
	sp->state = SP_DEAD;
	sp->parent = 0;
	while (sp->vps) {                      /* none has run: free them directly */
		struct vp *v = sp->vps;
		v->state = VP_ZOMBIE;
		vp_free(v);
	}
	space_put(sp);                         /* frees tables and struct */
}

/* A space running program src, its VPs made but none started, not in the
   table: it, or 0 and *err (a file's read error, -EBWAIT included: the
   caller waits and asks again, nothing left behind). */
struct space *space_build(const char *prog, const struct elfsrc *src, int argc, char **argv,
			  int nvp, const struct capent *caps, int ncaps, int *err)
{
	struct space *sp = space_create(prog);
	*err = -ENOMEM;
	if (!sp)
		return 0;
	uint64_t rsp;
	struct auxinfo ai = { .execfn = src->path ? src->path : prog };
	cred_image(sp, src->ip);          /* (its set-ID bits: cred.c) */
	*err = elf_load_src(sp, src, &ai);
	if (*err == -EINVAL)
		kprintf("anima: %s is not a valid x86-64 ELF program\n", prog);
	if (!*err)
		*err = setup_stack(sp, argc, argv, &ai, &rsp);
	struct vp *vp = *err ? 0 : vp_create(sp, ai.entry, rsp);
	/* Extra VPs asked for at start are parked until SYS_vp_start. */
	for (int i = 1; vp && i < nvp; i++) {
		struct vp *v = vp_create(sp, ai.entry, rsp);
		if (!v) {
			*err = -ENOMEM;
			break;
		}
		v->parked = 1;
		sp->nparked++;
	}
	for (int i = 0; i < ncaps; i++) {
		sp->caps[i] = caps[i];
		cap_hold(&caps[i]);      /* the child's own reference (space_put drops it) */
	}
	if (!vp || *err) {
		*err = *err ? *err : -ENOMEM;
		space_discard(sp);
		return 0;
	}
	return sp;
}

/* Name sp's VPs' space, say @TAG (start, exec) with its argv (the
   line cut short at ANNOUNCE_MAX bytes, still JSON: json_str). */
#define ANNOUNCE_MAX (2 * 1024 + 128)
void space_announce(struct space *sp, const char *tag, int argc, char **argv)
{
	for (struct vp *v = sp->vps; v; v = v->space_next)
		v->pp->space_id = sp->id;
	char line[ANNOUNCE_MAX];
	size_t n = ksnprintf(line, sizeof line, "@%s {\"space\": %d, \"prog\": \"%s\", \"argv\": [",
			     tag, sp->id, sp->name);
	for (int i = 0; i < argc; i++)
		n += json_str(line + n, sizeof line - n, argv[i], i ? ", " : "");
	kprintf("%s]}\n", line);
}

/* Let a built space's VP run (the one not parked) and drop the
   builder's reference. */
void space_start(struct space *sp)
{
	for (struct vp *v = sp->vps; v; v = v->space_next)
		if (!v->parked) {
			v->state = VP_RUNNABLE;
			sched_enqueue(v);
			break;
		}
	space_put(sp);
}

/* The same from any source. */
int space_spawn_src(const char *prog, const struct elfsrc *src, int argc, char **argv,
		    struct space *parent, int boot_slot, int nvp, const struct capent *caps, int ncaps)
{
	int err;
	struct space *sp = space_build(prog, src, argc, argv, nvp, caps, ncaps, &err);
	if (!sp)
		return err;
	sp->boot_slot = boot_slot;
	if (space_register(sp, parent) < 0) {
		space_discard(sp);
		return -EAGAIN;
	}
	space_announce(sp, "start", argc, argv);
	int id = sp->id;
	space_start(sp);
	return id;
}

/*
 * SYS_wait: block until child `id` of the caller has ended. Any number of
 * the caller's VPs may wait on the same child: all are woken, and every
 * one that was waiting (or finds the child ended, still uncollected) gets
 * its status. The child is collected -- removed from the table, so later
 * waits get -ECHILD -- when the last of them leaves, once at least one
 * got the status; until then `nwaiters` keeps the struct alive (a VP
 * waiting keeps the parent alive, so it cannot be orphaned meanwhile).
 */
long space_wait(int id, int *ustatus, int posix)
{
	struct vp *self = myvp();
	struct space *me = self->space;
	spin_lock(&table_lock);
	struct space *ch = 0;
	int slot = -1;
	for (int i = 0; i < MAXSPACE; i++)
		if (table[i] && table[i]->id == id && table[i]->parent == me) {
			ch = table[i];
			slot = i;
		}
	if (!ch) {
		spin_unlock(&table_lock);
		return -ECHILD;
	}
	ch->nwaiters++;
	long r = id;
	int stopst = -1;                 /* a stop or continue reported (pstop.c) */
	/* Ended means through space_finish's table step (psig.ended), not
	   only SP_DEAD: that step passes ch's children on first, so a parent
	   never collects a child whose orphans are not yet placed (Linux
	   reparents before the parent can reap). It wakes ch's waiters. */
	while (ch->state != SP_DEAD || !ch->psig.ended || (posix & WAIT_NOEXIT)) {   /* (an end is no news to it) */
		if (me->state != SP_ALIVE) {       /* we are being killed */
			r = -EINTR;
			break;
		}
		if ((posix & (WAIT_STOP | WAIT_CONT)) &&
		    (stopst = pstop_due(ch, posix, !(posix & 2))) >= 0)
			break;
		if (posix & WAIT_POLL) {           /* WNOHANG with those: nothing due */
			r = 0;
			break;
		}
		self->wait_next = ch->waiters;
		ch->waiters = self;
		wake_hand_off(me, self);  /* its queued wake-ups to a sibling */
		vp_block(&table_lock);
		spin_lock(&table_lock);
		ch = table[slot];        /* (an exec put its new image here, our wait moved with it) */
		for (struct vp **pp = &ch->waiters; *pp; pp = &(*pp)->wait_next)
			if (*pp == self) {
				*pp = self->wait_next;
				break;
			}
	}
	/* A caller that ignores SIGCHLD (or SA_NOCLDWAIT) is told of no
	   child's end, as POSIX says: one that ended while we waited (our
	   wait kept space_finish from collecting it) or that space_finish
	   has not reached yet is collected here, and the wait is -ECHILD. */
	if (r > 0 && (posix & 1) && stopst < 0 && psig_reaps(me)) {
		r = -ECHILD;
		ch->collected = 1;
	}
	int status = stopst >= 0 ? stopst : posix ? wait_status(ch) : ch->exit_status;
	spin_unlock(&table_lock);
	shake();                         /* the child uncollected, nwaiters holding it */
	/* Report before collecting, so a bad pointer leaves the child collectable. */
	if (r > 0 && ustatus && copyout((uint64_t)ustatus, &status, sizeof status) < 0)
		r = -EFAULT;
	spin_lock(&table_lock);
	if (r > 0 && !(posix & 2) && stopst < 0 && !ch->collected) {   /* (2: KWNOWAIT, it stays) */
		ch->collected = 1;
		/* its time and its collected children's become ours (times'
		   tms_cutime, RUSAGE_CHILDREN), as a wait does on Linux */
		__atomic_fetch_add(&me->child_ns, ch->cpu_ns + ch->child_ns, __ATOMIC_RELAXED);
	}
	if (--ch->nwaiters == 0 && ch->collected && table[slot] == ch) {
		table[slot] = 0;
		ch->waited = 1;
		/* Not our child any more: it may still be in space_finish (its
		   state is DEAD from the start of it), and we may end and be
		   freed before it reads `parent` there (to wake our anywait). */
		ch->parent = 0;
		maybe_free(ch);
	}
	spin_unlock(&table_lock);
	return r;
}

/*
 * SYS_waitpid(-1): the status of any child of the caller that has ended,
 * collected as space_wait does; 0 if none has and WNOHANG; -ECHILD if the
 * caller has no child in the table. Blocks on the caller's `anywait`
 * list, which space_finish wakes when one of its children ends. pgid
 * nonzero: only children in that group (waitpid(0), waitpid(-pg)).
 */
long space_wait_any(int pgid, int options, int *ustatus)
{
	int nohang = options & 1, how = ((options & KWNOWAIT) ? 3 : 1) |
					((options & KWUNTRACED) ? WAIT_STOP : 0) |
					((options & KWCONTINUED) ? WAIT_CONT : 0) |
					((options & KWNOEXIT) ? WAIT_NOEXIT : 0);
	struct vp *self = myvp();
	struct space *me = self->space;
	spin_lock(&table_lock);
	for (;;) {
		int any = 0, done = 0;
		for (int i = 0; i < MAXSPACE && !done; i++)
			if (table[i] && table[i]->parent == me && (!pgid || table[i]->pgid == pgid)) {
				any = 1;
				/* (ended: through space_finish's table step, which
				   places its orphans, collects it now if we reap at
				   the end, and wakes us) */
				if (table[i]->state == SP_DEAD && !table[i]->collected &&
				    table[i]->psig.ended && !(how & WAIT_NOEXIT))   /* (space_wait) */
					done = table[i]->id;
				else if ((how & (WAIT_STOP | WAIT_CONT)) && pstop_due(table[i], how, 0) >= 0)
					done = table[i]->id;   /* stopped or continued (pstop.c) */
			}
		if (!any || (!done && nohang)) {
			spin_unlock(&table_lock);
			return any ? 0 : -ECHILD;
		}
		if (done) {
			spin_unlock(&table_lock);
			long r = space_wait(done, ustatus, how | WAIT_POLL);
			if (r != -ECHILD && r != 0)  /* (another VP of ours collected it first: look again) */
				return r;
			spin_lock(&table_lock);
			continue;
		}
		if (me->state != SP_ALIVE) {       /* we are being killed */
			spin_unlock(&table_lock);
			return -EINTR;
		}
		self->wait_next = me->anywait;
		me->anywait = self;
		wake_hand_off(me, self);
		vp_block(&table_lock);
		spin_lock(&table_lock);
		for (struct vp **pp = &me->anywait; *pp; pp = &(*pp)->wait_next)
			if (*pp == self) {
				*pp = self->wait_next;
				break;
			}
	}
}

/* Child `id` of the caller if it has ended (1), is still running (0), or
   -ECHILD; for waitpid's WNOHANG. */
int space_child_ended(int id)
{
	struct space *me = myvp()->space;
	spin_lock(&table_lock);
	struct space *ch = space_lookup(id);
	int r = !ch || ch->parent != me ? -ECHILD : ch->state == SP_DEAD && ch->psig.ended;
	spin_unlock(&table_lock);
	return r;
}
