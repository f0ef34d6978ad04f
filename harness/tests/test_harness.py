"""Unit tests of the harness itself: no kernel and no QEMU needed.

A small Python script stands in for QEMU; it prints FAKE_OUT, sleeps
FAKE_SLEEP seconds, and exits with FAKE_CODE.
"""
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from harness import ROOT, iso, qemu
from harness import cmdline_of

FAKE = textwrap.dedent("""\
    import os, sys, time
    sys.stdout.write(os.environ.get("FAKE_OUT", "").replace("|", "\\r\\n"))
    sys.stdout.flush()
    time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
    sys.stderr.write(os.environ.get("FAKE_ERR", ""))
    sys.exit(int(os.environ.get("FAKE_CODE", "0")))
""")


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """fake(out, code, sleep=0) -> argv of a QEMU stand-in; '|' in out is CRLF."""
    script = tmp_path / "fakeqemu"
    script.write_text(f"#!{sys.executable}\n" + FAKE)
    script.chmod(0o755)

    def make(out="", code=0, sleep=0, err=""):
        monkeypatch.setenv("FAKE_OUT", out)
        monkeypatch.setenv("FAKE_CODE", str(code))
        monkeypatch.setenv("FAKE_SLEEP", str(sleep))
        monkeypatch.setenv("FAKE_ERR", err)
        return [str(script)]
    return make


# --- exit-code decoding ---------------------------------------------------

@pytest.mark.parametrize("code,kind,status", [
    (129, "done", 0), (135, "done", 3), (129 + 2 * 42, "done", 42), (255, "done", 63),
    (65, "panic", None), (0, "reset", None), (1, "qemu-error", None),
    (2, "qemu-error", None), (67, "qemu-error", None), (128, "qemu-error", None),
    (-9, "qemu-error", None), (None, "qemu-error", None),
])
def test_decode(code, kind, status):
    assert qemu.decode(code, ["some output"]) == (kind, status)


def test_decode_panic_line_wins():
    lines = ["hello", "PANIC on cpu 1: oops", "  rip ..."]
    assert qemu.decode(135, lines) == ("panic", None)
    assert qemu.decode(0, lines) == ("panic", None)
    assert qemu.decode(None, lines, timed_out=True) == ("panic", None)
    # Only at the start of a line: a program may print the word.
    assert qemu.decode(129, ["no PANIC here"]) == ("done", 0)


def test_decode_timeout_is_never_success():
    assert qemu.decode(129, ["@halt {\"status\": 0}"], timed_out=True) == ("timeout", None)


# --- console parsing ------------------------------------------------------

def test_parse_events():
    lines = ['@boot {"cpus": 2, "mem_mib": 511}', "plain text",
             '@cpu {"id": 0, "apic": 0}', '@cpu {"id": 1, "apic": 1}',
             '@result {"name": "hello", "argv": ["3"]}', "@exit {broken",
             '@exit {"space": 1, "prog": "hello", "status": 3}', '@odd [1, 2]',
             "  not @an event", "@"]
    ev, bad = qemu.parse_events(lines)
    tags = [t for t, _ in ev]
    assert tags == ["boot", "cpu", "cpu", "result", "exit"]
    assert bad == ["@exit {broken", "@odd [1, 2]"]


def test_result_from_fake_run(fake):
    out = ("Anima x86-64 research kernel: 1 CPUs, 511 MiB memory|"
           '@boot {"cpus": 1}|@result {"name": "x", "v": 1}|@result {"bad"|'
           '@exit {"space": 1, "prog": "x", "status": 5}|@halt {"status": 5}|')
    r = qemu.run("run=x", cmd=fake(out, 129 + 2 * 5, err="qemu-warning\n"))
    assert (r.kind, r.status, r.exit_code) == ("done", 5, 139)
    assert "\r" not in r.log and r.lines[0].startswith("Anima")
    assert r.results == [{"name": "x", "v": 1}]
    assert r.events("exit") == [{"space": 1, "prog": "x", "status": 5}]
    assert r.events("halt") == [{"status": 5}] and r.events("nothing") == []
    assert r.bad_lines == ['@result {"bad"']
    assert r.stderr == "qemu-warning\n"
    t = r.tail(2)
    assert "done" in t and '@halt {"status": 5}' in t and "Anima" not in t
    assert "qemu-warning" in t


def test_grub_escapes_stripped(fake):
    r = qemu.run("x", cmd=fake("\x1b[H\x1b[J\x1b[1;1H  Booting `anima'||hi|", 129))
    assert r.lines == ["  Booting `anima'", "", "hi"]


