"""Programs from the disk: SYS_spawn with a path loads an ELF file of the
ext2 disk (kernel/execfile.c), so a program need not be a boot module.
The guest programs are copied into a host folder, made an image with
mke2fs -d, and run by path: from the CLI (`harness run --disk DIR
/bin/prog ARGS`, progs/demos/pathrun.c), from threads of each package on
one VP with a cold cache (progs/tests/exectest.c), as a storm that the
per-parent child limit contains; bad and hostile files give errors, and
memory comes back exactly. Then exec (kernel/exec.c, ulib/libc/exec.c)
and posix_spawn (ulib/libc/spawn.c) with progs/posix/execp.c copied to
/bin/execp: the image replaced with pid, parent and descriptors kept and
every old thread gone, errors that leave the caller running, file
actions, a 100-exec chain, 40 posix_spawns in a row."""
import shutil
import struct
import subprocess
import sys

import pytest
from harness import BUILD, ROOT
from helpers import done, result, MKE2FS, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs
ENOENT, EACCES, ENOEXEC, ENOMEM, EFAULT, EFBIG, ENAMETOOLONG = 2, 13, 8, 12, 14, 27, 36
PT_LOAD = 1


def elf(phdrs, entry=0x400000):
    """An ELF64 executable header and program headers (type, flags,
    offset, vaddr, filesz, memsz), then 4 KiB of zeros."""
    eh = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 2, 62, 1, entry,
                     64, 0, 0, 64, 56, len(phdrs), 0, 0, 0)
    ph = b"".join(struct.pack("<IIQQQQQQ", t, f, off, va, va, fs, ms, 0x1000)
                  for t, f, off, va, fs, ms in phdrs)
    return eh + ph + bytes(4096)


def put(root, name, data, mode=0o755):
    p = root / name.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    p.chmod(mode)


# path in the guest -> what spawning it gives (a status, or -errno)
CASES = {
    "/bin/hello": 0,
    "/nope": -ENOENT,
    "/bin": -EACCES,                      # a directory
    "/data": -EACCES,                     # no execute bit
    "/garbage": -ENOEXEC,
    "/trunc": -ENOEXEC,                   # hello's first 4 KiB: segments past the end
    "/kaddr": -ENOEXEC,                   # a segment in the kernel's half
    "/entry": -ENOEXEC,                   # entry point outside user space
    "/manyseg": -EFBIG,                   # 4,000 segments of 64 KiB each: over the load bound
    "/hugebss": -ENOMEM,                  # 1 GiB of zeros: past the child's quota
    "/sparse": -EFBIG,                    # a 65 MiB file
}


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    d = tmp_path_factory.mktemp("exec")
    root = d / "tree"
    hello = (BUILD / "progs" / "hello").read_bytes()
    put(root, "/bin/hello", hello)
    put(root, "/bin/execp", (BUILD / "progs" / "execp").read_bytes())
    put(root, "/data", b"0123456789", 0o644)
    put(root, "/garbage", bytes((i * 131 + 7) % 256 for i in range(5000)))
    put(root, "/trunc", hello[:4096])
    put(root, "/kaddr", elf([(PT_LOAD, 5, 0, 0xffff800000000000, 64, 64)]))
    put(root, "/entry", elf([(PT_LOAD, 5, 0, 0x400000, 64, 64)], entry=0x10))
    put(root, "/manyseg", elf([(PT_LOAD, 5, 0, 0x400000, 0x10000, 0x10000)] * 4000))
    put(root, "/hugebss", elf([(PT_LOAD, 6, 0, 0x400000, 64, 1 << 30)]))
    with open(root / "sparse", "wb") as f:
        f.seek(65 << 20)
        f.write(b"x")
    (root / "sparse").chmod(0o755)
    img = d / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(root), str(img), "32M"],
                   check=True, capture_output=True)
    return img


def test_cli_runs_a_program_file_from_a_host_folder(built, tmp_path):
    """`python3 -m harness run --disk DIR /bin/prog ARGS`: a guest program
    copied into a host folder (not a boot module) runs with its argv and
    its exit status comes back."""
    (tmp_path / "bin").mkdir()
    shutil.copy(BUILD / "progs" / "hello", tmp_path / "bin" / "myprog")
    p = subprocess.run([sys.executable, "-m", "harness", "run", "--disk", str(tmp_path),
                        "/bin/myprog", "7", "from-disk"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 7, p.stdout[-3000:] + p.stderr[-3000:]
    assert '@result {"name": "hello", "argv": ["/bin/myprog", "7", "from-disk"]}' in p.stdout
    assert '"prog": "myprog"' in p.stdout


@pytest.mark.parametrize("smp", [1, 2])
def test_bad_and_hostile_files_give_errors(boot, image, smp):
    r = boot("memcheck memquota=64 run=exectest,errors," + ",".join(CASES), smp=smp,
             timeout=120, disk=image)
    res = result(r, "exectest")
    assert res["cases"] == CASES, r.tail()
    assert res["efault"] == -EFAULT and res["toolong"] == -ENAMETOOLONG, res
    assert res["avail_lost"] == 0, res
    done(r)


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "prio", "kthread"]))
def test_threads_spawn_programs_from_a_cold_disk(boot, image, pkg, smp):
    """16 threads on one VP each spawn /bin/hello k and wait for it: every
    child exits k. On the upcall packages the disk reads blocked only the
    thread (EV_UNBLOCKED ran the call again)."""
    r = boot(f"memcheck run=exectest,threads,{pkg},16,/bin/hello", smp=smp, timeout=180, disk=image)
    res = result(r, "exectest")
    assert res["bad"] == 0 and res["failures"] == 0, r.tail()
    assert len([e for e in r.events("start") if e["prog"] == "hello"]) == 16
    if pkg != "kthread":
        assert res["vp_unblocks"] > 0, res
    done(r)


