"""Booting: every CPU comes online, the machine facts are reported, and a
run ends with the debug-exit status."""
import re
import subprocess
import sys

import pytest
from helpers import done, only

from harness import ROOT


@pytest.mark.parametrize("ncpu", [1, 2, 4, 8])
def test_all_cpus_online(boot, ncpu):
    r = boot("run=hello", smp=ncpu, timeout=120)
    done(r)
    b = only(r, "boot")
    assert b["cpus"] == ncpu, r.tail()
    ids = [c["id"] for c in r.events("cpu")]
    assert sorted(ids) == list(range(ncpu)), f"@cpu ids {ids}\n{r.tail()}"
    apics = [c["apic"] for c in r.events("cpu")]
    assert len(set(apics)) == ncpu, f"APIC ids not distinct: {apics}"
    m = [re.fullmatch(r"Anima x86-64 research kernel: (\d+) CPUs, (\d+) MiB memory", l)
         for l in r.lines]
    m = [x for x in m if x]
    assert len(m) == 1, r.tail()
    assert (int(m[0][1]), int(m[0][2])) == (ncpu, b["mem_mib"])


@pytest.mark.parametrize("smp", [1, 2])
def test_grub_and_direct_boots_agree(boot, tmp_path, smp):
    """The two ways in (harness/qemu.py): GRUB's multiboot2 from the ISO
    users boot, and QEMU's multiboot1 (-kernel build/kernel.bin) the
    harness uses. Both hand over the same command line, the programs by
    name with their arguments, a memory map and (by the BIOS's RSDP) the
    CPUs; a program gets the same argv either way. The ISO holds the
    one program run (iso.make, as build_iso makes them): GRUB reads
    every module through the BIOS, and the 200 of the users' ISO were 7
    s of this boot's 7.4 (test_conformance.py's copy-of-tutor test boots
    a whole users' ISO)."""
    from harness import BUILD, iso
    cmdline = "quantum=7 run=hello,a,b run=hello,c"
    files = iso.inputs()[:2] + [("boot/progs/hello", BUILD / "progs/hello")]
    path = tmp_path / "hello.iso"
    iso.make(path, iso.grub_cfg(cmdline, files), files)
    runs = [boot(cmdline, smp=smp, iso=str(path), timeout=120),
            boot(cmdline, smp=smp, timeout=120)]
    assert "-kernel" not in runs[0].cmd and "-kernel" in runs[1].cmd
    seen = []
    for r in runs:
        done(r, 0)
        b = only(r, "boot")
        assert b["cpus"] == smp and b["cmdline"] == cmdline and b["quantum_ms"] == 7, b
        seen.append((sorted(tuple(e["argv"]) for e in r.events("result")), b["mem_mib"]))
    assert seen[0] == seen[1] and seen[0][0] == [("hello", "a", "b"), ("hello", "c")], seen


@pytest.mark.parametrize("mem,mib", [("128M", 128), ("512M", 512), ("1G", 1024)])
def test_boot_record(boot, mem, mib):
    r = boot("quantum=7 run=hello", mem=mem)
    done(r)
    b = only(r, "boot")
    # Some RAM is firmware's (below 1 MiB, ACPI tables), so a little less.
    assert 0.85 * mib <= b["mem_mib"] <= mib, b
    assert b["cmdline"] == "quantum=7 run=hello"
    assert b["quantum_ms"] == 7
    assert 1e8 < b["tsc_hz"] < 1e11, b


BAD_NUMBERS = [("quantum", "0", "1..1000 ms", "7 ms"), ("quantum", "1001", "1..1000 ms", "7 ms"),
               ("quantum", "abc", "1..1000 ms", "7 ms"), ("quantum", "", "1..1000 ms", "7 ms"),
               ("quantum", "99999999999999999999", "1..1000 ms", "7 ms"),
               ("tick", "1000001", "0..1000000 us", "0 us"),
               ("warnprobation", "101", "0..100 quanta", None),
               ("idlepoll", "-5", "0..100000 us", "0 us"), ("idlepoll", "100001", "0..100000 us", "0 us")]


def test_bad_numeric_options_keep_their_value(boot):
    # Each numeric option (kernel/cmdline.c set_num) refuses a value out of
    # range, not a number, empty or overflowing, says so and keeps what it
    # had: quantum stays at the 7 ms an earlier word set; the boot goes on.
    words = " ".join(f"{n}={v}" for n, v, _, _ in BAD_NUMBERS)
    r = boot(f"quantum=7 {words} run=hello")
    done(r)
    assert only(r, "boot")["quantum_ms"] == 7, r.tail()
    for name, val, want, keep in BAD_NUMBERS:
        line = f"anima: bad {name} '{val}' (want {want}); keeping "
        hits = [l for l in r.lines if l.startswith(line)]
        assert len(hits) == 1, (line, r.tail())
        if keep:
            assert hits[0] == line + keep, hits


def test_default_quantum_and_event_order(boot):
    r = boot("run=hello")
    done(r)
    assert only(r, "boot")["quantum_ms"] > 0
    # Programs start once the machine is up, and halt is the last word.
    tags = r.tags
    assert tags[-1] == "halt" and tags.count("halt") == 1, tags
    assert tags.index("start") > max(tags.index("boot"), tags.index("cpu")), tags


