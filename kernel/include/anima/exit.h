/*
 * How a run ends, as seen from outside the guest. The kernel writes one
 * byte to QEMU's isa-debug-exit device (port DEBUG_EXIT_PORT); QEMU then
 * exits with status (v << 1) | 1. Value 0 is never used: QEMU's own
 * exit 1 must not read as success.
 */
#ifndef ANIMA_EXIT_H
#define ANIMA_EXIT_H

#define DEBUG_EXIT_PORT   0xf4
#define DEBUG_EXIT_PANIC  0x20            /* kernel panic: qemu exits 65 */
#define DEBUG_EXIT_DONE   0x40            /* | status (0..63): qemu exits 129 + 2*status */
#define EXIT_STATUS_MAX   63              /* larger or negative statuses report as 63 */

/* Exit status the kernel records for a space it killed (fault or bad ABI data). */
#define EXIT_KILLED       (-1)

#endif