@pytest.mark.parametrize("smp", [1, 2])
def test_a_spawn_storm_from_the_disk_is_contained(boot, image, smp):
    """Spawning by path until the kernel refuses, 4 times over: each round
    ends at -EAGAIN with MAXCHILD (128) children, all collected with
    status 0, and memory comes back exactly."""
    r = boot("memcheck run=exectest,storm,4,/bin/hello", smp=smp, timeout=300, disk=image)
    res = result(r, "exectest")
    assert res["ran"] == 4 * 128 and res["refused"] == 4, res
    assert res["last_error"] == -11 and res["bad_children"] == 0, res
    assert res["avail_lost"] == 0, res
    done(r)


# exec (kernel/exec.c, ulib/libc/exec.c, spawn.c): progs/posix/execp.c

@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread", "prio"]))
def test_exec_replaces_the_image_keeping_pid_parent_and_files(boot, image, pkg, smp):
    """A program of 4 computing threads on 2 VPs execs /bin/execp while
    its parent waits for it: the new image (on package `pkg`) has the same
    pid and parent, the descriptor without O_CLOEXEC reads on from the
    shared offset, the O_CLOEXEC one is closed; no thread of the old image
    prints after the exec; the parent's wait gets the new image's 42."""
    r = boot(f"memcheck run=exectest,one,/bin/execp,pkg={pkg},vps=2,before,{pkg}", smp=smp,
             timeout=120, disk=image)
    res = only_result(r, "after")
    assert res["pid"] == res["pid_before"] and res["ppid"] == res["ppid_before"] == 1, res
    assert res["read"] == 5 and res["bytes"] == "56789" and res["closed"] == 1, res
    assert result(r, "exectest")["status"] == 42, r.tail()
    assert result(r, "exectest")["avail_lost"] == 0, r.tail()
    lines = r.log.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("@exec "))
    assert not [l for l in lines[at:] if "old alive" in l], r.tail()
    assert any("old alive" in l for l in lines[:at]), "the old threads never ran"
    assert [e["space"] for e in r.events("exit")] == [2, 1], r.tail()   # one exit for pid 2
    done(r)


def only_result(r, mode):
    evs = [e for e in r.events("result") if e.get("name") == "execp" and e.get("mode") == mode]
    assert len(evs) == 1, r.tail()
    return evs[0]


@pytest.mark.parametrize("smp", [1, 2])
def test_exec_errors_leave_the_caller_running(boot, image, smp):
    r = boot("memcheck run=exectest,one,/bin/execp,errors", smp=smp, timeout=120, disk=image)
    res = only_result(r, "errors")
    assert res["errno"] == {"/nope": ENOENT, "/garbage": ENOEXEC, "/bin": EACCES,
                            "/data": EACCES, "relative-nope": ENOENT}, res
    assert res["e2big"] == 7 and res["execvp_nope"] == ENOENT, res
    assert result(r, "exectest")["status"] == 0 and result(r, "exectest")["avail_lost"] == 0
    done(r)


@pytest.mark.parametrize("smp", [1, 2])
def test_posix_spawn_with_file_actions(boot, image, smp):
    """posix_spawn of /bin/execp with open(5, /data), dup2(5, 7), close(5):
    the child reads "01234" on 7 and finds 5 closed (exit 9); posix_spawnp
    finds execp in /bin; a missing program is ENOENT from the call."""
    r = boot("memcheck run=exectest,one,/bin/execp,spawn", smp=smp, timeout=120, disk=image)
    res = only_result(r, "spawn")
    assert res["spawn"] == 0 and res["waited"] == 1 and res["kid_status"] == 9, res
    assert res["spawnp"] == 0 and res["spawnp_status"] == 7 and res["missing"] == ENOENT, res
    assert result(r, "exectest")["avail_lost"] == 0
    done(r)


@pytest.mark.parametrize("smp", [1, 2])
def test_an_exec_chain_keeps_one_process_and_gives_memory_back(boot, image, smp):
    """execp execs itself 100 times while its parent waits: one pid
    throughout, the parent's wait gets the last image's 7, and memory comes
    back exactly (every old image's memory, VPs and tables are freed)."""
    r = boot("memcheck run=exectest,one,/bin/execp,pkg=fifo,vps=1,chain,100", smp=smp,
             timeout=300, disk=image)
    ex = r.events("exec")
    assert len(ex) == 100 and {e["space"] for e in ex} == {2}, r.tail()
    res = result(r, "exectest")
    assert res["status"] == 7 and res["avail_lost"] == 0, res
    done(r)


@pytest.mark.parametrize("smp", [1, 2])
def test_posix_spawn_40_times_from_a_two_vp_parent(boot, image, smp):
    """posix_spawn (fork, then exec) 40 times in a row, each child waited
    for, from a parent on 2 VPs: every pid comes back right and every
    child exits 7. (An exec frees the child's old image at once, where
    an exit left it for the parent: sys_fork read the child's id after
    dropping its reference and returned 0x5a5a5a5a, memcheck's poison, in
    4 to 7 of 40 at -smp 2.)"""
    r = boot("memcheck run=exectest,one,/bin/execp,pkg=fifo,vps=2,forkloop,ok", smp=smp,
             timeout=300, disk=image)
    assert "execp: forkloop bad 0" in r.log, r.tail()
    assert len([e for e in r.events("exit") if e["status"] == 7]) == 40, r.tail()
    assert result(r, "exectest")["avail_lost"] == 0
    done(r)
