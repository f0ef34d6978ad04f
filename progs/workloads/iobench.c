/*
 * iobench PATH READS [seq=KIB] T...: file reads, the same source on
 * Anima and on Linux (built like the workloads, wl.h). PATH is a file
 * whose 64-bit word at byte 8k holds k (harness/ioexp.py makes it).
 * Phases, in this order, each run twice: "cold" and right after it
 * "warm", the same reads again in the same boot:
 *   rand.T   for each T given (e.g. 1 16 256 4096): T threads pread()
 *            READS / T random 4 KiB pieces each (every thread its own
 *            fixed sequence, so warm repeats cold's pieces; main is one
 *            of the T, so kthread's 256 are 256 VPs, its most): IOPS
 *   seq      PATH read whole in 1 MiB read()s (KIB KiB with seq=), one
 *            thread: MB/s
 * The random phases come first, fewest threads first, so the most
 * requests in flight so far (below) is each one's own.
 * One line per phase and pass:
 *   @result {"name": "io.seq.cold.SYSTEM", "unit": "MB/s", "value": V, ...}
 *   @result {"name": "io.rand.256.warm.SYSTEM", "unit": "IOPS", ...}
 * Every piece read is checked (its first and last word); a phase whose
 * threads could not all be made reports "value": null and why.
 *
 * Cold on Linux: the file's page cache is dropped before each cold pass
 * (posix_fadvise DONTNEED; the mount is read-only). Anima has no such
 * call: its block cache grows with free memory (a quarter of it at most),
 * so a cold pass finds what earlier phases read (bc_reads: the blocks the
 * phase read from the device; bc_kept: buffers kept for a waiting thread
 * and found by its call; kernel/bcache.c).
 * The in-flight maximum: Anima's kernel keeps the most requests ever in
 * flight since boot (SYS_disk DISK_INFO, boot with `rawdisk`), so each
 * phase reports the maximum so far, and the blocking operations main's VP
 * started (vp_waits: every wait for the disk when the package has one
 * VP; more than the reads when a block a thread waited for was reused
 * before the thread ran again). Linux reports, from
 * /sys/block/vda/stat, the read requests the phase made and the average
 * in flight (its weighted queue time over the phase's time).
 */
#include "wl.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef WL_ANIMA
#include <animart/sys.h>
#include <anima/syscall.h>
#include <animart/upcall.h>
#endif

#define PIECE 4096
#define CHUNK (1 << 20)                  /* the largest sequential read */
#define MAXT 4096
#define STACK (32 << 10)

static int fd;
static long chunk = CHUNK;               /* the sequential reads' size */
static uint64_t pieces;                  /* 4 KiB pieces in the file */
static long nreads;                      /* per thread, this phase */
static long bad, errs, again;            /* atomics */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, go;
static int failed;                       /* a read failed or a piece was wrong */

/* The device's counts: Anima's most in flight since boot and main's
   VP's waits, and its block cache's device reads and buffers kept for
   their waiters (INFO_BCACHE); Linux's read requests, sectors and
   weighted ms in queue. */
struct dev {
	long max_in_flight, vp_waits, reqs, sectors, queue_ms, bc_reads, bc_kept;
};

static void dev_now(struct dev *d)
{
	*d = (struct dev){ -1, -1, -1, -1, -1, -1, -1 };
#ifdef WL_ANIMA
	uint64_t in[2] = { 0, 0 };
	if (syscall3(SYS_disk, DISK_INFO, 0, in) == 0)
		d->max_in_flight = (long)in[1];
	d->vp_waits = (long)vp_pseudo()->blocks;
	d->bc_reads = syscall2(SYS_getinfo, INFO_BCACHE, BC_READS);
	d->bc_kept = syscall2(SYS_getinfo, INFO_BCACHE, BC_KEPT);
#else
	FILE *f = fopen("/sys/block/vda/stat", "r");
	long v[11];
	if (f && fscanf(f, "%ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", &v[0], &v[1], &v[2],
			&v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]) == 11)
		d->reqs = v[0], d->sectors = v[2], d->queue_ms = v[10];
	if (f)
		fclose(f);
#endif
}

static void drop_cache(void)
{
#ifndef WL_ANIMA
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
#endif
}

/* The piece's first and last words must be its index's. */
static int piece_ok(const uint64_t *w, uint64_t at)
{
	return w[0] == at / 8 && w[PIECE / 8 - 1] == at / 8 + PIECE / 8 - 1;
}

static long pread_all(void *buf, uint64_t at)
{
	for (;;) {
		long got = pread(fd, buf, PIECE, (off_t)at);
		if (got >= 0 || errno != EAGAIN)
			return got;
		/* Anima: more than MAXKOP_SPACE (1,024) of the space's threads
		   waiting for the disk at once (docs/files.md, Limits) */
		__atomic_fetch_add(&again, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
}

/* Reader `id`'s reads: its own fixed sequence of pieces. */
static void reads(uintptr_t id)
{
	uint64_t s = id * 0x2545f4914f6cdd1dull + 1;
	uint64_t buf[PIECE / 8];
	for (long i = 0; i < nreads; i++) {
		uint64_t at = wl_rand(&s) % pieces * PIECE;
		long got = pread_all(buf, at);
		if (got != PIECE)
			__atomic_fetch_add(&errs, 1, __ATOMIC_RELAXED);
		else if (!piece_ok(buf, at))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	}
}

static void *reader(void *arg)
{
	pthread_mutex_lock(&mu);
	ready++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	reads((uintptr_t)arg);
	return arg;
}

static pthread_t tid[MAXT];

/* T readers: main and T - 1 threads made, released together, joined:
   the ns from release to the last join, or 0 if not all could be made
   (*made says how many readers there were). */
static uint64_t rand_pass(int t, int *made)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, STACK);
	ready = go = 0;
	int n = 0;
	while (n < t - 1 && pthread_create(&tid[n], &a, reader, (void *)(uintptr_t)(n + 2)) == 0)
		n++;
	pthread_mutex_lock(&mu);
	while (ready < n)
		pthread_cond_wait(&cv, &mu);
	uint64_t t0 = wl_now();
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	reads(1);
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], 0);
	*made = n + 1;
	return n + 1 == t ? wl_now() - t0 : 0;
}

