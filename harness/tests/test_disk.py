"""The disk: PCI enumeration, the virtio-blk driver (MSI-X completions,
many requests in flight, timeouts) and the block cache, through the raw
SYS_disk calls of progs/tests/disktest.c (allowed by the `rawdisk` boot
word). The image is made here: word j of block b holds pattern(b, j), so
the guest checks every block it reads and the host checks what it wrote."""
import struct

import pytest
from harness import qemu
from helpers import done, result, pkg_cases

BS = 4096
NBLOCKS = 2048                 # an 8 MiB image
SLOTS = 85                     # requests in flight at most: 256 descriptors / 3 (kernel/blk.c)
EPERM, EIO, EFAULT, EINVAL, ENODEV = 1, 5, 14, 22, 19


def pattern(b, j):
    return (b * 0x100000001 + j + 0x5a5a000000000000) & (2**64 - 1)


def block_bytes(b):
    return struct.pack("<512Q", *[pattern(b, j) for j in range(512)])


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "disk.img"
    with open(path, "wb") as f:
        for b in range(NBLOCKS):
            f.write(block_bytes(b))
    return path


def read_block(path, b):
    with open(path, "rb") as f:
        f.seek(b * BS)
        return f.read(BS)


def disktest(boot, image, args, smp=1, words="rawdisk", status=0, **kw):
    r = boot(f"{words} run=disktest,{args}", smp=smp, timeout=120, disk=image, **kw)
    res = result(r, "disktest")
    done(r, status)
    return r, res


def test_no_disk_boots_unaffected(boot):
    r = boot("rawdisk noramdisk run=disktest,errors", timeout=60)   # (no RAM disk either)
    done(r, 0)
    assert result(r, "disktest")["info"] == -ENODEV
    assert not r.events("disk"), r.tail()      # no device found, nothing set up


def test_rawdisk_word_required(boot, image):
    r, res = disktest(boot, image, "errors", words="")
    assert res["info"] == -EPERM, res
    assert r.events("disk") == [{"blocks": NBLOCKS, "queue": 256, "slots": SLOTS}], r.tail()


@pytest.mark.parametrize("smp", [1, 2])
def test_reads_match_the_host(boot, image, smp):
    _, res = disktest(boot, image, f"read,0,1,{NBLOCKS // 2},{NBLOCKS - 1}", smp=smp)
    assert res["blocks"] == NBLOCKS
    assert [res[f"call{i}"] for i in range(4)] == [0, 0, 0, 0], res
    assert res["bad_words"] == 0, res


def test_bad_arguments(boot, image):
    _, res = disktest(boot, image, "errors")
    assert res["past_end"] == res["huge_block"] == res["write_past_end"] == -EINVAL, res
    assert res["null_buf"] == res["kernel_buf"] == res["info_null"] == -EFAULT, res
    assert res["bad_op"] == -EINVAL, res
    assert res["still_reads"] == 0, res


@pytest.mark.parametrize("mode", ["write", "dirty"])
def test_write_reaches_the_image(boot, image, mode):
    """`write` syncs; `dirty` leaves the block dirty in the cache, and the
    halt must write it before QEMU powers off."""
    b, v = 77, 0x1234567890abcdef
    _, res = disktest(boot, image, f"{mode},{b},{v}")
    assert res["write"] == 0 and res["reread"] == 0 and res["bad_words"] == 0, res
    if mode == "write":
        assert res["sync"] == 0, res
    assert read_block(image, b) == struct.pack("<512Q", *[v ^ j for j in range(512)])
    assert read_block(image, b - 1) == block_bytes(b - 1)
    assert read_block(image, b + 1) == block_bytes(b + 1)


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "prio"]))
def test_threads_on_one_vp_keep_many_requests_in_flight(boot, image, pkg, smp):
    """64 threads on one VP each read random blocks: with upcalls a read
    that misses blocks only its thread, so the VP goes on to start the
    others' reads. The kernel counts the most requests outstanding. How
    many depends on how fast the host completes a read against how fast
    the vCPU issues the next: 62-64 on a quiet host, but 6-13 in the
    fresh-clone CI, where the other boots slow the vCPU and not QEMU's
    I/O thread (it asked for 16 and failed there). So it asks for
    several, the contrast to a blocking VP's exactly one (below)."""
    n = 64
    _, res = disktest(boot, image, f"flight,{pkg},{n},20", smp=smp)
    assert res["bad_reads"] == 0 and res["reads"] == n * 20, res
    assert 4 <= res["max_in_flight"] <= n, res


