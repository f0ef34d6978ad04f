/*
 * System V shared memory (<sys/shm.h>) over files, as shm_open's objects
 * are (shm.c): segment ID is the file /dev/shm/.sysvshm.ID (sysvipc.c:
 * the identifiers, keys and modes), one page of description (struct
 * seg: the key, size, times, pids and attachment count, which every
 * process updates through its shared mapping) and then the memory. IPC_RMID removes the key at once (a
 * shmget of it makes a new segment) and the segment when nothing is
 * attached, else at the last shmdt: until then, as on Linux, the id
 * still attaches and IPC_STAT shows SHM_DEST and key 0.
 *
 * shm_nattch counts shmat, less shmdt, plus one for each attachment a
 * fork copies (__sysvshm_forked), by process in the description (struct
 * by, under plock.c's lock): nothing in this library runs at _exit or a
 * kill, so whoever next takes the lock (shmat, shmdt, IPC_STAT, IPC_RMID)
 * drops the attachments of processes that ended (kill(pid, 0)'s ESRCH),
 * as Linux detaches them at the exit; a removed segment they held goes
 * then, at the next call on its id (Linux's at the exit: until such a
 * call it stays in /dev/shm). An exec keeps its pid, so its attachments
 * stay counted (Linux detaches then), as do those of processes past BY.
 * Each process keeps at most SHMATT_MAX attachments (EMFILE past them, as Linux past SHMSEG).
 */
#include <sys/shm.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <animart/spin.h>
#include "plock.h"
#include "sysvipc.h"

#define SEG_MAGIC 0x53797356u          /* "VsyS" */
#define HDR 4096                       /* the description's page */
#define SHMMAX (1UL << 40)             /* Linux's bound on one segment is larger still */
#define SHMATT_MAX 128
#define BY 500                         /* processes whose attachments are told apart */

struct seg {
	unsigned magic;
	key_t key;
	size_t size;
	pid_t cpid, lpid;
	time_t atime, dtime, ctime;
	shmatt_t nattch;
	int removed;                   /* IPC_RMID while attached: the file goes at the last shmdt */
	uint32_t lock;                 /* plock.c's: nattch and by */
	struct by { int32_t pid, n; } by[BY];   /* attachments by process (pid 0: a free entry) */
};
_Static_assert(sizeof(struct seg) <= HDR, "the description fits its page");

static struct att {
	char *addr;                    /* 0: a free slot */
	size_t len;
	int id;
} atts[SHMATT_MAX];
static struct spin attlk;

static void seg_path(char *p, int id) { sysv_path(p, "shm", id); }

/* The segment's description mapped shared (and its descriptor in *fdp if
   fdp), or 0 with errno: EINVAL for no such segment, else open's. */
