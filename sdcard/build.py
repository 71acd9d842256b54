"""``make image``: the SD card people flash, from Debian's packages only.

Two stages, each cached by its inputs in ``~/.cache/monopoly-city/image``:

1. **The system** (the slow part, about 10 minutes here): ``mmdebstrap --arch=arm64`` makes a Debian 12 root
   with Debian's arm64 kernel, ``raspi-firmware`` (its kernel hook fills ``/boot/firmware``: the kernel, the
   initramfs, the Pi's device trees, ``config.txt`` and ``cmdline.txt``), the Wi-Fi firmware from
   ``non-free-firmware``, NetworkManager, SSH and the packages of step 1 of docs/raspberry-pi.md. The
   ``non-free-firmware`` component is named on mmdebstrap's command line: the machine's own apt sources are
   not touched. The initramfs lists its modules (``MODULES=list``): Debian's default (``most``) takes about
   18 minutes under qemu-user, this 1.
2. **The unit** (a few minutes): the project installed by its own ``systemd/install.sh`` inside the new
   root (as ``sudo make install-pi`` does on a Pi, from a wheelhouse: no network at first boot), the
   first-boot services, the login user, then the two file systems and the partition table, written without a
   loop device (``mkfs.vfat`` and ``mcopy``, ``mke2fs -d``, ``sfdisk``).

The result is ``build/monopoly-city-unit-VERSION-arm64.img.xz`` (and its ``.sha256``), for Raspberry Pi Imager's
« Use custom ». As root: ``sudo make image``.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

REPO = Path(__file__).resolve().parent.parent
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"
COMPONENTS = "main non-free-firmware"
#: The whole card: a power of two (QEMU's SD card takes only those), on any card of 2 GB or more. The first
#: boot grows the root to the card.
IMAGE_MIB = 2048
FIRMWARE_START_MIB = 4
FIRMWARE_MIB = 256
#: The login user: no password, a key from monopoly-city.txt, passwordless sudo (as Raspberry Pi OS's first user).
USER = "maker"
HOSTNAME = "monopoly-city"
#: What the box's system is made of, beside the packages step 1 of docs/raspberry-pi.md installs.
SYSTEM_PACKAGES = [
    # a bootable Pi: Debian's kernel, the Pi's boot firmware and its hook, the Wi-Fi chip's firmware
    "linux-image-arm64", "raspi-firmware", "firmware-brcm80211", "initramfs-tools",
    # the system, as a Raspberry Pi OS Lite has it
    "systemd-sysv", "udev", "dbus", "libpam-systemd", "systemd-timesyncd", "sudo", "openssh-server", "kmod",
    "passwd", "procps", "iproute2", "e2fsprogs", "dosfstools", "fdisk", "cloud-guest-utils", "ca-certificates",
    "nano", "less", "gpiod",
    # the network: wired and Wi-Fi by NetworkManager, the box found as monopoly-city.local
    "network-manager", "wpasupplicant", "iw", "wireless-regdb", "avahi-daemon", "libnss-mdns",
    # the box's own Wi-Fi (unit/boxwifi.py): NetworkManager's shared mode hands out addresses with dnsmasq and
    # sets its rules with nft; busybox's udhcpc is the DHCP client of the system test's « phone »
    "dnsmasq-base", "nftables", "busybox",
]  # fmt: skip
#: What the guide installs that Debian 12 does not have (Raspberry Pi OS's own archive has it): the unit's
#: ``pi`` extra installs lgpio's aarch64 wheel instead.
NOT_IN_DEBIAN = {"python3-lgpio"}
#: The modules the initramfs carries to reach the root file system (``MODULES=list``, with their
#: dependencies): the Pi's SD card controllers (``bcm2835`` is the SD host of the Pi 3 and Zero 2 W,
#: ``sdhci-iproc`` the Pi 4's, whose card is powered through a fixed and a GPIO regulator: without their
#: drivers it waits for ever), their clock, and QEMU's virtio disk for the system test. Names absent from this
#: kernel (built in, such as mmc_block) are skipped by initramfs-tools.
INITRAMFS_MODULES = [
    "mmc_block", "bcm2835", "sdhci_iproc", "fixed", "gpio-regulator", "clk_raspberrypi", "pwrseq_simple",
    "virtio_blk", "virtio_pci", "virtio_mmio", "ext4", "vfat", "nls_cp437", "nls_ascii",
]  # fmt: skip
#: The serial console (GPIO14/15: ttyS1 on the Pi 3, 4 and Zero 2 W), then the HDMI screen, which gets the boot log.
CONSOLES = "ttyS1,115200 tty0"
#: ``config.txt``'s part that ``raspi-firmware`` keeps across kernel updates: I²C on for the OLED.
FIRMWARE_CUSTOM = "dtparam=i2c_arm=on\n"
FILES = Path(__file__).resolve().parent / "files"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "monopoly-city" / "image"


class BuildError(Exception):
    """A build step failed: the message names the step and the log."""


def run(command: list[str], log: TextIO, *, stdout: BinaryIO | None = None, input: bytes | None = None) -> None:
    """Run a build step, its output in the build log (``stdout``: elsewhere); a failure names the step."""
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    result = subprocess.run(command, stdout=stdout or log, stderr=log, input=input)
    if result.returncode != 0:
        raise BuildError(f"step failed ({result.returncode}): {' '.join(command)[:300]}")


def guide_packages(repo: Path) -> list[str]:
    """The packages step 1 of docs/raspberry-pi.md tells a maker to install, minus what Debian lacks."""
    text = (repo / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    match = re.search(r"sudo apt install -y (.+)", text)
    if match is None:
        raise BuildError("docs/raspberry-pi.md has no 'sudo apt install -y' line any more")
    return [name for name in match.group(1).split() if name not in NOT_IN_DEBIAN]


def ensure_binfmt(log: TextIO) -> None:
    """mmdebstrap and the chroot run arm64 programs through qemu-user: binfmt_misc must be on."""
    if not Path("/proc/sys/fs/binfmt_misc/register").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"], log)
    if not Path("/proc/sys/fs/binfmt_misc/qemu-aarch64").exists():
        run(["update-binfmts", "--enable", "qemu-aarch64"], log)
    run(["arch-test", "arm64"], log)


# --- stage 1: the system ---------------------------------------------------------------------------------


def _essential_hook() -> str:
    """Written before the kernel is installed, so that its initramfs is built once, small."""
    return (
        'mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" "$1/etc/default" && '
        "printf '%s\\n' MODULES=list > \"$1/etc/initramfs-tools/conf.d/monopoly-city\" && "
        f"printf '%s\\n' {shlex.join(INITRAMFS_MODULES)} > \"$1/usr/share/initramfs-tools/modules.d/monopoly-city\" && "
        f"printf '%s\\n' {shlex.quote(FIRMWARE_CUSTOM.strip())} > \"$1/etc/default/raspi-firmware-custom\""
    )


def _customize_hook() -> str:
    """The firmware partition's files written again, now that every package is in: the root by its label."""
    return (
        f'sed -i -e "s|^#ROOTPART=.*|ROOTPART=LABEL=RASPIROOT|" -e "s|^#CONSOLES=.*|CONSOLES=\\"{CONSOLES}\\"|" '
        '"$1/etc/default/raspi-firmware" && '
        'chroot "$1" env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware'
    )


