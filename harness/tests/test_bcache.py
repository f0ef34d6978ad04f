"""The block cache sized to memory (kernel/bcache.c): it grows past its
floor while memory is free, so a warm pass over a file larger than the
old fixed 2 MiB reads nothing from the device; it gives its frames back
to a space that needs them, with available memory back exactly; a buffer
read for a waiting thread is kept until the thread's call finds it; and
`bcache=N` fixes the size so the eviction paths stay reachable. Counts,
never times."""
import pytest
from helpers import done, needs_e2fsprogs, result

from harness import disk, ioexp

pytestmark = needs_e2fsprogs


def data_image(tmp_path_factory, mib):
    """An ext2 image holding /data, mib MiB whose word k is k (ioexp's)."""
    d = tmp_path_factory.mktemp("bc")
    (d / "src").mkdir()
    with open(d / "src" / "data", "wb") as f:
        for i in range(mib):
            ioexp.array("Q", range(i << 17, (i + 1) << 17)).tofile(f)
    return disk.make_image(d / "src", d / "io.img")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return data_image(tmp_path_factory, 16)      # 4,096 blocks: 8x the floor


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return data_image(tmp_path_factory, 4)


def records(r):
    out = {}
    for x in r.results:
        assert x["errors"] == 0 and x["bad"] == 0, x
        out[x["name"].rsplit(".", 1)[0]] = x
    return out


@pytest.mark.parametrize("cache", ["", "bcache=512"])
def test_warm_pass_reads_nothing_from_the_device(boot, big, cache):
    """One fifo thread, 1 CPU: 2,048 random 4 KiB preads of a 16 MiB file,
    then the file whole in 1 MiB reads, each twice. The cache grows to
    hold the file, so the warm passes wait for nothing and read no block
    from the device (before: a fixed 512 blocks, the warm random pass
    waited about 1,800 times). With bcache=512 the old behaviour is back:
    the warm passes read the device again."""
    r = boot(f"rawdisk {cache} run=iobench,pkg=fifo,/data,2048,1", timeout=180, disk=big)
    done(r, 0)
    rec = records(r)
    for name in ("io.rand.1.warm", "io.seq.warm"):
        w = rec[name]
        if cache:
            assert w["vp_waits"] > 0, w
            assert w["bc_reads"] > 0, w
        else:
            assert w["vp_waits"] == 0, w
            assert w["bc_reads"] == 0, w
    assert rec["io.rand.1.cold"]["bc_reads"] > 0, rec


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("cache", ["", "bcache=1000"])
def test_cache_gives_its_memory_back(boot, big, smp, cache):
    """bcmem (128 MiB guest): a child reads 16 MiB twice (the cache grows
    past its floor; the warm pass reads nothing from the device), then a
    second child maps more memory than is free: it succeeds, the cache
    giving back clean buffers (reclaimed), and available memory is back
    exactly after each (the cache's frames past its floor count as
    available). With bcache=1000 the cache stays 1,000 buffers and the
    warm pass reads the device. Before: INFO_BCACHE did not exist and the
    cache never grew."""
    r = boot(f"memcheck memquota=4096 {cache} run=bcmem,/data", smp=smp, mem="128M",
             timeout=300, disk=big)
    done(r, 0)
    rd, al, top = (result(r, n) for n in ("bcmem.read", "bcmem.alloc", "bcmem"))
    assert rd["bytes"] == 16 << 20 and rd["same"] == 1 and rd["cold_dev_reads"] >= 4096, rd
    assert top["read"] == 0 and top["alloc"] == 0, top
    assert al["error"] == 0 and al["mapped"] + (1 << 20) > al["want"], al
    assert top["avail_lost_read"] == 0 and top["avail_lost"] == 0, top
    if cache:
        assert rd["nbuf"] == rd["floor"] == rd["ceil"] == 1000, rd
        assert rd["warm_dev_reads"] > 0 and al["reclaimed"] == 0, (rd, al)
    else:
        assert rd["floor"] == 512 and rd["nbuf"] >= 4096 + 512 > rd["floor"], rd
        assert rd["warm_dev_reads"] == 0, rd
        assert al["want"] > al["free_before"], al       # it needed the cache's frames
        assert al["reclaimed"] > 0 and al["nbuf"] < rd["nbuf"], (rd, al)


def test_prio_keeps_the_block_for_its_waiter(boot, small):
    """4,096 prio threads on one VP, 1 CPU, each pread-ing one random block
    of a 4 MiB file through a cache fixed at 512 blocks. prio runs a woken
    thread again only after its level's others, and the block it waited
    for was reused meanwhile, so it asked again: before, 220 VP waits per
    read (902,868 for 4,096 reads of a 16 MiB file, 122 IOPS). The buffer
    is now kept for its waiter until a call finds it (bc_kept): a few
    waits per read."""
    r = boot("rawdisk bcache=512 run=iobench,pkg=prio,/data,4096,4096", timeout=600,
             disk=small)
    done(r, 0)
    rec = records(r)
    for c in ("cold", "warm"):
        x = rec[f"io.rand.4096.{c}"]
        assert x["ops"] == 4096 and x["value"] is not None, x
        assert x["vp_waits"] <= 4 * x["ops"], x
    for c in ("cold", "warm"):
        assert rec[f"io.rand.4096.{c}"]["bc_kept"] > 0, rec