static uint64_t seq_pass(uint64_t *sum, long *bytes)
{
	static uint64_t buf[CHUNK / 8];
	uint64_t t0 = wl_now(), s = 0;
	long r, n = 0;
	lseek(fd, 0, SEEK_SET);
	while ((r = read(fd, buf, chunk)) > 0) {
		for (long i = 0; i < r / 8; i++)
			s += buf[i];
		n += r;
	}
	if (r < 0)
		__atomic_fetch_add(&errs, 1, __ATOMIC_RELAXED);
	*sum = s, *bytes = n;
	return wl_now() - t0;
}

static void report(const char *what, const char *pass, const char *unit, double v,
		   uint64_t ns, int threads, long ops, const struct dev *d0, const struct dev *d1,
		   const char *why)
{
	char val[64];
	if (why)
		snprintf(val, sizeof val, "null");
	else
		snprintf(val, sizeof val, "%.1f", v);
	printf("@result {\"name\": \"io.%s.%s.%s\", \"package\": \"%s\", \"cache\": \"%s\", "
	       "\"unit\": \"%s\", \"value\": %s, \"ns\": %llu, \"threads\": %d, \"ops\": %ld, "
	       "\"max_in_flight\": %ld", what, pass, WL_SYSTEM, WL_SYSTEM, pass, unit, val,
	       (unsigned long long)ns, threads, ops, d1->max_in_flight);
	if (d1->vp_waits >= 0)
		printf(", \"vp_waits\": %ld", d1->vp_waits - d0->vp_waits);
	if (d1->bc_reads >= 0 && d0->bc_reads >= 0)
		printf(", \"bc_reads\": %ld, \"bc_kept\": %ld", d1->bc_reads - d0->bc_reads,
		       d1->bc_kept - d0->bc_kept);
	if (d1->reqs >= 0 && d0->reqs >= 0 && ns) {
		long reqs = d1->reqs - d0->reqs;
		printf(", \"dev_reads\": %ld, \"dev_kib_per_read\": %.1f, \"avg_in_flight\": %.2f",
		       reqs, reqs ? (d1->sectors - d0->sectors) / 2.0 / reqs : 0.0,
		       (d1->queue_ms - d0->queue_ms) * 1e6 / (double)ns);
	}
	printf(", \"errors\": %ld, \"bad\": %ld, \"eagain\": %ld%s%s%s}\n", errs, bad, again,
	       why ? ", \"why\": \"" : "", why ? why : "", why ? "\"" : "");
	if (errs || bad)
		failed = 1;
	errs = bad = again = 0;
}

static void seq(const char *pass, uint64_t want)
{
	struct dev d0, d1;
	uint64_t sum;
	long n;
	dev_now(&d0);
	uint64_t ns = seq_pass(&sum, &n);
	dev_now(&d1);
	if (sum != want || (uint64_t)n != pieces * PIECE)
		__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	report("seq", pass, "MB/s", n / (ns / 1e9) / 1e6, ns, 1, n / chunk, &d0, &d1, 0);
}

static void rnd(const char *pass, int t, long total)
{
	struct dev d0, d1;
	char what[32], why[96];
	int made;
	nreads = total / t > 0 ? total / t : 1;
	dev_now(&d0);
	uint64_t ns = rand_pass(t, &made);
	dev_now(&d1);
	snprintf(what, sizeof what, "rand.%d", t);
	snprintf(why, sizeof why, "pthread_create failed after %d threads", made - 1);
	long ops = nreads * made;
	report(what, pass, "IOPS", ns ? ops / (ns / 1e9) : 0, ns, t, ops, &d0, &d1,
	       ns ? 0 : why);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		printf("usage: iobench PATH READS [seq=KIB] THREADS...\n");
		return 2;
	}
	struct stat st;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < PIECE) {
		printf("iobench: cannot open %s (errno %d)\n", argv[1], errno);
		return 3;
	}
	pieces = (uint64_t)st.st_size / PIECE;
	uint64_t words = pieces * (PIECE / 8), want = words * (words - 1) / 2;
	long total = atol(argv[2]);
	int first = 3;
	if (argc > 3 && !strncmp(argv[3], "seq=", 4)) {
		chunk = atol(argv[3] + 4) << 10;
		first = 4;
		if (chunk < 8 || chunk > CHUNK) {
			printf("iobench: seq= from 1 to %d KiB\n", CHUNK >> 10);
			return 2;
		}
	}
	for (int i = first; i < argc; i++) {
		int t = atoi(argv[i]);
		if (t < 1 || t > MAXT) {
			printf("iobench: threads %d out of 1..%d\n", t, MAXT);
			return 2;
		}
		drop_cache();
		rnd("cold", t, total);
		rnd("warm", t, total);
	}
	drop_cache();
	seq("cold", want);
	seq("warm", want);
	close(fd);
	return failed;
}
