/* glibc's processor counts (the same as sysconf's). */
#ifndef ULIB_SYS_SYSINFO_H
#define ULIB_SYS_SYSINFO_H
int get_nprocs(void);
int get_nprocs_conf(void);
#endif
