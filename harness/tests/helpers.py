"""Checks shared by the guest tests. Each assertion message carries the
end of the console log, so a failure shows what the guest said."""
import re
import shutil

import pytest

from harness import packages

# The thread packages a package-visible behaviour is tested on (RULES.md),
# spelled once here: every package of the build (harness.packages: the
# one way), then det (a SPECIAL package, not in PACKAGES), then det's
# parallel phase as a pkg= value (pkg=det,det=par on the command line).
PACKAGES = packages()
PKGS_DET = PACKAGES + ["det"]
PKGS_PAR = PKGS_DET + ["det,det=par"]
SMPS = (1, 2)


def pkg_cases(pkgs=PACKAGES, smps=SMPS):
    """Parameters "pkg,smp": each of pkgs at each of smps, ids PKG-SMP
    (as two stacked parametrizes, smp over pkg, named them: CI and notes
    name tests by these ids)."""
    return [pytest.param(p, s, id=f"{p}-{s}") for p in pkgs for s in smps]


# Parameters "pkg,extra" for a test that adds extra to pkg=PKG: every
# package and det plain, then det=par (ids PKG and det=par); DET_EXTRA
# just det's two.
PKG_EXTRA = [pytest.param(p, "", id=p) for p in PKGS_DET] + \
    [pytest.param("det", ",det=par", id="det=par")]
DET_EXTRA = PKG_EXTRA[-2:]

# Parameters "pkg,smp" for det alone: det at -smp 1 and 2, det=par at 2.
DET_SMPS = [pytest.param("det", 1, id="det-1"), pytest.param("det", 2, id="det-2"),
            pytest.param("det,det=par", 2, id="par-2")]

HEX = re.compile(r"0x[0-9a-f]+")
USER_TEXT, USER_TOP = 0x400000, 0x0000800000000000


def done(r, status=0):
    """The run ended normally (no panic, hang or reset) with `status`."""
    assert r.kind == "done", f"run ended as {r.kind!r}, not 'done'\n{r.tail()}"
    assert r.status == status, f"guest status {r.status}, expected {status}\n{r.tail()}"
    assert [h.get("status") for h in r.events("halt")] == [status], r.tail()
    assert not r.bad_lines, f"malformed @ lines: {r.bad_lines}\n{r.tail()}"


def only(r, tag, **fields):
    """The single `@tag` event whose fields include `fields`."""
    evs = [e for e in r.events(tag) if all(e.get(k) == v for k, v in fields.items())]
    assert len(evs) == 1, f"expected one @{tag} with {fields}, got {evs}\n{r.tail()}"
    return evs[0]


def result(r, name):
    return only(r, "result", name=name)


def passed(r, name, at_least, **fields):
    """The program's @result `name` counts its checks: none failed, at
    least `at_least` ran (so a part cannot silently go missing), its
    `fields` are as given (the area or case that ran), and the run ended
    with status 0. The @result."""
    res = result(r, name)
    assert res["failures"] == 0 and all(res.get(k) == v for k, v in fields.items()), r.tail()
    assert res["checks"] >= at_least, res
    done(r, 0)
    return res


_SHARED = {}


def shared_boot(request, boot, cmdline, **kw):
    """The run of `cmdline` (with kw), booted once in a session for every
    test that asks for it: tests that each check their own part of one
    boot (a program's modes run in turn, each with its own @result).
    Mark them shares_boot (conftest.py runs them side by side). The other
    xdist worker, asking while one boots it, waits for that run
    (build/logs/shared: a lock and the pickled run per boot; the session
    starts without them) instead of booting it again. A failing test's
    log has the run. A callable option (disk=lambda: an image) is made
    only to boot, and is not part of what makes two boots the same."""
    import fcntl
    import hashlib
    import os
    import pickle
    from harness import BUILD
    key = (cmdline, tuple(sorted((k, v) for k, v in kw.items() if not callable(v))))
    if key in _SHARED:
        request.node.anima_runs.append(_SHARED[key])
        return _SHARED[key]
    folder = BUILD / "logs" / "shared"
    folder.mkdir(parents=True, exist_ok=True)
    name = folder / hashlib.sha256(repr(key).encode()).hexdigest()[:24]
    with open(f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = name.with_suffix(".run")
        if saved.exists():
            r = pickle.loads(saved.read_bytes())
            request.node.anima_runs.append(r)
        else:
            r = boot(cmdline, **{k: v() if callable(v) else v for k, v in kw.items()})
            tmp = name.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(r))
            os.replace(tmp, saved)
    _SHARED[key] = r
    return r