@pytest.mark.parametrize("how", ["naive", "classic"])
def test_a_blocking_vp_has_one_request_in_flight(boot, image, how):
    """The contrast: a package without upcalls (naive) or a bare program
    blocks its VP on each read, so there is never more than one."""
    args = "flight,naive,64,20" if how == "naive" else "classic,400"
    _, res = disktest(boot, image, args)
    assert res["bad_reads"] == 0, res
    assert res["max_in_flight"] == 1, res


def test_more_threads_than_device_slots(boot, image):
    """200 threads: the 85 slots fill and the rest wait in the driver's
    queue, each going out as a completion frees a slot."""
    _, res = disktest(boot, image, "flight,fifo,200,10", smp=2, words="rawdisk memcheck")
    assert res["bad_reads"] == 0 and res["reads"] == 2000, res
    assert 1 < res["max_in_flight"] <= SLOTS, res


def test_space_ends_with_requests_in_flight(boot, image):
    """A program exits while 80 of its threads wait for the disk; their
    waits go with the space, the completions find nobody, and the next
    program reads normally (memcheck poisons what was freed)."""
    r = boot("rawdisk memcheck run=disktest,abandon,fifo,80 run=disktest,read,5", smp=2,
             timeout=120, disk=image)
    done(r, 0)
    res = [e for e in r.results if e.get("name") == "disktest"]
    ab = next(e for e in res if e["mode"] == "abandon")
    rd = next(e for e in res if e["mode"] == "read")
    assert ab["max_in_flight"] > 1, ab
    assert rd["call0"] == 0 and rd["bad_words"] == 0, rd


def test_unanswered_request_times_out_with_eio(boot, image):
    """QEMU throttled to 100 bytes/s: the first read passes (the bucket
    starts full), the next would take 40 s; the kernel gives -EIO after
    its 5 s request timeout and the program goes on."""
    r = boot("rawdisk run=disktest,read,3,4", timeout=120,
             extra=qemu.disk_args(image, "throttling.bps-total=100"))
    res = result(r, "disktest")
    done(r, 0)
    assert res["call0"] == 0 and res["call1"] == -EIO, res


MEM_LO, MEM_HI = 0xfe000000, 0xfec00000      # pci_setup's window (kernel/pci.c)


@pytest.mark.parametrize("smp", [1, 2])
def test_qboot_disk_boot_sets_up_the_device(boot, image, smp):
    """qboot (the direct boot's firmware) assigns no BAR and leaves the
    device off: the kernel sizes each BAR, places it in its window (each
    naturally aligned, none overlapping) and says so, then reads the disk."""
    if qemu.firmware() != ["-bios", "qboot.rom"]:
        pytest.skip("this QEMU has no qboot")
    r, res = disktest(boot, image, f"read,0,{NBLOCKS - 1}", smp=smp)
    assert [res["call0"], res["call1"], res["bad_words"]] == [0, 0, 0], res
    bars = r.events("pci")
    assert sorted(b["bar"] for b in bars) == [1, 4], r.tail()   # MSI-X table; virtio structures
    for b in bars:
        assert b["size"] & (b["size"] - 1) == 0 and b["base"] % b["size"] == 0, b
        assert MEM_LO <= b["base"] and b["base"] + b["size"] <= MEM_HI, b
    (a, b) = sorted((x["base"], x["base"] + x["size"]) for x in bars)
    assert a[1] <= b[0], bars


def test_seabios_bars_are_kept(boot, image, monkeypatch):
    """SeaBIOS assigns the BARs itself: the kernel keeps them, places none."""
    monkeypatch.setenv("ANIMA_BIOS", "seabios")
    r, res = disktest(boot, image, f"read,0,{NBLOCKS - 1}")
    assert [res["call0"], res["call1"], res["bad_words"]] == [0, 0, 0], res
    assert not r.events("pci"), r.tail()
    assert r.events("disk"), r.tail()
