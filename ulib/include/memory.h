/* <memory.h>: old code's name for <string.h> (glibc's is the same). */
#include <string.h>
