/*
 * ramfree [ROUNDS]: the RAM disk gives a freed block's frame back
 * (kernel/ramdisk.c's ram_discard, through bcache_discard from ext2w.c's
 * block frees; harness/tests/test_ramfree.py). Every count is the RAM
 * disk's own, INFO_RAMDISK 1 (the frames its blocks hold), taken after a
 * sync, so no figure depends on time:
 *   churn   ROUNDS times a file of half the disk written, fsync'd (its
 *           frames taken: at least one per block), unlinked and synced:
 *           the frames are back to the base each round, exactly, and
 *           the free pages (INFO_MEM_FREE) rose by as many as came back
 *   nosync  a file written and unlinked before any sync: its dirty
 *           buffers are dropped, not written into fresh frames
 *   trunc   ftruncate down keeps st_blocks' frames, to 0 none; O_TRUNC
 *   orphan  unlinked while open: its frames stay until the close
 *   full    the disk filled to ENOSPC, then emptied: all back
 *   reuse   blocks freed and taken again read as they should: a file
 *           with holes (1 byte in every other block, then grown by
 *           ftruncate) reads zeros but for those bytes; a full pattern
 *           reads back (booted with `bcache=64` too: from the RAM disk)
 *   race    two threads, one writing a file, one truncating it to 0,
 *           and two forked children churning their own files at once:
 *           after all, back to the base
 * @result {"name": "ramfree", "checks", "failures", "base", "blocks",
 * "file_blocks", "rounds", "written_mib", "peak", "left", "free_back"}
 */
#define CHECK_NAME "ramfree"
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <check.h>

#define BS 4096
#define CHUNK (64 * 1024)
#define NPRE 48                     /* files made at once first (main) */
static char buf[CHUNK];
static long base, peak, left, free_back, returned, nround;
static long written;                /* bytes */
static struct result R;

static long frames(void)
{
	return syscall2(SYS_getinfo, INFO_RAMDISK, 1);
}

/* Frames after every dirty block went to the RAM disk. */
static long synced(void)
{
	sync();
	return frames();
}

/* path made nblk blocks long (pattern seed), fsync'd if `fs`: its
   st_blocks in 4 KiB blocks (data and indirect), or -1. */
static long fill(const char *path, long nblk, int seed, int fs)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		return -1;
	memset(buf, seed, sizeof buf);
	long ok = 1;
	for (long b = 0; ok && b < nblk; b += CHUNK / BS) {
		size_t n = (size_t)(nblk - b < CHUNK / BS ? nblk - b : CHUNK / BS) * BS;
		ok = write(fd, buf, n) == (long)n;
		written += ok ? (long)n : 0;
	}
	struct stat st;
	ok = ok && (!fs || fsync(fd) == 0) && fstat(fd, &st) == 0;
	close(fd);
	return ok ? (long)st.st_blocks / (BS / 512) : -1;
}

static long fsblocks(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_blocks / (BS / 512) : -1;
}

/* One round: the file's frames taken, then all given back. */
static void churn_one(long nblk)
{
	long n = fill("/tmp/big", nblk, 'a' + (int)(nround++ % 26), 1);
	long f = frames();
	CHECK(n > nblk && f >= base + n);
	peak = f > peak ? f : peak;
	long freebefore = sys_getinfo(INFO_MEM_FREE);
	CHECK(unlink("/tmp/big") == 0);
	long after = synced();
	long got = (sys_getinfo(INFO_MEM_FREE) - freebefore) / BS;
	CHECK(after == base);
	left += after - base;
	returned += f - after;
	free_back += got;
}

static void churn(long nblk, long rounds)
{
	for (long i = 0; i < rounds; i++)
		churn_one(nblk);
}

static void nosync(long nblk)
{
	CHECK(fill("/tmp/ns", nblk, 'n', 0) > nblk);
	CHECK(unlink("/tmp/ns") == 0);
	CHECK(synced() == base);
}