def system_command(repo: Path, target: str) -> list[str]:
    packages = SYSTEM_PACKAGES + guide_packages(repo)
    return [
        "mmdebstrap", "--mode=root", "--variant=apt", "--arch=arm64", f"--components={COMPONENTS}",
        f"--include={','.join(packages)}",
        f"--essential-hook={_essential_hook()}", f"--customize-hook={_customize_hook()}",
        SUITE, target,
        f"deb {MIRROR} {SUITE} {COMPONENTS}",
        f"deb {MIRROR} {SUITE}-updates {COMPONENTS}",
        f"deb {SECURITY} {SUITE}-security {COMPONENTS}",
    ]  # fmt: skip


def build_system(repo: Path, log: TextIO) -> Path:
    """The root file system as a tarball, cached by the mmdebstrap command that makes it."""
    key = hashlib.sha256(" ".join(system_command(repo, "-")).encode()).hexdigest()[:16]
    tarball = cache_root() / f"system-{key}.tar"
    if tarball.exists():
        return tarball
    ensure_binfmt(log)
    tarball.parent.mkdir(parents=True, exist_ok=True)
    partial = tarball.with_suffix(".partial.tar")
    run(system_command(repo, str(partial)), log)
    partial.rename(tarball)
    return tarball


# --- stage 2: the unit, the first boot, the card ------------------------------------------------------


