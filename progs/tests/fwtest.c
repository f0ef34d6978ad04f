/*
 * fwtest MODE ...: writing files on the disk's ext2 file system through
 * ulib's POSIX calls (write, pwrite, O_CREAT/O_EXCL/O_TRUNC/O_APPEND,
 * ftruncate, truncate, fsync, unlink, mkdir, rmdir; kernel/ext2w.c).
 * Prints @result {"name": "fwtest", ...}; the harness then checks the
 * image with e2fsck -fn and compares the files it brings back
 * (harness/tests/test_ext2write.py knows what each should hold).
 *
 *   script LARGE SPARSE  the fixed script below: /w/... files, one of
 *                        LARGE bytes, one with 4 bytes at SPARSE; every
 *                        step's result, and the errors bad calls give
 *   fill CHUNK           write /fill in CHUNK pieces until it fails
 *                        (ENOSPC): the bytes written; then unlink it and
 *                        fill again: the same bytes fit
 *   append PKG N K       N threads of PKG each append K 64-byte records
 *                        to its own /t/N (O_APPEND, a descriptor each)
 *   mem MODE ARGS...     run fwtest MODE ARGS as a child and report whether
 *                        available memory came back exactly after it
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <animart/sys.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include <anima/file.h>
#include <avail.h>

static struct result R;
static int failures;

#define ERR(call) ((call) < 0 ? -errno : 0)
#define CHECK(c) do { if (!(c)) { failures++; \
	printf("fwtest: check failed: %s (line %d)\n", #c, __LINE__); } } while (0)

/* Byte i of the pattern `seed` (the test computes the same). */
static unsigned char pat(uint32_t seed, uint64_t i)
{
	return (unsigned char)(((uint32_t)i * 2654435761u + seed * 40503u) >> 13);
}

/* path made (O_TRUNC) to hold size bytes of pattern seed, written in
   chunk-byte writes: 0 or -errno. */
static long wfile(const char *path, uint32_t seed, long size, long chunk)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	unsigned char *buf = malloc((size_t)chunk);
	long r = 0;
	for (long at = 0; at < size && !r;) {
		long k = size - at < chunk ? size - at : chunk;
		for (long i = 0; i < k; i++)
			buf[i] = pat(seed, (uint64_t)(at + i));
		long w = write(fd, buf, (size_t)k);
		r = w == k ? 0 : w < 0 ? -errno : -1000;
		at += k;
	}
	free(buf);
	close(fd);
	return r;
}

/* path holds size bytes of pattern seed (read back through the cache). */
static int rcheck(const char *path, uint32_t seed, long size)
{
	int fd = open(path, O_RDONLY);
	unsigned char buf[4096];
	long at = 0, r;
	if (fd < 0)
		return 0;
	while ((r = read(fd, buf, sizeof buf)) > 0)
		for (long i = 0; i < r; i++, at++)
			if (buf[i] != pat(seed, (uint64_t)at)) {
				close(fd);
				return 0;
			}
	close(fd);
	return r == 0 && at == size;
}

static void step(const char *name, long r)
{
	result_int(&R, name, r);
}

