/*
 * backtrace(): follows the saved frame pointers (the build keeps them:
 * -fno-omit-frame-pointer) from the caller up. A thread's first frame
 * has a null frame pointer (lctx_make), which ends the walk; so does any
 * saved pointer that is not above the last, or not below the top of the
 * thread's stack: its TCB, which sits just above the stack (tls_place).
 * Without TLS (a native program) the walk stays within 1 MiB of where
 * it began. Frames of code built without a frame pointer (parts of the
 * POSIX layer) are skipped or end the walk.
 */
#include <execinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <animart/tls.h>
#include "nocancel.h"

__attribute__((noinline)) int backtrace(void **buffer, int size)
{
	uintptr_t *fp = __builtin_frame_address(0);
	uintptr_t top = (uintptr_t)tls_tcb();
	if (top <= (uintptr_t)fp)
		top = (uintptr_t)fp + (1 << 20);
	int n = 0;
	while (n < size && fp) {
		uintptr_t ret = fp[1];
		if (!ret)
			break;
		buffer[n++] = (void *)ret;
		uintptr_t *next = (uintptr_t *)fp[0];
		if ((uintptr_t)next <= (uintptr_t)fp || (uintptr_t)next % 8 ||
		    (uintptr_t)next + 16 > top)
			break;
		fp = next;
	}
	return n;
}

#define SYMLEN 24    /* "[0x" 16 digits "]" and the nul */

char **backtrace_symbols(void *const *buffer, int size)
{
	if (size < 0)
		size = 0;
	char **v = malloc((size_t)size * (sizeof(char *) + SYMLEN) + 1);
	if (!v)
		return 0;
	char *s = (char *)(v + size);
	for (int i = 0; i < size; i++, s += SYMLEN) {
		snprintf(s, SYMLEN, "[%p]", buffer[i]);
		v[i] = s;
	}
	return v;
}

void backtrace_symbols_fd(void *const *buffer, int size, int fd)
{
	char line[SYMLEN + 1];
	for (int i = 0; i < size; i++) {
		int n = snprintf(line, sizeof line, "[%p]\n", buffer[i]);
		if (__write_nocancel(fd, line, (size_t)n) < 0)
			return;
	}
}
