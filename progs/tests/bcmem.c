/*
 * bcmem PATH: the block cache sized to memory (kernel/bcache.c). Two
 * children, one after the other, under a parent that takes available
 * memory (INFO_MEM_AVAIL) before and after them:
 *   bcmem read PATH   reads PATH whole twice in 1 MiB read()s: the cache
 *                     grows past its floor on the first pass and the
 *                     second reads nothing from the device
 *   bcmem alloc       maps and fills more memory than is free (all that
 *                     is available but the kernel's reserve and a margin):
 *                     it must succeed, the cache giving frames back
 * Each prints its @result; the parent's has avail_lost (0: every frame
 * back, the cache's counted as available) and the cache's size at each
 * step (BC_NBUF). Boot with memquota above RAM so the quota does not
 * stop the allocation first.
 */
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <avail.h>

#define CHUNK (1L << 20)
#define MARGIN (4L << 20)        /* page tables and kernel objects of the mapping */

static struct result R;
static char buf[CHUNK];

static long bc(long what)
{
	return syscall2(SYS_getinfo, INFO_BCACHE, what);
}

/* Read path whole; its bytes, or -1. */
static long readall(const char *path)
{
	int fd = open(path, O_RDONLY);
	long n = 0, r;
	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, CHUNK)) > 0)
		n += r;
	close(fd);
	return r < 0 ? -1 : n;
}

static int child_read(const char *path)
{
	long r0 = bc(BC_READS), n1 = readall(path);
	long r1 = bc(BC_READS), n2 = readall(path);
	long r2 = bc(BC_READS);
	result_begin(&R, "bcmem.read");
	result_int(&R, "bytes", n1);
	result_int(&R, "same", n1 == n2);
	result_int(&R, "cold_dev_reads", r1 - r0);
	result_int(&R, "warm_dev_reads", r2 - r1);
	result_int(&R, "nbuf", bc(BC_NBUF));
	result_int(&R, "floor", bc(BC_FLOOR));
	result_int(&R, "ceil", bc(BC_CEIL));
	result_end(&R);
	return n1 > 0 && n1 == n2 ? 0 : 1;
}

static int child_alloc(void)
{
	long total = sys_getinfo(INFO_MEM_TOTAL), reserve = total / 64;
	if (reserve < (2L << 20))
		reserve = 2L << 20;
	long free0 = sys_getinfo(INFO_MEM_FREE), want = avail() - reserve - MARGIN;
	long rec0 = bc(BC_RECLAIMED), got = 0, err = 0;
	while (got + CHUNK <= want) {
		long a = syscall3(SYS_map, 0, CHUNK, PROT_READ | PROT_WRITE);
		if (sys_failed(a)) {
			err = a;
			break;
		}
		memset((void *)a, 1, CHUNK);
		got += CHUNK;
	}
	result_begin(&R, "bcmem.alloc");
	result_int(&R, "want", want);
	result_int(&R, "free_before", free0);
	result_int(&R, "mapped", got);
	result_int(&R, "error", err);
	result_int(&R, "reclaimed", bc(BC_RECLAIMED) - rec0);
	result_int(&R, "nbuf", bc(BC_NBUF));
	result_end(&R);
	return err ? 1 : 0;
}

static long run(int argc, const char **argv)
{
	long id = sys_spawn("bcmem", argc, argv);
	int st = -2;
	return id < 0 ? id : sys_wait((int)id, &st) == id ? st : -999;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "read"))
		return child_read(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "alloc"))
		return child_alloc();
	if (argc != 2) {
		printf("usage: bcmem PATH\n");
		return 2;
	}
	long before = avail_settled(1), nb0 = bc(BC_NBUF);
	const char *rd[] = { "bcmem", "read", argv[1] }, *al[] = { "bcmem", "alloc" };
	long st_read = run(3, rd);
	long mid = avail_settled(1), nb1 = bc(BC_NBUF);
	long st_alloc = run(2, al);
	long after = avail_settled(1);
	result_begin(&R, "bcmem");
	result_int(&R, "read", st_read);
	result_int(&R, "alloc", st_alloc);
	result_int(&R, "nbuf_start", nb0);
	result_int(&R, "nbuf_read", nb1);
	result_int(&R, "nbuf_end", bc(BC_NBUF));
	result_int(&R, "avail_lost_read", before - mid);
	result_int(&R, "avail_lost", before - after);
	result_end(&R);
	return 0;
}
