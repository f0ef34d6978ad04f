/*
 * The console as a terminal (SYS_tty; kernel/tty.c): its termios
 * settings, one set for the one tty (the serial console, "/dev/ttyS0"),
 * kept in the kernel so every process sees what another set, as on a
 * real tty. struct ktermios is Linux's struct termios on x86-64 (glibc's
 * and ulib's: ulib asserts it).
 */
#ifndef ANIMA_TTY_H
#define ANIMA_TTY_H
#include <stdint.h>

struct ktermios {
	uint32_t iflag, oflag, cflag, lflag;
	uint8_t line;
	uint8_t cc[32];
	uint8_t pad[3];
	uint32_t ispeed, ospeed;
};
_Static_assert(sizeof(struct ktermios) == 60, "struct termios's size on Linux x86-64 (glibc)");

#define TTY_GET 0    /* SYS_tty: the settings into *t */
#define TTY_SET 1    /* SYS_tty: *t as the settings; the speed stays the UART's (115200) */

/* What the kernel applies (Linux's c_oflag bits): with TTY_OPOST, TTY_ONLCR
   writes "\n" as "\r\n" and TTY_OCRNL "\r" as "\n"; the rest is kept, not
   applied (there is no console input: the kernel never reads the UART) */
#define TTY_OPOST 0000001
#define TTY_ONLCR 0000004
#define TTY_OCRNL 0000010

#endif
