/* The signal-mask half of sigsetjmp and siglongjmp (ulib/setjmp.S): the
   mask lives in the sigjmp_buf's last word. */
#include <setjmp.h>
#include <signal.h>

_Static_assert(sizeof(sigset_t) == sizeof(unsigned long), "one word of sigjmp_buf");

int __sigjmp_save(sigjmp_buf env);
int __sigjmp_save(sigjmp_buf env)
{
	sigprocmask(SIG_BLOCK, 0, (sigset_t *)&env[10]);
	return 0;
}

void __sigjmp_restore(sigjmp_buf env);
void __sigjmp_restore(sigjmp_buf env)
{
	sigprocmask(SIG_SETMASK, (sigset_t *)&env[10], 0);
}