def test_partial_last_line_kept(fake):
    r = qemu.run("x", cmd=fake("a|no newline", 65))
    assert r.kind == "panic" and r.lines == ["a", "no newline"]


def test_streaming_callback(fake):
    seen = []
    r = qemu.run("x", cmd=fake("one|two|", 129), on_line=seen.append)
    assert seen == ["one", "two"] == r.lines


def test_timeout_kills_hung_guest(fake, monkeypatch):
    # The kill itself, on a host taken as idle: at load 13 the measured
    # slowdown stretched the 1.5 s timeout past the 10 s bound below.
    monkeypatch.setattr(qemu, "host_slowdown", lambda: 1.0)
    t0 = time.monotonic()
    r = qemu.run("x", cmd=fake("booting|@halt {\"status\": 0}|", 129, sleep=60), timeout=1.5)
    assert time.monotonic() - t0 < 10
    assert (r.kind, r.status, r.exit_code) == ("timeout", None, None)
    assert r.lines == ["booting", '@halt {"status": 0}']


def test_busy_host_stretches_timeout(fake, monkeypatch):
    # A guest that needs 1.5 s, with a 1 s timeout, on a host twenty times
    # slower than idle: it must finish, not time out. (Not 3x, a 3 s
    # timeout: the stand-in is a Python script, whose start alone took over
    # 1.5 s at a load of 18 on 2 CPUs, and the test failed.)
    monkeypatch.setattr(qemu, "host_slowdown", lambda: 20.0)
    r = qemu.run("x", cmd=fake("booting|@halt {\"status\": 0}|", 129, sleep=1.5), timeout=1)
    assert (r.kind, r.status) == ("done", 0), r.tail()
    # ... and an idle host keeps the timeout as given.
    monkeypatch.setattr(qemu, "host_slowdown", lambda: 1.0)
    r = qemu.run("x", cmd=fake("booting|", 129, sleep=5), timeout=1)
    assert r.kind == "timeout"


def test_host_slowdown_is_at_least_one():
    assert qemu.host_slowdown() >= 1.0


def test_missing_qemu_is_an_error():
    r = qemu.run("x", cmd=["/nonexistent/qemu"])
    assert r.kind == "qemu-error" and "cannot run" in r.stderr


def test_command_line(monkeypatch):
    monkeypatch.delenv("ANIMA_QEMU", raising=False)
    c = qemu.command("a.iso", smp=4)
    assert c[0] == "qemu-system-x86_64" and c[-2:] == ["-accel", "tcg,thread=multi"]
    assert c[c.index("-smp") + 1] == "4"
    # the CD through io_uring where QEMU and the host allow it, else -cdrom
    monkeypatch.setitem(qemu._URING, "qemu-system-x86_64", True)
    d = qemu.command("a.iso", smp=4)
    assert d[d.index("-drive") + 1] == "file=a.iso,media=cdrom,if=ide,readonly=on,aio=io_uring"
    monkeypatch.setitem(qemu._URING, "qemu-system-x86_64", False)
    d = qemu.command("a.iso", smp=4)
    assert d[d.index("-cdrom") + 1] == "a.iso" and "-drive" not in d
    assert "isa-debug-exit,iobase=0xf4,iosize=0x01" in c and "-no-reboot" in c
    c = qemu.command("a.iso", smp=4, icount=True, mem="1G", extra=["-s"])
    assert "-accel" not in c and c[-3:] == ["-icount", "shift=0", "-s"]
    assert c[c.index("-m") + 1] == "1G"
    assert "-accel" not in qemu.command("a.iso", smp=1)
    monkeypatch.setenv("ANIMA_QEMU", "/opt/q")
    assert qemu.command("a.iso")[0] == "/opt/q"


# --- ISO building ---------------------------------------------------------

@pytest.mark.parametrize("bad", ["run=a;reboot", "run=$x", 'run="a"', "a\nb", "run=a{b}",
                                 "a\\b", "run=a'b", "a#b"])
def test_cmdline_rejected(bad):
    with pytest.raises(ValueError):
        iso.build_iso(bad)


@pytest.mark.parametrize("cmd,want", [
    (["hello"], "run=hello"), (["hello", "3", "x"], "run=hello,3,x"),
    (["quantum=5", "run=hello,3", "run=demo"], "quantum=5 run=hello,3 run=demo"),
    (["jitter", "quantum=2", "run=hello"], "jitter quantum=2 run=hello"),
])
def test_cli_cmdline(cmd, want):
    assert cmdline_of(cmd) == want


