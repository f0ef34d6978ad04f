/* glibc's processor and memory counts (the same as sysconf's). */
#ifndef ULIB_SYS_SYSINFO_H
#define ULIB_SYS_SYSINFO_H
int get_nprocs(void);                /* CPUs online */
int get_nprocs_conf(void);           /* the same: every CPU the kernel found is online */
long get_phys_pages(void);           /* sysconf(_SC_PHYS_PAGES) */
long get_avphys_pages(void);         /* sysconf(_SC_AVPHYS_PAGES) */

/* Linux's struct sysinfo and sysinfo() (ulib/sysinfo.c): uptime from the
   boot clock, RAM from the kernel (INFO_MEM_TOTAL, INFO_MEM_FREE), procs
   the address spaces the kernel holds; no swap, shared, buffer or high
   memory here (0), and no load average kept (0). */
struct sysinfo {
	long uptime;                     /* seconds since boot */
	unsigned long loads[3];
	unsigned long totalram, freeram, sharedram, bufferram;
	unsigned long totalswap, freeswap;
	unsigned short procs;
	unsigned short pad;
	unsigned long totalhigh, freehigh;
	unsigned int mem_unit;           /* the figures above are in these bytes: 1 */
	char _f[20 - 2 * sizeof(long) - sizeof(int)];
};
int sysinfo(struct sysinfo *info);
#endif
