/*
 * Pipes across fork, and the descriptor calls (dup, dup2, dup3, fcntl).
 */
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include "conf.h"

#define WRITERS 4
#define RECS 64

void conf_pipes(void)
{
	conf_area = "pipes";
	int fds[2];
	char b[PIPE_BUF];
	K(pipe(fds) == 0 && fds[0] >= 0 && fds[1] > fds[0]);
	struct stat st;
	K(fstat(fds[0], &st) == 0 && S_ISFIFO(st.st_mode));
	/* EOF once every writer closed: the child's and ours */
	pid_t p = fork();
	if (p == 0) {
		close(fds[0]);
		write(fds[1], "hi", 2);
		_exit(0);
	}
	close(fds[1]);
	K(conf_readall(fds[0], b, sizeof b) == 2 && !memcmp(b, "hi", 2));
	K(read(fds[0], b, 1) == 0);
	K(conf_status(p) == 0);
	close(fds[0]);
	/* no reader anywhere: SIGPIPE ends the writer; ignored, EPIPE. The
	   child writes once we told it (through `go`) that our ends are
	   closed: not after a sleep, which a busy host can outlast */
	int go[2];
	pipe(fds);
	pipe(go);
	p = fork();
	if (p == 0) {
		close(fds[0]), close(go[1]);
		read(go[0], b, 1);
		write(fds[1], "x", 1);
		_exit(0);
	}
	close(fds[0]), close(fds[1]), close(go[0]);
	write(go[1], "g", 1);
	close(go[1]);
	K(conf_status(p) == 128 + SIGPIPE);
	pipe(fds);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	KERR(write(fds[1], "x", 1), EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
	/* O_NONBLOCK: EAGAIN on an empty pipe and on a full one */
	K(pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0);
	K(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	K(fcntl(fds[1], F_GETFD) == FD_CLOEXEC);
	K((fcntl(fds[1], F_GETFL) & O_ACCMODE) == O_WRONLY);
	KERR(read(fds[0], b, 1), EAGAIN);
	memset(b, 'z', sizeof b);
	long total = 0, n;
	while ((n = write(fds[1], b, sizeof b)) > 0 && total < (1 << 24))
		total += n;
	K(n == -1 && errno == EAGAIN && total >= 4096);
	K(read(fds[0], b, 1) == 1);
	close(fds[0]);
	close(fds[1]);
	/* PIPE_BUF writes from several processes are never interleaved */
	pipe(fds);
	pid_t w[WRITERS];
	for (int i = 0; i < WRITERS; i++)
		if ((w[i] = fork()) == 0) {
			close(fds[0]);
			char r[PIPE_BUF];
			memset(r, 'A' + i, sizeof r);
			for (int k = 0; k < RECS; k++)
				if (write(fds[1], r, sizeof r) != sizeof r)
					_exit(1);
			_exit(0);
		}
	close(fds[1]);
	int bad = 0, recs = 0;
	while (conf_readall(fds[0], b, sizeof b) == sizeof b) {
		recs++;
		for (int k = 1; k < PIPE_BUF; k++)
			bad += b[k] != b[0];
	}
	K(recs == WRITERS * RECS && bad == 0);
	for (int i = 0; i < WRITERS; i++)
		K(conf_status(w[i]) == 0);
	close(fds[0]);
	KERR(lseek(fds[0], 0, SEEK_SET), EBADF);
	pipe(fds);
	KERR(lseek(fds[0], 0, SEEK_CUR), ESPIPE);
	KERR(write(fds[0], "x", 1), EBADF);
	KERR(read(fds[1], b, 1), EBADF);
	close(fds[0]), close(fds[1]);
}

void conf_dup(void)
{
	conf_area = "dup";
	int fd = open("/conf.dup", O_RDWR | O_CREAT | O_TRUNC, 0644);
	K(fd >= 0);
	int d = dup(fd);
	K(d > fd);
	K(write(fd, "abc", 3) == 3 && lseek(d, 0, SEEK_CUR) == 3);
	close(d);
	K(dup(fd) == d);                     /* the lowest free number */
	K(dup2(fd, fd) == fd);
	K(dup2(fd, 20) == 20 && fcntl(20, F_GETFD) == 0);
	KERR(dup2(fd, -1), EBADF);
	KERR(dup2(99, 21), EBADF);
	KERR(dup3(fd, fd, 0), EINVAL);
	KERR(dup3(fd, 22, 12345), EINVAL);
	K(dup3(fd, 22, O_CLOEXEC) == 22 && fcntl(22, F_GETFD) == FD_CLOEXEC);
	K(fcntl(fd, F_DUPFD, 30) == 30);
	K(fcntl(fd, F_DUPFD_CLOEXEC, 30) == 31 && fcntl(31, F_GETFD) == FD_CLOEXEC);
	KERR(fcntl(fd, F_DUPFD, -1), EINVAL);
	KERR(dup(-1), EBADF);
	KERR(fcntl(99, F_GETFL), EBADF);
	K((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
	K(fcntl(fd, F_SETFL, O_APPEND) == 0);
	K(fcntl(d, F_GETFL) & O_APPEND);       /* status flags are shared */
	K(lseek(fd, 0, SEEK_SET) == 0 && write(d, "d", 1) == 1 && lseek(fd, 0, SEEK_CUR) == 4);
	K(fcntl(fd, F_SETFL, 0) == 0 && !(fcntl(d, F_GETFL) & O_APPEND));
	K(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && fcntl(d, F_GETFD) == 0);
	K(close(20) == 0 && close(22) == 0 && close(30) == 0 && close(31) == 0);
	KERR(close(20), EBADF);
	KERR(close(-1), EBADF);
	close(d);
	close(fd);
	unlink("/conf.dup");
}