def test_cli_rejects_ambiguous_args():
    with pytest.raises(ValueError):
        cmdline_of(["hello", "a b"])
    with pytest.raises(ValueError):
        cmdline_of(["hello", "a,b"])


@pytest.fixture
def fakebuild(tmp_path, monkeypatch):
    b = tmp_path / "build"
    (b / "progs").mkdir(parents=True)
    (b / "kernel.elf").write_bytes(b"\x7fELF kernel")
    (b / "kernel.bin").write_bytes(b"kernel image")
    (b / "kernel.sym").write_text("ffffffff80100000 T start\n")
    (b / "progs/hello").write_bytes(b"hello-bin")
    (b / "progs/fault").write_bytes(b"fault-bin")
    monkeypatch.setattr(iso, "BUILD", b)
    return b


def grub_cfg_in(path, tmp_path):
    out = tmp_path / "extracted.cfg"
    subprocess.run(["xorriso", "-osirrox", "on", "-indev", str(path),
                    "-extract", "/boot/grub/grub.cfg", str(out)],
                   check=True, capture_output=True)
    return out.read_text()


def test_iso_contents_and_cache(fakebuild, tmp_path):
    p1 = iso.build_iso("quantum=5 run=hello,3")
    cfg = grub_cfg_in(p1, tmp_path)
    assert "multiboot2 /boot/kernel.elf quantum=5 run=hello,3\n" in cfg
    assert "module2 /boot/kernel.sym ksyms\n" in cfg
    assert "terminal_output serial\n" in cfg and "set timeout=0\n" in cfg
    assert "module2 /boot/progs/hello hello\n" in cfg
    assert "module2 /boot/progs/fault fault\n" in cfg
    assert os.path.dirname(p1) == str(fakebuild / "iso")
    # Same inputs: the cached file. Other cmdline or changed bytes: a new one.
    ino = os.stat(p1).st_ino
    assert iso.build_iso("quantum=5 run=hello,3") == p1 and os.stat(p1).st_ino == ino
    p2 = iso.build_iso("run=hello")
    assert p2 != p1
    (fakebuild / "progs/hello").write_bytes(b"hello-bin-v2")
    p3 = iso.build_iso("run=hello")
    assert p3 not in (p1, p2)
    (fakebuild / "progs/new").write_bytes(b"x")
    assert iso.build_iso("run=hello") not in (p1, p2, p3)
    out = tmp_path / "copy.iso"
    assert iso.build_iso("run=hello", str(out)) == str(out)
    assert "module2 /boot/progs/new new\n" in grub_cfg_in(out, tmp_path)
    assert not list((fakebuild / "iso").glob("stage-*"))


def test_iso_refuses_more_programs_than_the_kernel_takes(fakebuild):
    # The kernel keeps MAXMODULES boot modules (ksyms is one): past them a
    # program was left out silently, and running it said "no such program".
    n = iso.max_modules() - 1                  # with ksyms: exactly the limit
    for i in range(n - 2):                     # fakebuild has hello and fault
        (fakebuild / f"progs/p{i:03d}").write_bytes(b"bin")
    assert len(iso.inputs()) - 1 == iso.max_modules()
    (fakebuild / "progs/one_more").write_bytes(b"bin")
    with pytest.raises(ValueError, match="MAXMODULES"):
        iso.build_iso("run=hello")


def test_iso_concurrent_builds(fakebuild):
    # Simulates several xdist workers building the same ISO at once.
    code = ("import sys; from harness import iso; from pathlib import Path; "
            f"iso.BUILD = Path({str(fakebuild)!r}); print(iso.build_iso('run=hello,1'))")
    ps = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    outs = [p.communicate() for p in ps]
    assert all(p.returncode == 0 for p in ps), outs
    paths = {o.strip() for o, _ in outs}
    assert len(paths) == 1 and os.path.getsize(paths.pop()) > 100000


def test_iso_prune_survives_a_vanishing_iso(tmp_path, monkeypatch):
    # Another worker deletes an ISO between prune's listing and its stat:
    # the bench's parallel boots died of that FileNotFoundError.
    for i in range(3):
        (tmp_path / f"{i}.iso").write_bytes(b"x")
    listed = list(tmp_path.glob("*.iso"))
    (tmp_path / "1.iso").unlink()           # gone after the listing
    monkeypatch.setattr(type(tmp_path), "glob", lambda self, pat: iter(listed))
    monkeypatch.setattr(iso, "KEEP", 1)
    iso.prune(tmp_path)
    assert len(list(os.scandir(tmp_path))) == 1


