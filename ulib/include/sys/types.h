/* POSIX's basic types. (pthread_t and friends: <pthread.h>.) */
#ifndef ULIB_SYS_TYPES_H
#define ULIB_SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <bits/time.h>

typedef long ssize_t;
typedef int pid_t;
typedef unsigned uid_t;
typedef unsigned gid_t;
typedef unsigned mode_t;
typedef long off_t;
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef long blksize_t;
typedef long blkcnt_t;
typedef unsigned useconds_t;
#ifndef __clock_t_defined
#define __clock_t_defined
typedef long clock_t;
#endif
typedef int id_t;
typedef int key_t;               /* System V IPC keys (<sys/ipc.h>) */
typedef unsigned int u_int;
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned long u_long;

#endif
