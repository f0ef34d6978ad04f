/*
 * Program entry. The kernel starts a program at _start with
 *   rsp -> argc, argv[0..argc-1], NULL   (System V layout, 16-byte aligned)
 * and all other registers zero. We call main(argc, argv) and pass its
 * return value to exit().
 */
	.text
	.globl _start
_start:
	xor %rbp, %rbp            /* terminate frame-pointer backtraces */
	mov (%rsp), %rdi          /* argc */
	lea 8(%rsp), %rsi         /* argv */
	and $-16, %rsp
	call __libc_start
	ud2                       /* __libc_start never returns */
