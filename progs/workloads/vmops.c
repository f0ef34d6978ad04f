/*
 * vmops: VM operations from many threads of one space at once
 * (PAthreads's claim, issue 32). For N threads in turn (1, 2, 4, 8 by
 * default), each on its own CPU when the package gives each thread a VP
 * (kthread) or N VPs (fifo vps=N), every thread runs one operation ITERS
 * times on memory of its own:
 *   map     mmap 4 pages, write each, munmap them (one op: the three);
 *   fault   a write to the next page of a demand-zero region of its own
 *           (MAP_NORESERVE on Anima; every anonymous map on Linux);
 *   protect mprotect of a page of its own, read-only and back (one op
 *           each call).
 * The threads meet at a barrier and time themselves: from the first
 * start to the last end. Under -icount QEMU's clock counts the instructions of
 * every CPU, so ns / (N * ITERS) is the guest instructions per
 * operation, the whole machine's: a CPU spinning on another's lock
 * adds to it, an idle one halts and does not. With no contention the
 * figure stays that of one thread; the ratio to it is the cost of
 * sharing the space.
 *
 *   vmops [ITERS [OPS [THREADS...]]]   e.g. vmops 400 map/fault 1 8
 *
 * One @result per (op, threads): name "vmops.OP.tN.SYSTEM", "threads",
 * "ops", "ns", value = ns per op, "ratio" = value / the 1-thread value
 * of this boot (when 1 ran first); on Anima "waits_space", "waits_kop",
 * "waits_pmm": how often the run found the space's memory lock, kop_lock
 * or the page allocator's lock held (INFO_LOCK_WAITS: under -icount a
 * spinning CPU's PAUSE ends its turn, so spinning costs few instructions
 * and only these counts show contention; creation and joins included).
 * Exits 1 if a check failed (a page not zero when first read, a write
 * that did not stay).
 */
#include "wl.h"
#include <sys/mman.h>
#ifdef WL_ANIMA
#include <animart/sys.h>
#endif

#define PG 4096
#define MAPPG 4

enum { MAP, FAULT, PROTECT, NOP };
static const char *opname[NOP] = { "map", "fault", "protect" };

static int op, iters, nthr;
static pthread_barrier_t go;
static char *region[WL_MAXT];   /* each thread's own memory for fault/protect */
static volatile int bad;
static uint64_t t_start[WL_MAXT], t_end[WL_MAXT];

static void *mapper(long id)
{
	for (int i = 0; i < iters; i++) {
		char *p = mmap(0, MAPPG * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			bad = 1;
			break;
		}
		for (int k = 0; k < MAPPG; k++) {
			if (p[k * PG])
				bad = 1;
			p[k * PG] = (char)(id + 1);
		}
		munmap(p, MAPPG * PG);
	}
	return 0;
}

static void *faulter(long id)
{
	char *r = region[id];
	for (int i = 0; i < iters; i++) {
		if (r[(size_t)i * PG])
			bad = 1;
		r[(size_t)i * PG] = (char)(id + 1);
	}
	return 0;
}

static void *protector(long id)
{
	char *r = region[id];
	for (int i = 0; i < iters; i++)
		if (mprotect(r, PG, i % 2 ? PROT_READ | PROT_WRITE : PROT_READ))
			bad = 1;
	r[0] = (char)(id + 1);   /* iters is even: writable again */
	if (r[0] != (char)(id + 1))
		bad = 1;
	return 0;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	pthread_barrier_wait(&go);
	t_start[id] = wl_now();
	if (op == MAP)
		mapper(id);
	else if (op == FAULT)
		faulter(id);
	else
		protector(id);
	t_end[id] = wl_now();
	return 0;
}

