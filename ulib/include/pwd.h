/* <pwd.h>: the user database: root, uid 0 (what a boot program runs
   as), home "/", shell /bin/sh; and nobody, uid 65534 (ulib/pwd.c). */
#ifndef ULIB_PWD_H
#define ULIB_PWD_H

#include <stddef.h>
#include <sys/types.h>

struct passwd {
	char *pw_name;
	char *pw_passwd;
	uid_t pw_uid;
	gid_t pw_gid;
	char *pw_gecos;
	char *pw_dir;
	char *pw_shell;
};

struct passwd *getpwuid(uid_t uid);
struct passwd *getpwnam(const char *name);
int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t n, struct passwd **out);
int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t n, struct passwd **out);
struct passwd *getpwent(void);
void setpwent(void);
void endpwent(void);

#endif