def self_test(boot, prog, pkg, smp, at_least, timeout=120, **fields):
    """A POSIX program counting its CHECKs (progs/include/check.h) ran on
    package pkg at -smp smp and passed (passed, with its `fields`:
    checks=N where exactly N must run)."""
    r = boot(f"run={prog},pkg={pkg}", smp=smp, timeout=timeout)
    passed(r, prog, at_least, **fields)
    return r


# The disk tests' tools (e2fsprogs, tools/setup.sh) and the guest's hash.
MKE2FS = shutil.which("mke2fs") or "/usr/sbin/mke2fs"
DEBUGFS = shutil.which("debugfs") or "/usr/sbin/debugfs"
needs_e2fsprogs = pytest.mark.skipif(not shutil.which(MKE2FS),
                                     reason="e2fsprogs missing (tools/setup.sh)")


def program_image(tmp_path, prog, files=None):
    """An 8 MiB ext2 image (1 KiB blocks) holding the built program prog
    as /bin/prog (mode 755), and `files` (path: bytes) beside it: what a
    test of processes needs to spawn or exec a copy of itself by path."""
    import subprocess
    from harness import BUILD
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    for path, data in (files or {}).items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_bytes(data)
    (tree / "bin" / prog).write_bytes((BUILD / "progs" / prog).read_bytes())
    (tree / "bin" / prog).chmod(0o755)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "8M"],
                   check=True, capture_output=True)
    return img


def process_run(boot, tmp_path, prog, pkg, smp, words="memcheck", timeout=120):
    """progs/posix/PROG on package pkg at -smp smp with `words` first on
    the command line, its built copy on a disk as /bin/PROG (for its
    exec and spawn cases): the run and its @result."""
    r = boot(f"{words} run={prog},pkg={pkg}", smp=smp, timeout=timeout,
             disk=program_image(tmp_path, prog))
    return r, result(r, prog)


def audit_passed(r, name):
    """A self-test of processes booted under memcheck (its body in a
    child, as fork_audit runs it: progs/include/forkaudit.h) passed: the
    child ended with status 0 and no failed check, every frame came back
    (avail_lost 0), and the run ended with status 0. The @result."""
    res = result(r, name)
    assert res["status"] == 0 and res["failures"] == 0, r.tail()
    assert res["avail_lost"] == 0, res
    done(r, 0)
    return res


def audited_disk_boot(boot, tmp_path, prog, pkg, smp, timeout, files=None):
    """prog, such a self-test, booted under memcheck with a disk holding
    it (program_image) on package pkg at -smp smp: it passed
    (audit_passed) and the disk is e2fsck clean. The run and the image."""
    from test_ext2write import fsck_clean
    img = program_image(tmp_path, prog, files)
    r = boot(f"memcheck run={prog},pkg={pkg}", smp=smp, timeout=timeout, disk=img)
    audit_passed(r, prog)
    fsck_clean(img)
    return r, img


def audited_disk_run(boot, tmp_path, prog, pkg, smp, timeout, files=None):
    """audited_disk_boot, then the bytes of the disk's /out."""
    import subprocess
    r, img = audited_disk_boot(boot, tmp_path, prog, pkg, smp, timeout, files)
    out = tmp_path / "out"
    subprocess.run([DEBUGFS, "-R", f"dump /out {out}", str(img)], check=True, capture_output=True)
    return out.read_bytes()


def fnv(data):
    """FNV-1a, 64-bit, as the guest programs hash file contents."""
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
    return f"{h:016x}"
