/*
 * The argument and environment vectors of SYS_spawn and SYS_exec, copied
 * from the caller into one kernel buffer for the length of the call.
 *
 * The bound is Linux's ARG_MAX in spirit: the argv and envp strings,
 * each with its NUL, plus 8 bytes for each pointer, at most MAX_ARGLEN
 * (<anima/layout.h>: 128 KiB), and so at most MAX_ARGS words; more is
 * -E2BIG. Most calls carry a few short words, so the first try is a
 * 2 KiB heap block; only a call that does not fit in it is copied again
 * into a buffer of the full bound, charged to the caller's space
 * (kmalloc_user: -ENOMEM past its quota). Every pointer and string is read
 * with copyin/copyin_str: a bad one is -EFAULT.
 *
 * The buffer: the program name (FPATH_MAX bytes), then the vector v
 * (argv, then the environment, then a null), then the strings.
 */
#include "kernel.h"
#include <anima/file.h>

#define ARGS_SMALL 2048          /* the first try: one slab block */

/* The number of words before the null of the user vector at uenvp (0:
   none), or -EFAULT, -E2BIG past MAX_ARGS. */
static long count_env(uint64_t uenvp)
{
	for (long n = 0; uenvp; n++) {
		uint64_t p;
		if (copyin(&p, uenvp + (uint64_t)n * 8, 8) < 0)
			return -EFAULT;
		if (!p)
			return n;
		if (n == MAX_ARGS)
			return -E2BIG;
	}
	return 0;
}

/* The program name or path at uprog into name: 0 or an error. */
static long copy_name(char *name, uint64_t uprog)
{
	long r = copyin_str(name, uprog, FPATH_MAX);
	if (r >= 0 && name[0] != '/' && r >= MAX_PROGNAME)
		r = -EINVAL;                 /* (no module has so long a name) */
	if (r == -EINVAL && name[0] == '/')
		r = -ENAMETOOLONG;
	return r < 0 ? r : 0;
}

/* One try with a buffer of `size` bytes: 0 or an error (-E2BIG when the
   strings do not fit in it). */
static long fill(struct uargs *a, size_t size, uint64_t uprog, uint64_t argc, uint64_t uargv,
		 uint64_t uenvp, uint64_t envc)
{
	uint64_t n = argc + envc;
	if (FPATH_MAX + (n + 1) * 8 > size)
		return -E2BIG;
	/* The small block is not charged, as the 2 KiB copy before it was
	   not: one per call in flight, so bounded by the caller's VPs, and
	   a space at its quota (holding segments its children gave it:
	   test_segments) can still spawn. The full bound is charged. */
	int charged = size > ARGS_SMALL;
	char *buf = charged ? kmalloc_user(myvp()->space, size) : kmalloc(size);
	if (!buf)
		return -ENOMEM;
	*a = (struct uargs){ .buf = buf, .size = size, .sp = charged ? myvp()->space : 0, .name = buf,
			     .argc = (int)argc, .v = (char **)(buf + FPATH_MAX) };
	char *s = (char *)(a->v + n + 1), *end = buf + size;
	long r = copy_name(a->name, uprog);
	if (!r && argc && copyin(a->v, uargv, argc * 8) < 0)
		r = -EFAULT;
	if (!r && envc && copyin(a->v + argc, uenvp, envc * 8) < 0)
		r = -EFAULT;
	for (uint64_t i = 0; !r && i < n; i++) {
		long len = s < end ? copyin_str(s, (uint64_t)a->v[i], (size_t)(end - s)) : -E2BIG;
		if (len < 0)
			r = len == -EINVAL ? -E2BIG : len;
		a->v[i] = s;
		s += len + 1;
	}
	a->v[n] = 0;
	return r;
}

long args_copyin(uint64_t uprog, uint64_t argc, uint64_t uargv, uint64_t uenvp, struct uargs *a)
{
	a->buf = 0;
	if ((int64_t)argc < 0)
		return -EINVAL;
	long envc = count_env(uenvp);
	if (envc < 0)
		return envc;
	if (argc > MAX_ARGS || argc + envc > MAX_ARGS)
		return -E2BIG;
	long r = fill(a, ARGS_SMALL, uprog, argc, uargv, uenvp, envc);
	if (r == -E2BIG) {
		args_free(a);
		r = fill(a, FPATH_MAX + 8 + MAX_ARGLEN, uprog, argc, uargv, uenvp, envc);
	}
	if (r)
		args_free(a);
	return r;
}

void args_free(struct uargs *a)
{
	if (a->buf && a->sp)
		kfree_user(a->sp, a->buf, a->size);
	else if (a->buf)
		kfree(a->buf);
	a->buf = 0;
}
