/* POSIX path names: the last component and the rest. */
#ifndef ULIB_LIBGEN_H
#define ULIB_LIBGEN_H
char *basename(char *path);
char *dirname(char *path);
#endif