static void trunc(long nblk)
{
	CHECK(fill("/tmp/tr", nblk, 't', 1) > nblk);
	CHECK(truncate("/tmp/tr", (off_t)(nblk / 8) * BS + 100) == 0);
	long n = fsblocks("/tmp/tr");
	CHECK(n > nblk / 8 && n < nblk / 4);
	CHECK(synced() == base + n);
	int fd = open("/tmp/tr", O_RDWR);
	CHECK(fd >= 0 && ftruncate(fd, 5) == 0 && close(fd) == 0);
	CHECK(fsblocks("/tmp/tr") == 1 && synced() == base + 1);
	CHECK(fill("/tmp/tr", nblk / 4, 'u', 1) > nblk / 4);
	fd = open("/tmp/tr", O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(fsblocks("/tmp/tr") == 0 && synced() == base);
	CHECK(unlink("/tmp/tr") == 0 && synced() == base);
}

static void orphan(long nblk)
{
	long n = fill("/tmp/or", nblk, 'o', 1);
	int fd = open("/tmp/or", O_RDONLY);
	CHECK(n > 0 && fd >= 0 && unlink("/tmp/or") == 0);
	CHECK(synced() == base + n);                /* held: its blocks stay */
	char c = 0;
	CHECK(pread(fd, &c, 1, (off_t)(nblk - 1) * BS) == 1 && c == 'o');
	CHECK(close(fd) == 0);
	struct stat st;
	CHECK(stat("/", &st) == 0);                 /* (a file call frees it: orphan.c) */
	CHECK(synced() == base);
}

static void full(void)
{
	int fd = open("/tmp/full", O_CREAT | O_TRUNC | O_WRONLY, 0600);
	CHECK(fd >= 0);
	memset(buf, 'f', sizeof buf);
	long w, total = 0;
	while ((w = write(fd, buf, sizeof buf)) > 0)
		total += w;
	CHECK(w < 0 && errno == ENOSPC);
	CHECK(fsync(fd) == 0 && close(fd) == 0);
	written += total;
	long f = frames();
	CHECK(f >= base + total / BS);
	peak = f > peak ? f : peak;
	CHECK(unlink("/tmp/full") == 0 && synced() == base);
	result_int(&R, "full_blocks", total / BS);
}

/* Bytes [0, len) of fd are zeros but 'x' where off % (2 * BS) == 7
   below upto. */
static int holes_read(int fd, long len, long upto)
{
	static char back[CHUNK];
	for (long off = 0; off < len; off += CHUNK) {
		long n = len - off < CHUNK ? len - off : CHUNK;
		if (pread(fd, back, (size_t)n, off) != n)
			return 0;
		for (long i = 0; i < n; i++)
			if (back[i] != ((off + i) % (2 * BS) == 7 && off + i < upto ? 'x' : 0))
				return 0;
	}
	return 1;
}

static void reuse(long nblk)
{
	CHECK(fill("/tmp/old", nblk, 0x5a, 1) > nblk);   /* blocks full of 0x5a, freed */
	CHECK(unlink("/tmp/old") == 0 && synced() == base);
	int fd = open("/tmp/holes", O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(fd >= 0);
	int ok = 1;
	for (long b = 0; b < nblk; b += 2)
		ok &= pwrite(fd, "x", 1, b * BS + 7) == 1;
	CHECK(ok && ftruncate(fd, (off_t)(nblk + 16) * BS) == 0);
	CHECK(fsync(fd) == 0);
	CHECK(holes_read(fd, (nblk + 16) * BS, nblk * BS));
	CHECK(close(fd) == 0 && unlink("/tmp/holes") == 0);
	CHECK(fill("/tmp/pat", nblk, 0, 1) > nblk);
	fd = open("/tmp/pat", O_RDWR);
	CHECK(fd >= 0);
	ok = 1;
	for (long b = 0; b < nblk; b++) {          /* each block its own bytes */
		memset(buf, (int)(b * 7 + 1), BS);
		ok &= pwrite(fd, buf, BS, b * BS) == BS;
	}
	CHECK(ok && fsync(fd) == 0);
	for (long b = 0; ok && b < nblk; b++) {
		ok &= pread(fd, buf, BS, b * BS) == BS;
		for (int i = 0; ok && i < BS; i++)
			ok &= buf[i] == (char)(b * 7 + 1);
	}
	CHECK(ok);
	CHECK(close(fd) == 0 && unlink("/tmp/pat") == 0 && synced() == base);
}

static volatile int stop;
static void *truncator(void *a)
{
	(void)a;
	long n = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		truncate("/tmp/race", 0);
		if (++n % 16 == 0)
			sched_yield();
	}
	return 0;
}

static void race(long nblk)
{
	int fd = open("/tmp/race", O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(fd >= 0);
	pthread_t t;
	CHECK(pthread_create(&t, 0, truncator, 0) == 0);
	memset(buf, 'r', sizeof buf);
	for (int i = 0; i < 200; i++)
		pwrite(fd, buf, sizeof buf, (off_t)(i % 16) * CHUNK);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	CHECK(pthread_join(t, 0) == 0);
	CHECK(close(fd) == 0 && unlink("/tmp/race") == 0 && synced() == base);
	pid_t kid[2];
	for (int k = 0; k < 2; k++)
		if ((kid[k] = fork()) == 0) {
			char path[32];
			snprintf(path, sizeof path, "/tmp/kid%d", k);
			int bad = 0;
			for (int i = 0; i < 6; i++)
				bad |= fill(path, nblk / 4, 'k' + k, i & 1) <= 0 || unlink(path) != 0;
			_exit(bad);
		}
	for (int k = 0; k < 2; k++) {
		int st = -1;
		CHECK(kid[k] > 0 && waitpid(kid[k], &st, 0) == kid[k] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK(synced() == base);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 8;
	result_begin(&R, "ramfree");
	long blocks = syscall2(SYS_getinfo, INFO_RAMDISK, 0);
	CHECK(blocks > 1024);
	long nblk = blocks / 2;
	/* The base: the metadata files take for good (the inode table's
	   blocks, written at a first use of their inodes, never freed; the
	   directory's), then every file of ours gone: NPRE files at once
	   cover more inodes than this program ever uses together. */
	char path[32];
	for (int i = 0; i < NPRE; i++) {
		snprintf(path, sizeof path, "/tmp/pre%d", i);
		CHECK(fill(path, i ? 0 : 16, 'z', 0) == (i ? 0 : 17));   /* (16 blocks and an indirect one) */
	}
	for (int i = 0; i < NPRE; i++) {
		snprintf(path, sizeof path, "/tmp/pre%d", i);
		CHECK(unlink(path) == 0);
	}
	base = peak = synced();
	churn(nblk, rounds);
	nosync(nblk);
	trunc(nblk);
	orphan(nblk / 4);
	full();
	reuse(nblk / 4);
	race(nblk);
	result_int(&R, "base", base);
	result_int(&R, "blocks", blocks);
	result_int(&R, "file_blocks", nblk);
	result_int(&R, "rounds", rounds);
	result_int(&R, "written_mib", written >> 20);
	result_int(&R, "peak", peak);
	result_int(&R, "left", left);
	result_int(&R, "returned", returned);
	result_int(&R, "free_back", free_back);
	CHECK(free_back >= returned);       /* (the free pool got every one) */
	result_int(&R, "end", synced());
	result_int(&R, "checks", checks);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
