/* <sys/signal.h>: old code's name for <signal.h> (glibc's includes it too). */
#include <signal.h>
