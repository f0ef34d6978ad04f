/*
 * The only kernel code that touches user memory. Callers check that the
 * range lies below USER_TOP first (uaccess.c); a fault here (unmapped or
 * read-only page) is turned by trap() into a return of -EFAULT, because
 * uaccess_fixup() finds the faulting rip between uaccess_start and
 * uaccess_end. With SMAP on, user pages are reachable only between stac
 * and clac.
 */
#include <anima/errno.h>

	.text
	.globl copy_user, copy_user_str, uaccess_start, uaccess_end, uaccess_fault

/* long copy_user(void *dst, const void *src, size_t n): 0 or -EFAULT */
copy_user:
	call smap_open
	mov %rdx, %rcx
uaccess_start:
	rep movsb
	call smap_close
	xor %eax, %eax
	ret

/* long copy_user_str(char *dst, const char *usrc, size_t max):
   length without the NUL, or max if there is no NUL in the first max
   bytes (dst then holds max bytes, unterminated), or -EFAULT. */
copy_user_str:
	call smap_open
	xor %eax, %eax
1:	cmp %rdx, %rax
	je 2f
	movb (%rsi, %rax), %cl
	movb %cl, (%rdi, %rax)
	test %cl, %cl
	jz 2f
	inc %rax
	jmp 1b
2:	call smap_close
	ret
uaccess_end:

uaccess_fault:
	call smap_close
	mov $-EFAULT, %rax
	ret

smap_open:
	cmpl $0, have_smap(%rip)
	je 1f
	stac
1:	ret
smap_close:
	cmpl $0, have_smap(%rip)
	je 1f
	clac
1:	ret
