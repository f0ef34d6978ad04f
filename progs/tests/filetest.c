/*
 * filetest MODE ...: files on the disk's ext2 file system through ulib's
 * POSIX calls (open, read, pread, lseek, fstat, stat, close) and the raw
 * system calls under them (docs/files.md). Prints
 * @result {"name": "filetest", ...}.
 *
 *   cat CHUNK PATH...   read each file whole in CHUNK-byte reads: its size
 *                       and FNV-1a hash (the test compares the host's)
 *   errors DIR FILE     every error a bad path, descriptor, pointer or
 *                       offset gives (DIR a directory, FILE a regular file)
 *   random PKG N R PATH N threads of PKG on one VP, each pread-ing R random
 *                       4 KiB pieces of PATH, whose 64-bit word at byte
 *                       8k is k * 0x9e3779b97f4a7c15: checked; the most
 *                       requests in flight (SYS_disk DISK_INFO: boot with
 *                       rawdisk)
 *   walk PATH...        open, stat and read each path, then list the whole
 *                       tree (opendir/readdir) reading every file not read
 *                       to its end before; every call's result (a damaged
 *                       image: errors, never a hang or panic)
 *   memwalk PATH...     run `walk` as a child and report whether available
 *                       memory came back exactly after it ended
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dirent.h>
#include <animart/sys.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include <avail.h>
#include <animart/upcall.h>
#include <anima/file.h>

static struct result R;
static int failures;

#define CHECK(c) do { if (!(c)) { failures++; \
	printf("filetest: check failed: %s (line %d)\n", #c, __LINE__); } } while (0)

static uint64_t fnv(uint64_t h, const unsigned char *p, long n)
{
	for (long i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static void cat(int chunk, int n, char **paths)
{
	char *buf = malloc(chunk);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = sys_time();
		int fd = open(paths[i], O_RDONLY);
		uint64_t h = 0xcbf29ce484222325ULL, size = 0;
		long r = 0;
		if (fd >= 0)
			while ((r = read(fd, buf, chunk)) > 0) {
				h = fnv(h, (unsigned char *)buf, r);
				size += r;
			}
		uint64_t ns = sys_time() - t0;
		struct stat st = { 0 };
		CHECK(fd < 0 || fstat(fd, &st) == 0);
		result_begin(&R, "filetest");
		result_str(&R, "mode", "cat");
		result_str(&R, "path", paths[i]);
		result_int(&R, "open", fd < 0 ? -errno : 0);
		result_int(&R, "last_read", r < 0 ? -errno : r);
		result_uint(&R, "size", size);
		result_uint(&R, "st_size", st.st_size);
		result_uint(&R, "mode_bits", st.st_mode);
		char hex[20];
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
		result_str(&R, "hash", hex);
		result_uint(&R, "ns", ns);         /* open to the last read: for measurements */
		result_end(&R);
		if (fd >= 0)
			CHECK(close(fd) == 0);
	}
}

#define ERR(call) ((call) < 0 ? -errno : 0)

