/*
 * The console's terminal settings (SYS_tty, <anima/tty.h>): one struct
 * ktermios for the one tty, the serial console, shared by every process
 * and kept across exec, as a real tty's are. The kernel has no console
 * input (it never reads the UART: a read of the console is at its end),
 * so the input and line-discipline settings (ICANON, ECHO, ISIG, c_cc)
 * are kept and given back but change nothing; of the output ones OPOST
 * with ONLCR and OCRNL are applied to programs' writes (sys_cputs), the
 * rest kept. They start as "raw" output, what the console always did
 * (bytes pass unchanged: no OPOST), with Linux's serial console input
 * defaults, at the UART's speed, 115200 8N1; a TTY_SET keeps that speed
 * (the UART is not reprogrammed), as a driver gives back the speed it
 * really runs at.
 */
#include "kernel.h"
#include <anima/tty.h>

#define B115200 0010002          /* Linux's speed code (c_cflag's CBAUD bits) */
#define CBAUD   0010017

static struct spinlock tty_lock = SPINLOCK_INIT("tty");
static struct ktermios tty = {
	.iflag = 0000400 | 0002000,                          /* ICRNL IXON */
	.oflag = 0,                                          /* bytes pass unchanged */
	.cflag = B115200 | 0000060 | 0000200 | 0002000 | 0004000,   /* CS8 CREAD HUPCL CLOCAL */
	.lflag = 0000001 | 0000002 | 0000010 | 0000020 | 0000040 | 0001000 | 0004000 | 0100000,
						/* ISIG ICANON ECHO ECHOE ECHOK ECHOCTL ECHOKE IEXTEN */
	.cc = { [0] = 003, [1] = 034, [2] = 0177, [3] = 025, [4] = 004, [6] = 1, [8] = 021,
		[9] = 023, [10] = 032, [12] = 022, [13] = 017, [14] = 027, [15] = 026 },
	.ispeed = B115200, .ospeed = B115200,
};
static uint32_t oflag;           /* tty.oflag, read without the lock by tty_write */

/* (TTY_GET or TTY_SET, struct ktermios *) */
long sys_tty(uint64_t op, uint64_t ut, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct ktermios t;
	if (op == TTY_GET) {
		spin_lock(&tty_lock);
		t = tty;
		spin_unlock(&tty_lock);
		return copyout(ut, &t, sizeof t) < 0 ? -EFAULT : 0;
	}
	if (op != TTY_SET)
		return -EINVAL;
	if (copyin(&t, ut, sizeof t) < 0)
		return -EFAULT;
	t.cflag = (t.cflag & ~(uint32_t)CBAUD) | B115200;    /* the UART's speed */
	t.ispeed = t.ospeed = B115200;
	memset(t.pad, 0, sizeof t.pad);
	spin_lock(&tty_lock);
	tty = t;
	__atomic_store_n(&oflag, t.oflag, __ATOMIC_RELAXED);
	spin_unlock(&tty_lock);
	return 0;
}

/* A program's n bytes to the console, as its output settings say;
   console_lock held. */
void tty_write(const char *s, size_t n)
{
	uint32_t o = __atomic_load_n(&oflag, __ATOMIC_RELAXED);
	if (!(o & TTY_OPOST) || !(o & (TTY_ONLCR | TTY_OCRNL))) {
		console_write(s, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i] == '\r' && (o & TTY_OCRNL) ? '\n' : s[i];
		if (c == '\n' && (o & TTY_ONLCR))
			console_write("\r", 1);
		console_write(&c, 1);
	}
}
