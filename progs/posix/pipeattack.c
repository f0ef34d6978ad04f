/*
 * pipeattack: hostile use of the kernel's pipes (kernel/pipe.c;
 * harness/tests/test_kpipe.py, booted with memquota=16). Everything runs
 * in a child, so INFO_MEM_AVAIL before it and after it ended shows every
 * pipe and charge came back ("avail_lost").
 *   fds      SYS_pipe_wait on descriptors that are not open or not a
 *            pipe: EBADF; read of a write end and write of a read end:
 *            EBADF; pread, lseek: ESPIPE
 *   buffers  SYS_pipe into kernel memory and into read-only memory:
 *            EFAULT, and no descriptor left behind (INFO_FILES); a write
 *            from and a read into kernel memory: EFAULT, the pipe's bytes
 *            unchanged (fstat's size)
 *   flood    a child writes without end into a pipe the parent reads a
 *            little of, then kills it: the rest reads out, then EOF
 *   killed   a child waiting in the kernel for a read is killed: the
 *            parent's write then fails with EPIPE
 *   quota    a child that has taken all its quota but 256 KiB makes
 *            pipes until SYS_pipe says ENOMEM (a few, not 32), and every
 *            one made works
 */
#define CHECK_NAME "pipeattack"
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <anima/file.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

#define KBAD 0xffff800000000000L

static long kpipe(int fd[2])
{
	return syscall1(SYS_pipe, fd);
}

static long size_of(int fd)
{
	struct kstat st;
	return syscall2(SYS_file_fstat, fd, &st) < 0 ? -1 : (long)st.size;
}

static void fds(void)
{
	int k[2];
	CHECK(kpipe(k) == 0);
	CHECK(syscall6(SYS_pipe_wait, -1, 1, 0, 0, 0, 0) == -EBADF);
	CHECK(syscall6(SYS_pipe_wait, MAXFILE_SPACE, 1, 0, 0, 0, 0) == -EBADF);
	CHECK(syscall6(SYS_pipe_wait, 1L << 40, 1, 0, 0, PIPEW_BLOCK, 0) == -EBADF);
	long s = syscall2(SYS_file_special, FK_NULL, O_RDWR);
	CHECK(s >= 0 && syscall6(SYS_pipe_wait, s, 1, 0, 0, PIPEW_BLOCK, 0) == -EBADF);
	CHECK(syscall2(SYS_file_special, 9, 0) == -EINVAL && syscall2(SYS_file_special, FK_NULL, 3) == -EINVAL);
	char b[4];
	CHECK(syscall3(SYS_file_read, k[1], b, 4) == -EBADF && syscall3(SYS_file_write, k[0], "x", 1) == -EBADF);
	CHECK(syscall4(SYS_file_pread, k[0], b, 4, 0) == -ESPIPE);
	CHECK(syscall3(SYS_file_lseek, k[1], 0, 0) == -ESPIPE);
	/* state bits: empty and private; then ready; the other end gone: a hang-up */
	CHECK(syscall6(SYS_pipe_wait, k[0], 1, 0, 0, 0, 0) == PIPE_PRIVATE);
	CHECK(syscall3(SYS_file_write, k[1], "xy", 2) == 2);
	CHECK(syscall6(SYS_pipe_wait, k[0], 1, 0, 0, PIPEW_BLOCK, 0) == (PIPE_READY | PIPE_PRIVATE));
	CHECK(syscall1(SYS_file_close, k[1]) == 0);
	CHECK(syscall6(SYS_pipe_wait, k[0], 1, 0, 0, 0, 0) == (PIPE_READY | PIPE_HUP | PIPE_PRIVATE));
	CHECK(syscall1(SYS_file_close, k[0]) == 0 && syscall1(SYS_file_close, s) == 0);
}

static const int rodata[2] = { 7, 7 };

