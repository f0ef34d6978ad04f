/*
 * Who pays for a shared segment (seg.c).
 *
 * A segment's frames, frame array and struct are charged to one space,
 * its payer (struct seg's `creator`), the creator at first. The rule:
 * while any space holds the segment -- a handle in its table or a
 * mapping -- the payer is one that does. When the payer stops holding
 * it (drops its last handle and unmaps it, or ends), the charge moves at
 * once to a space that still holds it, the first in the space table,
 * past that space's quota if need be (the memory exists; the space gives
 * it back by letting go). Other holders pay only their own mappings'
 * page tables. So a space stops paying for a segment by dropping every
 * handle to it and unmapping it: then another holder pays, or, with none
 * left, the frames are freed and the payer refunded.
 *
 * seg_settle keeps the rule: seg_release calls it before every reference
 * goes -- a handle dropped, a mapping gone, a space's teardown, and the
 * copy of a handle a system call held (cap_get: seg_map, cap_grant,
 * spawn). A copy inside a system call is not a holder: while it is the
 * only reference (a spawn loading its child, before the child is in the
 * space table), the charge stays where it was, with a payer that may
 * have ended, and is settled when the call gives its copy back, by then
 * in the child's table (spawn_release) or the grantee's (cap_grant).
 * Before, the charge moved only when the creator ended, to the first
 * holder found, and stayed there: a parent that dropped a handle its
 * child had granted it kept paying while a grandchild mapped it, and a
 * segment whose only other handle was inside a spawn when its creator
 * ended stayed charged to no live space.
 */
#include "kernel.h"

/* Does x hold s, by a handle or a mapping? x->lock held. */
static int holds(struct space *x, struct seg *s)
{
	for (int i = 0; i < MAXSEG_SPACE; i++)
		if (x->segmaps[i].seg == s)
			return 1;
	for (int i = 0; i < MAXCAP_SPACE; i++)
		if (x->caps[i].kind == CAP_SEG && x->caps[i].seg == s)
			return 1;
	return 0;
}

/* x is a space whose tables are alive (refs > 0: not being torn down,
   when its own releases settle) and it holds s. table_lock held. */
static int live_holder(struct space *x, struct seg *s)
{
	if (!x || __atomic_load_n(&x->refs, __ATOMIC_ACQUIRE) <= 0)
		return 0;
	spin_lock(&x->lock);
	int h = holds(x, s);
	spin_unlock(&x->lock);
	return h;
}

/* The payer named by (id, serial), if it is still in the table, or 0.
   By id alone, an image that exec'd and ended would be found as the new
   image that took its id: that one was refunded the old image's
   segments (its quota and segment count going below zero: a later map
   of its own was killed "out of memory", progs/tests/execseg.c).
   table_lock held. */
struct space *seg_payer(int id, uint64_t serial)
{
	struct space *p = space_lookup(id);
	return p && p->serial == serial ? p : 0;
}

/* Make s's payer a space that holds it, if its payer does not and some
   space does. The caller holds a reference to s; no lock held. Lock
   order: table_lock, a space's lock, seg_lock. */
void seg_settle(struct seg *s)
{
	spin_lock(&table_lock);          /* (the payer changes only under it) */
	struct space *p = seg_payer(s->creator, s->payer);
	if (!live_holder(p, s))
		for (int i = 0; i < MAXSPACE; i++) {
			struct space *x = space_at(i);
			if (x && x != p && live_holder(x, s)) {
				seg_charge_to(s, p, x);
				break;
			}
		}
	spin_unlock(&table_lock);
}