static void errors(const char *dir, const char *file)
{
	char buf[64], path[1100];
	struct stat st;
	result_int(&R, "missing", ERR(open("/no/such/file", O_RDONLY)));
	result_int(&R, "empty_path", ERR(open("", O_RDONLY)));
	snprintf(path, sizeof path, "%s/x", file);
	result_int(&R, "through_file", ERR(open(path, O_RDONLY)));
	result_int(&R, "write_existing", ERR(open(file, O_WRONLY | O_CREAT | O_EXCL, 0644)));
	result_int(&R, "create", ERR(open("/no/such/dir/new-file", O_WRONLY | O_CREAT, 0644)));
	result_int(&R, "not_dir", ERR(open(file, O_RDONLY | O_DIRECTORY)));
	memset(path, 'a', 300);
	path[0] = '/', path[300] = 0;
	result_int(&R, "long_name", ERR(open(path, O_RDONLY)));
	memset(path, 'a', sizeof path);
	for (int i = 0; i < 1090; i += 10)
		path[i] = '/';
	path[1090] = 0;
	result_int(&R, "long_path", ERR(open(path, O_RDONLY)));
	result_int(&R, "bad_path_ptr", syscall2(SYS_file_open, 1, 0));
	result_int(&R, "kernel_path_ptr", syscall2(SYS_file_open, 0xffff800000000000UL, 0));
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	result_int(&R, "dir_open", d < 0 ? -errno : 0);
	result_int(&R, "dir_read", ERR(read(d, buf, sizeof buf)));
	result_int(&R, "dir_is_dir", fstat(d, &st) == 0 && S_ISDIR(st.st_mode));
	close(d);
	int fd = open(file, O_RDONLY);
	result_int(&R, "bad_buf", ERR(read(fd, (void *)1, 16)));
	result_int(&R, "kernel_buf", ERR(read(fd, (void *)0xffff800000000000UL, 16)));
	result_int(&R, "neg_seek", ERR(lseek(fd, -1, SEEK_SET)));
	result_int(&R, "bad_whence", ERR(lseek(fd, 0, 7)));
	result_int(&R, "pread_past_end", pread(fd, buf, sizeof buf, 1L << 40));
	result_int(&R, "neg_pread", ERR(pread(fd, buf, sizeof buf, -5)));
	result_int(&R, "bad_stat_ptr", syscall2(SYS_file_fstat, 0, 1));
	result_int(&R, "stat_bad_ptr", syscall2(SYS_file_stat, file, 1));
	close(fd);
	result_int(&R, "closed_read", ERR(read(fd, buf, 1)));
	result_int(&R, "raw_bad_fd", syscall3(SYS_file_read, 99, buf, 1));
	result_int(&R, "raw_neg_fd", syscall3(SYS_file_read, -1, buf, 1));
	result_int(&R, "raw_close_twice", syscall1(SYS_file_close, 63));
	/* The kernel's table: MAXFILE_SPACE descriptors, then EMFILE. */
	long last = 0;
	int n = 0;
	for (; n < MAXFILE_SPACE + 2 && (last = syscall2(SYS_file_open, file, 0)) >= 0; n++)
		;
	result_int(&R, "opened", n);
	result_int(&R, "past_table", last);
	for (int i = 0; i < MAXFILE_SPACE; i++)
		syscall1(SYS_file_close, i);
	result_int(&R, "stat_missing", ERR(stat("/no/such", &st)));
	result_int(&R, "stat_file", stat(file, &st) == 0 ? (long)st.st_size : -errno);
}

/* --- random reads from threads --- */

static const char *rpath;
static int rn, rreads;
static volatile long rbad, rerr;

static int rfd;               /* one descriptor for all: pread leaves its offset alone */

static void *rthread(void *arg)
{
	int fd = rfd;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		__atomic_fetch_add(&rerr, 1, __ATOMIC_RELAXED);
		return arg;
	}
	uint64_t s = (uint64_t)(uintptr_t)arg * 2654435761u + 7, *buf = malloc(4096);
	uint64_t pieces = (uint64_t)st.st_size / 4096;
	for (int i = 0; i < rreads; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		uint64_t at = s % pieces * 4096;
		long got = pread(fd, buf, 4096, (off_t)at);
		if (got != 4096) {
			printf("filetest: pread at %lu: %ld (errno %d)\n", (unsigned long)at, got, errno);
			__atomic_fetch_add(&rerr, 1, __ATOMIC_RELAXED);
			continue;
		}
		for (int j = 0; j < 512; j++)
			if (buf[j] != (at / 8 + j) * 0x9e3779b97f4a7c15ULL) {
				__atomic_fetch_add(&rbad, 1, __ATOMIC_RELAXED);
				break;
			}
	}
	free(buf);
	return arg;
}

static const char *rpkg;

static void *rmain(void *arg)
{
	const struct pkg *p = pkg_find(rpkg);
	struct thread *t[512];
	rfd = open(rpath, O_RDONLY);
	uint64_t t0 = sys_time();
	for (int i = 0; i < rn; i++)
		t[i] = p->create(rthread, (void *)(intptr_t)(i + 1), 0);
	for (int i = 0; i < rn; i++)
		thread_join(t[i]);
	uint64_t ns = sys_time() - t0;
	uint64_t in[2] = { 0, 0 };
	long r = syscall3(SYS_disk, DISK_INFO, 0, in);
	result_str(&R, "pkg", rpkg);
	result_int(&R, "threads", rn);
	result_int(&R, "reads", (long)rn * rreads);
	result_int(&R, "errors", rerr);
	result_int(&R, "bad", rbad);
	result_int(&R, "max_in_flight", r ? r : (long)in[1]);
	result_uint(&R, "ns", ns);
	/* This VP's kernel counts: blocking operations started, and those
	   that ended in EV_UNBLOCKED (only the thread had blocked) */
	result_uint(&R, "vp_blocks", vp_pseudo()->blocks);
	result_uint(&R, "vp_unblocks", vp_pseudo()->unblocks);
	CHECK(rerr == 0 && rbad == 0);
	result_int(&R, "failures", failures);
	result_end(&R);
	return arg;
}

