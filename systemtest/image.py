"""The Debian 12 arm64 disk image the system test boots, built once and cached outside the repository.

What a maker's Raspberry Pi OS Lite has after step 1 of docs/raspberry-pi.md, as far as Debian can give
it: the packages that step installs (read from the guide itself), systemd, polkit, sudo and a user with
passwordless sudo (as Raspberry Pi OS's first user), and SSH for the test to drive it. Two differences,
both said in docs/dev/system-test.md: Debian has no ``python3-lgpio`` (the project's ``pi`` extra installs
lgpio's aarch64 wheel from the wheelhouse instead), and the GPIO chip is QEMU's PL061 (8 lines), not the
BCM2835's.

The cache key is a hash of everything that goes into the image: the code below that makes it, its
constants, the guide's package line and the machine's options. A changed recipe builds a new image
beside the old ones (``rm -r ~/.cache/monopoly-city/system-test`` frees the space).
"""

from __future__ import annotations

import hashlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
#: QEMU's machine: the DTB is dumped with exactly these options, so they are part of the image.
MACHINE = ["-machine", "virt,acpi=off", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024"]
#: gpiozero reads the board from /proc/device-tree/system/linux,revision: a Compute Module 3 (BCM2837, 1 GB).
#: Not a Pi 3 or 4: on their 40-pin header GPIO2 and GPIO3 have the board's I2C pull-ups, which gpiozero
#: knows and which would refuse the pull-down of the test's power key on QEMU's line 3 (buttons.pressed:
#: high); a Compute Module's pins have none.
PI_REVISION = "a020a0"
IMAGE_SIZE = "4G"
USER = "maker"
#: What the guide installs that Debian 12 does not have (Raspberry Pi OS's own archive has it).
NOT_IN_DEBIAN = {"python3-lgpio"}
#: Raspberry Pi OS Lite has these; Debian's minimal variant does not. busybox-static makes the initramfs,
#: openssh-server lets the test in, gpiod reads the lines by hand when debugging.
SYSTEM_PACKAGES = [
    "systemd-sysv", "udev", "dbus", "libpam-systemd", "sudo", "openssh-server", "kmod", "passwd", "procps",
    "iproute2", "e2fsprogs", "busybox-static", "gpiod", "nano", "less",
]  # fmt: skip
#: The modules the initramfs loads to reach the root file system (their dependencies are added).
#: Where the kernel's package is downloaded inside the new system, relative to its root (a chroot starts at /).
KERNEL_DOWNLOADS = "var/cache/system-test-kernel"
INITRAMFS_MODULES = ["virtio_pci", "virtio_blk", "crc32c_generic", "ext4"]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "monopoly-city" / "system-test"


def guide_packages(repo: Path) -> list[str]:
    """The packages step 1 of docs/raspberry-pi.md tells a maker to install, minus what Debian lacks."""
    text = (repo / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    match = re.search(r"sudo apt install -y (.+)", text)
    if match is None:
        raise SystemExit("system-test: docs/raspberry-pi.md has no 'sudo apt install -y' line any more")
    return [name for name in match.group(1).split() if name not in NOT_IN_DEBIAN]


@dataclass(frozen=True)
class Image:
    """A built image: the disk, the kernel, its initramfs, the device tree and the SSH key to log in."""

    folder: Path

    @property
    def disk(self) -> Path:
        return self.folder / "rootfs.img"

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.folder / "initrd.img"

    @property
    def dtb(self) -> Path:
        return self.folder / "pi.dtb"

    @property
    def key(self) -> Path:
        return self.folder / "id_ed25519"

    @property
    def complete(self) -> bool:
        return (self.folder / "complete").exists()


def image_key(repo: Path) -> str:
    """A hash of the recipe: the code that makes the image, its constants and the guide's packages."""
    import inspect

    recipe = hashlib.sha256()
    for part in (_build_into, _configure, _module_order, _write_initramfs, _Cpio, _write_dtb):
        recipe.update(inspect.getsource(part).encode())
    constants = [SUITE, MIRROR, PI_REVISION, IMAGE_SIZE, USER, INIT, *SYSTEM_PACKAGES, *INITRAMFS_MODULES]
    recipe.update(" ".join(constants).encode())
    recipe.update(" ".join(guide_packages(repo)).encode())
    recipe.update(" ".join(MACHINE).encode())
    return recipe.hexdigest()[:16]


def cached_image(repo: Path) -> Image:
    return Image(cache_root() / f"image-{image_key(repo)}")


def run(command: list[str], log: TextIO) -> subprocess.CompletedProcess[bytes]:
    """Run a build step, its output in the build log; a failure names the step and the log."""
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    result = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise SystemExit(f"system-test: image build step failed ({result.returncode}): {' '.join(command)}")
    return result


def ensure_binfmt(log: TextIO) -> None:
    """mmdebstrap runs arm64 programs through qemu-user: binfmt_misc must be mounted and enabled."""
    if not Path("/proc/sys/fs/binfmt_misc/register").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"], log)
    if not Path("/proc/sys/fs/binfmt_misc/qemu-aarch64").exists():
        run(["update-binfmts", "--enable", "qemu-aarch64"], log)
    run(["arch-test", "arm64"], log)


def build(repo: Path, log: TextIO) -> Image:
    """Build the image (about 10 minutes here), or return the cached one."""
    image = cached_image(repo)
    if image.complete:
        return image
    if os.geteuid() != 0:
        raise SystemExit("system-test: building the image needs root (mmdebstrap, binfmt_misc): sudo make system-test")
    ensure_binfmt(log)
    image.folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{image.folder.name}.", suffix=".building", dir=image.folder.parent))
    try:
        _build_into(repo, Image(work), log)
        (work / "complete").write_text("built\n")
        shutil.rmtree(image.folder, ignore_errors=True)
        work.rename(image.folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return image


def _debootstrap(repo: Path, log: TextIO) -> Path:
    """The root file system as mmdebstrap makes it, with the kernel's package beside it: the slow step
    (about 5 minutes here), cached as a tarball by its own inputs."""
    # The kernel: downloaded inside the new system (apt's lists are there during the hook), unpacked
    # later (not dpkg-installed, which would build Debian's own initramfs under qemu-user for minutes).
    kernel_hook = (
        f'chroot "$1" sh -c \'mkdir -p {KERNEL_DOWNLOADS} && cd {KERNEL_DOWNLOADS} && apt-get download -q '
        '$(apt-cache depends linux-image-arm64 | sed -n "s/.*Depends: \\(linux-image-[0-9].*\\)/\\1/p")\''
    )
    packages = SYSTEM_PACKAGES + guide_packages(repo)
    command = [
        "mmdebstrap", "--mode=root", "--variant=apt", "--arch=arm64", f"--include={','.join(packages)}",
        f"--customize-hook={kernel_hook}", SUITE,
    ]  # fmt: skip
    key = hashlib.sha256(" ".join([*command, MIRROR]).encode()).hexdigest()[:16]
    tarball = cache_root() / f"rootfs-{key}.tar"
    if not tarball.exists():
        partial = tarball.with_suffix(".partial.tar")
        run([*command, str(partial), MIRROR], log)
        partial.rename(tarball)
    return tarball


def _build_into(repo: Path, image: Image, log: TextIO) -> None:
    root = image.folder / "rootfs"
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "system-test", "-f", str(image.key)], log)
    root.mkdir()
    run(["tar", "-x", "-p", "-C", str(root), "-f", str(_debootstrap(repo, log))], log)
    debs = sorted((root / KERNEL_DOWNLOADS).glob("linux-image-*.deb"))
    if len(debs) != 1:
        raise SystemExit(f"system-test: expected one kernel package, found {debs}")
    # Unpacked aside, then moved: dpkg-deb -x over the root would replace the /lib -> usr/lib link.
    unpacked = root / KERNEL_DOWNLOADS / "unpacked"
    run(["dpkg-deb", "-x", str(debs[0]), str(unpacked)], log)
    for folder in ("boot", "lib/modules"):
        target = root / "usr" / folder if folder.startswith("lib") else root / folder
        target.mkdir(parents=True, exist_ok=True)
        for item in (unpacked / folder).iterdir():
            shutil.move(str(item), target / item.name)
    shutil.rmtree(debs[0].parent)
    version = next((root / "usr" / "lib" / "modules").iterdir()).name
    run(["chroot", str(root), "depmod", "-a", version], log)
    shutil.copy(root / "boot" / f"vmlinuz-{version}", image.kernel)
    _configure(root, image)
    _write_initramfs(root, version, image.initrd)
    _write_dtb(image, log)
    run(["mke2fs", "-q", "-t", "ext4", "-L", "rootfs", "-d", str(root), "-F", str(image.disk), IMAGE_SIZE], log)
    shutil.rmtree(root)


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _configure(root: Path, image: Image) -> None:
    """What Raspberry Pi Imager's settings and Raspberry Pi OS give a maker, and what the test needs."""
    _write(root / "etc" / "hostname", "raspberrypi\n")
    _write(root / "etc" / "hosts", "127.0.0.1 localhost\n127.0.1.1 raspberrypi\n")
    _write(root / "etc" / "fstab", "LABEL=rootfs / ext4 defaults,errors=remount-ro 0 1\n")
    # Wired network by DHCP (QEMU's user network): the test's SSH and the phone page come in through it.
    _write(root / "etc/systemd/network/20-wired.network", "[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n")
    wants = root / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    (wants / "systemd-networkd.service").symlink_to("/lib/systemd/system/systemd-networkd.service")
    # A journal that survives the power cuts, for the post-mortem of a failing check.
    (root / "var/log/journal").mkdir(parents=True, exist_ok=True)
    # Raspberry Pi OS's udev rules give the GPIO chips and the I2C buses to the gpio and i2c groups;
    # Debian's leave them to root. (make install-pi adds its own rule too: see systemd/install.sh.)
    # The maker's user: passwordless sudo, as Raspberry Pi OS's first user; the test's key.
    subprocess.run(["chroot", str(root), "useradd", "-m", "-s", "/bin/bash", "-G", "sudo", USER], check=True)
    _write(root / "etc/sudoers.d/010_maker-nopasswd", f"{USER} ALL=(ALL) NOPASSWD: ALL\n", 0o440)
    ssh = root / "home" / USER / ".ssh"
    _write(ssh / "authorized_keys", image.key.with_suffix(".pub").read_text(), 0o600)
    ssh.chmod(0o700)
    uid_gid = (root / "home" / USER).stat()
    for path in (ssh, ssh / "authorized_keys"):
        os.chown(path, uid_gid.st_uid, uid_gid.st_gid)
    # No network in the guest: pip installs from the wheelhouse the test copies in (as if from PyPI).
    _write(root / "etc/pip.conf", "[global]\nno-index = true\nfind-links = /var/cache/wheelhouse\n")
    # Quick boots: no wait for a network that QEMU's DHCP gives at once anyway.
    (root / "etc/systemd/system/systemd-networkd-wait-online.service").symlink_to("/dev/null")


def _module_order(modules: Path, wanted: list[str]) -> list[str]:
    """The module files to insmod, dependencies first (from modules.dep)."""
    deps: dict[str, list[str]] = {}
    for line in (modules / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[path] = rest.split()
    by_name = {re.sub(r"\.ko(\.xz)?$", "", Path(path).name).replace("-", "_"): path for path in deps}
    order: list[str] = []

    def visit(path: str) -> None:
        if path in order:
            return
        for dep in deps[path]:
            visit(dep)
        order.append(path)

    for name in wanted:
        if name in by_name:  # absent: built into this kernel
            visit(by_name[name])
    return order


INIT = """#!/bin/busybox sh
# The system test's initramfs: load virtio and ext4, mount the disk, hand over to systemd.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for module in $(cat /modules.order); do insmod "/modules/$module" || echo "initramfs: insmod $module failed"; done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
if ! mount -t ext4 -o ro /dev/vda /newroot; then
    echo "initramfs: cannot mount /dev/vda: a shell for debugging"
    exec sh
fi
mount --move /dev /newroot/dev
umount /sys /proc
exec switch_root /newroot /sbin/init
"""


def _write_initramfs(root: Path, version: str, target: Path) -> None:
    """A newc cpio of busybox, the modules that reach the disk and the init above (no cpio program needed)."""
    modules = root / "usr" / "lib" / "modules" / version
    order = _module_order(modules, INITRAMFS_MODULES)
    archive = _Cpio()
    for folder in ("bin", "dev", "proc", "sys", "newroot", "modules"):
        archive.directory(folder)
    archive.device("dev/console", 5, 1)
    archive.file("init", INIT.encode(), 0o755)
    archive.file("bin/busybox", (root / "bin" / "busybox").read_bytes(), 0o755)
    names = []
    for path in order:
        data = (modules / path).read_bytes()
        name = Path(path).name
        if name.endswith(".xz"):
            data, name = lzma.decompress(data), name.removesuffix(".xz")
        archive.file(f"modules/{name}", data, 0o644)
        names.append(name)
    archive.file("modules.order", ("\n".join(names) + "\n").encode(), 0o644)
    target.write_bytes(archive.finish())


class _Cpio:
    """The kernel's initramfs format (cpio "newc"), enough for files, folders and one device node."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.inode = 1

    def _entry(self, name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0)) -> None:
        fields = [self.inode, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
        header = b"070701" + b"".join(b"%08X" % field for field in fields)
        self.inode += 1
        entry = header + name.encode() + b"\0"
        entry += b"\0" * (-len(entry) % 4)
        entry += data + b"\0" * (-len(data) % 4)
        self.parts.append(entry)

    def directory(self, name: str) -> None:
        self._entry(name, 0o040755)

    def file(self, name: str, data: bytes, mode: int) -> None:
        self._entry(name, 0o100000 | mode, data)

    def device(self, name: str, major: int, minor: int) -> None:
        self._entry(name, 0o020600, rdev=(major, minor))

    def finish(self) -> bytes:
        self._entry("TRAILER!!!", 0)
        return b"".join(self.parts)


def _write_dtb(image: Image, log: TextIO) -> None:
    """QEMU's own device tree, made to look like a Pi to gpiozero, and its power key given to the unit.

    QEMU wires line 3 of its PL061 GPIO chip to a ``gpio-keys`` power key (``system_powerdown`` pulses
    it high for 100 ms): the node is removed so the kernel leaves the line to the unit. gpiozero reads
    the board's revision from ``/system/linux,revision``, as on a Raspberry Pi.
    """
    dumped = image.folder / "virt.dtb"
    run(["qemu-system-aarch64", *MACHINE, "-machine", f"dumpdtb={dumped}", "-display", "none", "-nic", "none"], log)
    nodes = subprocess.run(["fdtget", "-l", str(dumped), "/"], capture_output=True, text=True, check=True).stdout
    for node in nodes.split():
        if node.startswith("gpio-keys"):
            run(["fdtput", "-r", str(dumped), f"/{node}"], log)
    run(["fdtput", "-c", str(dumped), "/system"], log)
    run(["fdtput", "-t", "x", str(dumped), "/system", "linux,revision", PI_REVISION], log)
    dumped.rename(image.dtb)


if __name__ == "__main__":  # build (or find) the image alone: python3 -m systemtest.image
    repo = Path(__file__).resolve().parent.parent
    built = build(repo, sys.stdout)
    print(built.folder)
