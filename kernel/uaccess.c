/* Checked access to user memory; the copying itself is in uaccess.S. */
#include "kernel.h"

long copy_user(void *dst, const void *src, size_t n);
long copy_user_str(char *dst, const char *usrc, size_t max);
long copy_user_nf(void *dst, const void *src, size_t n);
long user_touch(uint64_t uva, int w);
extern char uaccess_start[], uaccess_end[], uaccess_fault[], uaccess_nf_start[], uaccess_nf_end[];

int user_range_ok(uint64_t uva, size_t n)
{
	return uva < USER_TOP && n <= USER_TOP - uva;
}

int copyin(void *dst, uint64_t usrc, size_t n)
{
	if (!user_range_ok(usrc, n))
		return -EFAULT;
	return n ? (int)copy_user(dst, (const void *)usrc, n) : 0;
}

int copyout(uint64_t udst, const void *src, size_t n)
{
	if (!user_range_ok(udst, n))
		return -EFAULT;
	return n ? (int)copy_user((void *)udst, src, n) : 0;
}

/* copyin and copyout for a caller holding a spin lock: a page that is
   not there yet (demand-zero, copy-on-write, a view's) is -EFAULT, not
   brought in, since that takes locks (a space's, pmm's) and shoots down
   TLBs (which no lock holder may do). The caller lets go of its lock, calls user_prefault on the
   range and tries again. */
int copyin_locked(void *dst, uint64_t usrc, size_t n)
{
	if (!user_range_ok(usrc, n))
		return -EFAULT;
	return n ? (int)copy_user_nf(dst, (const void *)usrc, n) : 0;
}

int copyout_locked(uint64_t udst, const void *src, size_t n)
{
	if (!user_range_ok(udst, n))
		return -EFAULT;
	return n ? (int)copy_user_nf((void *)udst, src, n) : 0;
}

/* Bring in the pages of [uva, uva + n) as a copy's faults would (for a
   write: writable; their bytes unchanged): 0, or -EFAULT where a copy
   would fail. No lock may be held. */
int user_prefault(uint64_t uva, size_t n, int w)
{
	if (!user_range_ok(uva, n))
		return -EFAULT;
	for (uint64_t va = uva; va < uva + n; va = PGROUNDDOWN(va) + PGSIZE)
		if (user_touch(va, w) < 0)
			return -EFAULT;
	return 0;
}

/* Copy a NUL-terminated string of at most max-1 characters.
   Returns its length, -EFAULT, or -EINVAL if it does not fit. */
long copyin_str(char *dst, uint64_t usrc, size_t max)
{
	if (usrc >= USER_TOP)
		return -EFAULT;
	size_t lim = MIN(max, USER_TOP - usrc);
	long n = copy_user_str(dst, (const char *)usrc, lim);
	if (n < 0)
		return n;
	if ((size_t)n == lim)
		return lim < max ? -EFAULT : -EINVAL;   /* ran into the kernel half, or too long */
	return n;
}

/* Called by trap() for a kernel-mode page fault. A fault in the copy
   routines on an untouched demand-zero page is the user's memory, not a
   bad pointer: the page is filled in and the copy resumes where it
   stopped (rep movsb and the string loop are restartable). Anything else
   there becomes -EFAULT. */
int uaccess_fixup(struct trapframe *tf)
{
	if (tf->rip < (uint64_t)uaccess_start || tf->rip >= (uint64_t)uaccess_end)
		return 0;
	if (tf->rip >= (uint64_t)uaccess_nf_start && tf->rip < (uint64_t)uaccess_nf_end)
		goto bad;                /* copyin_locked, copyout_locked */
	uint64_t va = rcr2();
	/* A page of the caller's view: its own copy, or a hold on the space's
	   frame; one it cannot take (no charge, a shared page) is -EFAULT. */
	int vr = va < USER_TOP && myvp() ? view_fault(va, tf->error) : 0;
	if (vr > 0)
		return 1;
	if (vr < 0)
		goto bad;
	if (!(tf->error & PF_P) && va < USER_TOP && myvp() && lazy_fill(myvp()->space, va, tf->error) > 0)
		return 1;
	/* A copy-on-write page a fork left: copied (or taken back), and the copy resumes. */
	if ((tf->error & (PF_P | PF_W)) == (PF_P | PF_W) && va < USER_TOP && myvp() &&
	    cow_break(myvp()->space, va) > 0)
		return 1;
bad:
	tf->rip = (uint64_t)uaccess_fault;
	return 1;
}