static void buffers(void)
{
	long open = sys_getinfo(INFO_FILES);
	CHECK(syscall1(SYS_pipe, KBAD) == -EFAULT);
	CHECK(syscall1(SYS_pipe, (long)rodata) == -EFAULT);
	CHECK(syscall1(SYS_pipe, (long)(USER_TOP - 4)) == -EFAULT);
	CHECK(sys_getinfo(INFO_FILES) == open);          /* nothing left behind */
	int k[2];
	char b[8];
	CHECK(kpipe(k) == 0);
	CHECK(syscall3(SYS_file_write, k[1], KBAD, 10) == -EFAULT && size_of(k[0]) == 0);
	CHECK(syscall3(SYS_file_write, k[1], "abc", 3) == 3);
	CHECK(syscall3(SYS_file_read, k[0], KBAD, 3) == -EFAULT && size_of(k[0]) == 3);
	CHECK(syscall3(SYS_file_read, k[0], b, 8) == 3 && !memcmp(b, "abc", 3));
	CHECK(syscall3(SYS_file_read, k[0], b, 8) == -EAGAIN);   /* the kernel never waits */
	CHECK(syscall1(SYS_file_close, k[0]) == 0 && syscall1(SYS_file_close, k[1]) == 0);
}

static void flood(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pid_t c = fork();
	if (c == 0) {
		static char big[1 << 20];
		close(p[0]);
		for (;;)
			write(p[1], big, sizeof big);
	}
	close(p[1]);
	static char b[65536];
	size_t got = 0;
	for (int i = 0; i < 10; i++) {
		ssize_t r = read(p[0], b, sizeof b);
		got += r > 0 ? (size_t)r : 0;
	}
	CHECK(got > 0);
	CHECK(kill(c, SIGKILL) == 0 && fork_status(c) == 128 + SIGKILL);
	ssize_t r;
	while ((r = read(p[0], b, sizeof b)) > 0)
		;
	CHECK(r == 0);                   /* the end of file: the writer's end went with it */
	close(p[0]);
}

static void killed(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pid_t c = fork();
	if (c == 0) {
		char b[4];
		close(p[1]);
		read(p[0], b, sizeof b);     /* waits in the kernel: the pipe is shared */
		_exit(3);
	}
	close(p[0]);
	usleep(20000);
	CHECK(kill(c, SIGKILL) == 0 && fork_status(c) == 128 + SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	CHECK(write(p[1], "x", 1) == -1 && errno == EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
}

/* In a child: fill the quota, give 256 KiB back, make pipes until
   ENOMEM. Exit 0 if that came after 1 to 8 pipes that all worked. */
#define CHUNK (64 * 1024)
static int quota_child(void)
{
	static void *chunk[4096];
	int n = 0;
	while (n < 4096) {
		void *m = mmap(0, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			break;
		memset(m, 1, CHUNK);
		chunk[n++] = m;
	}
	for (int i = 0; i < 4 && n > 0; i++)
		munmap(chunk[--n], CHUNK);
	int k[32][2], made = 0, ok = 1;
	long r = 0;
	while (made < 32 && (r = kpipe(k[made])) == 0)
		made++;
	for (int i = 0; i < made; i++) {
		char c = 0;
		ok &= syscall3(SYS_file_write, k[i][1], "q", 1) == 1 && syscall3(SYS_file_read, k[i][0], &c, 1) == 1 && c == 'q';
		syscall1(SYS_file_close, k[i][0]);
		syscall1(SYS_file_close, k[i][1]);
	}
	printf("pipeattack: quota: %d pipes, then %ld\n", made, r);
	return r == -ENOMEM && made >= 1 && made <= 8 && ok ? 0 : 1;
}

static int body(void)
{
	fds();
	buffers();
	flood();
	killed();
	pid_t c = fork();
	if (c == 0)
		_exit(quota_child());
	CHECK(fork_status(c) == 0);
	return failures;
}

int main(void)
{
	return fork_audit_report(body);
}