def wheelhouse(repo: Path, log: TextIO) -> Path:
    """The project's dependencies as aarch64/cp311 wheels at the pinned versions (cached by their inputs)."""
    constraints = (repo / "systemd" / "constraints.txt").read_bytes()
    project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["pi"]]
    wanted += project["optional-dependencies"]["web"]
    wanted = [re.split(r"\s*;", spec)[0] for spec in wanted] + ["setuptools>=77"]  # the markers: this is aarch64
    key = hashlib.sha256(constraints + "\n".join(wanted).encode()).hexdigest()[:16]
    folder = cache_root() / f"wheelhouse-{key}"
    if (folder / "complete").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=folder.parent))
    platforms = [f"manylinux_2_{minor}_aarch64" for minor in range(36, 16, -1)] + ["manylinux2014_aarch64"]
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--dest", str(work),
        "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
        *(f"--platform={platform}" for platform in platforms),
        "-c", str(repo / "systemd" / "constraints.txt"), *wanted,
    ]  # fmt: skip
    try:
        run(command, log)
        (work / "complete").write_text("downloaded\n")
        shutil.rmtree(folder, ignore_errors=True)
        work.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def source_tree(repo: Path, target: Path) -> str:
    """The working tree as it is (committed or not) unpacked in ``target``; its git tree id."""
    stash = subprocess.run(["git", "-C", str(repo), "stash", "create"], capture_output=True, text=True, check=True)
    commit = stash.stdout.strip() or "HEAD"
    archive = subprocess.run(["git", "-C", str(repo), "archive", commit], capture_output=True, check=True).stdout
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    tree = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", f"{commit}^{{tree}}"], capture_output=True, text=True, check=True
    )
    return tree.stdout.strip()


def source_key(repo: Path) -> str:
    """The working tree's git tree id, without unpacking it."""
    stash = subprocess.run(["git", "-C", str(repo), "stash", "create"], capture_output=True, text=True, check=True)
    commit = stash.stdout.strip() or "HEAD"
    tree = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", f"{commit}^{{tree}}"], capture_output=True, text=True, check=True
    )
    return tree.stdout.strip()


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _enable(root: Path, unit: str, target: str = "multi-user.target") -> None:
    wants = root / "etc/systemd/system" / f"{target}.wants"
    wants.mkdir(parents=True, exist_ok=True)
    link = wants / unit
    link.unlink(missing_ok=True)
    link.symlink_to(f"/etc/systemd/system/{unit}")


def install_unit(root: Path, source: Path, wheels: Path, log: TextIO) -> None:
    """The unit and its web service, as ``sudo make install-pi`` installs them on a Pi, inside the new root."""
    inside = root / "tmp" / "monopoly-city"
    shutil.copytree(source, inside / "src")
    shutil.copytree(wheels, inside / "wheels")
    # /proc, /sys and /dev inside the new root while programs run in it, in a mount namespace of their own: the
    # mounts end with the process, whatever happens (a killed build leaves no host /dev inside the cache).
    script = (
        'mount -t proc proc "$0/proc" && mount -t sysfs sysfs "$0/sys" && mount --bind /dev "$0/dev" && '
        'chroot "$0" sh /tmp/monopoly-city/src/systemd/install.sh '
        '--pip-args "--no-index --find-links /tmp/monopoly-city/wheels" && '
        f'chroot "$0" useradd -m -s /bin/bash -G sudo,gpio,i2c {USER}'
    )
    run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(root)], log)
    shutil.rmtree(inside)


