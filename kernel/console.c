/*
 * The console: COM1 at 115200 8N1. Every line the kernel prints goes here,
 * and so do user writes (SYS_cputs). One lock serializes whole messages so
 * lines from different CPUs never interleave mid-line; a panicking CPU
 * ignores the lock (the holder may be the CPU that panicked, or halted).
 */
#include "kernel.h"
#include <animacom/fmt.h>

#define COM1 0x3f8

static struct spinlock cons_lock = SPINLOCK_INIT("console");

void console_init(void)
{
	outb(COM1 + 1, 0x00);   /* no interrupts: we poll */
	outb(COM1 + 3, 0x80);   /* DLAB */
	outb(COM1 + 0, 0x01);   /* divisor 1: 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);   /* 8N1 */
	outb(COM1 + 2, 0xc7);   /* FIFO on */
	outb(COM1 + 4, 0x03);
}

/* Whether the console is at the start of a line: a program may leave a
   partial line (its last printf had no newline), and an @event line of
   the kernel's must not be glued onto it, or the harness would miss it. */
static int at_bol = 1;

static void serial_putc(char c)
{
	at_bol = c == '\n';
	/* Wait for the transmit holding register; bounded so a missing UART
	   cannot hang the kernel. */
	for (int i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
		pause();
	outb(COM1, (uint8_t)c);
}

void console_lock(void)
{
	if (!panicking)
		spin_lock(&cons_lock);
}

void console_unlock(void)
{
	if (!panicking)
		spin_unlock(&cons_lock);
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		serial_putc(s[i]);
}

static void put_serial(char c, void *arg)
{
	(void)arg;
	serial_putc(c);
}

int vkprintf(const char *f, va_list ap)
{
	console_lock();
	if (f[0] == '@' && !at_bol)
		serial_putc('\n');
	int n = fmt_format(put_serial, 0, f, ap);
	console_unlock();
	return n;
}

int kprintf(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vkprintf(f, ap);
	va_end(ap);
	return n;
}

struct sbuf {
	char *p;
	size_t n, len;
};

static void put_buf(char c, void *arg)
{
	struct sbuf *b = arg;
	if (b->len + 1 < b->n)
		b->p[b->len] = c;
	b->len++;
}

int ksnprintf(char *buf, size_t n, const char *f, ...)
{
	struct sbuf b = { buf, n, 0 };
	va_list ap;
	va_start(ap, f);
	fmt_format(put_buf, &b, f, ap);
	va_end(ap);
	if (n)
		buf[b.len < n ? b.len : n - 1] = 0;
	return (int)b.len;
}
