/* det=par's heap (heap.c): per-thread arenas in an isolated range. */
#ifndef DET_HEAP_H
#define DET_HEAP_H

void heap_init(void);                /* par_run: map the range, serve malloc */
void heap_enter(void);               /* ensure_view: the range joins the VP's view */
void heap_exit(void **arena);        /* par_exit, in the thread's last turn */
/* par.c: the calling det thread's arena slot (0 for no det thread), and
   whether it is between fences (not inside a serial operation). */
void **par_arena(int *between);

#endif
