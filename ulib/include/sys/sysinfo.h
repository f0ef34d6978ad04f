/* glibc's processor and memory counts (the same as sysconf's). */
#ifndef ULIB_SYS_SYSINFO_H
#define ULIB_SYS_SYSINFO_H
int get_nprocs(void);                /* CPUs online */
int get_nprocs_conf(void);           /* the same: every CPU the kernel found is online */
long get_phys_pages(void);           /* sysconf(_SC_PHYS_PAGES) */
long get_avphys_pages(void);         /* sysconf(_SC_AVPHYS_PAGES) */
#endif
