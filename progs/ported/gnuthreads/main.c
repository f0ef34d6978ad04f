/*
 * gnuthreads: a pthread stress program written the way Linux code is
 * (glibc headers, GNU extensions, checks on every return). Workers run on
 * mmap'd stacks, are pinned round-robin (as far as the system lets them),
 * named, sort their slice of a shared array with qsort_r and add it up
 * under a mutex. main checks names, affinity, attributes, timed and try
 * joins, then the odds and ends such programs touch: signals, files,
 * alarm, poll/select as sleeps, aligned allocators, wide strings.
 *
 * Prints one @result line: ok, the first failure (why), and figures.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <wchar.h>
#include <poll.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/syscall.h>

#define MAXT   16
#define SLICE  500
#define STACK  (128 * 1024)

static int fails;
static char why[160];

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		if (!fails++) \
			snprintf(why, sizeof why, __VA_ARGS__); \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
	} \
} while (0)

struct worker {
	pthread_t th;
	int id, cpu_wanted, cpu_seen;
	long tid;
	void *stack;
	long sum;
};

static int data[MAXT * SLICE];
static long total;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static int ncpu;

/* qsort_r, GNU order: the context says which way. */
static int cmp_dir(const void *a, const void *b, void *dir)
{
	int x = *(const int *)a, y = *(const int *)b;
	return *(int *)dir * ((x > y) - (x < y));
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];
	snprintf(name, sizeof name, "worker-%d", w->id);
	pthread_setname_np(pthread_self(), name);
	w->tid = syscall(SYS_gettid);
	w->cpu_seen = sched_getcpu();

	int *slice = data + w->id * SLICE, dir = w->id % 2 ? -1 : 1;
	qsort_r(slice, SLICE, sizeof *slice, cmp_dir, &dir);
	for (int i = 1; i < SLICE; i++)
		if (dir * (slice[i - 1] - slice[i]) > 0) {
			w->sum = -1;             /* unsorted: main reports it */
			return NULL;
		}
	long s = 0;
	for (int i = 0; i < SLICE; i++) {
		s += slice[i];
		if (i % 100 == 0)
			sched_yield();
	}
	w->sum = s;
	pthread_mutex_lock(&total_lock);
	total += s;
	pthread_mutex_unlock(&total_lock);
	return w;
}

/* The sleeper: waits for main's go, for the timed joins. */
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

static void *sleeper(void *arg)
{
	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
	return arg;
}

