"""
The I/O benchmark of `make bench` (issue 31): progs/workloads/iobench.c
reading one file of an ext2 image, on each package of IO_SYSTEMS at 1
and 2 CPUs (wall, multi-threaded TCG) and on Linux 6.1 in the same QEMU
with the same image attached the same way (harness/linuxdisk.py).

The image holds /data, IO_MIB MiB whose 64-bit word at byte 8k is k, made
once with mke2fs -d (4 KiB blocks) into build/io/ and attached to every
boot as it is: both systems only read it (Linux mounts it read-only).
Each boot is a fresh machine, so the first pass (io.seq.cold) starts
with empty caches in the guest; QEMU opens the image with cache=unsafe
for both, so the host's page cache may hold it either way.
"""
from array import array

from . import BUILD, disk

IO_SYSTEMS = ("fifo", "prio", "kthread", "naive")
IO_THREADS = (1, 16, 256, 4096)
# (file MiB, random reads per phase, boots): the full run and QUICK=1's.
IO_FULL = (64, 16384, 3)
IO_QUICK = (8, 2048, 1)


def image(mib):
    """build/io/dataMIB.img, made once: an ext2 image holding /data."""
    out = BUILD / "io" / f"data{mib}.img"
    if out.is_file():
        return out
    src = BUILD / "io" / f"data{mib}"
    src.mkdir(parents=True, exist_ok=True)
    with open(src / "data", "wb") as f:
        for i in range(mib):                        # a MiB at a time
            array("Q", range(i << 17, (i + 1) << 17)).tofile(f)
    tmp = out.with_suffix(".tmp")
    disk.make_image(src, tmp)
    tmp.rename(out)
    return out


def io_exps(pkgs, quick=False):
    """One boot runs every phase (iobench's docstring); records
    io.seq.{cold,warm}.SYSTEM and io.rand.T.{cold,warm}.SYSTEM. Anima
    boots with `rawdisk` so the program can read the driver's most
    requests in flight (SYS_disk DISK_INFO). QUICK: one CPU, a smaller
    file, one boot."""
    from .experiments import Exp
    mib, reads, runs = IO_QUICK if quick else IO_FULL
    threads = " ".join(str(t) for t in IO_THREADS)
    t = []
    for smp in (1,) if quick else (1, 2):
        for p in [p for p in IO_SYSTEMS if p in pkgs]:
            t.append(Exp(f"io.{p}.wall.smp{smp}", (f"iobench pkg={p} /data {reads} {threads}",),
                         smp=smp, mode="wall", runs=runs, timeout=600, knobs="rawdisk",
                         names=r"^io\.", quick=quick, disk_mib=mib))
        t.append(Exp(f"io.linux.wall.smp{smp}", (f"iobench /mnt/data {reads} {threads}",),
                     smp=smp, mode="wall", runs=runs, timeout=600, names=r"^io\.",
                     system="linux", quick=quick, disk_mib=mib))
    return t
