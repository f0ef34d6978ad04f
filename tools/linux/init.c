/*
 * The init of the Linux guest the harness boots beside Anima
 * (harness/linux.py): built by the host's gcc, static against glibc, and
 * put in the initramfs as /init with the programs under /bin and /cmds,
 * one command a line ("PROG ARG ARG..."). It runs each command in turn,
 * its stdout and stderr on the console it inherited (ttyS0), and ends
 * QEMU through the isa-debug-exit port with the first non-zero status,
 * as Anima's kernel does, so the harness reads Linux's end the same way
 * (harness/qemu.py: done with status s). Powering off is the fallback
 * should the port be missing. It mounts nothing: the programs need no
 * file system but the initramfs itself. With `irqs=1` on the kernel's
 * command line (harness: --irqs) it mounts /proc and prints, after each
 * command, the interrupts the command caused, summed over CPUs:
 *   @irqs {"prog": P, "tlb": N, "call": N, "resched": N, "timer": N}
 * (TLB shootdowns, function-call and rescheduling IPIs, local timer).
 * With a disk (harness/linuxdisk.py) the initramfs holds /modules, the
 * kernel modules to load in order (virtio, virtio_blk, ext4 and what they
 * need); init loads them, mounts devtmpfs on /dev and /sys, waits for
 * /dev/vda and mounts it read-only as ext2 on /mnt before the commands.
 * It also raises kernel.threads-max to 65536: Linux sizes it from the RAM
 * (4,096 tasks in all at 512 MiB), and iobench runs 4,096 threads.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>

#define MAXARGS 32
#define EXIT_PORT 0xf4
#define EXIT_DONE 0x40

static char cmds[16384];

/* The interrupt counts /proc/interrupts has for these rows, summed
 * over CPUs: TLB, CAL, RES, LOC. */
static const char *rows[4] = {"TLB:", "CAL:", "RES:", "LOC:"};

static void irqs(long *n)
{
	char line[1024];
	FILE *f = fopen("/proc/interrupts", "r");
	for (int i = 0; i < 4; i++)
		n[i] = 0;
	while (f && fgets(line, sizeof line, f))
		for (int i = 0; i < 4; i++) {
			char *p = strstr(line, rows[i]);
			if (!p)
				continue;
			for (p += 4;;) {
				char *end;
				long v = strtol(p, &end, 10);
				if (end == p)
					break;
				n[i] += v, p = end;
			}
		}
	if (f)
		fclose(f);
}

/* /modules: load each (finit_module), then mount the disk on /mnt.
   Says what failed; the commands then find no /mnt files. */
static void disk(void)
{
	char path[256];
	FILE *f = fopen("/modules", "r");
	if (!f)
		return;
	while (fgets(path, sizeof path, f)) {
		path[strcspn(path, "\n")] = 0;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			printf("init: cannot load %s\n", path);
		if (fd >= 0)
			close(fd);
	}
	fclose(f);
	mkdir("/sys", 0555);
	mkdir("/mnt", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, 0) || mount("sysfs", "/sys", "sysfs", 0, 0))
		printf("init: cannot mount /dev or /sys\n");
	struct timespec ms = {0, 1000000};
	for (int i = 0; i < 5000 && access("/dev/vda", F_OK); i++)
		nanosleep(&ms, 0);
	if (mount("/dev/vda", "/mnt", "ext2", MS_RDONLY, 0))
		printf("init: cannot mount /dev/vda on /mnt\n");
	mkdir("/proc", 0555);
	int fd = -1;
	if (mount("proc", "/proc", "proc", 0, 0) ||
	    (fd = open("/proc/sys/kernel/threads-max", O_WRONLY)) < 0 || write(fd, "65536", 5) != 5)
		printf("init: cannot raise threads-max\n");
	if (fd >= 0)
		close(fd);
}

/* Run one command line (split in place at spaces); its status. */
static int run(char *line)
{
	char *argv[MAXARGS + 1], path[256];
	int argc = 0;
	for (char *w = strtok(line, " "); w && argc < MAXARGS; w = strtok(0, " "))
		argv[argc++] = w;
	argv[argc] = 0;
	if (!argc)
		return 0;
	snprintf(path, sizeof path, "/bin/%s", argv[0]);
	pid_t pid = fork();
	if (pid == 0) {
		char *env[] = {"PATH=/bin", 0};
		execve(path, argv, env);
		printf("init: cannot run %s\n", path);
		_exit(127);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		printf("init: cannot start %s\n", path);
		return 127;
	}
	if (WIFSIGNALED(st)) {
		printf("init: %s killed by signal %d\n", argv[0], WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

__attribute__((noreturn)) static void finish(int status)
{
	fflush(stdout);
	tcdrain(1);           /* the console's last bytes out of the UART before QEMU ends */
	sync();
	if (ioperm(EXIT_PORT, 1, 1) == 0)
		outb(EXIT_DONE | (status & 0x3f), EXIT_PORT);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

int main(void)
{
	int fd = open("/cmds", O_RDONLY), status = 0;
	ssize_t n = fd < 0 ? -1 : read(fd, cmds, sizeof cmds - 1);
	if (n < 0) {
		printf("init: no /cmds\n");
		finish(1);
	}
	setvbuf(stdout, 0, _IONBF, 0);
	disk();
	int count = getenv("irqs") != 0;
	if (count && (mkdir("/proc", 0555), mount("proc", "/proc", "proc", 0, 0)))
		printf("init: cannot mount /proc\n");
	char *save = 0;
	for (char *l = strtok_r(cmds, "\n", &save); l; l = strtok_r(0, "\n", &save)) {
		long a[4], b[4];
		char prog[64];
		sscanf(l, "%63s", prog);
		if (count)
			irqs(a);
		int s = run(l);
		if (count) {
			irqs(b);
			printf("@irqs {\"prog\": \"%s\", \"tlb\": %ld, \"call\": %ld, \"resched\": %ld, "
			       "\"timer\": %ld}\n", prog, b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3]);
		}
		if (s && !status)
			status = s;
	}
	printf("@halt {\"status\": %d}\n", status & 0x3f);
	finish(status);
}
