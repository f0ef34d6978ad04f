/*
 * The console as a terminal. isatty says its descriptors are one (fd.c)
 * and fstat gives them S_IFCHR, so the terminal calls work on them and
 * on no other descriptor: ENOTTY for a file or pipe, EBADF for a closed
 * one, as on Linux. The settings are the kernel's (SYS_tty,
 * kernel/tty.c): one set for the console, the serial line ttyS0, seen by
 * every process and kept across exec, as a tty's are. They start as a
 * Linux serial console's at the UART's 115200 baud, 8 bits, canonical
 * with echo, but with output passed unchanged (no OPOST), which is what
 * the console does; tcsetattr keeps what it is given (the speed stays
 * 115200: the UART is not reprogrammed) and tcgetattr gives it back.
 * Output: OPOST with ONLCR or OCRNL is applied; other output bits are
 * kept only. The kernel has no console input (a read is at its end),
 * so the input and local settings are kept but change nothing. ttyname
 * is "/dev/ttyS0".
 */
#include <termios.h>
#include <unistd.h>
#include <string.h>
#include <errno.h>
#include <animart/sys.h>
#include <anima/syscall.h>
#include <anima/tty.h>
#include "../pthread/pwait.h"

_Static_assert(sizeof(struct termios) == sizeof(struct ktermios), "struct termios is the kernel's");
_Static_assert(__builtin_offsetof(struct termios, c_cc) == __builtin_offsetof(struct ktermios, cc) &&
	       __builtin_offsetof(struct termios, c_ispeed) == __builtin_offsetof(struct ktermios, ispeed),
	       "struct termios's fields are the kernel's");
_Static_assert(OPOST == TTY_OPOST && ONLCR == TTY_ONLCR && OCRNL == TTY_OCRNL, "output bits");

#define TTYNAME "/dev/ttyS0"

static int sys(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

int tcgetattr(int fd, struct termios *t)
{
	if (!isatty(fd))
		return -1;                   /* (errno: EBADF or ENOTTY) */
	return sys(syscall2(SYS_tty, TTY_GET, (long)t));
}

int tcsetattr(int fd, int when, const struct termios *t)
{
	if (!isatty(fd))
		return -1;
	if (when != TCSANOW && when != TCSADRAIN && when != TCSAFLUSH) {
		errno = EINVAL;
		return -1;
	}
	return sys(syscall2(SYS_tty, TTY_SET, (long)t));
}

void cfmakeraw(struct termios *t)
{
	t->c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	t->c_oflag &= ~(tcflag_t)OPOST;
	t->c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t->c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t->c_cflag |= CS8;
	t->c_cc[VMIN] = 1;
	t->c_cc[VTIME] = 0;
}

/* Linux keeps one speed, in c_cflag's CBAUD bits. */
speed_t cfgetospeed(const struct termios *t)
{
	return t->c_cflag & CBAUD;
}

speed_t cfgetispeed(const struct termios *t)
{
	return cfgetospeed(t);
}

int cfsetospeed(struct termios *t, speed_t s)
{
	if ((s & ~(speed_t)CBAUD) || s == CBAUDEX) {     /* not a B* value */
		errno = EINVAL;
		return -1;
	}
	t->c_cflag = (t->c_cflag & ~(tcflag_t)CBAUD) | s;
	t->c_ospeed = s;
	return 0;
}

/* 0 means "the output speed" (POSIX): nothing to change. */
int cfsetispeed(struct termios *t, speed_t s)
{
	if (!s)
		return 0;
	if (cfsetospeed(t, s) < 0)
		return -1;
	t->c_ispeed = s;
	return 0;
}

int cfsetspeed(struct termios *t, speed_t s)
{
	if (cfsetospeed(t, s) < 0)
		return -1;
	t->c_ispeed = s;
	return 0;
}

/* Console output is written when the call that makes it returns, and
   its input holds nothing: draining, flushing and flow control have
   nothing to do. */
static int tty(int fd)
{
	return isatty(fd) ? 0 : -1;
}

int tcdrain(int fd) { pcancel_point(); return tty(fd); }   /* (a cancellation point) */
int tcflush(int fd, int queue) { (void)queue; return tty(fd); }
int tcflow(int fd, int action) { (void)action; return tty(fd); }
int tcsendbreak(int fd, int duration) { (void)duration; return tty(fd); }

int ttyname_r(int fd, char *buf, size_t n)
{
	int e = errno;
	if (!isatty(fd)) {
		int r = errno;
		errno = e;
		return r;
	}
	if (n < sizeof TTYNAME)
		return ERANGE;
	memcpy(buf, TTYNAME, sizeof TTYNAME);
	return 0;
}

char *ttyname(int fd)
{
	static char name[sizeof TTYNAME];
	int r = ttyname_r(fd, name, sizeof name);
	if (r) {
		errno = r;
		return 0;
	}
	return name;
}