def configure(root: Path, source: Path) -> None:
    """The box's own system: its name, its file systems, its first boot, its login user."""
    _write(root / "etc/hostname", f"{HOSTNAME}\n")
    _write(root / "etc/hosts", f"127.0.0.1 localhost\n127.0.1.1 {HOSTNAME}\n::1 localhost ip6-localhost ip6-loopback\n")
    _write(
        root / "etc/fstab",
        # The FAT partition root's alone (monopoly-city.txt holds the Wi-Fi password), and not needed to boot: a
        # card pulled from a computer unejected does not keep the box from starting.
        "LABEL=RASPIROOT / ext4 rw,noatime,errors=remount-ro 0 1\n"
        "LABEL=RASPIFIRM /boot/firmware vfat "
        "rw,noatime,fmask=0177,dmask=0077,nofail 0 2\n",
    )
    # The OLED's bus as Raspberry Pi OS's raspi-config leaves it: /dev/i2c-1 at every boot.
    _write(root / "etc/modules-load.d/monopoly-city.conf", "i2c-dev\n")
    _write(root / f"etc/sudoers.d/010_{USER}-nopasswd", f"{USER} ALL=(ALL) NOPASSWD: ALL\n", 0o440)
    # The first boot: the root grown to the card, the SSH host keys of this box (none are shipped).
    _write(root / "usr/local/sbin/monopoly-city-firstboot", (FILES / "monopoly-city-firstboot").read_text(), 0o755)
    for unit in ("monopoly-city-firstboot.service",):
        _write(root / "etc/systemd/system" / unit, (FILES / unit).read_text())
        _enable(root, unit, "sysinit.target")
    for key in (root / "etc/ssh").glob("ssh_host_*"):
        key.unlink()
    # Keys only: no password logs in, even one set later for maker.
    _write(root / "etc/ssh/sshd_config.d/monopoly-city.conf", "PasswordAuthentication no\nPermitRootLogin no\n")
    # The card's settings file (the box's name, the home Wi-Fi, an SSH key), read at every boot by a copy of
    # unit/boxsetup.py (standard library only) that make uninstall-pi leaves in place.
    _write(root / "usr/local/lib/monopoly-city/boxsetup.py", (source / "unit/boxsetup.py").read_text(), 0o755)
    _write(
        root / "etc/systemd/system/monopoly-city-setup.service",
        (source / "systemd/monopoly-city-setup.service").read_text(),
    )
    _enable(root, "monopoly-city-setup.service")
    # The box's own Wi-Fi where no known network is there, and the settings menu's way to it (unit/boxwifi.py).
    _write(root / "usr/local/lib/monopoly-city/boxwifi.py", (source / "unit/boxwifi.py").read_text(), 0o755)
    for unit in ("monopoly-city-wifi.service", "monopoly-city-wifi-request.path", "monopoly-city-wifi-request.service"):
        _write(root / "etc/systemd/system" / unit, (source / "systemd" / unit).read_text())
    _enable(root, "monopoly-city-wifi.service")
    _enable(root, "monopoly-city-wifi-request.path")
    _write(
        root / "boot/firmware/monopoly-city.txt",
        (source / "systemd/monopoly-city.txt").read_text().replace("\n", "\r\n"),
    )
    # A journal that survives a pulled plug, for the post-mortem of a box that misbehaved.
    (root / "var/log/journal").mkdir(parents=True, exist_ok=True)
    # Its own machine id at the first boot (systemd writes an empty one), and no package lists on the card.
    _write(root / "etc/machine-id", "", 0o444)
    for leftover in (root / "var/lib/apt/lists").glob("*_*"):
        leftover.unlink()
    for leftover in (root / "var/cache/apt").glob("*.bin"):
        leftover.unlink()


def write_card(root: Path, image: Path, log: TextIO) -> None:
    """The two partitions and the MBR (the Pi's boot ROM reads MBR only), without a loop device."""
    firmware, system = image.with_suffix(".firmware"), image.with_suffix(".root")
    root_mib = IMAGE_MIB - FIRMWARE_START_MIB - FIRMWARE_MIB
    run(["mkfs.vfat", "-F", "32", "-n", "RASPIFIRM", "-C", str(firmware), str(FIRMWARE_MIB * 1024)], log)
    boot = root / "boot/firmware"
    run(["mcopy", "-s", "-p", "-m", "-i", str(firmware), *(str(item) for item in sorted(boot.iterdir())), "::"], log)
    for item in boot.iterdir():  # the folder stays, as the partition's mount point
        shutil.rmtree(item) if item.is_dir() else item.unlink()
    run(["mke2fs", "-q", "-t", "ext4", "-L", "RASPIROOT", "-d", str(root), "-F", str(system), f"{root_mib}M"], log)
    with open(image, "wb") as card:
        card.truncate(IMAGE_MIB << 20)
    layout = (
        "label: dos\n"
        f"start={FIRMWARE_START_MIB}MiB, size={FIRMWARE_MIB}MiB, type=c, bootable\n"
        f"start={FIRMWARE_START_MIB + FIRMWARE_MIB}MiB, type=83\n"
    )
    run(["sfdisk", "--quiet", "--no-reread", "--no-tell-kernel", str(image)], log, input=layout.encode())
    for part, start in ((firmware, FIRMWARE_START_MIB), (system, FIRMWARE_START_MIB + FIRMWARE_MIB)):
        run(["dd", f"if={part}", f"of={image}", "bs=1M", f"seek={start}", "conv=notrunc,sparse", "status=none"], log)
        part.unlink()


