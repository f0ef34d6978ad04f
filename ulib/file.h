/* FILE, private to ulib's stdio (stdio.c, stdfile.c). */
#ifndef ULIB_FILE_H
#define ULIB_FILE_H

struct __file {
	int fd;
	int eof, err;
};

#endif
