/* <syscall.h>: glibc's short name for <sys/syscall.h>. */
#include <sys/syscall.h>