@dataclass(frozen=True)
class Card:
    """A built card image, cached by everything that went into it."""

    path: Path
    built: bool = False  # made by this call, not found in the cache

    @property
    def firmware_offset(self) -> int:
        """Where the FAT partition starts, in bytes (mtools' ``-i IMAGE@@OFFSET``)."""
        return FIRMWARE_START_MIB << 20


def stage_key(repo: Path, system: Path, wheels: Path) -> str:
    """What the card is made of: the system tarball, the wheels, the working tree and the code of stage 2."""
    recipe = hashlib.sha256()
    for part in (install_unit, configure, write_card):
        recipe.update(inspect.getsource(part).encode())
    for folder in (FILES,):
        for path in sorted(folder.iterdir()):
            recipe.update(path.read_bytes())
    recipe.update(" ".join([system.name, wheels.name, source_key(repo), str(IMAGE_MIB), USER, HOSTNAME]).encode())
    return recipe.hexdigest()[:16]


def build(repo: Path, log: TextIO) -> Card:
    """The card image (``card-KEY.img`` in the cache), built or found."""
    if os.geteuid() != 0:
        raise BuildError("building the image needs root (mmdebstrap, chroot, file owners): sudo make image")
    system = build_system(repo, log)
    wheels = wheelhouse(repo, log)
    card = Card(cache_root() / f"card-{stage_key(repo, system, wheels)}.img")
    if card.path.exists():
        return card
    ensure_binfmt(log)
    work = Path(tempfile.mkdtemp(prefix="card.", dir=cache_root()))
    try:
        root = work / "root"
        root.mkdir()
        run(["tar", "-x", "-p", "--numeric-owner", "-C", str(root), "-f", str(system)], log)
        source = work / "source"
        source_tree(repo, source)
        install_unit(root, source, wheels, log)
        configure(root, source)
        partial = work / "card.img"
        write_card(root, partial, log)
        partial.rename(card.path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Card(card.path, built=True)


def compress(card: Card, out: Path, log: TextIO) -> Path:
    """``out`` as xz (what Raspberry Pi Imager reads) and its sha256 beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    try:
        with open(partial, "wb") as target:
            run(["xz", "-T0", "-6", "-c", str(card.path)], log, stdout=target)  # stderr in the log
        partial.rename(out)
    finally:
        partial.unlink(missing_ok=True)
    digest = hashlib.sha256()
    with open(out, "rb") as image:
        while chunk := image.read(1 << 20):
            digest.update(chunk)
    out.with_name(out.name + ".sha256").write_text(f"{digest.hexdigest()}  {out.name}\n", encoding="utf-8")
    return out


def version(repo: Path) -> str:
    match = re.search(r'__version__ = "([^"]+)"', (repo / "unit/__init__.py").read_text(encoding="utf-8"))
    return match.group(1) if match else "0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make image", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", metavar="FILE", help="the compressed image (default: build/monopoly-city-unit-VERSION-arm64.img.xz)"
    )
    parser.add_argument("--log", metavar="FILE", help="the build log (default: build/image.log)")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else REPO / "build" / f"monopoly-city-unit-{version(REPO)}-arm64.img.xz"
    missing = [
        tool for tool in ("mmdebstrap", "mkfs.vfat", "mcopy", "mke2fs", "sfdisk", "xz") if shutil.which(tool) is None
    ]
    if missing:
        print(f"make image: missing {', '.join(missing)}: sudo apt install mmdebstrap qemu-user-static binfmt-support "
              "arch-test dosfstools mtools e2fsprogs fdisk xz-utils", file=sys.stderr)  # fmt: skip
        return 2
    log_path = Path(args.log) if args.log else REPO / "build" / "image.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(log_path, "a", encoding="utf-8") as log:
        print(f"make image: building (about 15 minutes the first time); the log: {log_path}", flush=True)
        try:
            card = build(REPO, log)
            print(f"make image: card image {card.path} ({card.path.stat().st_size >> 20} MiB); compressing", flush=True)
            compress(card, out, log)
        except (BuildError, OSError, subprocess.CalledProcessError) as error:
            print(f"make image: {error} (see {log_path})", file=sys.stderr)
            return 1
    minutes, seconds = divmod(int(time.monotonic() - started), 60)
    print(f"make image: {out} ({out.stat().st_size / 1e6:.0f} MB) in {minutes} min {seconds:02d} s")
    print("make image: write it with Raspberry Pi Imager (« Use custom »); then see docs/raspberry-pi.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
