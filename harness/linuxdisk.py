"""
A disk for the Linux guest (harness/linux.py): the same raw image Anima
reads, attached with the same QEMU options (qemu.disk_args: virtio-blk
PCI, modern only), and the kernel modules Linux needs to read it.

Debian's linux-image-6.1 builds virtio, virtio_pci, virtio_blk and ext4
(which serves the ext2 type: CONFIG_EXT4_USE_FOR_EXT2) as modules, so
they go into the initramfs: /lib/NAME.ko for each, and /modules listing
them in load order (dependencies first). tools/linux/init.c loads each
with finit_module, mounts devtmpfs on /dev and the disk /dev/vda on /mnt
read-only (ext2), then runs the commands: a program reads the guest's
/x/y of the image as /mnt/x/y.

The modules come from the same .deb the kernel came from (linux.CACHE),
unpacked once into CACHE/modules. The package has no modules.dep (depmod
makes it at install), so the dependencies are read from each module's
own `depends=` field (its .modinfo strings).
"""
import re
import subprocess

from . import linux

# ext4 wants the crc32c hash at every mount, even of ext2 (no metadata
# checksums): "Cannot load crc32c driver" without crc32c_generic.
ROOTS = ("virtio_pci", "virtio_blk", "crc32c_generic", "ext4")
MOUNT = "/mnt"                                   # where init mounts it


def _deb():
    debs = sorted(linux.CACHE.glob("linux-image-6.1.*.deb"))
    if not debs:
        linux.kernel()                 # fetches the .deb if it can
        debs = sorted(linux.CACHE.glob("linux-image-6.1.*.deb"))
    if not debs:
        raise linux.LinuxUnavailable(f"no linux-image-6.1 .deb in {linux.CACHE}")
    return debs[-1]


def _norm(name):
    return name.replace("-", "_")


def _members(deb):
    """Module name -> its path inside the .deb (./lib/modules/V/kernel/...)."""
    tar = subprocess.run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -t", shell=True,
                         capture_output=True, text=True, check=True).stdout
    return {_norm(p.rsplit("/", 1)[1][:-3]): p for p in tar.splitlines() if p.endswith(".ko")}


def _depends(ko):
    m = re.search(rb"\0depends=([^\0]*)\0", b"\0" + ko.read_bytes())
    return [_norm(d) for d in m.group(1).decode().split(",") if d] if m else []


def modules(roots=ROOTS):
    """The .ko files `roots` need, dependencies first, unpacked once."""
    out = linux.CACHE / "modules"
    deb, have = _deb(), {}
    members = None
    order, seen = [], set()

    def path(name):
        nonlocal members
        if name not in have:
            found = list(out.rglob(f"{name}.ko")) + list(out.rglob(f"{name.replace('_', '-')}.ko"))
            if not found:
                members = members or _members(deb)
                if name not in members:
                    raise linux.LinuxUnavailable(f"{deb.name} has no module {name}")
                out.mkdir(parents=True, exist_ok=True)
                subprocess.run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{out}' "
                               f"'{members[name]}'", shell=True, check=True, capture_output=True)
                found = [out / members[name]]
            have[name] = found[0]
        return have[name]

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        for d in _depends(path(name)):
            visit(d)
        order.append(name)

    for r in roots:
        visit(r)
    return [(n, path(n)) for n in order]


def cpio_entries():
    """The initramfs records: /lib/NAME.ko each and /modules (load order)."""
    mods = modules()
    recs = [linux._cpio_entry("lib", 0o040755)]
    recs += [linux._cpio_entry(f"lib/{n}.ko", 0o100644, p.read_bytes()) for n, p in mods]
    recs.append(linux._cpio_entry("modules", 0o100644,
                                  "".join(f"/lib/{n}.ko\n" for n, _ in mods).encode()))
    return recs
