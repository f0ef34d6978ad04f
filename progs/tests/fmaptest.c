/*
 * fmaptest MODE ...: files mapped with mmap (ulib/libc/fmap.c over
 * SYS_fmap and SYS_msync, kernel/fmap.c). Prints
 * @result {"name": "fmaptest", ...}.
 *
 *   basic              on the image the test makes: /big (its 64-bit
 *                      word at byte 8k is k * 0x9e3779b97f4a7c15), /rw1
 *                      and /rw2 (12,388 bytes each): private maps read
 *                      and write (the file keeps its bytes), shared maps
 *                      written back by msync, by munmap and by exit()
 *                      (`exitwrite` in a child, on /rw3), a new file
 *                      /new made through a shared map, and every error a
 *                      bad call gives; write(2) from and read(2) into
 *                      untouched mapped pages (/copy)
 *   coherent PKG       on a thread of PKG, one space's file calls and its
 *                      own shared map of /coh agree without msync: read
 *                      sees a store, the map sees a pwrite, ftruncate
 *                      smaller then larger reads zeros (kernel/fmapcoh.c);
 *                      the read's write-back waits for the disk (/big
 *                      read before it)
 *   child [MODE [PKG]] MODE (basic) in a child; whether available
 *                      memory came back exactly after it ended
 *   exitwrite          /rw3 (12,388 bytes) written through a shared map,
 *                      then exit() without msync or munmap
 *   random PKG N R P   N threads of PKG on one VP each touch R random
 *                      pages of P mapped: the word checked; the most
 *                      disk requests ever in flight (INFO_DISK_FLIGHT)
 *                      and the VP's blocks and EV_UNBLOCKEDs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animart/pkg.h>
#include <animart/upcall.h>
#include <animalib/result.h>
#include <avail.h>

int __fd_kfd(int fd);          /* ulib/libc/fd.c: the kernel's descriptor */

#define GOLD 0x9e3779b97f4a7c15ULL
#define PG 4096
#define RWSIZE (3 * PG + 100)

static struct result R;
static int failures;

