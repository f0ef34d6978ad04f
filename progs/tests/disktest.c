/*
 * disktest MODE ...: the virtio-blk driver and block cache through the raw
 * SYS_disk calls (the kernel must be booted with `rawdisk`). The harness
 * fills the image so that the 64-bit word j of block b holds
 * pattern(b, j) (harness/tests/test_disk.py); every block read here is
 * checked against it.
 *
 *   read B...          read blocks B..., check them
 *   write B V          write block B (every word V ^ j), sync; the host
 *                      checks the image afterwards
 *   dirty B V          write block B but do not sync: the halt must
 *   errors             bad block numbers, pointers and operations
 *   flight PKG N R     N threads of package PKG on one VP, each reading
 *                      R random blocks: how many requests were in flight
 *                      at once (the kernel counts; DISK_INFO)
 *   classic R          R random reads from a VP without upcalls: it blocks
 *                      whole, so one request at a time
 *   abandon PKG N      N threads start reading and the program exits at
 *                      once: the space ends with requests in flight
 * Prints @result {"name": "disktest", ...}; exits 0 if its own checks passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/pkg.h>
#include <animalib/result.h>

#define BS 4096
static int failures;
static uint64_t nblocks;
static struct result R;

#define CHECK(c) do { if (!(c)) { failures++; \
	printf("disktest: check failed: %s (line %d)\n", #c, __LINE__); } } while (0)

static uint64_t pattern(uint64_t b, uint64_t j)
{
	return b * 0x100000001ULL + j + 0x5a5a000000000000ULL;
}

static long disk(long op, uint64_t block, void *buf)
{
	return syscall3(SYS_disk, op, block, buf);
}

static void info(uint64_t out[2])
{
	long r = disk(DISK_INFO, 0, out);
	if (r) {
		printf("disktest: DISK_INFO = %ld\n", r);
		exit(2);
	}
}

static long last_err;

/* Read block b and check it; the number of bad words (or -1: the call failed). */
static long read_check(uint64_t b, uint64_t *buf)
{
	long r = disk(DISK_READ, b, buf);
	if (r) {
		last_err = r;
		printf("disktest: read %lu = %ld\n", (unsigned long)b, r);
		return -1;
	}
	long bad = 0;
	for (uint64_t j = 0; j < BS / 8; j++)
		bad += buf[j] != pattern(b, j);
	return bad;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int nreads;
static volatile long badreads;

static void *reader(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg * 2654435761u + 1;
	uint64_t *buf = malloc(BS);
	for (int i = 0; i < nreads; i++)
		if (read_check(next(&s) % nblocks, buf))
			__atomic_fetch_add(&badreads, 1, __ATOMIC_RELAXED);
	free(buf);
	return arg;
}

static void report_flight(const char *pkg, int n)
{
	uint64_t in[2];
	info(in);
	result_str(&R, "pkg", pkg);
	result_int(&R, "threads", n);
	result_int(&R, "reads", (long)n * nreads);
	result_int(&R, "bad_reads", badreads);
	result_uint(&R, "max_in_flight", in[1]);
	CHECK(badreads == 0);
}

static const char *flight_pkg;
static int flight_n;

static void *flight_main(void *arg)
{
	(void)arg;
	const struct pkg *p = pkg_find(flight_pkg);
	struct thread *t[1024];
	for (int i = 0; i < flight_n; i++)
		t[i] = p->create(reader, (void *)(intptr_t)(i + 1), 0);
	for (int i = 0; i < flight_n; i++)
		CHECK(t[i] && thread_join(t[i]) == (void *)(intptr_t)(i + 1));
	report_flight(flight_pkg, flight_n);
	result_int(&R, "failures", failures);
	result_end(&R);
	return (void *)(intptr_t)(failures ? 1 : 0);
}

static void *abandon_main(void *arg)
{
	const struct pkg *p = pkg_find(flight_pkg);
	for (int i = 0; i < flight_n; i++)
		p->create(reader, (void *)(intptr_t)(i + 1), 0);
	thread_yield();               /* they all start a read and block */
	uint64_t in[2];
	info(in);
	result_uint(&R, "max_in_flight", in[1]);
	result_end(&R);
	exit(0);                      /* with their requests still out */
	return arg;
}

static void fill(uint64_t *buf, uint64_t v)
{
	for (uint64_t j = 0; j < BS / 8; j++)
		buf[j] = v ^ j;
}

static void errors(uint64_t *buf)
{
	result_int(&R, "past_end", disk(DISK_READ, nblocks, buf));
	result_int(&R, "huge_block", disk(DISK_READ, ~0UL, buf));
	result_int(&R, "write_past_end", disk(DISK_WRITE, nblocks, buf));
	result_int(&R, "null_buf", disk(DISK_READ, 0, 0));
	result_int(&R, "kernel_buf", disk(DISK_READ, 0, (void *)0xffff800000000000UL));
	result_int(&R, "bad_op", disk(99, 0, buf));
	result_int(&R, "info_null", disk(DISK_INFO, 0, 0));
	result_int(&R, "still_reads", read_check(1, buf));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	uint64_t *buf = malloc(BS), in[2];
	result_begin(&R, "disktest");
	result_str(&R, "mode", mode);
	long r = disk(DISK_INFO, 0, in);
	result_int(&R, "info", r);
	if (r) {                      /* no rawdisk, or no disk: say which and stop */
		result_end(&R);
		return 0;
	}
	nblocks = in[0];
	result_uint(&R, "blocks", nblocks);
	if (!strcmp(mode, "read")) {      /* (a failed call: bad_words counts nothing) */
		long bad = 0, calls[16];
		int n = 0;
		for (int i = 2; i < argc && n < 16; i++, n++) {
			uint64_t b = strtoul(argv[i], 0, 0);
			long c = read_check(b, buf);
			calls[n] = c < 0 ? last_err : 0;
			bad += c > 0 ? c : 0;
		}
		char key[16];
		for (int i = 0; i < n; i++) {
			snprintf(key, sizeof key, "call%d", i);
			result_int(&R, key, calls[i]);
		}
		result_int(&R, "bad_words", bad);
		CHECK(bad == 0);
	} else if (!strcmp(mode, "write") || !strcmp(mode, "dirty")) {
		uint64_t b = strtoul(argv[2], 0, 0), v = strtoul(argv[3], 0, 0);
		fill(buf, v);
		result_int(&R, "write", disk(DISK_WRITE, b, buf));
		memset(buf, 0, BS);
		result_int(&R, "reread", disk(DISK_READ, b, buf));
		long bad = 0;
		for (uint64_t j = 0; j < BS / 8; j++)
			bad += buf[j] != (v ^ j);
		result_int(&R, "bad_words", bad);
		if (!strcmp(mode, "write"))
			result_int(&R, "sync", disk(DISK_SYNC, 0, 0));
	} else if (!strcmp(mode, "errors")) {
		errors(buf);
	} else if (!strcmp(mode, "flight") && argc > 4) {
		flight_pkg = argv[2];
		flight_n = atoi(argv[3]);
		nreads = atoi(argv[4]);
		if (!pkg_find(flight_pkg) || flight_n < 1 || flight_n > 1024) {
			printf("disktest: flight PKG N R: bad package or N\n");
			return 2;
		}
		pkg_find(flight_pkg)->run(1, flight_main, 0);
	} else if (!strcmp(mode, "abandon") && argc > 3) {
		const struct pkg *p = pkg_find(argv[2]);
		if (!p)
			return 2;
		flight_pkg = argv[2];
		flight_n = atoi(argv[3]);
		nreads = 1000;
		p->run(1, abandon_main, 0);
	} else if (!strcmp(mode, "classic") && argc > 2) {
		nreads = atoi(argv[2]);
		reader((void *)1);
		report_flight("none", 1);
	} else {
		printf("disktest: unknown mode '%s'\n", mode);
		return 2;
	}
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures ? 1 : 0;
}
