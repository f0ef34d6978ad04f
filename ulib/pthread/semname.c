/*
 * Named semaphores, shared by every process that opens the name: each is
 * a page of a named segment "sem.NAME" (SYS_seg_open, kernel/segname.c)
 * holding a process-shared semaphore (pshared.c). A segment lives at one
 * address everywhere, so a second sem_open of a name in one process
 * returns the same sem_t, as glibc does; the opens are counted here and
 * the last sem_close unmaps it. sem_unlink removes the name at once; the
 * semaphore goes when the last process that maps it closes it or ends.
 * A forked child shares its parent's opens (the mapping and this count
 * are inherited). Names as glibc takes them: leading slashes skipped,
 * then 1..NAME_MAX-4 bytes without '/'.
 *
 * A name has an owner and a mode, as glibc's file /dev/shm/sem.NAME: the
 * maker's effective ids and `mode` less the umask; opening it needs read
 * and write permission (EACCES), and only its owner or root may unlink
 * it (EACCES), as in glibc's sticky /dev/shm (kernel/segname.c).
 *
 * Whoever makes the name sets the semaphore up; an opener that finds it
 * still zero (made an instant ago) waits for that (`state`).
 */
#include <semaphore.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sched.h>
#include <pthread.h>
#include <animart/seg.h>

struct page {                        /* the segment's first bytes */
	volatile int state;          /* 0 new, 1 being set up, 2 ready */
	int pad[15];
	sem_t sem;
};

mode_t __umask_now(void);            /* (ulib/libc/nofile.c) */

#define MAXOPEN MAXSEG_SPACE
static struct { sem_t *sem; int refs; } opens[MAXOPEN];   /* this process's, under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* "sem." and the name into k, or 0 with errno set. */
static char *check(const char *name, char *k)
{
	while (*name == '/')
		name++;
	size_t n = strlen(name);
	if (n == 0 || strchr(name, '/')) {
		errno = EINVAL;
		return 0;
	}
	if (n > NAME_MAX - 4) {          /* glibc: "sem." + name must fit NAME_MAX */
		errno = ENAMETOOLONG;
		return 0;
	}
	strcpy(k, "sem.");
	strcat(k, name);
	return k;
}

static int err(long r)
{
	errno = r == -ENOSPC ? ENOSPC : r == -EAGAIN || r == -ENOMEM ? EMFILE : (int)-r;
	return -1;
}

/* Map the segment of handle h (or find where this process has it). */
static struct page *map(long h)
{
	long a = seg_map(h, PROT_READ | PROT_WRITE);
	if (a == -EEXIST)
		a = seg_info(h, 0, 0);
	sys_cap_drop(h);
	return sys_failed(a) ? (err(a), (struct page *)0) : (struct page *)a;
}

/* Count an open of s here (lock held): 0, or -1 (too many). */
static int count(sem_t *s)
{
	int f = -1;
	for (int i = 0; i < MAXOPEN; i++) {
		if (opens[i].sem == s) {
			opens[i].refs++;
			return 0;
		}
		if (!opens[i].sem && f < 0)
			f = i;
	}
	if (f < 0)
		return -1;
	opens[f].sem = s;
	opens[f].refs = 1;
	return 0;
}

sem_t *sem_open(const char *name, int oflag, ...)
{
	unsigned value = 0, mode = 0;
	char k[NAME_MAX + 2];
	if (oflag & O_CREAT) {
		va_list ap;
		va_start(ap, oflag);
		mode = va_arg(ap, unsigned) & 0777 & ~__umask_now();   /* as open's */
		value = va_arg(ap, unsigned);
		va_end(ap);
	}
	if (!check(name, k))
		return SEM_FAILED;
	if ((oflag & O_CREAT) && value > SEM_VALUE_MAX) {
		errno = EINVAL;
		return SEM_FAILED;
	}
	int fl = (oflag & O_CREAT ? SEGN_CREAT : 0) | (oflag & O_EXCL ? SEGN_EXCL : 0) | SEGN_MODE;
	long h = syscall4(SYS_seg_open, k, sizeof(struct page), fl, mode);
	if (sys_failed(h))
		return err(h), SEM_FAILED;
	struct page *p = map(h);
	if (!p)
		return SEM_FAILED;
	int z = 0;
	if ((oflag & O_CREAT) && __atomic_compare_exchange_n(&p->state, &z, 1, 0, __ATOMIC_ACQ_REL,
							      __ATOMIC_ACQUIRE)) {
		sem_init(&p->sem, 1, value);
		__atomic_store_n(&p->state, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();           /* its maker sets it up this instant */
	pthread_mutex_lock(&lock);
	int r = count(&p->sem);
	pthread_mutex_unlock(&lock);
	if (r < 0) {
		errno = EMFILE;
		return SEM_FAILED;       /* (MAXSEG_SPACE: seg_map refused first) */
	}
	return &p->sem;
}

int sem_close(sem_t *sem)
{
	int e = EINVAL, last = 0;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAXOPEN; i++)
		if (opens[i].sem == sem && opens[i].refs > 0) {
			e = 0;
			if ((last = --opens[i].refs == 0))
				opens[i].sem = 0;
			break;
		}
	pthread_mutex_unlock(&lock);
	if (last)
		seg_unmap((char *)sem - offsetof(struct page, sem));
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

int sem_unlink(const char *name)
{
	char k[NAME_MAX + 2];
	if (!check(name, k)) {
		if (errno == EINVAL)
			errno = ENOENT;      /* glibc: a bad name is not there */
		return -1;
	}
	long r = syscall1(SYS_seg_unlink, k);
	return sys_failed(r) ? err(r) : 0;
}
