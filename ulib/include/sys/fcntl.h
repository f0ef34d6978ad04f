/* <sys/fcntl.h>: the old name for <fcntl.h> (glibc's includes it). */
#include <fcntl.h>
