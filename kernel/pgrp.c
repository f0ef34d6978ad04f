/*
 * Process groups and sessions, minimal and honest: SYS_setpgid,
 * SYS_getpgid, SYS_setsid, and the signals SYS_kill sends to many
 * processes (a group, the caller's group, or every one it may signal).
 *
 * A space starts in its parent's group and session (a boot program: a
 * group of its own in session 0, as a shell's job would be, so it may
 * setsid); an exec keeps them (space_exec). setpgid moves
 * the caller or one of its children (ESRCH otherwise) into a group of the
 * caller's session, or makes it a group of its own (pgid = its id); a
 * session leader cannot move (EPERM), nor a child in another session.
 * setsid makes the caller the leader of a new session and group, unless
 * it leads a group already (EPERM). There are no terminals, so nothing
 * else depends on them.
 *
 * Who may be signalled (space_may_signal): every process of the
 * caller's session, and the relation: the caller's descendants and its
 * parent. kill_many never signals the caller (ulib runs the caller's own
 * handlers: kill(0) and a kill of its own group include it there;
 * kill(-1) does not, as Linux), and kill(-1) spares space 1, the boot's
 * first program (Linux's init).
 */
#include "kernel.h"

/* A space of the table by id with the table lock held, or 0. */
static struct space *find(int id)
{
	return id > 0 ? space_lookup(id) : 0;
}

long sys_setpgid(uint64_t pid, uint64_t pgid, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct space *me = myvp()->space;
	if ((int64_t)pgid < 0 || pgid > 0x7fffffff || (int64_t)pid < 0 || pid > 0x7fffffff)
		return -EINVAL;
	spin_lock(&table_lock);
	struct space *t = pid ? find((int)pid) : me;
	long r = 0;
	int g = pgid ? (int)pgid : t ? t->id : 0;
	if (!t || (t != me && t->parent != me))
		r = -ESRCH;
	else if (t != me && t->execd && t->sid == me->sid)
		r = -EACCES;                 /* a child that exec'd (POSIX) */
	else if (t->sid == t->id || t->sid != me->sid)
		r = -EPERM;
	else if (g != t->id) {
		r = -EPERM;                  /* the group must exist in our session */
		for (int i = 1; r && i < MAXSPACE; i++) {
			struct space *s = space_at(i - 1);
			if (s && s->pgid == g && s->sid == me->sid && s->state != SP_DEAD)
				r = 0;
		}
	}
	if (!r)
		t->pgid = g;
	spin_unlock(&table_lock);
	return r;
}

/* (pid or 0, what: 0 its group, 1 its session) */
long sys_getpgid(uint64_t pid, uint64_t what, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if ((int64_t)pid < 0 || pid > 0x7fffffff || what > 1)
		return -EINVAL;
	spin_lock(&table_lock);
	struct space *t = pid ? find((int)pid) : myvp()->space;
	long r = !t || t->state == SP_DEAD ? -ESRCH : what ? t->sid : t->pgid;
	spin_unlock(&table_lock);
	return r;
}

long sys_setsid(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	struct space *me = myvp()->space;
	spin_lock(&table_lock);
	long r = me->id;
	for (int i = 0; i < MAXSPACE; i++) {
		struct space *s = space_at(i);
		if (s && s->pgid == me->id && s->state != SP_DEAD)
			r = -EPERM;          /* we lead a group (ours, or one a child is in) */
	}
	if (r > 0)
		me->pgid = me->sid = me->id;
	spin_unlock(&table_lock);
	return r;
}

/* SYS_kill of pid <= 0: sig (psig.c) to every process but the
   caller in group -pid (pid < -1), in the caller's group (0), or anywhere
   (-1) that the caller may signal. The number signalled (0 if only the
   caller is there), -ESRCH if no other process is there, -EPERM if
   there are some but none the caller may signal. */
long kill_many(int pid, int sig)
{
	/* The caller's own list, not a per-CPU one: a stop signal's sender
	   sleeps until the stop settles (pstop.c), and another kill_many on
	   this CPU meanwhile overwrote a per-CPU list, so this one put
	   spaces it never held and left its own held (stopstorm: a space's
	   tables freed under a running VP, a panic in cow_break or
	   vm_free_user). Transient, one per calling VP, as seg_revoke's. */
	struct space **hold = kmalloc(MAXSPACE * sizeof *hold);
	if (!hold)
		return -ENOMEM;
	struct space *me = myvp()->space;
	int n = space_hold_all(hold, MAXSPACE), there = 0, sent = 0;
	int g = pid == 0 ? me->pgid : -pid;
	for (int i = 0; i < n; i++) {
		struct space *t = hold[i];
		if (t != me && t->state == SP_ALIVE && (pid == -1 || t->pgid == g) &&
		    !(pid == -1 && t->id == 1)) {
			there++;
			if (space_may_signal(me, t, sig)) {
				sent++;
				if (sig)
					psig_kill(me, t, sig, KSI_USER, 0);
			}
		}
		space_put(t);
	}
	kfree(hold);
	if (pid != -1 && g == me->pgid)
		return sent;                 /* the caller is in it: ulib signals it */
	return sent ? sent : there ? -EPERM : -ESRCH;
}
