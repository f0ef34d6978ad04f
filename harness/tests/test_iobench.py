"""The I/O benchmark of `make bench` (progs/workloads/iobench.c,
harness/ioexp.py) on Anima and on Linux with the same image, and the
read-ahead of sequential read()s (kernel/sysfile.c). Counts, never times:
the figures are the benchmark's."""
import pytest
from helpers import done, needs_e2fsprogs

from harness import disk, ioexp, linux

pytestmark = needs_e2fsprogs
MIB = 4


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """An ext2 image holding /data, MIB MiB whose word k is k (as ioexp's)."""
    d = tmp_path_factory.mktemp("io")
    (d / "src").mkdir()
    with open(d / "src" / "data", "wb") as f:
        for i in range(MIB):
            ioexp.array("Q", range(i << 17, (i + 1) << 17)).tofile(f)
    return disk.make_image(d / "src", d / "io.img")


def records(r, system):
    """name (without the system) -> record; every read right."""
    out = {}
    for x in r.results:
        assert x["errors"] == 0 and x["bad"] == 0 and x["eagain"] >= 0, x
        assert x["name"].endswith("." + system), x
        out[x["name"][:-len(system) - 1]] = x
    return out


@pytest.mark.parametrize("pkg", ["fifo", "naive"])
def test_sequential_reads_start_blocks_ahead(boot, image, pkg):
    """One thread reading the file in 4 KiB read()s: each read needs one
    block, so without read-ahead one request is out at a time (measured
    before it: max_in_flight 1, every run); with it the kernel starts the
    next blocks while the program copies (64 measured)."""
    r = boot(f"rawdisk run=iobench,pkg={pkg},/data,0,seq=4", timeout=120, disk=image)
    done(r, 0)
    rec = records(r, pkg)
    assert set(rec) == {"io.seq.cold", "io.seq.warm"}, rec
    cold = rec["io.seq.cold"]
    assert cold["ops"] == MIB * 256 and cold["max_in_flight"] >= 16, cold


@pytest.fixture(scope="module")
def vmlinuz():
    try:
        return linux.kernel()
    except linux.LinuxUnavailable as e:
        pytest.skip(f"Debian's linux-image-6.1 cannot be had here: {e}")


def test_iobench_runs_beside_linux(boot, image, vmlinuz):
    """The same program and image on fifo and on Linux (its virtio_blk and
    ext4 modules loaded by init, the image mounted read-only): every phase
    reports a figure, every piece read is right. Linux's counts show the
    cold and warm passes are what they say: a cold pass reads the device,
    the warm random pass after it does not (the page cache holds it)."""
    args = ["64", "1", "16"]
    r = boot("rawdisk run=" + ",".join(["iobench", "pkg=fifo", "/data"] + args), timeout=120,
             disk=image)
    done(r, 0)
    an = records(r, "fifo")
    lx_run = linux.run([" ".join(["iobench", "/mnt/data"] + args)], smp=1, timeout=300,
                       disk=image)
    assert lx_run.kind == "done" and lx_run.status == 0, lx_run.tail()
    lx = records(lx_run, "linux")
    names = {f"io.{p}.{c}" for p in ("rand.1", "rand.16", "seq") for c in ("cold", "warm")}
    assert set(an) == set(lx) == names, (an, lx)
    assert all(x["value"] > 0 for x in list(an.values()) + list(lx.values()))
    assert lx["io.rand.16.cold"]["dev_reads"] > 0 and lx["io.rand.16.warm"]["dev_reads"] == 0, lx
    assert lx["io.seq.cold"]["dev_reads"] > 0, lx