static struct seg *seg_map(int id, int oflag, int *fdp)
{
	char p[48];
	if (id < 0) {
		errno = EINVAL;
		return 0;
	}
	seg_path(p, id);
	int fd = open(p, oflag | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = EINVAL;
		return 0;
	}
	struct seg *s = mmap(0, HDR, PROT_READ | ((oflag & O_ACCMODE) == O_RDWR ? PROT_WRITE : 0),
			     MAP_SHARED, fd, 0);
	if (s == MAP_FAILED || s->magic != SEG_MAGIC) {
		if (s != MAP_FAILED)
			munmap(s, HDR);
		close(fd);
		errno = EINVAL;            /* (one being made: not there yet) */
		return 0;
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return s;
}

/* shmget's test of an existing segment (sysv_get) */
static int fits(int id, void *size)
{
	struct seg *s = seg_map(id, O_RDONLY, 0);
	if (!s)
		return errno == EINVAL ? 1 : -1;
	size_t have = s->size;
	munmap(s, HDR);
	if (*(size_t *)size > have) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int shmget(key_t key, size_t size, int flags)
{
	if (size > SHMMAX) {
		errno = EINVAL;
		return -1;
	}
	struct seg s = { .magic = SEG_MAGIC, .key = key, .size = size, .cpid = getpid(), .ctime = time(0) };
	return sysv_get("shm", key, flags, HDR + size, &s, sizeof s, size == 0 ? EINVAL : 0, fits, &size);
}

/* The lock held: the attachments of processes that ended are dropped
   (Linux detaches them at the exit). */
static void reap(void *arg)
{
	struct seg *s = arg;
	for (int i = 0; i < BY; i++)
		if (s->by[i].pid && !plk_alive(s->by[i].pid)) {
			s->nattch -= (shmatt_t)s->by[i].n;
			s->by[i] = (struct by){ 0, 0 };
		}
}

static void lock(struct seg *s)
{
	plk_lock(&s->lock, reap, s);
	reap(s);
}

/* The lock held: a removed segment goes with its last attachment. */
static void maybe_gone(struct seg *s, int id)
{
	char p[48];
	if (s->removed && s->nattch == 0) {
		seg_path(p, id);
		unlink(p);
	}
}

/* One attachment more (attach) or less, the caller's. */
static void touch(struct seg *s, int attach, int id)
{
	int me = getpid(), free_i = -1, i;
	lock(s);
	s->lpid = me;
	for (i = 0; i < BY && s->by[i].pid != me; i++)
		if (!s->by[i].pid && free_i < 0)
			free_i = i;
	if (i == BY && attach && free_i >= 0)
		s->by[i = free_i].pid = me;
	if (i < BY)                    /* (else counted, never dropped at an end) */
		s->by[i].n += attach ? 1 : -1;
	if (i < BY && s->by[i].n <= 0)
		s->by[i] = (struct by){ 0, 0 };
	if (attach) {
		s->atime = time(0);
		s->nattch++;
	} else {
		s->dtime = time(0);
		s->nattch--;
		maybe_gone(s, id);
	}
	plk_unlock(&s->lock);
}

void *shmat(int id, const void *addr, int flags)
{
	int ro = flags & SHM_RDONLY, fd;
	char *want = (char *)addr;
	if (want && (flags & SHM_RND))
		want -= (unsigned long)want % SHMLBA;
	if ((unsigned long)want % SHMLBA) {
		errno = EINVAL;
		return (void *)-1;
	}
	struct seg *s = seg_map(id, ro ? O_RDONLY : O_RDWR, &fd);
	if (!s)
		return (void *)-1;
	size_t len = s->size;
	char *a = mmap(want, len, PROT_READ | (ro ? 0 : PROT_WRITE),
		       MAP_SHARED | (want ? MAP_FIXED : 0), fd, HDR);
	close(fd);
	if (a == MAP_FAILED) {
		munmap(s, HDR);
		return (void *)-1;
	}
	spin_lock(&attlk);
	int i = 0;
	while (i < SHMATT_MAX && atts[i].addr)
		i++;
	if (i < SHMATT_MAX)
		atts[i] = (struct att){ a, len, id };
	spin_unlock(&attlk);
	if (i == SHMATT_MAX) {
		munmap(a, len);
		munmap(s, HDR);
		errno = EMFILE;
		return (void *)-1;
	}
	if (!ro)
		touch(s, 1, id);
	else {
		/* a reader may not write the description: the writer's view */
		struct seg *w = seg_map(id, O_RDWR, 0);
		if (w) {
			touch(w, 1, id);
			munmap(w, HDR);
		}
	}
	munmap(s, HDR);
	return a;
}

int shmdt(const void *addr)
{
	struct att t = { 0, 0, 0 };
	spin_lock(&attlk);
	for (int i = 0; i < SHMATT_MAX; i++)
		if (atts[i].addr && atts[i].addr == addr) {
			t = atts[i];
			atts[i].addr = 0;
			break;
		}
	spin_unlock(&attlk);
	if (!t.addr) {
		errno = EINVAL;
		return -1;
	}
	munmap(t.addr, t.len);
	struct seg *s = seg_map(t.id, O_RDWR, 0);
	if (s) {
		touch(s, 0, t.id);
		munmap(s, HDR);
	}
	return 0;
}

/* In a fork's child: each attachment copied is one more. */
void __sysvshm_forked(void)
{
	for (int i = 0; i < SHMATT_MAX; i++)
		if (atts[i].addr) {
			struct seg *s = seg_map(atts[i].id, O_RDWR, 0);
			if (s) {
				touch(s, 1, atts[i].id);   /* (Linux's fork sets the time and pid too) */
				munmap(s, HDR);
			}
		}
}

static int stat_seg(int id, struct shmid_ds *buf)
{
	int fd;
	struct seg *w = seg_map(id, O_RDWR, 0);    /* (a reader cannot drop the ended's) */
	if (w) {
		lock(w);               /* the ended's attachments dropped: it may go */
		maybe_gone(w, id);
		plk_unlock(&w->lock);
		munmap(w, HDR);
	}
	struct seg *s = seg_map(id, O_RDONLY, &fd);
	if (!s)
		return -1;
	struct stat st;
	int r = fstat(fd, &st);
	close(fd);
	if (r == 0) {
		memset(buf, 0, sizeof *buf);
		buf->shm_perm.__key = s->key;
		buf->shm_perm.uid = st.st_uid;
		buf->shm_perm.gid = st.st_gid;
		buf->shm_perm.cuid = st.st_uid;
		buf->shm_perm.cgid = st.st_gid;
		buf->shm_perm.mode = (st.st_mode & 0777) | (s->removed ? SHM_DEST : 0);
		buf->shm_segsz = s->size;
		buf->shm_atime = s->atime;
		buf->shm_dtime = s->dtime;
		buf->shm_ctime = s->ctime;
		buf->shm_cpid = s->cpid;
		buf->shm_lpid = s->lpid;
		buf->shm_nattch = s->nattch;
	}
	munmap(s, HDR);
	return r;
}

int shmctl(int id, int cmd, struct shmid_ds *buf)
{
	if (cmd == IPC_STAT)
		return stat_seg(id, buf);
	if (cmd == IPC_SET) {
		int fd;
		struct seg *s = seg_map(id, O_RDONLY, &fd);
		if (!s)
			return -1;
		int r = fchown(fd, buf->shm_perm.uid, buf->shm_perm.gid);
		if (r == 0)
			r = fchmod(fd, buf->shm_perm.mode & 0777);
		close(fd);
		munmap(s, HDR);
		if (r == 0 && (s = seg_map(id, O_RDWR, 0))) {
			s->ctime = time(0);
			munmap(s, HDR);
		}
		return r;
	}
	if (cmd == IPC_RMID) {
		struct seg *s = seg_map(id, O_RDWR, 0);
		if (!s)
			return -1;
		sysv_key_drop("shm", s->key, id);
		lock(s);
		s->key = IPC_PRIVATE;
		s->removed = 1;
		maybe_gone(s, id);
		plk_unlock(&s->lock);
		munmap(s, HDR);
		return 0;
	}
	errno = EINVAL;
	return -1;
}

key_t ftok(const char *path, int id)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return (key_t)((st.st_ino & 0xffff) | ((st.st_dev & 0xff) << 16) | ((unsigned)(id & 0xff) << 24));
}
