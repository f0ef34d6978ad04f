/*
 * Process credentials, as Linux has them: real, effective and saved user
 * and group ids and a bounded list of supplementary groups, kept in the
 * space (struct cred). A boot program starts as root (all 0, no groups);
 * fork and spawn copy the parent's; exec keeps them, and a file image
 * with set-user-ID (set-group-ID and group-exec) makes its owner (group)
 * the effective and saved id, as Linux's exec. A boot module image has no
 * owner and no set-ID bits: exec of one keeps the ids as they are.
 *
 * The calls follow Linux's rules with "privileged" meaning effective uid
 * 0 (Linux's CAP_SETUID, CAP_SETGID): a privileged caller sets any id;
 * another may only move among its real, effective and saved ones. Every
 * change happens under the space's lock, so a concurrent pair of calls
 * leaves one or the other result, never a mix.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* A new space sp takes from's ids (fork, spawn: the parent; exec: the
   image it replaces), then its own file's set-ID bits. from 0: root. */
void cred_inherit(struct space *sp, struct space *from)
{
	struct cred c = { 0 };
	if (from) {
		spin_lock(&from->lock);
		c = from->cred;
		spin_unlock(&from->lock);
	}
	if (sp->setid & 04000)
		c.euid = c.suid = sp->setuid;
	if (sp->setid & 02000)
		c.egid = c.sgid = sp->setgid;
	if (sp->setid)                   /* an image: exec sets saved = effective (Linux) */
		c.suid = c.euid, c.sgid = c.egid;
	spin_lock(&sp->lock);
	sp->cred = c;
	spin_unlock(&sp->lock);
}

/* sp is a new image (space_build), of file ip if not 0: its set-ID bits
   for cred_inherit (a set-group-ID file without group-exec is mandatory
   locking on Linux, not setgid). SETID_IMAGE alone: a module's image. */
void cred_image(struct space *sp, const struct inode *ip)
{
	sp->setid = SETID_IMAGE;
	if (!ip)
		return;
	sp->setid |= (ip->mode & 04000) | ((ip->mode & 02010) == 02010 ? 02000 : 0);
	sp->setuid = ip->uid;
	sp->setgid = ip->gid;
}

/* Is id one of r, e, s? */
static int among(uint32_t id, uint32_t r, uint32_t e, uint32_t s)
{
	return id == r || id == e || id == s;
}

/* New ids *v (r, e, s; ID_KEEP keeps one) for cur (r, e, s) by how, priv
   the caller's privilege: 0 or -EPERM, v the result. */
static long change(int how, int priv, const uint32_t cur[3], uint32_t v[3])
{
	uint32_t r = cur[0], e = cur[1], s = cur[2];
	if (how == ID_ONE) {
		uint32_t u = v[0];
		if (u == ID_KEEP)
			return -EINVAL;
		if (!priv && u != r && u != s)
			return -EPERM;
		v[0] = priv ? u : r, v[1] = u, v[2] = priv ? u : s;   /* (else only the effective) */
		return 0;
	}
	if (how == ID_RE) {
		if (!priv && ((v[0] != ID_KEEP && v[0] != r && v[0] != e) ||
			      (v[1] != ID_KEEP && !among(v[1], r, e, s))))
			return -EPERM;
		uint32_t nr = v[0] != ID_KEEP ? v[0] : r, ne = v[1] != ID_KEEP ? v[1] : e;
		/* the saved id follows the effective one when the real one is
		   set or the effective one becomes other than the old real */
		uint32_t ns = v[0] != ID_KEEP || (v[1] != ID_KEEP && v[1] != r) ? ne : s;
		v[0] = nr, v[1] = ne, v[2] = ns;
		return 0;
	}
	for (int i = 0; i < 3; i++)
		if (!priv && v[i] != ID_KEEP && !among(v[i], r, e, s))
			return -EPERM;
	for (int i = 0; i < 3; i++)
		v[i] = v[i] != ID_KEEP ? v[i] : cur[i];
	return 0;
}

