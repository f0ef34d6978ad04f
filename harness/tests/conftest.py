"""
Fixtures for Anima tests.

`boot(cmdline, **kw)` runs the guest (see harness.qemu.run) after making
sure the build is up to date. When a test fails, the console logs of its
runs are saved in build/logs/<test>.log and the tail is shown in the report.
"""
import fcntl
import json
import os
import re
import shutil
import subprocess

import pytest

from harness import BUILD, ROOT, qemu


def pytest_sessionstart(session):
    # Logs are from this session only; xdist workers skip this, the
    # controller does it before they start.
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(BUILD / "logs", ignore_errors=True)


# Tests far longer than the suite's median of about a second (summed from
# build/logs/boots.jsonl), longest first: they run before the rest, so that
# under -n 2 neither worker starts one of them late while the other has run
# out of work. pytest.ini's --maxschedchunk hands tests out a few at a
# time, so the two workers share these.
SLOW_FIRST = [
    # The longest single boots of a full run (Nov 29, load ~10: 120, 70,
    # 68, 72 s), which ran at three quarters of the suite, where the
    # other worker may run out of work first.
    "test_security_mem.py::test_stale_tlb_writer_never_reaches_a_freed_frame[1]",
    "test_security_mem.py::test_kernel_heap_objects_leave_the_reserve[",
    "test_det.py::test_ptest_on_det[par-2]",
    "test_ext2.py::test_damaged_images_give_errors_not_panics",
    "test_segments.py::test_segment_with_its_handle_in_a_spawn_is_paid_for",
    "test_hostile_disk.py::test_fuzzed_images_give_errors_not_panics",
    # Linux boots (harness/linux.py; in boots.jsonl since _recorded_run,
    # not before): 5-7 s of host CPU each, a minute and more loaded.
    "test_linux.py::",
    "test_workloads.py::test_workloads_check_out_on_linux",
    "test_workload_files.py::",
    "test_bench_relations.py::test_mpl_psyche_shape_on_4_icount_cpus",
    "test_security_mem.py::test_stale_tlb_writer_never_reaches_a_freed_frame[",
    "test_fsrace.py::",
    "test_security_mem.py::test_large_map_does_not_hold_the_cpu",
    "test_det.py::test_posix_programs_on_det[",
    "test_boot.py::test_grub_and_direct_boots_agree",
    "test_conformance.py::test_yield_fairness[kthread-smp4",
    "test_conformance.py::test_copy_of_tutor_is_a_package",
    "test_detpar.py::",
    "test_conformance.py::test_fifo_beside_kthread_yield_fairness",
    "test_det.py::",
    "test_asynccancel.py::",
    "test_confpt.py::",
    "test_conformance.py::",
]


def pytest_configure(config):
    config.addinivalue_line("markers", "shares_boot: the test reads a boot other tests of "
                            "its module with the same parameters share (helpers.shared_boot)")


def pytest_collection_modifyitems(items):
    def rank(item):
        return next((i for i, pat in enumerate(SLOW_FIRST) if pat in item.nodeid),
                    len(SLOW_FIRST))
    items.sort(key=rank)      # stable: the rest keep their order
    # Tests that share a boot (helpers.shared_boot) side by side, where the
    # first of them was: xdist hands out runs of neighbours, so one worker
    # boots it once for them all.
    first = {}
    for i, item in enumerate(items):
        first.setdefault(boot_group(item) or i, i)
    order = {id(item): (first[boot_group(item) or i], i) for i, item in enumerate(items)}
    items.sort(key=lambda item: order[id(item)])


def boot_group(item):
    """(module, parameters) of a shares_boot test, else None."""
    if not item.get_closest_marker("shares_boot") or not hasattr(item, "callspec"):
        return None
    return (item.module.__name__, tuple(sorted((k, str(v)) for k, v in item.callspec.params.items())))


@pytest.fixture(scope="session")
def built():
    # Every xdist worker runs this; the lock makes the makes take turns, and
    # after the first they find nothing to do.
    BUILD.mkdir(exist_ok=True)
    with open(BUILD / ".make.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.run(["make", "-s", "all"], cwd=ROOT, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise RuntimeError(f"make all failed:\n{p.stdout[-4000:]}")


@pytest.fixture
def boot(built, request):
    runs = []

    def boot(cmdline, **kw):
        r = qemu.run(cmdline, **kw)     # (recorded: _recorded_run)
        runs.append(r)
        return r

    request.node.anima_runs = runs
    return boot


_run = qemu.run


def _recorded_run(cmdline, **kw):
    """qemu.run, each boot recorded: the boot fixture's, and those a test
    makes through harness modules (linux.run's Linux boots, experiments'
    and bench's, the fuzzers'), which the suite's time includes too."""
    r = _run(cmdline, **kw)
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
    record(test, r, kw)
    return r


qemu.run = _recorded_run


def record(nodeid, r, kw):
    """One line per boot in build/logs/boots.jsonl (test, command line,
    smp, icount, how it ended, wall seconds, QEMU's CPU seconds, the
    program QEMU was): where the suite's time goes, and how much of it a
    guest waited in real time (elapsed well over cpu: the host idle). Appends of one short line each do not
    interleave between workers."""
    path = BUILD / "logs" / "boots.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(c) for c in r.cmd]
    smp = int(cmd[cmd.index("-smp") + 1]) if "-smp" in cmd[:-1] else kw.get("smp", 1)
    line = json.dumps({"test": nodeid, "cmdline": r.cmdline, "smp": smp,
                       "icount": "-icount" in cmd or bool(kw.get("icount")), "kind": r.kind,
                       "elapsed": round(r.elapsed, 2), "cpu": r.cpu,
                       "qemu": os.path.basename(cmd[0]) if cmd else ""}) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    rep = (yield).get_result()
    runs = getattr(item, "anima_runs", None)
    if not runs or not rep.failed or rep.when != "call":
        return
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", item.name)
    path = BUILD / "logs" / f"{name}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        for r in runs:
            f.write(f"=== {' '.join(r.cmd)}\n=== cmdline {r.cmdline!r}: {r.kind} "
                    f"status={r.status} qemu-exit={r.exit_code} {r.elapsed:.1f}s\n")
            f.write(r.log + "\n")
            if r.stderr:
                f.write(f"=== qemu stderr\n{r.stderr}\n")
    rep.sections.append(("guest console", f"full log: {path}\n{runs[-1].tail(40)}"))