#define CHECK(c) do { if (!(c)) { failures++; \
	printf("fmaptest: check failed: %s (line %d)\n", #c, __LINE__); } } while (0)

static long err(long r)
{
	return r < 0 ? -errno : r;
}

/* The byte a guest writes at i of file `seed`. */
static unsigned char wbyte(int seed, long i)
{
	return (unsigned char)((i * 7 + seed * 31 + (i >> 9)) & 0xff);
}

/* Does [p, p+n) hold the words of /big from byte `at`? */
static int big_ok(const uint64_t *p, uint64_t at, long n)
{
	for (long j = 0; j < n / 8; j++)
		if (p[j] != (at / 8 + (uint64_t)j) * GOLD)
			return 0;
	return 1;
}

/* Private maps of /big: the whole file read; a write stays the map's. */
static void private_maps(void)
{
	int fd = open("/big", O_RDONLY);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	uint64_t *m = mmap(0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	long ok = m != MAP_FAILED;
	for (long at = 0; ok && at < st.st_size; at += PG)
		ok = big_ok(m + at / 8, at, PG);
	result_int(&R, "private_read", ok);
	uint64_t *w = mmap(0, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 8 * PG);
	CHECK(w != MAP_FAILED);
	long off_ok = w != MAP_FAILED && big_ok(w, 8 * PG, 2 * PG);
	uint64_t back[4] = { 0 };
	if (w != MAP_FAILED) {
		w[1] = 12345;
		CHECK(pread(fd, back, sizeof back, 8 * PG) == sizeof back);
	}
	result_int(&R, "offset_read", off_ok);
	result_int(&R, "private_write_stays", w != MAP_FAILED && w[1] == 12345 && back[1] == (8 * PG / 8 + 1) * GOLD);
	CHECK(munmap(m, st.st_size) == 0 && munmap(w, 2 * PG) == 0);
	close(fd);
}

/* A shared map of path (RWSIZE bytes) written whole with `seed`, and its
   page past the end too; written back by msync (how 1) or munmap (0).
   1 if the file then reads as written and kept its size. */
static long shared_map(const char *path, int seed, int how)
{
	int fd = open(path, O_RDWR);
	unsigned char *m = fd < 0 ? MAP_FAILED : mmap(0, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	for (long i = 0; i < 4 * PG; i++)
		m[i] = wbyte(seed, i);
	long r = how ? msync(m, 4 * PG, MS_SYNC) : munmap(m, 4 * PG);
	if (r < 0)
		return -errno;
	unsigned char *b = malloc(4 * PG);
	long n = pread(fd, b, 4 * PG, 0), ok = n == RWSIZE;
	for (long i = 0; ok && i < n; i++)
		ok = b[i] == wbyte(seed, i);
	if (how)
		CHECK(munmap(m, 4 * PG) == 0);
	free(b);
	close(fd);
	return ok;
}

/* /new: made, sized by ftruncate, filled through a shared map. */
static long new_file(void)
{
	int fd = open("/new", O_CREAT | O_RDWR | O_TRUNC, 0644);
	long size = 5 * PG + 17;
	if (fd < 0 || ftruncate(fd, size) < 0)
		return -errno;
	unsigned char *m = mmap(0, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	long zero = 1;
	for (long i = 0; i < size; i++) {
		zero &= m[i] == 0;
		m[i] = wbyte(3, i);
	}
	long r = msync(m, size, MS_SYNC) < 0 || munmap(m, size) < 0 ? -errno : zero;
	close(fd);
	return r;
}

/* System calls whose buffers are untouched pages of file maps (their
   blocks long evicted by private_maps' 16 MiB): write(2) from a map of
   /big to /copy, then read(2) from /copy into another such map. */
static void copies(void)
{
	long n = 64 * 1024, ok = 0;
	int fd = open("/big", O_RDONLY), out = open("/copy", O_CREAT | O_RDWR | O_TRUNC, 0644);
	uint64_t *m = mmap(0, 2 * n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 32 * PG);
	CHECK(fd >= 0 && out >= 0 && m != MAP_FAILED);
	long w = m == MAP_FAILED ? -1 : write(out, m, n);
	result_int(&R, "write_from_map", err(w));
	if (w == n && lseek(out, 0, SEEK_SET) == 0) {
		long r = read(out, m + n / 8, n);        /* into the map's second, untouched half */
		result_int(&R, "read_into_map", err(r));
		ok = r == n && big_ok(m, 32 * PG, n) && big_ok(m + n / 8, 32 * PG, n);
	}
	result_int(&R, "copies_ok", ok);
	CHECK(m == MAP_FAILED || munmap(m, 2 * n) == 0);
	close(fd);
	close(out);
}

static void errors(void)
{
	int ro = open("/rw1", O_RDONLY), wo = open("/rw1", O_WRONLY), dir = open("/", O_RDONLY);
	CHECK(ro >= 0 && wo >= 0 && dir >= 0);
	result_int(&R, "e_bad_fd", err((long)mmap(0, PG, PROT_READ, MAP_SHARED, 77, 0)));
	result_int(&R, "e_neg_fd", err((long)mmap(0, PG, PROT_READ, MAP_SHARED, -1, 0)));
	int gone = open("/rw1", O_RDONLY);
	close(gone);
	result_int(&R, "e_closed_fd", err((long)mmap(0, PG, PROT_READ, MAP_PRIVATE, gone, 0)));
	result_int(&R, "e_shared_write_rdonly", err((long)mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0)));
	result_int(&R, "e_wronly", err((long)mmap(0, PG, PROT_READ, MAP_PRIVATE, wo, 0)));
	result_int(&R, "e_odd_offset", err((long)mmap(0, PG, PROT_READ, MAP_PRIVATE, ro, 100)));
	result_int(&R, "e_neg_offset", err((long)mmap(0, PG, PROT_READ, MAP_PRIVATE, ro, -PG)));
	result_int(&R, "e_zero_len", err((long)mmap(0, 0, PROT_READ, MAP_PRIVATE, ro, 0)));
	result_int(&R, "e_dir", err((long)mmap(0, PG, PROT_READ, MAP_PRIVATE, dir, 0)));
	result_int(&R, "e_console", err((long)mmap(0, PG, PROT_READ, MAP_PRIVATE, 1, 0)));
	/* the raw calls (on the kernel's descriptor): what ulib does not check */
	int k = __fd_kfd(ro);
	result_int(&R, "e_raw_flags", syscall6(SYS_fmap, 0, PG, PROT_READ, 2, k, 0));
	result_int(&R, "e_raw_prot", syscall6(SYS_fmap, 0, PG, 8, 0, k, 0));
	result_int(&R, "e_raw_kernel_addr", syscall6(SYS_fmap, (long)0xffff800000000000UL, PG, PROT_READ, 0, k, 0));
	result_int(&R, "e_raw_wrap", syscall6(SYS_fmap, 0, PG, PROT_READ, 0, k, (long)(~0UL - PG + 1)));
	/* a private writable map of a read-only descriptor is allowed */
	void *p = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	result_int(&R, "private_write_rdonly", p != MAP_FAILED);
	result_int(&R, "e_msync_odd", err(msync((char *)p + 1, PG, MS_SYNC)));
	result_int(&R, "e_msync_flags", err(msync(p, PG, MS_SYNC | MS_ASYNC)));
	result_int(&R, "e_msync_raw_flags", syscall3(SYS_msync, p, PG, 2));
	result_int(&R, "msync_private", err(msync(p, PG, MS_ASYNC)));
	CHECK(p == MAP_FAILED || munmap(p, PG) == 0);
	/* shared through a read-only descriptor: it may not be made
	   writable (EACCES, as Linux), so no store reaches the file */
	unsigned char *q = mmap(0, PG, PROT_READ, MAP_SHARED, ro, 0), b = 0;
	long ok = q != MAP_FAILED && mprotect(q, PG, PROT_READ | PROT_WRITE) == -1 && errno == EACCES &&
		  msync(q, PG, MS_SYNC) == 0 && munmap(q, PG) == 0 && pread(ro, &b, 1, 0) == 1 && b != 0x5a;
	result_int(&R, "shared_rdonly_stays", ok);
	/* a 64 GiB shared map of a 12 KiB file: one page touched, msync and
	   munmap of the whole (their walks go by mapped page, not by page) */
	int rw = open("/rw1", O_RDWR);
	unsigned char *h = mmap(0, 64UL << 30, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
	ok = h != MAP_FAILED;
	if (ok) {
		uint64_t t0 = sys_time();
		h[1] = h[1];
		ok = msync(h, 64UL << 30, MS_ASYNC) == 0 && munmap(h, 64UL << 30) == 0;
		result_uint(&R, "huge_ns", sys_time() - t0);
	}
	result_int(&R, "huge_map", ok);
	close(rw);
	close(ro);
	close(wo);
	close(dir);
}

/* `exitwrite`: /rw3 written through a shared map, then exit() without
   msync or munmap (ulib's exit writes it back). */
static int exitwrite(void)
{
	int fd = open("/rw3", O_RDWR);
	unsigned char *m = fd < 0 ? MAP_FAILED : mmap(0, RWSIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	for (long i = 0; i < RWSIZE; i++)
		m[i] = wbyte(4, i);
	exit(0);
}

/* Run exitwrite as a child; 1 if /rw3 then reads as it wrote. */
static long at_exit(void)
{
	char *args[] = { "fmaptest", "exitwrite", 0 };
	long id = sys_spawn("fmaptest", 2, (const char *const *)args);
	int st = -2;
	if (id < 0 || sys_wait((int)id, &st) != id || st != 0)
		return -1;
	unsigned char b[RWSIZE];
	int fd = open("/rw3", O_RDONLY);
	long n = pread(fd, b, RWSIZE, 0), ok = n == RWSIZE;
	for (long i = 0; ok && i < n; i++)
		ok = b[i] == wbyte(4, i);
	close(fd);
	return ok;
}

/* madvise(MADV_DONTNEED) on file maps of /rw1: a private page comes
   back from the file (its store gone), a shared one keeps its store
   (written back first). 1 if both do. */
static long dontneed(void)
{
	int fd = open("/rw1", O_RDWR);
	unsigned char *p = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	unsigned char *s = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd < 0 || p == MAP_FAILED || s == MAP_FAILED)
		return -errno;
	p[10] = 0xa5;
	s[20] = 0x5a;
	long ok = madvise(p, PG, MADV_DONTNEED) == 0 && madvise(s, PG, MADV_DONTNEED) == 0 &&
		  p[10] == wbyte(1, 10) && s[20] == 0x5a;
	s[20] = wbyte(1, 20);                    /* the file as the test expects it */
	ok = ok && munmap(s, PG) == 0 && munmap(p, PG) == 0;
	close(fd);
	return ok;
}

/* A map of /big made before fork(): the child touches a page the parent
   never did (it reads from the file) and one the parent stored to (its
   copy of the parent's page). 1 if the child saw both right. */
static long forked(void)
{
	int fd = open("/big", O_RDONLY);
	uint64_t *m = mmap(0, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 40 * PG);
	if (fd < 0 || m == MAP_FAILED)
		return -errno;
	m[0] = 777;
	pid_t pid = fork();
	if (pid == 0)
		_exit(m[PG / 8 * 3] == (40 * PG / 8 + PG / 8 * 3) * GOLD && m[0] == 777 ? 0 : 1);
	int st = -1;
	long ok = pid > 0 && waitpid(pid, &st, 0) == pid && st == 0;
	munmap(m, 4 * PG);
	close(fd);
	return ok;
}

static void basic(void)
{
	private_maps();
	result_int(&R, "shared_msync", shared_map("/rw1", 1, 1));
	result_int(&R, "shared_munmap", shared_map("/rw2", 2, 0));
	result_int(&R, "new_file", new_file());
	result_int(&R, "shared_at_exit", at_exit());
	result_int(&R, "dontneed", dontneed());
	result_int(&R, "forked", forked());
	copies();
	errors();
}

/* --- coherence of one space's file calls and its own shared map --- */

#define COHSIZE (3 * PG + 100)

static void *coherent(void *arg)
{
	static unsigned char b[4 * PG];
	int fd = open("/coh", O_CREAT | O_RDWR | O_TRUNC, 0644);
	for (long i = 0; i < COHSIZE; i++)
		b[i] = wbyte(5, i);
	CHECK(fd >= 0 && write(fd, b, COHSIZE) == COHSIZE);
	unsigned char *m = mmap(0, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED) {
		result_end(&R);
		return arg;
	}
	CHECK(m[PG + 100] == wbyte(5, PG + 100));            /* (the page is mapped now) */
	m[10] = 'A';
	m[PG + 5] = 'B';
	m[2 * PG + 1] = 'C';
	m[3 * PG + 2] = 'E';            /* (the last page, partial: its write-back reads the block) */
	/* read and pread see the stores, no msync between; /big read first
	   (eight times the cache) so the write-back waits for the disk and
	   the call runs again (the thread or the VP blocks) */
	CHECK(fsync(fd) == 0);                               /* (clean: the cache may drop them) */
	int big = open("/big", O_RDONLY);
	for (long at = 0; big >= 0 && pread(big, b, sizeof b, at) == sizeof b; at += sizeof b)
		;
	CHECK(big >= 0 && close(big) == 0);
	uint64_t w0 = vp_pseudo()->unblocks + vp_pseudo()->blocks;
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, b, 16) == 16);
	result_uint(&R, "read_waits", vp_pseudo()->unblocks + vp_pseudo()->blocks - w0);
	long ok = b[10] == 'A' && b[9] == wbyte(5, 9);
	CHECK(pread(fd, b, 8, PG + 2) == 8);
	result_int(&R, "read_sees_store", ok && b[3] == 'B');
	/* a pwrite over a mapped, touched page: the map shows it */
	CHECK(pwrite(fd, "XYZ", 3, PG + 100) == 3);
	result_int(&R, "map_sees_pwrite", !memcmp(m + PG + 100, "XYZ", 3) && m[PG + 5] == 'B' &&
		   m[PG + 99] == wbyte(5, PG + 99));
	/* smaller, then larger: zeros past the cut, through read and the map;
	   the store at 2 PG + 1 went with the cut */
	CHECK(ftruncate(fd, PG + 50) == 0 && ftruncate(fd, COHSIZE) == 0);
	memset(b, 0x55, sizeof b);
	CHECK(pread(fd, b, COHSIZE, 0) == COHSIZE);
	ok = b[10] == 'A' && b[PG + 5] == 'B' && b[PG + 49] == wbyte(5, PG + 49);
	for (long i = PG + 50; i < COHSIZE; i++)
		ok = ok && b[i] == 0 && m[i] == 0;
	result_int(&R, "truncate_zeros", ok && m[PG + 5] == 'B' && m[10] == 'A');
	m[3 * PG + 1] = 'D';                                 /* written back by munmap */
	CHECK(munmap(m, 4 * PG) == 0);
	CHECK(pread(fd, b, COHSIZE, 0) == COHSIZE);
	result_int(&R, "after_unmap", b[2 * PG + 1] == 0 && b[3 * PG + 1] == 'D' && b[PG + 100] == 0);
	close(fd);
	result_int(&R, "failures", failures);
	result_end(&R);
	return arg;
}

/* --- random touches from threads --- */

static int rn, rreads;
static const char *rpath, *rpkg;
static const uint64_t *rmap;
static uint64_t rpages;
static volatile long rbad;

static void *rthread(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg * 2654435761u + 7;
	for (int i = 0; i < rreads; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		uint64_t at = s % rpages * PG;
		if (rmap[at / 8 + 5] != (at / 8 + 5) * GOLD)   /* the touch */
			__atomic_fetch_add(&rbad, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

static void *rmain(void *arg)
{
	const struct pkg *p = pkg_find(rpkg);
	struct thread *t[512];
	int fd = open(rpath, O_RDONLY);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	rpages = st.st_size / PG;
	rmap = mmap(0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(rmap != MAP_FAILED && rpages > 0);
	uint64_t b0 = vp_pseudo()->blocks, u0 = vp_pseudo()->unblocks, t0 = sys_time();
	for (int i = 0; rmap != MAP_FAILED && i < rn; i++)
		t[i] = p->create(rthread, (void *)(intptr_t)(i + 1), 0);
	for (int i = 0; rmap != MAP_FAILED && i < rn; i++)
		thread_join(t[i]);
	result_str(&R, "pkg", rpkg);
	result_int(&R, "threads", rn);
	result_int(&R, "touches", (long)rn * rreads);
	result_int(&R, "bad", rbad);
	result_int(&R, "max_in_flight", sys_getinfo(INFO_DISK_FLIGHT));
	result_uint(&R, "ns", sys_time() - t0);
	result_uint(&R, "vp_blocks", vp_pseudo()->blocks - b0);
	result_uint(&R, "vp_unblocks", vp_pseudo()->unblocks - u0);
	CHECK(rbad == 0);
	result_int(&R, "failures", failures);
	result_end(&R);
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	result_begin(&R, "fmaptest");
	result_str(&R, "mode", mode);
	if (!strcmp(mode, "exitwrite"))
		return exitwrite();
	if (!strcmp(mode, "basic")) {
		basic();
	} else if (!strcmp(mode, "child")) {
		long before = avail_settled(1);
		char *args[] = { "fmaptest", argc > 2 ? argv[2] : "basic", argc > 3 ? argv[3] : 0, 0 };
		long id = sys_spawn("fmaptest", argc > 3 ? 3 : 2, (const char *const *)args);
		int st = -2;
		result_int(&R, "child", id < 0 ? id : sys_wait((int)id, &st) == id ? st : -999);
		result_int(&R, "avail_lost", before - avail_settled(1));
	} else if (!strcmp(mode, "coherent") && argc > 2) {
		if (!pkg_find(argv[2]))
			return 2;
		pkg_find(argv[2])->run(1, coherent, 0);
		return failures ? 1 : 0;
	} else if (!strcmp(mode, "random") && argc > 5) {
		rpkg = argv[2];
		rn = atoi(argv[3]);
		rreads = atoi(argv[4]);
		rpath = argv[5];
		if (!pkg_find(rpkg) || rn < 1 || rn > 512)
			return 2;
		pkg_find(rpkg)->run(1, rmain, 0);
		return failures ? 1 : 0;
	} else {
		printf("fmaptest: unknown mode '%s'\n", mode);
		return 2;
	}
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures ? 1 : 0;
}
