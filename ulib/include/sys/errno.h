/* <sys/errno.h>: the old name for <errno.h> (glibc's includes it). */
#include <errno.h>
