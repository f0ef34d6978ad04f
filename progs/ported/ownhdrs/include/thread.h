/* The program's own "thread": a chain of tasks run in turn. */
#ifndef OWN_THREAD_H
#define OWN_THREAD_H
struct thread { int ntasks; int done; };
int thread_run(struct thread *t);
#endif