def test_cli_exit_status(built):
    # The whole path a person uses: `python3 -m harness run hello 5`.
    p = subprocess.run([sys.executable, "-m", "harness", "run", "hello", "5", "--smp", "2"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 5, p.stdout[-3000:] + p.stderr[-3000:]
    assert '@exit {"space"' in p.stdout and "@halt" in p.stdout


def test_unfinished_run_is_timeout(boot):
    # A guest that never ends: QEMU started with its CPUs stopped (-S), so
    # the run is unfinished however fast or loaded the host is (a hello
    # given 50 ms, as before, finished under the direct boot when a busy
    # host stretched the deadline). The harness must kill it at the
    # deadline and say "timeout", never report a status.
    r = boot("run=hello", timeout=0.5, extra=["-S"])
    assert (r.kind, r.status, r.exit_code) == ("timeout", None, None), r.tail()


def test_timeout_says_where_each_vcpu_is(boot):
    # A hang the kernel cannot report (every CPU spinning with interrupts
    # off: no watchdog dump) still ends with where each vCPU was, asked of
    # QEMU's monitor before the kill (harness/vcpus.py): its rip, named
    # from kernel.sym in the kernel, and the kernel frames above it.
    # Here two VPs compute for 100 s, well past the deadline. It is 1 s
    # (stretched by the host's load, as every run's): both vCPUs spin
    # until it, and at 3 s this test was 14.4 s of QEMU CPU time in a
    # full run at load ~10; the kernel is up in a tenth of that.
    r = boot("run=spin:2,100000", smp=2, timeout=1)
    assert r.kind == "timeout", r.tail()
    said = [l for l in r.lines if l.startswith("harness: vcpu")]
    for cpu in (0, 1):
        assert any(l.startswith(f"harness: vcpu {cpu}: rip ") or
                   l == f"harness: vcpu {cpu}: not in long mode" for l in said), said


@pytest.mark.parametrize("smp", [2, 3])
def test_watchdog_panic_says_where_every_cpu_was(boot, smp):
    # The watchdog's dump (kernel/debug.c) comes from whichever CPU's timer
    # sees it first; the panic's NMI then has each other CPU print where it
    # was (kernel/panic.c: its rip, and its kernel backtrace), one at a
    # time, before the run ends. Before, only the watching CPU's own
    # backtrace (the watchdog itself) was printed.
    r = boot("watchdog=2 run=spin:3,100000", smp=smp, timeout=60)
    assert r.kind == "panic", r.tail()
    watcher = only(r, "panic")["cpu"]
    was = sorted(int(l.split()[1]) for l in r.lines
                 if l.startswith("cpu ") and (" was at:" in l or " was in user mode" in l))
    assert was == [c for c in range(smp) if c != watcher], r.tail()


def test_boot_modules_past_the_limit_are_reported(built, tmp_path):
    # An ISO built by hand with more modules than the kernel keeps
    # (harness/iso.py refuses to build one): the kernel says how many it
    # ignored, a program past the limit is "no such program", one within
    # it runs. Only the first is a program (hello): the rest are a few
    # bytes each, which the kernel lists without reading, so GRUB reads
    # one program through the BIOS, not 264 (7 s of the boot). They are
    # in folders of 32: GRUB looks each up by its path, reading its
    # folder from the start, and in one folder of 1,033 that was 45.7 s
    # of QEMU CPU time, in 33 folders 6.9 s (load 15; 9.4 in folders of
    # 8, 10.7 of 128).
    from harness import BUILD, iso, qemu
    limit = iso.max_modules()
    hello = BUILD / "progs/hello"
    filler = tmp_path / "filler"
    filler.write_bytes(b"not a program\n")
    files = [("boot/kernel.elf", BUILD / "kernel.elf"), ("boot/kernel.sym", BUILD / "kernel.sym")]
    files += [(f"boot/progs/{i // 32:02d}/m{i:03d}", hello if i == 0 else filler)
              for i in range(limit + 9)]   # ksyms + 10 too many
    path = tmp_path / "many.iso"
    first, last = "m000", f"m{limit + 8:03d}"
    iso.make(path, iso.grub_cfg(f"run={first},3 run={last}", files), files)
    r = qemu.run("(many modules)", iso=str(path), timeout=120)
    warn = only(r, "warn")
    assert warn["dropped"] == 10 and str(limit) in warn["what"], warn
    assert f"cannot start '{last}': no such program" in r.log, r.tail()
    assert only(r, "exit", prog=first)["status"] == 3, r.tail()


def test_run_with_too_many_words_is_refused(boot):
    # A run= of more words than a program's argv holds (MAX_ARGS, 32 with
    # the name) used to start the program with the first 32 only: a
    # benchmark list cut short ran and reported the wrong experiment with
    # nothing said. Now it is not started, the kernel says why and the run
    # fails; one of exactly 32 words runs with all of them.
    full = ["hello"] + [f"a{i}" for i in range(31)]
    over = ["hello"] + [f"b{i}" for i in range(32)]
    r = boot(f"run={','.join(full)} run={','.join(over)}", timeout=120)
    assert "cannot start 'hello': more than 32 words in its run=" in r.log, r.tail()
    assert r.status not in (None, 0), r.tail()
    argvs = [e["argv"] for e in r.events("result") if "argv" in e]
    assert argvs == [full], argvs


@pytest.mark.parametrize("smp", [1, 2])
def test_icount_calibration_takes_one_window(boot, smp):
    """Under -icount every clock counts instructions, so the first 5 ms
    PIT window is exact enough alone (kernel/time.c): the three more the
    real clock needs cost 0.2 s of QEMU CPU time per icount boot. The rate
    stays within 1 ppm of the true 1 GHz (shift=0)."""
    r = boot("run=hello", smp=smp, icount=True)
    done(r)
    b = only(r, "boot")
    assert b["cal_windows"] == 1, b
    assert abs(b["tsc_hz"] - 1e9) < 1e3, b


def test_real_clock_calibration_windows_bounded(boot):
    r = boot("run=hello")
    done(r)
    assert 1 <= only(r, "boot")["cal_windows"] <= 16, r.tail()
