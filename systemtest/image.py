"""The card the system test boots: the very image ``make image`` makes (sdcard/build.py), not a stand-in.

Beside it, what only the test needs, cached in ``~/.cache/monopoly-city/system-test``: an SSH key, written
into each run's copy of the card through the card's own settings file (``monopoly-city.txt``, as a maker
would), and QEMU's ``virt`` device tree made to look like a Pi to gpiozero. Under ``-M raspi3b`` the test
boots the card's own kernel, initramfs and Pi device tree, read from its firmware partition; under
``-M virt`` the same kernel and initramfs with QEMU's device tree, whose PL061 GPIO chip has inputs that
qtest can press (QEMU's BCM2835 GPIO model has none).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from sdcard import build as sdcard
from sdcard.build import MIRROR, SUITE, USER, ensure_binfmt, run  # noqa: F401 (armhf.py and run.py use them)

#: QEMU's virt machine: the DTB is dumped with exactly these options, so they are part of it.
MACHINE = ["-machine", "virt,acpi=off", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024"]
#: gpiozero reads the board from /proc/device-tree/system/linux,revision: a Compute Module 3 (BCM2837, 1 GB).
#: Not a Pi 3 or 4: on their 40-pin header GPIO2 and GPIO3 have the board's I2C pull-ups, which gpiozero
#: knows and which would refuse the pull-down of the test's power key on QEMU's line 3 (buttons.pressed:
#: high); a Compute Module's pins have none.
PI_REVISION = "a020a0"
#: A Raspberry Pi 3 Model B (1 GB, Sony UK): what the Pi's firmware would write in ``/system/linux,revision``.
PI_3B_REVISION = "a02082"
#: The card the test writes: a power of two (QEMU's SD card model takes only those), twice the image, so
#: that the first boot has a root to grow.
CARD_BYTES = 4 << 30


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "monopoly-city" / "system-test"


@dataclass(frozen=True)
class Image:
    """The card image, the test's SSH key and the virt machine's device tree."""

    card: Path
    folder: Path

    @property
    def key(self) -> Path:
        return self.folder / "id_ed25519"

    @property
    def virt_dtb(self) -> Path:
        return self.folder / f"virt-{hashlib.sha256(' '.join([*MACHINE, PI_REVISION]).encode()).hexdigest()[:12]}.dtb"


def build(repo: Path, log: TextIO) -> tuple[Image, bool]:
    """The card (built by sdcard.build, or found in its cache), the key and the DTB; whether the card was cached."""
    card = sdcard.build(repo, log)
    folder = cache_root()
    folder.mkdir(parents=True, exist_ok=True)
    image = Image(card.path, folder)
    if not image.key.exists():
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "system-test", "-f", str(image.key)], log)
    if not image.virt_dtb.exists():
        _write_dtb(image.virt_dtb, log)
    return image, not card.built


#: The home Wi-Fi written in the card's settings file (a name with a space and an accent, as families name theirs):
#: nowhere on air until the system test's « home » radio plays it (systemtest/run.py, back at home).
HOME_WIFI = ("Maison Lefèvre", "tarte-aux-pommes-42")


def settings_file(image: Image, name: str) -> str:
    """The card's ``monopoly-city.txt`` as a maker fills it in on a computer (Notepad's line ends)."""
    key = image.key.with_suffix(".pub").read_text(encoding="utf-8").strip()
    lines = [
        "# written by make system-test",
        f"name = {name}",
        f"wifi_name = {HOME_WIFI[0]}",
        f"wifi_password = {HOME_WIFI[1]}",
        "wifi_country = FR",
        f"ssh_key = {key}",
        "",
    ]
    return "\r\n".join(lines)


def write_card(image: Image, disk: Path, boot: Path, name: str, log: TextIO) -> None:
    """A fresh copy of the card, on a 4 GB card, its settings file filled in; its firmware partition's
    kernel, initramfs, Pi device tree and command line copied into ``boot`` for QEMU (which has no Pi firmware)."""
    run(["cp", "--sparse=always", str(image.card), str(disk)], log)
    os.truncate(disk, CARD_BYTES)
    fat = f"{disk}@@{sdcard.FIRMWARE_START_MIB << 20}"
    settings = boot.parent / "monopoly-city.txt"
    settings.write_bytes(settings_file(image, name).encode())
    run(["mcopy", "-o", "-i", fat, str(settings), "::monopoly-city.txt"], log)
    boot.mkdir(parents=True, exist_ok=True)
    listing = subprocess.run(["mdir", "-b", "-i", fat, "::"], capture_output=True, text=True, check=True).stdout
    wanted = [line for line in listing.split() if Path(line).name.startswith(("vmlinuz-", "initrd.img-"))]
    wanted += ["::/bcm2837-rpi-3-b.dtb", "::/cmdline.txt", "::/config.txt"]
    for item in wanted:
        run(["mcopy", "-o", "-i", fat, item if item.startswith("::") else f"::/{Path(item).name}", str(boot)], log)
    # What the Pi's firmware adds to the device tree it hands the kernel, and QEMU (which has no firmware) does
    # not: the board's revision, where gpiozero and lgpio read which Pi this is.
    dtb = boot / "bcm2837-rpi-3-b.dtb"
    run(["fdtput", "-c", str(dtb), "/system"], log)
    run(["fdtput", "-t", "x", str(dtb), "/system", "linux,revision", PI_3B_REVISION], log)


def _write_dtb(target: Path, log: TextIO) -> None:
    """QEMU's own device tree, made to look like a Pi to gpiozero, and its power key given to the unit.

    QEMU wires line 3 of its PL061 GPIO chip to a ``gpio-keys`` power key: the node is removed so the kernel
    leaves the line to the unit. gpiozero reads the board's revision from ``/system/linux,revision``, as on a
    Raspberry Pi.
    """
    dumped = target.with_suffix(".partial")
    run(["qemu-system-aarch64", *MACHINE, "-machine", f"dumpdtb={dumped}", "-display", "none", "-nic", "none"], log)
    nodes = subprocess.run(["fdtget", "-l", str(dumped), "/"], capture_output=True, text=True, check=True).stdout
    for node in nodes.split():
        if node.startswith("gpio-keys"):
            run(["fdtput", "-r", str(dumped), f"/{node}"], log)
    run(["fdtput", "-c", str(dumped), "/system"], log)
    run(["fdtput", "-t", "x", str(dumped), "/system", "linux,revision", PI_REVISION], log)
    dumped.rename(target)


if __name__ == "__main__":  # build (or find) the card and the test's parts alone: python3 -m systemtest.image
    built, _ = build(Path(__file__).resolve().parent.parent, sys.stdout)
    print(built.card)
