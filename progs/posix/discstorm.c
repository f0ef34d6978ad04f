/*
 * discstorm [ROUNDS]: the RAM disk's discard path (kernel/ramdisk.c's
 * ram_discard, through bcache_discard from ext2w.c's block frees) under
 * a storm, with a shared file mapping in the middle of it (fshare.c,
 * fmapcoh.c). A file /tmp/dshared of 64 pages; then at once:
 *   - a mapper process maps its first 32 pages MAP_SHARED and, ROUNDS
 *     times, stamps each page with (round, page) and checks every stamp
 *     it left reads back, through the map and through pread (the file
 *     calls see the shared frames);
 *   - two churners each, ROUNDS times, create a file of their own, write
 *     it (16..80 KiB), truncate it to a block, write past the end (a
 *     hole), unlink it; and write, then truncate the shared file's second
 *     half (never below the mapped pages, so the mapper never touches
 *     past the end, which would be its fault).
 * Afterwards the mapper's last stamps are in the file, the shared file
 * unlinked, and after a sync the RAM disk holds exactly its frames of
 * before, the file system's free blocks and inodes are as before
 * (statvfs), and the available memory is back exactly.
 * @result {"name": "discstorm", "checks", "failures", "base", "end",
 *          "avail_lost", "rounds"}
 */
#define CHECK_NAME "discstorm"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <avail.h>
#include <check.h>

#define PG 4096
#define NPG 64                   /* the shared file's pages */
#define NMAP 32                  /* the mapper's */
#define SHARED "/tmp/dshared"

static long frames(void)
{
	sync();
	return syscall2(SYS_getinfo, INFO_RAMDISK, 1);
}

static char buf[80 * 1024];

static int mapper(int rounds)
{
	int fd = open(SHARED, O_RDWR);
	if (fd < 0)
		return 1;
	long *m = mmap(0, NMAP * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 2;
	int bad = 0;
	for (int r = 1; r <= rounds; r++) {
		for (int p = 0; p < NMAP; p++)
			m[p * PG / 8 + (r % 64)] = (long)r << 16 | p;
		for (int p = 0; p < NMAP; p++) {
			long w = 0;
			bad += m[p * PG / 8 + (r % 64)] != ((long)r << 16 | p);
			if (p % 8 == r % 8)
				bad += pread(fd, &w, 8, (long)p * PG + (r % 64) * 8) != 8 ||
				       w != ((long)r << 16 | p);
		}
		if (r % 16 == 0)
			msync(m, NMAP * PG, MS_SYNC);
	}
	munmap(m, NMAP * PG);
	/* The last round's stamps are the file's now. */
	for (int p = 0; p < NMAP; p++) {
		long w = 0;
		bad += pread(fd, &w, 8, (long)p * PG + (rounds % 64) * 8) != 8 ||
		       w != ((long)rounds << 16 | p);
	}
	close(fd);
	return bad ? 3 : 0;
}

static int churner(int k, int rounds)
{
	char name[32];
	snprintf(name, sizeof name, "/tmp/dchurn%d", k);
	int bad = 0;
	memset(buf, 'a' + k, sizeof buf);
	for (int r = 0; r < rounds; r++) {
		size_t n = (size_t)(16 + (r * 7 + k * 13) % 65) * 1024;
		int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0600);
		if (fd < 0) {
			bad++;
			continue;
		}
		bad += write(fd, buf, n) != (long)n;
		if (r % 3 == 0)
			fsync(fd);               /* (its blocks reach the RAM disk, to be discarded) */
		bad += ftruncate(fd, PG) != 0;
		bad += pwrite(fd, buf, 100, 40 * PG) != 100;      /* a hole between */
		char c = 0;
		bad += pread(fd, &c, 1, 20 * PG) != 1 || c != 0;  /* reads zero */
		close(fd);
		bad += unlink(name) != 0;
		/* The shared file's second half: written, cut, grown back. */
		int sf = open(SHARED, O_RDWR);
		if (sf < 0) {
			bad++;
			continue;
		}
		long off = (long)(NMAP + (r + k) % (NPG - NMAP)) * PG;
		bad += pwrite(sf, buf, PG, off) != PG;
		bad += ftruncate(sf, (long)(NMAP + (r * 5 + k) % (NPG - NMAP)) * PG) != 0;
		bad += ftruncate(sf, (long)NPG * PG) != 0;
		close(sf);
	}
	return bad ? 4 : 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	struct statvfs v0, v1;
	/* The names made once first: their inodes' table block and the
	   directory's blocks are then written (frames the disk keeps). */
	const char *names[] = { SHARED, "/tmp/dchurn1", "/tmp/dchurn2" };
	for (int i = 0; i < 3; i++)
		close(open(names[i], O_CREAT | O_RDWR, 0600));
	for (int i = 0; i < 3; i++)
		unlink(names[i]);
	long base = frames(), before = avail_settled(1);
	CHECK(statvfs("/tmp", &v0) == 0);
	int fd = open(SHARED, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (long)NPG * PG) == 0);
	close(fd);
	pid_t kids[3];
	for (int i = 0; i < 3; i++)
		if ((kids[i] = fork()) == 0)
			_exit(i == 0 ? mapper(rounds) : churner(i, rounds));
	for (int i = 0; i < 3; i++) {
		int st = -1;
		CHECK(waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			printf("discstorm: child %d status %#x\n", i, st);
	}
	CHECK(unlink(SHARED) == 0);
	long end = frames();
	CHECK(end == base);
	CHECK(statvfs("/tmp", &v1) == 0);
	CHECK(v1.f_bfree == v0.f_bfree && v1.f_ffree == v0.f_ffree);
	long lost = before - avail_settled(1);
	CHECK(lost == 0);
	struct result r;
	result_begin(&r, "discstorm");
	result_str(&r, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	result_int(&r, "rounds", rounds);
	result_int(&r, "base", base);
	result_int(&r, "end", end);
	result_int(&r, "bfree_diff", (long)v1.f_bfree - (long)v0.f_bfree);
	result_int(&r, "avail_lost", lost);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
