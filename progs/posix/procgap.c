/*
 * procgap: process corners as Linux has them (harness/tests/test_procgap.py).
 *   procgap adopt    as space 1 (the boot's first program): an orphan
 *                    (its parent ended while it ran) and an orphaned
 *                    zombie (it ended before its parent) are adopted:
 *                    getppid is 1, and our wait/waitpid(-1) collects
 *                    them with their statuses, then ECHILD
 *                    (kernel/space.c's adopter)
 *   procgap init     as space 1 beside `procgap orphan` (space 2): polls
 *                    waitpid(-1, WNOHANG) until it collects the orphan
 *                    space 2 left (status 33); may not signal it (another
 *                    boot program's tree)
 *   procgap orphan   forks a child that forks a grandchild and ends; the
 *                    grandchild sees getppid() == 1 and exits 33
 *   procgap waitid   waitid with WSTOPPED or WCONTINUED but no WEXITED
 *                    never reports an end (WNOHANG: 0 and si_pid 0), a
 *                    stop and a continue are; no state bit, or a bit
 *                    waitid does not know, is EINVAL, and waitpid's
 *                    options beyond WNOHANG, WUNTRACED, WCONTINUED too
 *   procgap auxv     the auxiliary vector (kernel/auxv.c) through
 *                    getauxval: ours as a boot program, then that of
 *                    /bin/procgap (on the disk) started by posix_spawn
 *                    and by fork and execv, which checks its own
 *                    (`procgap auxvchild HEX`, HEX our AT_RANDOM bytes:
 *                    its own differ) and exits with its failures
 *   procgap itexec   ITIMER_VIRTUAL and ITIMER_PROF survive an execv
 *                    (`procgap itchild`): time left at most what was
 *                    set, the periods kept, and VIRTUAL fires in the new
 *                    image (blocked across the exec: pending once the
 *                    new image has run that much processor time)
 *   procgap rtperiod a TIMER_ABSTIME timer on CLOCK_REALTIME (period
 *                    100 ms) keeps its periods on that clock after its
 *                    first expiry: its expiries (1 + overrun each)
 *                    keep up with that clock, read around each, when it
 *                    is set 1 s ahead; set 10 s back, the next is as
 *                    far away on it (ulib/libc/timer.c)
 *   procgap wcancel  wait, waitpid, waitid and wait4 are cancellation
 *                    points: a thread blocked in one, cancelled, runs
 *                    its cleanup handler and ends PTHREAD_CANCELED, and
 *                    the child stays unreaped (ulib/libc/proc.c)
 *   procgap getres   getresuid/getresgid with an unmapped pointer fail
 *                    with EFAULT, as on Linux, instead of faulting
 *   procgap getresk  SYS_getids (both forms) given kernel addresses, and
 *                    stores that straddle the top of user space (the
 *                    page below it mapped, if SYS_map lets us), in every
 *                    slot: EFAULT, nothing stored; then getresuid racing
 *                    a thread that unmaps and maps its page again: each
 *                    call 0 or EFAULT (kernel/cred.c, uaccess.c)
 * Several modes (`procgap adopt waitid getres`) run one after the other
 * in this one process, each with its own @result (one boot for many).
 */
#define CHECK_NAME "procgap"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>
#include <spawn.h>
#include <cpuid.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <anima/layout.h>
#include <check.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <pthread.h>
#include <sched.h>

#define READY "/tmp/procgap.subreaper"

static volatile long *shm;

static void settle_until(volatile long *p, long v)
{
	while (*p != v)
		usleep(1000);
}

/* One child left running and one left ended by a parent that ends:
   both become ours (space 1's). */
