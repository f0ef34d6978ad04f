/*
 * Capabilities: per-space handle tables. A handle is CAP_BASE + i, an
 * index into its holder's own table (struct space's caps, under its
 * lock), and means nothing in any other space: there is no number to
 * guess. Entries are made only by the kernel: SYS_vp_cap (one of the
 * caller's own VPs), SYS_cap_grant (a copy into a child's or the
 * parent's table) and SYS_spawn (copies into the child's first slots).
 * An entry names its VP by space id, index and VP id, all checked at use
 * under the locks that keep the VP alive, so it dangles never: once that
 * VP has exited it gives -ESRCH, even if the slot holds a new VP.
 */
#include "kernel.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED(...) (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5

/* A copy of the entry, holding a reference if it names a segment: the
   caller gives it to a table (cap_put) or back (cap_release). */
int cap_get(struct space *sp, uint64_t handle, struct capent *out)
{
	if (handle < CAP_BASE || handle >= CAP_BASE + MAXCAP_SPACE)
		return -EBADF;
	spin_lock(&sp->lock);
	*out = sp->caps[handle - CAP_BASE];
	if (out->kind == CAP_SEG)
		seg_hold(out->seg);      /* under the lock: a drop cannot free it first */
	spin_unlock(&sp->lock);
	return out->kind != CAP_FREE ? 0 : -EBADF;
}

void cap_hold(const struct capent *c)
{
	if (c->kind == CAP_SEG)
		seg_hold(c->seg);
}

/* Give back the reference a copy holds (no lock held). */
void cap_release(const struct capent *c)
{
	if (c->kind == CAP_SEG)
		seg_release(c->seg, 1);
}

/* Put c into sp's first free entry (sp->lock held); a segment entry's
   reference moves into the table. */
long cap_put(struct space *sp, const struct capent *c)
{
	for (int i = 0; i < MAXCAP_SPACE; i++)
		if (sp->caps[i].kind == CAP_FREE) {
			sp->caps[i] = *c;
			return CAP_BASE + i;
		}
	return -ENOMEM;                  /* the table is full */
}

long sys_vp_cap(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	spin_lock(&sp->lock);
	struct vp *vp = vp_lookup(sp, a0);
	long r = -ESRCH;
	if (vp) {
		struct capent c = { .kind = CAP_VP, .space_id = sp->id, .vp_index = vp->index,
				    .vp_id = vp->id };
		r = cap_put(sp, &c);
	}
	spin_unlock(&sp->lock);
	return r;
}

/* SYS_cap_grant(handle, space id [, rights]): copy an entry to a child or
   the parent. A segment handle needs SEG_GRANT, and the copy gets
   `rights` (0: the same), which may only narrow (-EACCES otherwise). */
long sys_cap_grant(ARGS)
{
	UNUSED();
	struct space *me = myvp()->space;
	struct capent c;
	long r = cap_get(me, a0, &c);
	if (r < 0)
		return r;
	if (c.kind == CAP_SEG && (!(c.rights & SEG_GRANT) || (a2 & ~(uint64_t)c.rights)))
		r = -EACCES;
	else if (c.kind != CAP_SEG && a2)
		r = -EINVAL;             /* a VP handle has no rights to narrow */
	else if ((int64_t)a1 <= 0 || a1 > 0x7fffffff)
		r = -EPERM;
	if (r < 0) {
		cap_release(&c);
		return r;
	}
	if (c.kind == CAP_SEG && a2)
		c.rights = (int)a2;
	cap_hold(&c);                    /* ours while the copy lands: its release settles the payer */
	spin_lock(&table_lock);          /* keeps t and me->parent in place */
	struct space *t = space_lookup((int)a1);
	if (!t || (t->parent != me && t != me->parent))
		r = -EPERM;              /* not a relative (or no such space) */
	else {
		spin_lock(&t->lock);
		r = t->state == SP_ALIVE ? cap_put(t, &c) : -ESRCH;
		spin_unlock(&t->lock);
	}
	spin_unlock(&table_lock);
	if (r < 0)
		cap_release(&c);         /* not placed: the reference is still ours */
	cap_release(&c);                 /* (segpay.c) */
	return r;
}

long sys_cap_drop(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	if (a0 < CAP_BASE || a0 >= CAP_BASE + MAXCAP_SPACE)
		return -EBADF;
	spin_lock(&sp->lock);
	struct capent *e = &sp->caps[a0 - CAP_BASE], old = *e;
	long r = e->kind != CAP_FREE ? 0 : -EBADF;
	e->kind = CAP_FREE;
	spin_unlock(&sp->lock);
	cap_release(&old);               /* (a mapping keeps the segment) */
	return r;
}
