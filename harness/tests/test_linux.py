"""harness/linux.py: Debian's Linux 6.1 booted in the same QEMU as Anima,
with an initramfs the harness writes (tools/linux/init.c, the program
built by the host's gcc against glibc, static). A workload of
progs/workloads/ prints the same @result line as on Anima, tagged
system linux, and init hands the program's exit status to QEMU as
Anima's kernel does."""
import pytest

from harness import linux


@pytest.fixture(scope="module")
def vmlinuz():
    try:
        return linux.kernel()
    except linux.LinuxUnavailable as e:
        pytest.skip(f"Debian's linux-image-6.1 cannot be had here: {e}")


def test_linux_runs_a_workload_under_icount(vmlinuz):
    r = linux.run(["histogram 2"], smp=1, icount=True, timeout=180)
    assert r.kind == "done" and r.status == 0, r.tail()
    assert [h["status"] for h in r.events("halt")] == [0], r.tail()
    (res,) = r.results
    assert res["name"] == "workload.histogram.linux" and res["system"] == "linux", res
    assert res["check"] == "ok" and res["threads"] == 2, res
    # icount: a nanosecond is an instruction; 3 Mi pixels take at least
    # one instruction each and at most a few dozen.
    assert res["pixels"] <= res["ns"] <= 40 * res["pixels"], res


def test_linux_passes_the_exit_status_on(vmlinuz):
    """A program that fails (bad arguments: exit 2) ends the run with its
    status, after the next command still ran. Without --irqs init reports
    no interrupts (the plain half of test_linux_counts_each_commands_
    interrupts, checked on this boot rather than a Linux boot of its own:
    about 6 s of host CPU each)."""
    r = linux.run(["histogram 0", "histogram 1"], smp=2, icount=False, timeout=180)
    assert r.kind == "done" and r.status == 2, r.tail()
    assert [x["threads"] for x in r.results] == [1], r.tail()
    assert any(l.startswith("usage: histogram") for l in r.lines), r.tail()
    assert not r.events("irqs"), r.tail()


def test_linux_counts_each_commands_interrupts(vmlinuz):
    """--irqs: init mounts /proc and reports, after each command, the
    interrupts it caused summed over CPUs (how results.md shows where
    Linux's time goes at -smp 2: TLB shootdowns and function-call IPIs)."""
    r = linux.run(["histogram 2", "linreg 2"], smp=2, timeout=180, irqs=True)
    assert r.kind == "done" and r.status == 0, r.tail()
    got = r.events("irqs")
    assert [x["prog"] for x in got] == ["histogram", "linreg"], r.tail()
    for x in got:
        assert all(isinstance(x[k], int) and x[k] >= 0
                   for k in ("tlb", "call", "resched", "timer")), x
    # Both programs together run for tens of ms: some timer ticks fall in them.
    assert sum(x["timer"] for x in got) > 0, got
    # (without --irqs, none: test_linux_passes_the_exit_status_on's boot)
