/* det=par (par.c): det with DTHREADS's parallel phase, chosen by the
   `det=par` word (ulib/pthread/pstart.c) before the program's own. */
#ifndef DET_PAR_H
#define DET_PAR_H
#include <animart/vprt.h>

extern int det_par;
__attribute__((noreturn)) void par_run(void *(*f)(void *), void *a);
struct thread *par_create(void *(*f)(void *), void *a, const struct thread_attr *at);

#endif