static void appends(void)
{
	int fd = -1;
	long r = 0;
	char line[32];
	for (int k = 0; k < 200 && !r; k++) {
		if (k % 50 == 0) {
			if (fd >= 0)
				close(fd);
			if ((fd = open("/w/log", O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
				r = -errno;
		}
		int n = snprintf(line, sizeof line, "record %d\n", k);
		if (!r && write(fd, line, (size_t)n) != n)
			r = -errno;
	}
	close(fd);
	step("append", r);
}

static void truncs(void)
{
	step("trunc_write", wfile("/w/trunc", 3, 300000, 4096));
	int fd = open("/w/trunc", O_RDWR);
	struct stat st = { 0 };
	step("ftruncate", ERR(ftruncate(fd, 5000)));
	step("pwrite_past", pwrite(fd, "X", 1, 10000));
	fstat(fd, &st);
	step("trunc_size", st.st_size);
	close(fd);
	step("trunc2_write", wfile("/w/trunc2", 4, 100000, 10000));
	fd = open("/w/trunc2", O_WRONLY | O_TRUNC);
	step("otrunc_write", write(fd, "abc", 3));
	close(fd);
	step("trunc3_write", wfile("/w/trunc3", 5, 100, 100));
	step("truncate_grow", ERR(truncate("/w/trunc3", 3000)));
}

static void dirs(void)
{
	char path[96];
	step("mkdir_a", ERR(mkdir("/w/a", 0755)));
	step("mkdir_b", ERR(mkdir("/w/a/b", 0755)));
	step("mkdir_c", ERR(mkdir("/w/a/b/c/", 0700)));
	step("deep", wfile("/w/a/b/c/deep", 6, 5000, 999));
	step("mkdir_many", ERR(mkdir("/w/many", 0755)));
	long r = 0;
	for (int i = 0; i < 200 && !r; i++) {
		snprintf(path, sizeof path, "/w/many/file-with-a-longer-name-%03d", i);
		r = wfile(path, 100 + (uint32_t)i, i * 37L, 4096);
	}
	step("many", r);
	for (int i = 1; i < 200 && !r; i += 2) {
		snprintf(path, sizeof path, "/w/many/file-with-a-longer-name-%03d", i);
		r = ERR(unlink(path));
	}
	step("unlink_odd", r);
	step("gone_write", wfile("/w/gone", 7, 200000, 65536));
	step("gone_unlink", ERR(unlink("/w/gone")));
	struct stat st;
	step("gone_stat", ERR(stat("/w/gone", &st)));
	step("mkdir_empty", ERR(mkdir("/w/empty", 0755)));
	step("rmdir_empty", ERR(rmdir("/w/empty")));
	step("rmdir_gone", ERR(stat("/w/empty", &st)));
	step("mkdir_e2", ERR(mkdir("/w/e2", 0755)));
	step("rmdir_slash", ERR(rmdir("/w/e2/")));
	step("r1_write", wfile("/w/r1", 10, 3000, 1000));
	step("rename_same_dir", ERR(rename("/w/r1", "/w/r1b")));
	step("rename_across", ERR(rename("/w/r1b", "/w/a/b/r1c")));
	step("r2_write", wfile("/w/r2", 11, 5000, 1000));
	step("r3_write", wfile("/w/r3", 12, 200000, 65536));
	step("rename_replace", ERR(rename("/w/r2", "/w/r3")));
	step("r2_gone", ERR(stat("/w/r2", &st)));
	step("mkdir_d1", ERR(mkdir("/w/d1", 0755)));
	step("d1_file", wfile("/w/d1/f", 13, 100, 100));
	step("rename_dir", ERR(rename("/w/d1", "/w/a/d2")));
	step("e_rename_into_self", ERR(rename("/w/a", "/w/a/b/x")));
	step("e_rename_missing", ERR(rename("/w/nope", "/w/x")));
	step("e_rename_over_dir", ERR(rename("/w/small", "/w/a")));
}

static void errors(void)
{
	char name[300];
	memset(name, 'x', sizeof name);
	memcpy(name, "/w/", 3);
	name[sizeof name - 1] = 0;
	step("e_excl", ERR(open("/w/small", O_CREAT | O_EXCL | O_WRONLY, 0644)));
	step("e_mkdir_exists", ERR(mkdir("/w", 0755)));
	step("e_mkdir_dot", ERR(mkdir("/w/.", 0755)));
	step("e_unlink_missing", ERR(unlink("/w/nope")));
	step("e_unlink_dir", ERR(unlink("/w/a")));
	step("e_rmdir_file", ERR(rmdir("/w/small")));
	step("e_rmdir_notempty", ERR(rmdir("/w/a")));
	step("e_open_dir_w", ERR(open("/w", O_WRONLY)));
	step("e_long_name", ERR(open(name, O_CREAT | O_WRONLY, 0644)));
	step("e_under_file", ERR(open("/w/small/x", O_CREAT | O_WRONLY, 0644)));
	step("e_missing_dir", ERR(open("/w/nodir/x", O_CREAT | O_WRONLY, 0644)));
	int fd = open("/w/small", O_RDONLY);
	step("e_write_rdonly", ERR(write(fd, "x", 1)));
	step("e_ftruncate_rdonly", ERR(ftruncate(fd, 0)));
	close(fd);
	fd = open("/w/small", O_WRONLY);
	int kfd = (int)syscall3(SYS_file_open, "/w/small", 1, 0);
	step("e_bad_buf", syscall3(SYS_file_write, kfd, 8, 10));
	step("e_kernel_buf", syscall3(SYS_file_write, kfd, 0xffff800000000000UL, 10));
	step("e_pwrite_neg", ERR(pwrite(fd, "x", 1, -1)));
	step("e_efbig", ERR(pwrite(fd, "x", 1, 1LL << 50)));
	step("e_raw_bad_fd", syscall3(SYS_file_write, 63, "x", 1));
	step("e_bad_fd", ERR(write(99, "x", 1)));
	step("fsync", ERR(fsync(fd)));
	step("e_fsync_console", ERR(fsync(1)));
	syscall1(SYS_file_close, kfd);
	close(fd);
}

static void script(long large, long sparse)
{
	step("mkdir_w", ERR(mkdir("/w", 0755)));
	step("small", wfile("/w/small", 1, 12, 12));
	step("large", wfile("/w/large", 2, large, 7777));
	step("large_readback", rcheck("/w/large", 2, large));
	appends();
	truncs();
	dirs();
	int fd = open("/w/sparse", O_CREAT | O_RDWR, 0644);
	char tail[5] = { 0 };
	struct stat st = { 0 };
	step("sparse", pwrite(fd, "tail", 4, sparse));
	step("sparse_read", pread(fd, tail, 4, sparse) == 4 && !strcmp(tail, "tail") &&
			    !fstat(fd, &st) && st.st_size == sparse + 4);
	close(fd);
	errors();
}

static long fill(long chunk, const char *key)
{
	int fd = open("/fill", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	unsigned char *buf = malloc((size_t)chunk);
	long at = 0, w;
	for (;;) {
		for (long i = 0; i < chunk; i++)
			buf[i] = pat(9, (uint64_t)(at + i));
		if ((w = write(fd, buf, (size_t)chunk)) <= 0)
			break;
		at += w;
		if (w < chunk) {
			w = write(fd, buf + w, 1);     /* the next byte fails */
			break;
		}
	}
	result_int(&R, key, w < 0 ? errno : 0);
	free(buf);
	close(fd);
	return at;
}

/* --- appends from threads --- */

static int an, ak;
static volatile long aerr;

static void *athread(void *arg)
{
	int id = (int)(intptr_t)arg;
	char path[32], rec[65];
	snprintf(path, sizeof path, "/t/%d", id);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	for (int k = 0; k < ak && fd >= 0; k++) {
		snprintf(rec, sizeof rec, "%-63s\n", "");
		int n = snprintf(rec, sizeof rec, "thread %d record %d", id, k);
		rec[n] = ' ';
		if (write(fd, rec, 64) != 64)
			__atomic_fetch_add(&aerr, 1, __ATOMIC_RELAXED);
	}
	if (fd < 0 || close(fd) < 0)
		__atomic_fetch_add(&aerr, 1, __ATOMIC_RELAXED);
	return arg;
}

static const char *apkg;

static void *amain(void *arg)
{
	const struct pkg *p = pkg_find(apkg);
	struct thread *t[256];
	mkdir("/t", 0755);
	for (int i = 0; i < an; i++)
		t[i] = p->create(athread, (void *)(intptr_t)i, 0);
	for (int i = 0; i < an; i++)
		thread_join(t[i]);
	result_int(&R, "errors", aerr);
	result_int(&R, "failures", failures);
	result_end(&R);              /* (the package's run ends the program) */
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	result_begin(&R, "fwtest");
	result_str(&R, "mode", mode);
	if (!strcmp(mode, "script") && argc > 3) {
		script(atol(argv[2]), atol(argv[3]));
	} else if (!strcmp(mode, "fill") && argc > 2) {
		long a = fill(atol(argv[2]), "fill_errno");
		result_int(&R, "filled", a);
		result_int(&R, "unlink", ERR(unlink("/fill")));
		result_int(&R, "refilled", fill(atol(argv[2]), "refill_errno"));
		CHECK(a > 0);
	} else if (!strcmp(mode, "append") && argc > 4) {
		apkg = argv[2];
		an = atoi(argv[3]);
		ak = atoi(argv[4]);
		if (!pkg_find(apkg) || an < 1 || an > 256)
			return 2;
		pkg_find(apkg)->run(1, amain, 0);
	} else if (!strcmp(mode, "mem") && argc > 2) {
		long before = avail_settled(1);
		long id = sys_spawn("fwtest", argc - 1, (const char *const *)argv + 1);
		int st = -2;
		result_int(&R, "child", id < 0 ? id : sys_wait((int)id, &st) == id ? st : -999);
		result_int(&R, "avail_lost", before - avail_settled(1));
	} else {
		printf("fwtest: unknown mode '%s'\n", mode);
		return 2;
	}
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures ? 1 : 0;
}
