/*
 * sigwin: a signal from another process whose announcement reaches a
 * thread before it parks still cuts its wait short (issue 34's window).
 * Deterministically: the thread holds a runtime spin lock while the one
 * signal comes, so its VP's interrupt (kthread, naive) or upcall (the
 * user-level packages) finds it inside a spin lock and fetches nothing;
 * only then does it wait. The kernel cuts that wait short once (the
 * VP's sigwake); whoever's wait that is must fetch the signal, or the
 * thread waits again and the kernel tells no more (no second send
 * until the handler has run).
 * argv[1] the wait:
 *   sem:   sem_wait (kthread: a futex wait on the park word);
 *   timed: sem_timedwait with a far deadline (the timed park);
 *   pipe:  a read of a pipe the sender holds open (the kernel's pipe wait);
 *   pshared: sem_wait of a process-shared semaphore (its own futex word;
 *          on classic VPs only: an upcall package's is not cut short).
 * Each ends only by the handler (EINTR): a signal never fetched hangs
 * it, and the harness's timeout fails it. On a user-level package
 * another VP may fetch the signal meanwhile and the thread run the
 * handler as it leaves the lock, before its wait (reported: early, if
 * before the call; the sender then sends on); on kthread, one VP per
 * thread, nothing else can fetch it: its wait meets the window every
 * time (early 0).
 */
#define CHECK_NAME "sigwin"
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animalib/result.h>
#include <check.h>
#include <sigcatch.h>

struct shared {
	volatile int go;         /* the parent holds its spin lock: send */
	volatile int again;      /* the handler ran: send on */
	volatile int stop;       /* the parent's wait returned: end */
	sem_t psem;              /* the pshared case's semaphore */
};
static struct shared *sh;
static volatile int ran;

static void on_usr1(int s)
{
	(void)s;
	ran++;
	sh->again = 1;
}

/* The sender: one SIGUSR1 once the parent says go, then it waits (its
   pipe end open) until the parent's wait has returned. Once the handler
   has run it sends again and again, as psig2's nagger: it may have run
   before the wait began (on a user-level package another VP may fetch
   the signal, and the thread run it as it leaves the lock or at the
   trywait sem_timedwait begins with), which is legitimate, and the wait
   then needs another signal to end. What it must not do is never run:
   the signal left unfetched in the kernel, which tells no more. */
static void sender(void)
{
	pid_t p = getppid();
	while (!sh->go)
		usleep(100);
	int r = kill(p, SIGUSR1);
	for (int i = 0; i < 200000 && !sh->stop; i++) {
		if (sh->again)
			r |= kill(p, SIGUSR1);
		usleep(500);
	}
	_exit(r != 0 || !sh->stop);
}

/* Hold a spin lock until the kernel has announced the signal (its
   count of EV_PSIG posted grew) and the VP has heard it: the syscall
   that sees the count returns through the interrupt or upcall, which
   finds the lock held and leaves the signal in the kernel. */
static void announced_in_lock(void)
{
	static struct spin l = SPIN_INIT;
	long n0 = syscall2(SYS_getinfo, INFO_SIGPEND, 1);
	spin_lock(&l);
	sh->go = 1;
	while (syscall2(SYS_getinfo, INFO_SIGPEND, 1) == n0)
		;
	spin_unlock(&l);
}

/* Whether the handler ran before the wait began (then the window was
   not what the wait met). */
static int early;

static void one(const char *which)
{
	CHECK(sig_catch(SIGUSR1, on_usr1, 0) == 0);
	int fd[2] = { -1, -1 };
	sem_t s;
	CHECK(sem_init(&s, 0, 0) == 0);
	CHECK(sem_init(&sh->psem, 1, 0) == 0);
	if (!strcmp(which, "pipe"))
		CHECK(pipe(fd) == 0);
	pid_t c = fork();
	if (c == 0) {
		if (fd[0] >= 0)
			close(fd[0]);
		sender();
	}
	CHECK(c > 0);
	if (fd[1] >= 0)
		close(fd[1]);                /* only the sender holds the write end */
	announced_in_lock();
	early = ran;
	int r = 0;
	if (!strcmp(which, "sem"))
		r = sem_wait(&s);
	else if (!strcmp(which, "timed")) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1000;
		r = sem_timedwait(&s, &ts);
	} else if (!strcmp(which, "pipe")) {
		char b;
		r = (int)read(fd[0], &b, 1);
	} else if (!strcmp(which, "pshared"))
		r = sem_wait(&sh->psem);
	else
		CHECK(!"no such wait");
	int e = errno;
	sh->stop = 1;
	int st = -1;
	pid_t w;
	while ((w = waitpid(c, &st, 0)) == -1 && errno == EINTR)
		;       /* the child's signals: the handler has no SA_RESTART (Linux's EINTR) */
	CHECK(w == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(r == -1 && e == EINTR);
	CHECK(ran >= 1);
	if (fd[0] >= 0)
		close(fd[0]);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "sem";
	sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	one(which);
	struct result r;
	result_begin(&r, "sigwin");
	result_str(&r, "wait", which);
	result_int(&r, "early", early);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
