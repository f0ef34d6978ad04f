/*
 * Streams on functions: GNU's fopencookie. fio.c and ffile.c reach a
 * stream's descriptor through four calls (file.h) that go to the
 * functions instead for such a stream. A cookied stream has no
 * descriptor (fileno -1); its buffer, locking and flushing are those of
 * every stream, so its functions see whole buffers at a flush, a seek, a
 * read that empties the buffer, or fclose.
 */
#include <stdio.h>
#include "file.h"

FILE *fopencookie(void *cookie, const char *mode, cookie_io_functions_t io)
{
	FILE *f = __ff_new(-1, mode);
	if (!f)
		return 0;
	flockfile(f);
	f->cookied = 1;
	f->cookie = cookie;
	f->io = io;
	funlockfile(f);
	return f;
}
