"""Programs from the disk: SYS_spawn with a path loads an ELF file of the
ext2 disk (kernel/execfile.c), so a program need not be a boot module.
The guest programs are copied into a host folder, made an image with
mke2fs -d, and run by path: from the CLI (`harness run --disk DIR
/bin/prog ARGS`, progs/demos/pathrun.c), from threads of each package on
one VP with a cold cache (progs/tests/exectest.c), as a storm that the
per-parent child limit contains; bad and hostile files give errors, and
memory comes back exactly."""
import shutil
import struct
import subprocess
import sys

import pytest
from harness import BUILD, ROOT
from helpers import done, result, MKE2FS, needs_e2fsprogs

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
    "/noexec": -EACCES,                   # no execute bit
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
    put(root, "/noexec", hello, 0o644)
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


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", ["fifo", "prio", "kthread"])
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
    ends at -EAGAIN with MAXCHILD (32) children, all collected with
    status 0, and memory comes back exactly."""
    r = boot("memcheck run=exectest,storm,4,/bin/hello", smp=smp, timeout=300, disk=image)
    res = result(r, "exectest")
    assert res["ran"] == 4 * 32 and res["refused"] == 4, res
    assert res["last_error"] == -11 and res["bad_children"] == 0, res
    assert res["avail_lost"] == 0, res
    done(r)
