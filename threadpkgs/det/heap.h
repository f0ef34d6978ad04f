/* det=par's heap (heap.c): per-thread arenas in an isolated range. */
#ifndef DET_HEAP_H
#define DET_HEAP_H

void heap_init(void);                /* par_run: map the range, serve malloc */
int heap_pieces(void);               /* pieces of the range handed out so far */
void heap_enter(int i);              /* piece i joins the calling VP's view */
void heap_exit(void **arena);
int heap_meets(const void *p, uint64_t n);   /* par_create: a stack in the view? */        /* par_exit, in the thread's last turn */
/* par.c: the calling det thread's arena slot (0 for no det thread), and
   whether it is between fences (not inside a serial operation). */
void **par_arena(int *between);
void par_central(void);
void par_cover(void);                /* the VP's view takes the pieces handed out */              /* alloc declines: the library's malloc fences next */

#endif