/* Each thread's region, mapped before the clock starts. */
static void regions(int n)
{
	size_t len = op == FAULT ? (size_t)iters * PG : PG;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (op == FAULT ? MAP_NORESERVE : 0);
	for (int i = 0; i < n; i++) {
		region[i] = mmap(0, len, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (region[i] == MAP_FAILED) {
			printf("vmops: mmap of %zu bytes failed\n", len);
			exit(3);
		}
	}
}

static void unregions(int n)
{
	size_t len = op == FAULT ? (size_t)iters * PG : PG;
	for (int i = 0; i < n; i++)
		munmap(region[i], len);
}

/* Anima: the waits so far on the space's memory lock, kop_lock and the
   page allocator's lock (INFO_LOCK_WAITS); Linux has no such count. */
static void lock_waits(long w[3])
{
	for (int i = 0; i < 3; i++)
#ifdef WL_ANIMA
		w[i] = syscall2(SYS_getinfo, INFO_LOCK_WAITS, i);
#else
		w[i] = -1;
#endif
}

/* One (op, n) run: ns from the first thread's start to the last one's
   end (each reads the clock itself: the main thread may wake from the
   barrier after the others have done their work). */
static uint64_t one(int n)
{
	pthread_t t[WL_MAXT];
	if (op != MAP)
		regions(n);
	pthread_barrier_init(&go, 0, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], 0, worker, (void *)i)) {
			printf("vmops: pthread_create failed\n");
			exit(3);
		}
	pthread_barrier_wait(&go);
	uint64_t t0 = UINT64_MAX, t1 = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], 0);
		t0 = t_start[i] < t0 ? t_start[i] : t0;
		t1 = t_end[i] > t1 ? t_end[i] : t1;
	}
	uint64_t ns = t1 - t0;
	pthread_barrier_destroy(&go);
	if (op != MAP)
		unregions(n);
	return ns;
}

int main(int argc, char **argv)
{
	iters = argc > 1 ? atoi(argv[1]) : 400;
	const char *ops = argc > 2 ? argv[2] : "map/fault/protect";
	int ns_[WL_MAXT], nn = 0;
	for (int i = 3; i < argc && nn < WL_MAXT; i++)
		ns_[nn++] = atoi(argv[i]);
	if (!nn) {
		int d[] = { 1, 2, 4, 8 };
		for (nn = 0; nn < 4; nn++)
			ns_[nn] = d[nn];
	}
	iters += iters % 2;
	if (iters < 2 || iters > 100000) {
		printf("usage: vmops [ITERS 2..100000 [OPS [THREADS...]]]\n");
		return 2;
	}
	for (int o = 0; o < NOP; o++) {
		if (!strstr(ops, opname[o]))
			continue;
		op = o;
		double one_thread = 0;
		for (int k = 0; k < nn; k++) {
			nthr = ns_[k];
			if (nthr < 1 || nthr > WL_MAXT)
				return 2;
			long w0[3], w1[3];
			lock_waits(w0);
			uint64_t ns = one(nthr);
			lock_waits(w1);
			char wait[128] = "";
			if (w0[0] >= 0)
				snprintf(wait, sizeof wait, ", \"waits_space\": %ld, \"waits_kop\": %ld, "
					 "\"waits_pmm\": %ld", w1[0] - w0[0], w1[1] - w0[1], w1[2] - w0[2]);
			uint64_t total = (uint64_t)nthr * (uint64_t)iters;
			double per = (double)ns / (double)total;
			if (nthr == 1)
				one_thread = per;
			char ratio[64] = "";
			if (one_thread > 0)
				snprintf(ratio, sizeof ratio, ", \"ratio\": %.3f", per / one_thread);
			printf("@result {\"name\": \"vmops.%s.t%d.%s\", \"op\": \"%s\", "
			       "\"package\": \"%s\", \"threads\": %d, \"ops\": %llu, \"ns\": %llu, "
			       "\"unit\": \"ns\", \"value\": %.1f%s%s, \"check\": \"%s\"}\n",
			       opname[o], nthr, WL_SYSTEM, opname[o], WL_SYSTEM, nthr,
			       (unsigned long long)total, (unsigned long long)ns, per, ratio, wait,
			       bad ? "FAILED" : "ok");
			fflush(stdout);
		}
	}
	return bad ? 1 : 0;
}