def test_iso_missing_kernel(fakebuild):
    (fakebuild / "kernel.elf").unlink()
    with pytest.raises(FileNotFoundError):
        iso.build_iso("run=hello")


# --- the CLI end to end, with the fake QEMU --------------------------------

@pytest.mark.parametrize("out,code,sleep,want,msg", [
    ("hi|", 129 + 2 * 7, 0, 7, None),
    ("hi|", 129, 0, 0, None),
    ("PANIC: cpu 0: boom|", 65, 0, 125, "harness: guest panicked"),
    ("hi|", 0, 0, 126, "reset"),
    ("", 1, 0, 127, "qemu"),
    ("stuck|", 129, 30, 124, "harness: timed out after 1 s"),
])
def test_cli_exit_codes(fakebuild, fake, monkeypatch, out, code, sleep, want, msg):
    monkeypatch.setenv("ANIMA_QEMU", fake(out, code, sleep)[0])
    monkeypatch.setenv("ANIMA_BUILD", str(fakebuild))
    p = subprocess.run([sys.executable, "-m", "harness", "run", "hello", "3", "--timeout", "1"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == want, p.stderr
    if out:
        assert p.stdout.splitlines()[0] == out.split("|")[0]
    if msg:
        assert msg in p.stderr and "last 40 lines" in p.stderr
    else:
        assert p.stderr == ""


# --- program arguments that look like options: `run PROG -- ARGS` ---------

@pytest.mark.parametrize("argv,cmdline,smp,icount", [
    (["prog", "--", "-p", "4", "--verbose"], "run=prog,-p,4,--verbose", 1, False),
    (["prog", "--smp", "2", "--", "-p", "4"], "run=prog,-p,4", 2, False),
    (["--icount", "prog", "a", "--", "-x", "--smp", "9"], "run=prog,a,-x,--smp,9", 1, True),
    (["prog", "a", "--smp", "3", "b"], "run=prog,a,b", 3, False),     # the old forms still work
    (["quantum=5", "run=hello,1", "--", "run=x"], "quantum=5 run=hello,1 run=x", 1, False),
])
def test_cli_dash_dash_passes_program_options(monkeypatch, argv, cmdline, smp, icount):
    from harness import __main__ as cli
    seen = {}

    class _Done:
        kind, status = "done", 0

    monkeypatch.setattr(qemu, "run", lambda cl, **kw: (seen.update(kw, cmdline=cl), _Done())[1])
    assert cli.do_run(argv) == 0
    assert seen["cmdline"] == cmdline and seen["smp"] == smp and seen["icount"] == icount


def test_cli_program_options_need_dash_dash(capsys):
    from harness import __main__ as cli
    with pytest.raises(SystemExit):
        cli.do_run(["prog", "-p", "4"])       # -p is not the harness's: an error, as before
    assert "unrecognized arguments: -p" in capsys.readouterr().err


def test_direct_command(fakebuild, monkeypatch):
    # The direct boot (harness/qemu.py): QEMU's multiboot1 loader gets the
    # flat kernel, the command line, and "FILE NAME" per module, ksyms
    # first; the kernel takes a module's last word as its name.
    monkeypatch.delenv("ANIMA_QEMU", raising=False)
    c = qemu.direct_command("quantum=5 run=hello,3", smp=2, icount=True)
    assert c[c.index("-kernel") + 1] == str(fakebuild / "kernel.bin")
    assert c[c.index("-append") + 1] == "quantum=5 run=hello,3"
    mods = c[c.index("-initrd") + 1].split(",")
    assert mods[0] == f"{fakebuild / 'kernel.sym'} ksyms"
    assert [m.split(" ")[1] for m in mods[1:]] == ["fault", "hello"]
    assert "-icount" in c and "-cdrom" not in c and "-drive" not in c
    with pytest.raises(ValueError):
        qemu.direct_command("run=a;reboot")
    # QEMU splits -initrd at commas, a module at its first space: a build
    # folder whose path has either falls back to the ISO
    for odd in ("a,b", "a b"):
        b = fakebuild.parent / odd / "build"
        shutil.copytree(fakebuild, b)
        monkeypatch.setattr(iso, "BUILD", b)
        assert qemu.direct_command("run=hello") is None
