/* errno: each thread's own, in its TCB (<animart/tls.h>); one global when TLS is
   off (the program has no TLS segment and no POSIX threads) or on a VP
   with no TLS block (a runtime VP's scheduler loop). */
#include <errno.h>
#include <animart/tls.h>

static int errno_global;

int *__errno_location(void)
{
	struct tcb *t = tls_tcb();
	return t ? &t->err : &errno_global;
}
