/*
 * ttyattr: the console as a serial terminal (kernel/tty.c,
 * ulib/libc/termios.c; harness/tests/test_tty.py). Descriptors 0, 1, 2
 * of a boot program are the console: isatty, ttyname "/dev/ttyS0",
 * tcgetattr gives a serial line's settings at the UART's 115200 baud;
 * tcsetattr keeps them in the kernel, so what a child set its parent
 * sees (a speed asked for stays 115200: the UART is not reprogrammed);
 * OPOST|OCRNL makes "\r" go out as "\n" (the harness sees a line end
 * where a bare "\r", which it drops, went out before);
 * ENOTTY for a pipe, /dev/null and a file, EBADF for a closed
 * descriptor; SYS_tty refuses a bad operation and a bad pointer.
 */
#define CHECK_NAME "ttyattr"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <anima/syscall.h>
#include <anima/tty.h>
#include <check.h>

static int notty(int fd)
{
	struct termios t;
	char b[32];
	int ok = !isatty(fd) && errno == ENOTTY;
	ok &= tcgetattr(fd, &t) == -1 && errno == ENOTTY;
	ok &= tcsetattr(fd, TCSANOW, &t) == -1 && errno == ENOTTY;
	ok &= !ttyname(fd) && errno == ENOTTY && ttyname_r(fd, b, sizeof b) == ENOTTY;
	return ok;
}

int main(void)
{
	struct termios t, u;
	for (int fd = 0; fd < 3; fd++) {
		CHECK(isatty(fd) == 1);
		CHECK(ttyname(fd) && !strcmp(ttyname(fd), "/dev/ttyS0"));
	}
	CHECK(tcgetattr(0, &t) == 0);
	CHECK(cfgetospeed(&t) == B115200 && cfgetispeed(&t) == B115200);
	CHECK((t.c_cflag & CSIZE) == CS8 && (t.c_cflag & CREAD) && !(t.c_cflag & PARENB));
	CHECK((t.c_lflag & ICANON) && (t.c_lflag & ECHO) && (t.c_lflag & ISIG));
	CHECK(!(t.c_oflag & OPOST));     /* (the console passes bytes unchanged) */
	CHECK(t.c_cc[VINTR] == 3 && t.c_cc[VEOF] == 4 && t.c_cc[VMIN] == 1);

	pid_t c = fork();                /* a child's settings are the tty's */
	if (c == 0) {
		struct termios v = t;
		v.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
		v.c_cc[VMIN] = 5;
		cfsetspeed(&v, B9600);
		_exit(tcsetattr(1, TCSADRAIN, &v) == 0 ? 0 : 1);
	}
	int st = -1;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(tcgetattr(2, &u) == 0);
	CHECK(!(u.c_lflag & (ECHO | ICANON)) && u.c_cc[VMIN] == 5);
	CHECK(cfgetospeed(&u) == B115200);   /* (the UART's) */

	u.c_oflag = OPOST | ONLCR | OCRNL;   /* output processing: applied ("\r" is "\n" now) */
	CHECK(tcsetattr(1, TCSANOW, &u) == 0);
	CHECK(write(1, "ttyattr: cr\rnl\n", 15) == 15);
	CHECK(tcsetattr(1, TCSANOW, &t) == 0);   /* back as it was: bytes unchanged */
	CHECK(write(1, "ttyattr: raw\rcr\n", 16) == 16);
	CHECK(tcgetattr(0, &u) == 0 && !memcmp(&t, &u, sizeof t));
	CHECK(tcsetattr(1, 9, &t) == -1 && errno == EINVAL);
	CHECK(tcdrain(1) == 0 && tcflush(0, TCIFLUSH) == 0);

	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(notty(p[0]) && notty(p[1]));
	int n = open("/dev/null", O_RDWR), f = open("/ttyfile", O_RDWR | O_CREAT, 0644);
	CHECK(n >= 0 && f >= 0);
	CHECK(notty(n) && notty(f));
	close(n);
	close(f);
	close(p[0]);
	close(p[1]);
	CHECK(tcgetattr(p[0], &t) == -1 && errno == EBADF);
	CHECK(!isatty(p[0]) && errno == EBADF);

	CHECK(syscall2(SYS_tty, 7, (long)&t) == -EINVAL);
	CHECK(syscall2(SYS_tty, TTY_GET, 8) == -EFAULT);
	CHECK(syscall2(SYS_tty, TTY_SET, 8) == -EFAULT);
	printf("ttyattr: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
