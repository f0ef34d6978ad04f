/*
 * SYS_exec: the caller's image becomes another program (a file of the
 * disk by path, or a boot module by name), keeping its id, its parent and
 * its children, and the descriptors it names, with the argv and the
 * environment given (args.c; at most MAX_ARGLEN bytes: -E2BIG).
 *
 * The new image is a new space, built whole before anything of the old
 * one changes (space_build: the program loaded, charged to the new
 * space's quota, its stack and one VP), so every error (-ENOENT,
 * -EACCES, -ENOEXEC, -EFBIG, -ENOMEM, -EBADF for a descriptor to keep,
 * -E2BIG) returns to the caller as it was. Then space_exec puts the new
 * space in the old one's place in the table (its id, parent, children,
 * boot slot) and ends the old one as an exit would, silently: every VP
 * of the old image, on every CPU, ends on its way back to user mode
 * (the caller's as this call returns), so every thread of every package
 * ends with it. When the old image's last VP has ended, space_finish
 * moves the kept descriptors (file_exec_move: no call of the old image
 * can still be using them) and starts the new image's VP. A parent
 * blocked in wait on the old image waits on the new one.
 *
 * What goes: memory, segment mappings and handles (the new image maps
 * nothing the old one did), timers, the robust list (its locks are
 * released as an ending space's), VP handles others hold to the old
 * VPs (they name ended VPs). What is charged: the new space like any
 * spawned one, before it is built; the kept files' charges move to it.
 */
#include "kernel.h"
#include "disk.h"
#include "ext2.h"

/* A new image of boot module `name` with argv: it, or 0 and *err. */
static struct space *module_image(const char *name, int argc, char **argv, long *err)
{
	int e;
	struct module *m = module_find(name);
	if (!m || !strcmp(name, "ksyms")) {
		*err = -ENOENT;
		return 0;
	}
	struct elfsrc s;
	elf_module_src(&s, P2V(m->start), m->end - m->start);
	struct space *sp = space_build(name, &s, argc, argv, 1, 0, 0, &e);
	*err = e;
	return sp;
}

/* A new image of the program file at path with argv: it, or 0 and
   *err; 0 and *err 0 when the thread blocked (the call runs again). */
static struct space *file_image(const char *name, int argc, char **argv, long *err)
{
	int e;
	if (!disk_blocks) {
		*err = -ENOENT;
		return 0;
	}
	for (;;) {
		struct fsctx c = { 0 };
		struct inode ip;
		struct elfsrc s;
		struct space *sp = 0;
		long r = file_prog(&c, name, &ip, &s);
		if (!r) {
			sp = space_build(file_base(name), &s, argc, argv, 1, 0, 0, &e);
			r = e == -EINVAL ? -ENOEXEC : e;
		}
		if (sp || r != -EBWAIT) {
			*err = r;
			return sp;
		}
		if ((r = disk_wait(c.wait)) <= 0) {
			*err = r;
			return 0;
		}
	}
}

/* A new image of program `name` (path or module): a path /bin/NAME the
   file system lacks is the module NAME (binpath.c). */
static struct space *image(const char *name, int argc, char **argv, long *err)
{
	if (name[0] != '/')
		return module_image(name, argc, argv, err);
	struct space *sp = file_image(name, argc, argv, err);
	const char *m;
	if (!sp && *err == -ENOENT && (m = bin_module(name)))
		sp = module_image(m, argc, argv, err);
	return sp;
}

long sys_exec(uint64_t upath, uint64_t argc, uint64_t uargv, uint64_t ukeep, uint64_t nkeep, uint64_t uenvp)
{
	struct space *me = myvp()->space;
	if (nkeep > MAXFILE_SPACE)
		return -EINVAL;
	/* keep: 2 KiB, too much for the kernel stack; scratch, freed below */
	int16_t *keep = kmalloc(MAXFILE_SPACE * sizeof *keep);
	if (!keep)
		return -ENOMEM;
	memset(keep, -1, MAXFILE_SPACE * sizeof *keep);
	long r = nkeep && copyin(keep, ukeep, nkeep * sizeof *keep) < 0 ? -EFAULT : 0;
	for (uint64_t i = 0; !r && i < nkeep; i++)
		if (keep[i] < -1)
			r = -EBADF;
	struct uargs a;
	if (!r)
		r = args_copyin(upath, argc, uargv, uenvp, &a);
	if (r < 0) {
		kfree(keep);
		return r;
	}
	struct space *nw = image(a.name, a.argc, a.v, &r);
	if (nw && (r = file_exec_check(me, nw, keep, MAXFILE_SPACE)) == 0)
		r = space_exec(me, nw, keep);
	if (nw && r)
		space_discard(nw);
	else if (nw)
		space_announce(nw, "exec", a.argc, a.v);
	args_free(&a);
	kfree(keep);
	return r;
}
