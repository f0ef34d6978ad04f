/*
 * A private mapping of a file starts from the file as every process sees
 * it, stores made through a shared mapping and not yet written back
 * included (Linux: both map the page cache's page). Here a shared page is
 * one frame in a table (kernel/fshare.c) that read() and write() consult;
 * a private page was read from the block cache alone, so it missed such
 * stores (the Open POSIX suite's mmap 7-4: a shared memory object written
 * through MAP_SHARED, mapped MAP_PRIVATE by a forked child). Checked for
 * a file and a shm_open object, in the same process and in a child,
 * before and after msync; a private copy then keeps its own stores and
 * stops following the shared page, as on Linux once it is written.
 * A MAP_SHARED map through a read-only descriptor was such a private
 * copy too, frozen at its first touch: it now shares the frames (later
 * stores, a child's too, show in it) and refuses write access
 * (mprotect's EACCES, as Linux).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "privsnap"
#include "check.h"

static long pg;

static int object(int shm)
{
	char name[64];
	int fd;
	if (shm) {
		snprintf(name, sizeof name, "/privsnap_%d", getpid());
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		shm_unlink(name);
	} else {
		snprintf(name, sizeof name, "/tmp/privsnap_%d", getpid());
		fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		unlink(name);
	}
	CHECK(fd >= 0 && ftruncate(fd, 2 * pg) == 0);
	return fd;
}

/* What a private mapping's first touch of page 1 finds, here or in a child. */
static char private_sees(int fd, int in_child)
{
	if (in_child) {
		pid_t c = fork();
		if (c == 0) {
			char *q = mmap(0, 2 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
			_exit(q == MAP_FAILED ? 0 : (unsigned char)q[pg + 7]);
		}
		int st = 0;
		CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st));
		return (char)WEXITSTATUS(st);
	}
	char *q = mmap(0, 2 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(q != MAP_FAILED);
	char v = q[pg + 7];
	munmap(q, 2 * pg);
	return v;
}

static void one(int shm, int in_child)
{
	int fd = object(shm);
	char *s = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(s != MAP_FAILED);
	s[pg + 7] = 'a';                                  /* not written back yet */
	CHECK(private_sees(fd, in_child) == 'a');
	CHECK(msync(s, 2 * pg, MS_SYNC) == 0);
	s[pg + 7] = 'b';
	CHECK(private_sees(fd, in_child) == 'b');

	/* a private page once written is its own: later shared stores stay out */
	char *q = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(q != MAP_FAILED && q[pg + 7] == 'b');
	q[pg + 7] = 'p';
	s[pg + 7] = 'c';
	CHECK(q[pg + 7] == 'p' && s[pg + 7] == 'c');
	char r = 0;
	CHECK(pread(fd, &r, 1, pg + 7) == 1 && r == 'c');
	munmap(q, 2 * pg);
	munmap(s, 2 * pg);
	close(fd);
}

/* A shm object opened O_RDONLY and mapped MAP_SHARED sees another
   mapping's stores made after its own first touch (the Open POSIX
   suite's shm_open 1-1 reads once; a reader polling needs the rest). */
static void read_only_shared(void)
{
	char name[64];
	snprintf(name, sizeof name, "/privsnap_ro_%d", getpid());
	int w = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(w >= 0 && ftruncate(w, pg) == 0);
	int r = shm_open(name, O_RDONLY, 0);
	shm_unlink(name);
	CHECK(r >= 0);
	char *ws = mmap(0, pg, PROT_READ | PROT_WRITE, MAP_SHARED, w, 0);
	volatile char *rs = mmap(0, pg, PROT_READ, MAP_SHARED, r, 0);
	CHECK(ws != MAP_FAILED && rs != MAP_FAILED);
	ws[9] = 'x';
	CHECK(rs[9] == 'x');                              /* first touch */
	ws[9] = 'y';
	CHECK(rs[9] == 'y');                              /* and after it */
	CHECK(mprotect((void *)rs, pg, PROT_READ | PROT_WRITE) == -1 && errno == EACCES);
	CHECK(mprotect(ws, pg, PROT_READ) == 0 && mprotect(ws, pg, PROT_READ | PROT_WRITE) == 0);

	pid_t c = fork();                                 /* a child's stores show too */
	if (c == 0) {
		ws[9] = 'z';
		_exit(0);
	}
	int st = 0;
	CHECK(waitpid(c, &st, 0) == c && rs[9] == 'z');
	char b = 0;
	CHECK(pread(r, &b, 1, 9) == 1 && b == 'z');
	munmap(ws, pg);
	munmap((void *)rs, pg);
	close(w);
	close(r);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	for (int shm = 0; shm < 2; shm++)
		for (int child = 0; child < 2; child++)
			one(shm, child);
	read_only_shared();
	printf("@result {\"name\": \"privsnap\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