/* List dir and below (depth at most 8, 2,000 entries in all): a line per
   entry "filetest entry PATH DT_TYPE", or "filetest entry-error PATH -E".
   Files are read whole (their errors show as the read's), but for those
   walk's PATHs already read to their end or an error: the same inode
   (fstat after the open) read again is the same blocks, out of the
   cache, and the damaged-image test's walk read /sparse's 64 MiB of
   holes and /big twice a boot for nothing. */
static int listed;
static uint64_t readino[64];
static int nreadino;

static int read_before(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return 0;
	for (int i = 0; i < nreadino; i++)
		if (readino[i] == (uint64_t)st.st_ino)
			return 1;
	return 0;
}

static void tree(const char *dir, int depth, char *buf)
{
	DIR *d = opendir(dir);
	if (!d) {
		printf("filetest entry-error %s %d\n", dir, -errno);
		return;
	}
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d)) && listed++ < 2000) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		printf("filetest entry %s %d\n", path, e->d_type);
		if (e->d_type == DT_DIR && depth < 8)
			tree(path, depth + 1, buf);
		else if (e->d_type == DT_REG) {
			int fd = open(path, O_RDONLY);
			long r = 0, skip = fd >= 0 && read_before(fd);
			while (fd >= 0 && !skip && (r = read(fd, buf, 8192)) > 0)
				;
			if (fd < 0 || r < 0)
				printf("filetest entry-error %s %d\n", path, -errno);
			if (fd >= 0)
				close(fd);
		}
		errno = 0;
	}
	if (errno)
		printf("filetest entry-error %s %d\n", dir, -errno);
	closedir(d);
}

static void walk(int n, char **paths)
{
	char *buf = malloc(8192);
	for (int i = 0; i < n; i++) {
		struct stat st;
		long s = stat(paths[i], &st) < 0 ? -errno : 0;
		int fd = open(paths[i], O_RDONLY);
		long o = fd < 0 ? -errno : 0, r = 0, total = 0;
		while (fd >= 0 && (r = read(fd, buf, 8192)) > 0 && total < (128L << 20))
			total += r;
		if (fd >= 0) {
			r = r < 0 ? -errno : r;
			if (r <= 0 && s == 0 && S_ISREG(st.st_mode) && nreadino < 64)
				readino[nreadino++] = st.st_ino;   /* read to its end: tree skips it */
			close(fd);
		}
		printf("filetest walk %s: stat %ld open %ld read %ld bytes %ld\n", paths[i], s, o, r, total);
	}
	tree("/", 0, buf);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "cat") && argc > 3) {
		cat(atoi(argv[2]), argc - 3, argv + 3);
		return failures ? 1 : 0;
	}
	if (!strcmp(mode, "walk")) {
		walk(argc - 2, argv + 2);
		return 0;
	}
	result_begin(&R, "filetest");
	result_str(&R, "mode", mode);
	if (!strcmp(mode, "errors") && argc > 3) {
		errors(argv[2], argv[3]);
	} else if (!strcmp(mode, "random") && argc > 5) {
		rpkg = argv[2];
		rn = atoi(argv[3]);
		rreads = atoi(argv[4]);
		rpath = argv[5];
		if (!pkg_find(rpkg) || rn < 1 || rn > 512)
			return 2;
		pkg_find(rpkg)->run(1, rmain, 0);
	} else if (!strcmp(mode, "memwalk")) {
		long before = avail_settled(1);
		argv[1] = "walk";
		long id = sys_spawn("filetest", argc, (const char *const *)argv);
		int st = -2;
		result_int(&R, "child", id < 0 ? id : sys_wait((int)id, &st) == id ? st : -999);
		result_int(&R, "avail_lost", before - avail_settled(1));
	} else {
		printf("filetest: unknown mode '%s'\n", mode);
		return 2;
	}
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures ? 1 : 0;
}
