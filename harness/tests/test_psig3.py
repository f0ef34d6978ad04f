"""Signals held for a process while a thread that never touched signals
lives, and the values of queued real-time signals across exec
(progs/posix/psig3.c, ulib/libc/signal.c, kernel/psigexec.c), on every
package (det too) at -smp 1 and 2:

- fork: a forked child of a parent with such a worker blocks SIGUSR1;
  one from its own child stays pending (sigpending, sigwaitinfo with the
  sender and value). Before: the child ended by SIGUSR1 (the parent's
  worker was still counted as a live thread that blocks nothing).
- exec: an image whose exec kept SIGUSR1 blocked makes a worker first of
  all; the worker inherits the mask, and SIGUSR1 from another process
  stays pending (before: the image ended by it); and real-time signals
  queued to itself with values (and one from a child) before an exec
  are taken in the new image in order with their values (before: one
  SIGRTMIN and one SIGRTMIN+1, both of value 0, then nothing).
- forkpend: SIGUSR1 and SIGRTMIN blocked and pending (raise, sigqueue of
  the program with values, pthread_kill of main by a worker) at a fork:
  the child has none pending (sigpending, a zero-timeout sigtimedwait
  gives EAGAIN), keeps the mask, and takes only its own sigqueue after;
  the parent takes all of its own with their values.
- execign: an image whose exec kept SIGUSR2 ignored and blocked (the
  caller alone blocked it, then also with a worker that did not) has it
  SIG_IGN, and sends from its child stay pending from its first
  instruction, one taken with its value, the other discarded as it
  unblocks. Before: the first image had SIGUSR2 at SIG_DFL (and ended
  by the unblock), the second discarded the sends (the kernel ignored
  them until the image's first mask change).
- execloop: 12 times in one boot (the images on as many VPs as CPUs,
  and on 4), an image whose exec kept SIGUSR1
  blocked makes 4 workers first of all and never calls a mask
  function; SIGUSR1 from its child stays pending and is taken with its
  value, and every worker blocks it. Before: on naive-2 most boots had
  an image end by SIGUSR1 (main took the kept mask before
  posix_main_init, and its workers got no mask).
"""
import pytest
from helpers import needs_e2fsprogs, passed, program_image, PKGS_DET, pkg_cases


@needs_e2fsprogs
@pytest.mark.parametrize("area", ["fork", "exec", "forkpend", "execign"])
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_held_while_a_thread_never_touched_signals_and_rt_values_across_exec(
        boot, tmp_path, pkg, smp, area):
    r = boot(f"run=psig3,pkg={pkg},{area},{pkg}", smp=smp, timeout=90,
             disk=program_image(tmp_path, "psig3"))
    passed(r, "psig3", {"fork": 4, "exec": 2, "forkpend": 9, "execign": 2}[area], area=area)


@needs_e2fsprogs
@pytest.mark.parametrize("vps", ["", ",nvp=4"], ids=["vps-ncpu", "vps-4"])
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_exec_mask_held_by_every_worker_from_the_start(boot, tmp_path, pkg, smp, vps):
    r = boot(f"run=psig3,pkg={pkg},execloop,{pkg}{vps}", smp=smp, timeout=120,
             disk=program_image(tmp_path, "psig3"))
    passed(r, "psig3", 12, area="execloop")