static struct timespec in_ms(long ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

static int workers(int n)
{
	struct worker w[MAXT];
	long expect = 0;
	for (int i = 0; i < n * SLICE; i++) {
		data[i] = (int)((i * 2654435761u) % 100000);
		expect += data[i];
	}
	for (int i = 0; i < n; i++) {
		pthread_attr_t a;
		cpu_set_t set;
		w[i] = (struct worker){ .id = i, .cpu_wanted = i % ncpu };
		w[i].stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		CHECK(w[i].stack != MAP_FAILED, "mmap stack: %s", strerror(errno));
		CHECK(((uintptr_t)w[i].stack & 4095) == 0, "mmap not page aligned");
		CHECK(((char *)w[i].stack)[STACK - 1] == 0, "mmap not zeroed");
		pthread_attr_init(&a);
		CHECK(pthread_attr_setstack(&a, w[i].stack, STACK) == 0, "setstack");
		CPU_ZERO(&set);
		CPU_SET(w[i].cpu_wanted, &set);
		CHECK(pthread_attr_setaffinity_np(&a, sizeof set, &set) == 0, "attr_setaffinity");
		int e = pthread_create(&w[i].th, &a, work, &w[i]);
		CHECK(e == 0, "pthread_create: %s", strerror(e));
		pthread_attr_destroy(&a);
	}
	/* Inspect them while they may still run. */
	for (int i = 0; i < n; i++) {
		cpu_set_t set;
		pthread_attr_t a;
		size_t sz = 0;
		CHECK(pthread_getaffinity_np(w[i].th, sizeof set, &set) == 0, "getaffinity");
		CHECK(CPU_COUNT(&set) == 1 && CPU_ISSET(w[i].cpu_wanted, &set),
		      "affinity of %d: count %d", i, CPU_COUNT(&set));
		CHECK(pthread_getattr_np(w[i].th, &a) == 0, "getattr_np");
		pthread_attr_getstacksize(&a, &sz);
		CHECK(sz == STACK, "getattr_np stacksize %lu", (unsigned long)sz);
		pthread_attr_destroy(&a);
	}
	for (int i = 0; i < n; i++) {
		void *ret;
		char name[16] = "";
		/* the name is set first thing: wait until it is there (until
		   then it is the program's, as on Linux) */
		while (pthread_getname_np(w[i].th, name, sizeof name) == 0 &&
		       (!name[0] || !strcmp(name, program_invocation_short_name)))
			sched_yield();
		char want[16];
		snprintf(want, sizeof want, "worker-%d", i);
		CHECK(!strcmp(name, want), "name %d: '%s'", i, name);
		CHECK(pthread_join(w[i].th, &ret) == 0 && ret == &w[i], "join %d", i);
		CHECK(w[i].sum > 0, "worker %d: slice not sorted", i);
		CHECK(w[i].cpu_seen >= 0 && w[i].cpu_seen < ncpu, "sched_getcpu %d", w[i].cpu_seen);
		for (int j = 0; j < i; j++)
			CHECK(w[i].tid != w[j].tid, "gettid %d == %d", i, j);
		CHECK(w[i].tid > 0, "gettid %ld", w[i].tid);
		CHECK(munmap(w[i].stack, STACK) == 0, "munmap: %s", strerror(errno));
	}
	CHECK(total == expect, "total %ld, expected %ld", total, expect);
	printf("workers: %d threads, total %ld\n", n, total);
	return n;
}

static void joins(void)
{
	pthread_t th;
	void *ret = NULL;
	CHECK(pthread_create(&th, NULL, sleeper, (void *)42) == 0, "create sleeper");
	pthread_setname_np(th, "sleeper");
	CHECK(pthread_setname_np(th, "a-name-far-too-long") == ERANGE, "long name accepted");
	char small[4];
	CHECK(pthread_getname_np(th, small, sizeof small) == ERANGE, "getname into 4 bytes");
	struct timespec t = in_ms(20);
	CHECK(pthread_timedjoin_np(th, &ret, &t) == ETIMEDOUT, "timedjoin did not time out");
	clock_gettime(CLOCK_MONOTONIC, &t);          /* clockjoin: a monotonic deadline */
	t.tv_nsec += 20000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	CHECK(pthread_clockjoin_np(th, &ret, CLOCK_MONOTONIC, &t) == ETIMEDOUT,
	      "clockjoin did not time out");
	CHECK(pthread_clockjoin_np(th, &ret, CLOCK_PROCESS_CPUTIME_ID, &t) == EINVAL,
	      "clockjoin on a CPU-time clock");
	CHECK(pthread_tryjoin_np(th, &ret) == EBUSY, "tryjoin not EBUSY");
	CHECK(pthread_kill(th, 0) == 0, "pthread_kill 0");
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	t = in_ms(10000);
	CHECK(pthread_timedjoin_np(th, &ret, &t) == 0 && ret == (void *)42, "timedjoin");

	/* tryjoin of one that has exited */
	CHECK(pthread_create(&th, NULL, sleeper, (void *)7) == 0, "create sleeper 2");
	int e, spins = 0;
	while ((e = pthread_tryjoin_np(th, &ret)) == EBUSY && spins++ < 1000000)
		sched_yield();
	CHECK(e == 0 && ret == (void *)7, "tryjoin: %d", e);
}

static void misc(void)
{
	/* a robust mutex if there is one; else a plain one, as portable code does */
	pthread_mutexattr_t ma;
	pthread_mutex_t m;
	pthread_mutexattr_init(&ma);
	int e = pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	CHECK(e == 0 || e == ENOTSUP, "setrobust: %d", e);
	printf("robust mutexes: %s\n", e ? "not supported" : "yes");
	pthread_mutex_init(&m, &ma);
	CHECK(pthread_mutex_lock(&m) == 0, "lock");
	CHECK(pthread_mutex_consistent(&m) == EINVAL, "consistent on a sane mutex");
	pthread_mutex_unlock(&m);
	pthread_mutex_destroy(&m);

	/* CPU-time clock: many programs just skip the figure */
	clockid_t cid;
	e = pthread_getcpuclockid(pthread_self(), &cid);
	CHECK(e == 0 || e == ENOENT, "getcpuclockid: %d", e);

	/* signals: block some, no handlers */
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &s, &old) == 0, "sigmask");
	CHECK(pthread_sigmask(99, &s, NULL) == EINVAL, "sigmask bad how");
	CHECK(pthread_kill(pthread_self(), -1) == EINVAL, "pthread_kill -1");
	signal(SIGPIPE, SIG_IGN);
	CHECK(pthread_kill(pthread_self(), SIGPIPE) == 0, "ignored signal");
	CHECK(alarm(0) == 0, "alarm(0)");

	/* files: no /proc or /etc; /tmp is writable, as on Linux (the RAM disk) */
	CHECK(open("/proc/cpuinfo", O_RDONLY) == -1 && errno == ENOENT, "open");
	int tfd = open("/tmp/x", O_WRONLY | O_CREAT, 0644);
	CHECK(tfd >= 0 && close(tfd) == 0 && unlink("/tmp/x") == 0, "creat");
	struct stat st;
	CHECK(stat("/etc/passwd", &st) == -1 && errno == ENOENT, "stat");
	CHECK(fstat(1, &st) == 0 && S_ISCHR(st.st_mode), "fstat stdout");
	CHECK(fcntl(7, F_GETFL) == -1 && errno == EBADF, "fcntl");
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "waitpid");
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 3, 0);
	CHECK(p == MAP_FAILED && errno == EBADF, "file mmap");
	CHECK(((uintptr_t)data % 4096 == 0) || (mprotect(data, 4096, PROT_READ) == -1 && errno == EINVAL),
	      "mprotect unaligned");
	char *guard = mmap(NULL, 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(guard != MAP_FAILED, "PROT_NONE mapping: %s", strerror(errno));
	if (guard != MAP_FAILED) {
		CHECK(mprotect(guard + 4096, 4096, PROT_READ | PROT_WRITE) == 0, "mprotect: %s", strerror(errno));
		guard[4096] = 7;
		CHECK(guard[4096] == 7 && munmap(guard, 2 * 4096) == 0, "committed page");
	}
	char *big = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(big != MAP_FAILED, "MAP_NORESERVE: %s", strerror(errno));
	if (big != MAP_FAILED) {
		big[12345] = 1;
		CHECK(big[12345] == 1 && big[(1 << 20) - 1] == 0, "lazy pages");
		munmap(big, 1 << 20);
	}

	/* poll and select as sleeps; stdout always writable */
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(poll(NULL, 0, 5) == 0, "poll sleep");
	struct timeval tv = { 0, 5000 };
	CHECK(select(0, NULL, NULL, NULL, &tv) == 0, "select sleep");
	clock_gettime(CLOCK_MONOTONIC, &b);
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	CHECK(ms >= 10, "poll+select slept %ld ms", ms);
	struct pollfd pf[2] = { { 1, POLLOUT, 0 }, { 9, POLLIN, 0 } };
	CHECK(poll(pf, 2, -1) == 2 && pf[0].revents == POLLOUT && pf[1].revents == POLLNVAL, "poll");

	/* aligned allocators */
	void *q1 = memalign(256, 100), *q2 = valloc(10), *q3 = pvalloc(5000);
	CHECK(q1 && ((uintptr_t)q1 & 255) == 0, "memalign");
	CHECK(q2 && ((uintptr_t)q2 & 4095) == 0, "valloc");
	CHECK(q3 && ((uintptr_t)q3 & 4095) == 0, "pvalloc");
	memset(q3, 1, 8192);             /* rounded up to whole pages */
	free(q1), free(q2), free(q3);

	/* wide strings */
	wchar_t ws[16];
	CHECK(mbstowcs(ws, "threads", 16) == 7 && wcslen(ws) == 7 && ws[3] == L'e', "mbstowcs");
	CHECK(wcscmp(ws, L"threads") == 0, "wcscmp");

	/* affinity of the process, as sched_setaffinity(0, ...) users do */
	cpu_set_t set;
	CHECK(sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == ncpu,
	      "sched_getaffinity: %d", CPU_COUNT(&set));
	CPU_ZERO(&set);
	CPU_SET(ncpu + 5, &set);         /* offline only: Linux says EINVAL */
	CHECK(sched_setaffinity(0, sizeof set, &set) == -1 && errno == EINVAL, "offline cpu");
	long sc = syscall(12345);
	CHECK(sc == -1 && errno == ENOSYS, "unknown syscall");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 0)
		n = 2 * ncpu + 2;
	if (n > MAXT)
		n = MAXT;
	pthread_setname_np(pthread_self(), "main");
	int threads = workers(n);
	joins();
	misc();
	char me[16];
	pthread_getname_np(pthread_self(), me, sizeof me);
	CHECK(!strcmp(me, "main"), "main's name '%s'", me);
	printf("@result {\"name\": \"gnuthreads\", \"ok\": %s, \"fails\": %d, \"why\": \"%s\", "
	       "\"threads\": %d, \"ncpu\": %d, \"total\": %ld}\n",
	       fails ? "false" : "true", fails, why, threads, ncpu, total);
	return fails != 0;
}
