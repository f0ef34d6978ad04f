/* <sys/endian.h>: the BSDs' name for <endian.h>. */
#include <endian.h>
