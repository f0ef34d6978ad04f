/* <grp.h>: the group database, of the one group here: root, gid 0, no
   members listed (ulib/libc/grp.c; <pwd.h>'s user is in it). */
#ifndef ULIB_GRP_H
#define ULIB_GRP_H

#include <stddef.h>
#include <sys/types.h>

struct group {
	char *gr_name;
	char *gr_passwd;
	gid_t gr_gid;
	char **gr_mem;            /* null-ended */
};

struct group *getgrgid(gid_t gid);
struct group *getgrnam(const char *name);
int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t n, struct group **out);
int getgrnam_r(const char *name, struct group *gr, char *buf, size_t n, struct group **out);
struct group *getgrent(void);
void setgrent(void);
void endgrent(void);
int setgroups(size_t n, const gid_t *list);   /* privileged; at most NGROUPS_MAX (ulib/libc/ids.c) */

#endif