static void adopt(void)
{
	/* Not asked for: an orphan is nobody's (Linux: init's, not ours). */
	int on = -1, st = -1;
	CHECK(prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on == 0);
	pid_t g0 = fork();
	if (g0 == 0) {
		if (fork() == 0)
			_exit(23);
		_exit(0);
	}
	CHECK(waitpid(g0, &st, 0) == g0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	errno = 0;
	CHECK(wait(&st) == -1 && errno == ECHILD);
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	CHECK(prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on == 1);
	shm[0] = shm[1] = 0;
	pid_t g = fork();
	if (g == 0) {
		pid_t me = getpid();
		pid_t z = fork();
		if (z == 0)
			_exit(21);                   /* the zombie to be */
		siginfo_t si;
		/* (ended, not collected: WNOWAIT) */
		if (waitid(P_PID, z, &si, WEXITED | WNOWAIT) != 0 || si.si_pid != z)
			_exit(1);
		shm[2] = z;
		pid_t o = fork();
		if (o == 0) {
			while (getppid() == me)
				usleep(1000);
			shm[1] = getppid();
			settle_until(&shm[0], 1);    /* (the parent checked us) */
			_exit(22);
		}
		shm[3] = o;
		_exit(0);
	}
	st = -1;
	CHECK(waitpid(g, &st, 0) == g && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	while (!shm[1])                            /* (the orphan saw its new parent) */
		usleep(1000);
	CHECK(shm[1] == 1 && getpid() == 1);
	CHECK(kill((pid_t)shm[3], 0) == 0);        /* our child now */
	shm[0] = 1;
	int got = 0;
	for (int i = 0; i < 2; i++) {
		st = -1;
		pid_t p = i ? waitpid(-1, &st, 0) : wait(&st);
		if (p == shm[2] && WIFEXITED(st) && WEXITSTATUS(st) == 21)
			got |= 1;
		else if (p == shm[3] && WIFEXITED(st) && WEXITSTATUS(st) == 22)
			got |= 2;
		else
			printf("procgap: wait gave %d status %#x\n", p, st);
	}
	CHECK(got == 3);
	errno = 0;
	CHECK(wait(&st) == -1 && errno == ECHILD);
}

/* Space 2's orphan comes to us (space 1). */
static void init(void)
{
	int st = -1, n = 0;
	pid_t p = 0;
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);   /* (Linux's init adopts them all) */
	int fd = open(READY, O_CREAT | O_WRONLY, 0644);   /* (tells space 2: the RAM disk) */
	CHECK(fd >= 0 && close(fd) == 0);
	for (; n < 20000; n++) {               /* (20 s of guest time at most) */
		p = waitpid(-1, &st, WNOHANG);
		if (p > 0)
			break;
		usleep(1000);
	}
	CHECK(p > 1 && WIFEXITED(st) && WEXITSTATUS(st) == 33);
	errno = 0;
	CHECK(waitpid(-1, &st, WNOHANG) == -1 && errno == ECHILD);
}

static void orphan(void)
{
	for (int n = 0; n < 20000 && access(READY, F_OK) != 0; n++)
		usleep(1000);                    /* (until space 1 adopts orphans) */
	pid_t g = fork();
	if (g == 0) {
		pid_t me = getpid();
		if (fork() == 0) {
			while (getppid() == me)
				usleep(1000);
			/* (not signalled by space 1: another boot program's tree) */
			_exit(getppid() == 1 && kill(1, 0) == -1 && errno == EPERM ? 33 : 34);
		}
		_exit(0);
	}
	int st = -1;
	CHECK(waitpid(g, &st, 0) == g && WIFEXITED(st));
}

static void waitid_flags(void)
{
	siginfo_t si;
	int st = 0;
	errno = 0;
	CHECK(waitid(P_ALL, 0, &si, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(waitid(P_ALL, 0, &si, WNOHANG | WNOWAIT) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(waitid(P_ALL, 0, &si, WEXITED | 0x100) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(waitpid(-1, &st, WNOWAIT) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(waitpid(-1, &st, WEXITED) == -1 && errno == EINVAL);

	shm[4] = 0;
	pid_t c = fork();
	if (c == 0) {
		raise(SIGSTOP);
		settle_until(&shm[4], 1);        /* (its continue told first: an end has no continue) */
		_exit(5);
	}
	/* its stop is reported with WSTOPPED alone */
	CHECK(waitid(P_PID, c, &si, WSTOPPED) == 0 && si.si_pid == c && si.si_code == CLD_STOPPED);
	CHECK(kill(c, SIGCONT) == 0);
	CHECK(waitid(P_PID, c, &si, WCONTINUED) == 0 && si.si_pid == c && si.si_code == CLD_CONTINUED);
	shm[4] = 1;
	/* it has ended (seen without collecting it) ... */
	CHECK(waitid(P_PID, c, &si, WEXITED | WNOWAIT) == 0 && si.si_pid == c && si.si_code == CLD_EXITED);
	/* ... and no wait without WEXITED tells it, by pid or for any */
	int ends = 0;
	int how[] = { WSTOPPED, WCONTINUED, WSTOPPED | WCONTINUED };
	for (int i = 0; i < 3; i++) {
		memset(&si, 0x55, sizeof si);
		ends += waitid(P_PID, c, &si, how[i] | WNOHANG) != 0 || si.si_pid != 0;
		memset(&si, 0x55, sizeof si);
		ends += waitid(P_ALL, 0, &si, how[i] | WNOHANG) != 0 || si.si_pid != 0;
		memset(&si, 0x55, sizeof si);
		ends += waitid(P_PGID, 0, &si, how[i] | WNOHANG) != 0 || si.si_pid != 0;
	}
	CHECK(ends == 0);
	/* waitpid(WUNTRACED) does (it always reports an end) */
	CHECK(waitpid(c, &st, WUNTRACED | WNOHANG | WCONTINUED) == c && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 5);
	errno = 0;
	CHECK(waitid(P_PID, c, &si, WEXITED | WNOHANG) == -1 && errno == ECHILD);
}

void _start(void);

struct phdr {                          /* an ELF64 program header (no <elf.h> here) */
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};
#define PT_LOAD 1

/* AT_PHNUM and AT_PHDR as the file at path says: its program headers'
   address in memory if a PT_LOAD segment loads them (Linux's rule),
   else 0 (ulib's link loads no headers: user.ld); where it is not 0,
   they are the file's. */
static int phdr_as_file(const char *path)
{
	static struct { unsigned char ident[16]; uint16_t type, machine; uint32_t version;
			uint64_t entry, phoff, shoff; uint32_t flags;
			uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx; } eh;
	static struct phdr ph[32];
	FILE *f = fopen(path, "rb");
	int ok = f && fread(&eh, sizeof eh, 1, f) == 1 && eh.phnum <= 32 &&
		 fseek(f, (long)eh.phoff, SEEK_SET) == 0 && fread(ph, sizeof ph[0], eh.phnum, f) == eh.phnum;
	if (f)
		fclose(f);
	uint64_t want = 0;
	for (int i = 0; ok && i < eh.phnum && !want; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset <= eh.phoff &&
		    eh.phoff + eh.phnum * sizeof ph[0] <= ph[i].p_offset + ph[i].p_filesz)
			want = ph[i].p_vaddr + (eh.phoff - ph[i].p_offset);
	const struct phdr *got = (const struct phdr *)getauxval(AT_PHDR);
	printf("procgap: %s: AT_PHDR %#lx, the file's %#lx, %d headers\n", path,
	       (unsigned long)got, (unsigned long)want, eh.phnum);
	return ok && getauxval(AT_PHNUM) == eh.phnum && (uint64_t)got == want &&
	       (!got || !memcmp(got, ph, eh.phnum * sizeof ph[0]));
}

/* Our auxiliary vector is as the kernel should make it (execfn: the
   path or module name we were started by); rnd: its 16 bytes. */
static void auxv_own(const char *execfn, unsigned char *rnd)
{
	errno = 0;
	CHECK(getauxval(AT_PAGESZ) == 4096 && sysconf(_SC_PAGESIZE) == 4096);
	CHECK(getauxval(AT_CLKTCK) == 100 && sysconf(_SC_CLK_TCK) == 100);
	CHECK(getauxval(AT_PHENT) == sizeof(struct phdr));
	CHECK(getauxval(AT_ENTRY) == (unsigned long)&_start);
	CHECK(getauxval(AT_PHNUM) > 0);
	if (execfn[0] == '/')
		CHECK(phdr_as_file(execfn));
	CHECK(getauxval(AT_BASE) == 0 && getauxval(AT_FLAGS) == 0 && getauxval(AT_SECURE) == 0);
	CHECK(getauxval(AT_UID) == 0 && getauxval(AT_EUID) == 0 && getauxval(AT_GID) == 0 &&
	      getauxval(AT_EGID) == 0 && errno == 0);
	unsigned a = 0, b = 0, c = 0, d = 0;
	__get_cpuid(1, &a, &b, &c, &d);
	CHECK(getauxval(AT_HWCAP) == d && d != 0);
	const char *pl = (const char *)getauxval(AT_PLATFORM);
	CHECK(pl && !strcmp(pl, "x86_64"));
	const char *fn = (const char *)getauxval(AT_EXECFN);
	CHECK(fn && !strcmp(fn, execfn));
	const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
	int nz = 0;
	for (int i = 0; r && i < 16; i++)
		nz += r[i] != 0;
	CHECK(r && nz > 0);
	if (r)
		memcpy(rnd, r, 16);
	errno = 0;
	CHECK(getauxval(12345) == 0 && errno == ENOENT);
	errno = 0;
	CHECK(getauxval(AT_NULL) == 0 && errno == ENOENT);
}

static void hex(const unsigned char *b, char *out)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void auxv(void)
{
	unsigned char rnd[16];
	char h[40];
	auxv_own("procgap", rnd);
	hex(rnd, h);
	char *av[] = { "procgap", "auxvchild", h, 0 };
	pid_t p = -1;
	int st = -1;
	CHECK(posix_spawn(&p, "/bin/procgap", 0, 0, av, environ) == 0);
	CHECK(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	p = fork();
	if (p == 0) {
		execv("/bin/procgap", av);
		_exit(99);
	}
	st = -1;
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int auxvchild(const char *parent)
{
	unsigned char rnd[16];
	char h[40];
	auxv_own("/bin/procgap", rnd);
	hex(rnd, h);
	CHECK(strcmp(h, parent) != 0);
	return failures;
}

static long tv_us(struct timeval t)
{
	return t.tv_sec * 1000000L + t.tv_usec;
}

static void itexec(void)
{
	pid_t p = fork();
	if (p == 0) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGVTALRM);
		sigprocmask(SIG_BLOCK, &s, 0);      /* (kept across exec: pending there) */
		struct itimerval v = { .it_value = { 0, 200000 }, .it_interval = { 3, 0 } };
		struct itimerval pr = { .it_value = { 20, 0 } };
		if (setitimer(ITIMER_VIRTUAL, &v, 0) || setitimer(ITIMER_PROF, &pr, 0))
			_exit(98);
		char *av[] = { "procgap", "itchild", 0 };
		execv("/bin/procgap", av);
		_exit(99);
	}
	int st = -1;
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct itimerval g;
	CHECK(getitimer(ITIMER_VIRTUAL, &g) == 0 && !g.it_value.tv_sec && !g.it_value.tv_usec);
}

static long cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

static int itchild(void)
{
	struct itimerval v, pr;
	CHECK(getitimer(ITIMER_VIRTUAL, &v) == 0 && getitimer(ITIMER_PROF, &pr) == 0);
	CHECK(tv_us(v.it_value) > 0 && tv_us(v.it_value) <= 200000 && tv_us(v.it_interval) == 3000000);
	CHECK(tv_us(pr.it_value) > 0 && tv_us(pr.it_value) <= 20000000 && tv_us(pr.it_interval) == 0);
	/* VIRTUAL fires here: pending (blocked) within its time left of
	   processor time, and a little for the watcher's look */
	sigset_t s;
	long t0 = cpu_us();
	volatile long x = 0;
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		sigpending(&s);
	} while (!sigismember(&s, SIGVTALRM) && cpu_us() - t0 < 5000000);
	CHECK(sigismember(&s, SIGVTALRM));
	return failures;
}

static long ts_ms(struct timespec t)
{
	return t.tv_sec * 1000L + t.tv_nsec / 1000000;
}

/* Shift CLOCK_REALTIME by ms. */
static int shift(long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	long ns = t.tv_nsec + (ms % 1000) * 1000000L;
	t.tv_sec += ms / 1000 + (ns < 0 ? -1 : ns >= 1000000000L);
	t.tv_nsec = (ns % 1000000000L + 1000000000L) % 1000000000L;
	return clock_settime(CLOCK_REALTIME, &t);
}

/* One expiry of timer id's SIGALRM (blocked): its overrun. */
static int take(timer_t id)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	int sig = 0;
	sigwait(&s, &sig);
	return sig == SIGALRM ? timer_getoverrun(id) : -1;
}

static int64_t rt_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Expiries of a timer whose first was at e0 (every p ns) up to time t,
   both on CLOCK_REALTIME: what a count of them should be. */
static int64_t due(int64_t e0, int64_t p, int64_t t)
{
	return t < e0 ? 0 : (t - e0) / p + 1;
}

/* A SIGALRM (blocked) that is pending already, taken: 1 + its overrun;
   0 if none is. */
static int drain(timer_t id)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	struct timespec zero = { 0, 0 };
	return sigtimedwait(&s, 0, &zero) == SIGALRM ? 1 + timer_getoverrun(id) : 0;
}

/*
 * Each expiry taken counts 1 + its overrun; every count is checked
 * against the realtime clock read around it, not against a number of
 * periods fixed in advance, so a slow host (an expiry taken late, or a
 * period gone by before the clock is set) changes nothing: the count
 * never runs ahead of the clock read after it, and after the clock goes
 * 1 s ahead it catches up with the clock read before the last take
 * (less one period, for an expiry on its way) -- counted on the boot
 * clock it stays the 5 skipped periods behind.
 */
static void rtperiod(void)
{
	const int64_t p = 100000000;     /* the period, ns */
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	sigprocmask(SIG_BLOCK, &s, 0);
	timer_t id;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	CHECK(timer_create(CLOCK_REALTIME, &ev, &id) == 0);
	struct itimerspec v = { .it_interval = { 0, p } };
	clock_gettime(CLOCK_REALTIME, &v.it_value);
	v.it_value.tv_nsec += p;         /* (one period: a first expiry to wait for) */
	if (v.it_value.tv_nsec >= 1000000000) {
		v.it_value.tv_sec++;
		v.it_value.tv_nsec -= 1000000000;
	}
	int64_t e0 = v.it_value.tv_sec * 1000000000LL + v.it_value.tv_nsec;
	CHECK(timer_settime(id, TIMER_ABSTIME, &v, 0) == 0);
	int64_t n = 1 + take(id);        /* the first expiry (and any since) */
	CHECK(n >= 1 && n <= due(e0, p, rt_ns() + 1000000));   /* (1 ms: the clocks' rounding) */
	/* 1 s ahead: the periods on the realtime clock go by at once */
	CHECK(shift(1000) == 0);
	int64_t before, after, limit = rt_ns() + 3000000000LL;
	do {
		before = rt_ns();
		n += 1 + take(id);
		after = rt_ns();
		CHECK(n <= due(e0, p, after + 1000000));
	} while (n < due(e0, p, before) - 1 && after < limit);
	CHECK(n >= due(e0, p, before) - 1);
	printf("procgap: %lld expiries, %lld due after the clock went 1 s ahead\n",
	       (long long)n, (long long)due(e0, p, before));
	/* 10 s back: the next expiry, e0 + n periods on the realtime clock,
	   is ~10 s away; one taken before the clock moved counts first */
	CHECK(shift(-10000) == 0);
	n += drain(id);
	int64_t next = e0 + n * p;
	struct itimerspec g;
	before = rt_ns();
	CHECK(timer_gettime(id, &g) == 0 && g.it_interval.tv_nsec == p && !g.it_interval.tv_sec);
	after = rt_ns();
	int64_t left = g.it_value.tv_sec * 1000000000LL + g.it_value.tv_nsec;
	CHECK(left <= next - before + 1000000 && left >= next - after - 1000000);
	printf("procgap: %ld ms left after the clock went 10 s back\n", ts_ms(g.it_value));
	/* and no expiry comes before it: none pending two periods later
	   (counted on the boot clock one would be) unless the clock has
	   reached it */
	struct timespec nap = { 0, 2 * p };
	while (nanosleep(&nap, &nap) != 0)
		;
	CHECK(sigpending(&s) == 0 && (!sigismember(&s, SIGALRM) || rt_ns() >= next));
	timer_delete(id);
}

/* wcancel: which wait a thread blocks in; its cleanup handler's mark. */
static volatile int wkind, cleaned, waiting;
static pid_t wchild;

static void cleanup(void *arg)
{
	(void)arg;
	cleaned++;
}

static void *waiter(void *arg)
{
	(void)arg;
	int st = 0;
	siginfo_t si;
	pthread_cleanup_push(cleanup, 0);
	waiting = 1;
	switch (wkind) {
	case 0: waitpid(wchild, &st, 0); break;
	case 1: wait(&st); break;
	case 2: waitid(P_PID, (id_t)wchild, &si, WEXITED); break;
	case 3: wait4(wchild, &st, 0, 0); break;
	}
	pthread_cleanup_pop(0);
	return (void *)1;                /* not cancelled: the wait returned */
}

static void wcancel(void)
{
	for (wkind = 0; wkind < 4; wkind++) {
		int p[2];
		CHECK(pipe(p) == 0);
		wchild = fork();
		if (wchild == 0) {       /* lives until the parent closes the pipe */
			char c;
			close(p[1]);
			while (read(p[0], &c, 1) < 0)
				;
			_exit(7);
		}
		close(p[0]);
		cleaned = waiting = 0;
		pthread_t t;
		CHECK(pthread_create(&t, 0, waiter, 0) == 0);
		while (!waiting)
			usleep(1000);
		usleep(20000);           /* (either way: at the entry or in the wait) */
		CHECK(pthread_cancel(t) == 0);
		void *rv = 0;
		CHECK(pthread_join(t, &rv) == 0);
		CHECK(rv == PTHREAD_CANCELED && cleaned == 1);
		int st = 0;
		CHECK(waitpid(wchild, &st, WNOHANG) == 0);      /* not reaped */
		close(p[1]);
		CHECK(waitpid(wchild, &st, 0) == wchild && WIFEXITED(st) && WEXITSTATUS(st) == 7);
		printf("procgap: wait kind %d cancelled: %s\n", wkind,
		       rv == PTHREAD_CANCELED ? "yes" : "no");
	}
}

/* getres: each unmapped pointer is EFAULT; the good ones are filled. */
static void getres(void)
{
	uid_t r = 99, e = 99, s = 99;
	gid_t gr = 99, ge = 99, gs = 99;
	void *bad = (void *)8, *high = (void *)0xffff800000000000ul;
	CHECK(getresuid(&r, &e, &s) == 0 && r == getuid() && e == geteuid());
	CHECK(getresgid(&gr, &ge, &gs) == 0 && gr == getgid() && ge == getegid());
	errno = 0;
	CHECK(getresuid(bad, &e, &s) == -1 && errno == EFAULT);
	errno = 0;
	CHECK(getresuid(&r, bad, &s) == -1 && errno == EFAULT);
	errno = 0;
	CHECK(getresuid(&r, &e, high) == -1 && errno == EFAULT);
	errno = 0;
	CHECK(getresgid(bad, &ge, &gs) == -1 && errno == EFAULT);
	errno = 0;
	CHECK(getresgid(&gr, &ge, high) == -1 && errno == EFAULT);
	/* read-only memory is no place to store either */
	void *ro = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED);
	errno = 0;
	CHECK(getresuid(&r, ro, &s) == -1 && errno == EFAULT);
	munmap(ro, 4096);
}

/* getresk: each of the three slots of getresuid and getresgid (unless
   six_only: an address only the six-id form's 24 bytes cross the top
   from), and the six-id form, at an address the kernel must refuse:
   EFAULT. */
static void getids_refused(uint64_t a, int six_only)
{
	uid_t r, e, s;
	for (int kind = IDS_UIDS; kind <= IDS_GIDS && !six_only; kind++) {
		CHECK(syscall4(SYS_getids, a, &e, &s, kind) == -EFAULT);
		CHECK(syscall4(SYS_getids, &r, a, &s, kind) == -EFAULT);
		CHECK(syscall4(SYS_getids, &r, &e, a, kind) == -EFAULT);
	}
	CHECK(syscall4(SYS_getids, a, 0, 0, 0) == -EFAULT);
}

#define RACE_N 1000                      /* munmap/mmap rounds */
static uint32_t *race_page;
static volatile int race_done;
static long race_ok, race_efault, race_other;

static void *unmapper(void *arg)
{
	(void)arg;
	for (int i = 0; i < RACE_N; i++) {
		CHECK(munmap(race_page, 4096) == 0);
		CHECK(mmap(race_page, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == race_page);
		sched_yield();           /* (one VP: let the caller in between) */
	}
	race_done = 1;
	return 0;
}

static void getresk(void)
{
	uint64_t bad[] = {
		0xffff800000000000ul,    /* the kernel half's first address */
		0xffffffff80100000ul,    /* the kernel's text */
		0xffffffff80400000ul,    /* and past it, its data */
		0xfffffffffffffffeul,    /* a store that wraps to 0 */
		USER_TOP,                /* the first non-canonical address */
		USER_TOP - 1, USER_TOP - 2, USER_TOP - 3,   /* 4 bytes across the top */
		USER_TOP - 4 - 12, USER_TOP - 4 - 2,        /* 24 bytes across it */
	};
	/* The page below the top mapped (SYS_map's own: mmap keeps that
	   page out): a store across the top must not begin there either. */
	uint8_t *top = (uint8_t *)(USER_TOP - 4096);
	int mapped = syscall3(SYS_map, top, 4096, PROT_READ | PROT_WRITE) == (long)top;
	if (mapped)
		memset(top, 0xab, 4096);
	unsigned n = sizeof bad / sizeof bad[0];
	for (unsigned i = 0; i < n; i++)
		getids_refused(bad[i], i >= n - 2);
	if (mapped) {
		int clean = 1;
		for (int i = 4096 - 24; i < 4096; i++)
			clean &= top[i] == 0xab;
		CHECK(clean);
		uid_t r, e, s;
		CHECK(getresuid(&r, &e, &s) == 0);
		CHECK(getresuid(&r, &e, (uid_t *)(USER_TOP - 4)) == 0 &&
		      *(uid_t *)(USER_TOP - 4) == s);   /* the last slot is user space's */
		CHECK(syscall2(SYS_unmap, top, 4096) == 0);
	}
	printf("procgap: page below the top mapped: %s\n", mapped ? "yes" : "no");

	/* The race: every call 0 or EFAULT, the kernel unharmed. */
	race_page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(race_page != MAP_FAILED);
	pthread_t t;
	CHECK(pthread_create(&t, 0, unmapper, 0) == 0);
	for (long n = 0; n < 16 || !race_done; n++) {
		long r = syscall4(SYS_getids, race_page, race_page + 1, race_page + 1023, IDS_UIDS);
		if (!r)
			race_ok++;
		else if (r == -EFAULT)
			race_efault++;
		else
			race_other++;
		if (n % 16 == 15)
			sched_yield();
	}
	pthread_join(t, 0);
	CHECK(race_other == 0);
	uid_t r, e, s;
	CHECK(getresuid(&r, &e, &s) == 0 && r == getuid() && e == geteuid());
	printf("procgap: getids racing munmap: %ld ok, %ld EFAULT\n", race_ok, race_efault);
	munmap(race_page, 4096);
}

/* One mode (the header's list), its own @result: a boot runs several
   in turn (`procgap waitid getres`), each counted apart, to share one
   boot (harness/tests/test_procgap.py). adopt only first: it is about
   space 1 with no child yet. */
static int run_mode(const char *mode)
{
	checks = failures = 0;
	CHECK(shm != MAP_FAILED);
	if (!strcmp(mode, "adopt"))
		adopt();
	else if (!strcmp(mode, "init"))
		init();
	else if (!strcmp(mode, "orphan"))
		orphan();
	else if (!strcmp(mode, "waitid"))
		waitid_flags();
	else if (!strcmp(mode, "auxv"))
		auxv();
	else if (!strcmp(mode, "itexec"))
		itexec();
	else if (!strcmp(mode, "rtperiod"))
		rtperiod();
	else if (!strcmp(mode, "wcancel"))
		wcancel();
	else if (!strcmp(mode, "getres"))
		getres();
	else if (!strcmp(mode, "getresk"))
		getresk();
	struct result r;
	result_begin(&r, "procgap");
	result_str(&r, "mode", mode);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	if (!strcmp(mode, "getresk")) {
		result_int(&r, "race_ok", race_ok);
		result_int(&r, "race_efault", race_efault);
	}
	result_end(&r);
	return failures != 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "auxvchild"))
		return auxvchild(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "itchild"))
		return itchild();
	shm = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int bad = 0;
	for (int i = 1; i < argc || i == 1; i++)
		bad |= run_mode(argc > 1 ? argv[i] : "adopt");
	return bad;
}
