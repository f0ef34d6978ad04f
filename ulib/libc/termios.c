/*
 * The console as a terminal. isatty says its descriptors are one (fd.c)
 * and fstat gives them S_IFCHR, so the terminal calls work on them and
 * on no other descriptor: ENOTTY for a file or pipe, EBADF for a closed
 * one, as on Linux. One set of settings, the program's, starting as a
 * Linux serial console's (38400 baud, 8 bits, canonical with echo):
 * tcsetattr keeps what it is given and tcgetattr gives it back, but the
 * console's bytes pass unchanged whatever they say (no echo or line
 * editing: its input is always at its end). ttyname is "/dev/console".
 */
#include <termios.h>
#include <unistd.h>
#include <string.h>
#include <errno.h>
#include <animart/spin.h>

static struct termios now = {
	.c_iflag = ICRNL | IXON,
	.c_oflag = OPOST | ONLCR,
	.c_cflag = B38400 | CS8 | CREAD | HUPCL,
	.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.c_cc = { [VINTR] = 003, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 004,
		  [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032, [VREPRINT] = 022,
		  [VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026 },
	.c_ispeed = B38400, .c_ospeed = B38400,
};
static struct spin lk;

int tcgetattr(int fd, struct termios *t)
{
	if (!isatty(fd))
		return -1;                   /* (errno: EBADF or ENOTTY) */
	spin_lock(&lk);
	*t = now;
	spin_unlock(&lk);
	return 0;
}

int tcsetattr(int fd, int when, const struct termios *t)
{
	if (!isatty(fd))
		return -1;
	if (when != TCSANOW && when != TCSADRAIN && when != TCSAFLUSH) {
		errno = EINVAL;
		return -1;
	}
	spin_lock(&lk);
	now = *t;
	spin_unlock(&lk);
	return 0;
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

int tcdrain(int fd) { return tty(fd); }
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
	if (n < sizeof "/dev/console")
		return ERANGE;
	memcpy(buf, "/dev/console", sizeof "/dev/console");
	return 0;
}

char *ttyname(int fd)
{
	static char name[sizeof "/dev/console"];
	int r = ttyname_r(fd, name, sizeof name);
	if (r) {
		errno = r;
		return 0;
	}
	return name;
}
