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
	.globl copy_user_nf, user_touch, uaccess_nf_start, uaccess_nf_end

/* long copy_user(void *dst, const void *src, size_t n): 0 or -EFAULT.
   8 bytes a step, then the tail: QEMU emulates a rep-string instruction
   one iteration at a time (and icount counts each), so rep movsb made a
   4 KiB copy 4,096 steps (common/string.c's memcpy does the same). */
copy_user:
	call smap_open
	mov %rdx, %rcx
	shr $3, %rcx
uaccess_start:
	rep movsq
	mov %rdx, %rcx
	and $7, %rcx
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

/* long user_touch(uint64_t uva, int w): one byte read, or (w) changed by
   nothing in a locked add, so that its page is there, and writable for
   w, as a copy's fault would make it: 0 or -EFAULT. */
user_touch:
	call smap_open
	test %esi, %esi
	jz 1f
	lock addb $0, (%rdi)
	jmp 2f
1:	movb (%rdi), %al
2:	call smap_close
	xor %eax, %eax
	ret

/* long copy_user_nf(void *dst, const void *src, size_t n): as copy_user,
   but a fault here is never handled (uaccess_fixup): -EFAULT, for a
   caller that holds a lock the handling may need (pipe.c). */
copy_user_nf:
	call smap_open
	mov %rdx, %rcx
	shr $3, %rcx
uaccess_nf_start:
	rep movsq
	mov %rdx, %rcx
	and $7, %rcx
	rep movsb
uaccess_nf_end:
	call smap_close
	xor %eax, %eax
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
