/* <sys/poll.h>: the old name for <poll.h> (glibc's includes it). */
#include <poll.h>