/* (ID_UID or ID_GID, ID_ONE/RE/RES, r, e, s) */
long sys_setids(ARGS)
{
	UNUSED();
	if (a0 > ID_GID || a1 > ID_RES || a2 >> 32 || a3 >> 32 || a4 >> 32)
		return -EINVAL;
	struct space *me = myvp()->space;
	uint32_t v[3] = { (uint32_t)a2, (uint32_t)a3, (uint32_t)a4 };
	if (a1 == ID_ONE)
		v[1] = v[2] = ID_KEEP;
	else if (a1 == ID_RE)
		v[2] = ID_KEEP;
	spin_lock(&me->lock);
	uint32_t *ids = a0 == ID_UID ? &me->cred.uid : &me->cred.gid;
	uint32_t cur[3] = { ids[0], ids[1], ids[2] };
	long r = change((int)a1, me->cred.euid == 0, cur, v);
	if (!r)
		ids[0] = v[0], ids[1] = v[1], ids[2] = v[2];
	spin_unlock(&me->lock);
	return r;
}

/* (uint32_t ids[6]), or (r, e, s, IDS_UIDS/IDS_GIDS): one pointer per
   id, so that getresuid's bad pointer is the kernel's EFAULT, as on
   Linux, not a fault in the library's store. */
long sys_getids(ARGS)
{
	UNUSED();
	if (a3 > IDS_GIDS)
		return -EINVAL;
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	struct cred c = me->cred;
	spin_unlock(&me->lock);
	uint32_t ids[6] = { c.uid, c.euid, c.suid, c.gid, c.egid, c.sgid };
	if (!a3)
		return copyout(a0, ids, sizeof ids) < 0 ? -EFAULT : 0;
	uint64_t to[3] = { a0, a1, a2 };
	for (int i = 0; i < 3; i++)
		if (copyout(to[i], &ids[(a3 - 1) * 3 + i], sizeof ids[0]) < 0)
			return -EFAULT;
	return 0;
}

/* (n, list) */
long sys_setgroups(ARGS)
{
	UNUSED();
	uint32_t g[CRED_NGROUPS];
	struct space *me = myvp()->space;
	if (a0 > CRED_NGROUPS)
		return -EINVAL;
	if (a0 && copyin(g, a1, a0 * sizeof g[0]) < 0)
		return -EFAULT;
	spin_lock(&me->lock);
	long r = me->cred.euid == 0 ? 0 : -EPERM;
	if (!r) {
		memcpy(me->cred.groups, g, a0 * sizeof g[0]);
		me->cred.ngroups = (int)a0;
	}
	spin_unlock(&me->lock);
	return r;
}

/* (n, list) */
long sys_getgroups(ARGS)
{
	UNUSED();
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	struct cred c = me->cred;
	spin_unlock(&me->lock);
	if (!a0)
		return c.ngroups;
	if (a0 < (uint64_t)c.ngroups)
		return -EINVAL;
	return copyout(a1, c.groups, (size_t)c.ngroups * sizeof c.groups[0]) < 0 ? -EFAULT : c.ngroups;
}

/* INFO_CRED */
long cred_info(uint64_t which)
{
	struct space *me = myvp()->space;
	if (which > 5)
		return -EINVAL;
	spin_lock(&me->lock);
	uint32_t ids[6] = { me->cred.uid, me->cred.euid, me->cred.suid,
			    me->cred.gid, me->cred.egid, me->cred.sgid };
	spin_unlock(&me->lock);
	return ids[which];
}

/* INFO_OWNER: may the caller change process pid's scheduling (Linux's
   check_same_owner)? 1 if it is root or its effective uid is pid's real
   or effective one, else 0; -ESRCH if there is no such process. */
long cred_owner_info(uint64_t pid)
{
	struct space *me = myvp()->space, *t = pid && pid <= 0x7fffffff ? space_hold((int)pid) : 0;
	if (!t)
		return -ESRCH;
	spin_lock(&me->lock);
	uint32_t e = me->cred.euid;
	spin_unlock(&me->lock);
	spin_lock(&t->lock);
	int ok = e == 0 || e == t->cred.uid || e == t->cred.euid;
	spin_unlock(&t->lock);
	space_put(t);
	return ok;
}

/* May me signal t by their ids (Linux's kill_ok_by_cred)? Privileged, or
   me's real or effective uid is t's real or saved one. (Who may be
   reached at all: space_may_signal.) */
int cred_may_kill(struct space *me, struct space *t)
{
	spin_lock(&me->lock);
	uint32_t r = me->cred.uid, e = me->cred.euid;
	spin_unlock(&me->lock);
	spin_lock(&t->lock);
	uint32_t tr = t->cred.uid, ts = t->cred.suid;
	spin_unlock(&t->lock);
	return e == 0 || r == tr || r == ts || e == tr || e == ts;
}
