/* <wait.h>: glibc's old name for <sys/wait.h>. */
#include <sys/wait.h>
