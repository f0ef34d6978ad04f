/*
 * /bin from the boot modules: a path /bin/NAME or /usr/bin/NAME that the
 * file system does not hold (no disk, the RAM disk, or a disk without
 * it) runs the boot module NAME, so the programs a C library runs by
 * path (system's and popen's /bin/sh, execvp's search along
 * PATH=/bin:/usr/bin) are there on every boot, as on Linux. A file on
 * the disk comes first: only -ENOENT falls back. stat and open do not
 * see these names (the module is no file); exec and spawn do.
 */
#include "kernel.h"
#include "ext2.h"

const char *bin_module(const char *path)
{
	const char *name = 0;
	if (!strncmp(path, "/bin/", 5))
		name = path + 5;
	else if (!strncmp(path, "/usr/bin/", 9))
		name = path + 9;
	if (!name || !*name || strchr(name, '/') || !strcmp(name, "ksyms"))
		return 0;
	return module_find(name) ? name : 0;
}

/* stat and lstat of such a path, after the file system said err
   (-ENOENT, or -ENODEV without a disk): a read-only executable file of
   the module's size, so access(X_OK), stat and a shell's `test -x`
   agree with exec. 0, or err. */
long bin_lookup(uint64_t upath, uint64_t ustat, long err)
{
	char path[FPATH_MAX];
	if (getpath(upath, path))
		return err;
	const char *name = bin_module(path);
	struct module *m = name ? module_find(name) : 0;
	if (!m)
		return err;
	struct kstat s, *st = &s;
	memset(st, 0, sizeof *st);
	st->ino = 0xffffffffUL - (uint64_t)(m - modules);   /* no inode: a number ext2 never gives */
	st->size = m->end - m->start;
	st->blocks = (st->size + 511) / 512;
	st->mode = 0100555;
	st->nlink = 1;
	st->blksize = 4096;
	return copyout(ustat, st, sizeof *st);
}
