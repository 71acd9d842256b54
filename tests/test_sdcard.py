"""The SD card's recipe (sdcard/build.py): what ``make image`` asks of Debian, and the card's layout.

The whole build runs in ``make system-test`` (it needs root and about 15 minutes); here, the parts that a
change could break quietly: the packages and sources, and the partition table and file systems written
from a small folder, read back with the same tools a Pi's kernel trusts (blkid, fsck).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sdcard import build

REPO = Path(__file__).resolve().parent.parent


def test_the_card_asks_debian_for_the_pi_s_firmware_without_touching_the_machine_s_sources() -> None:
    command = build.system_command(REPO, "out.tar")
    assert "--components=main non-free-firmware" in command
    assert f"deb {build.MIRROR} bookworm main non-free-firmware" in command
    packages = next(part for part in command if part.startswith("--include=")).removeprefix("--include=").split(",")
    for needed in ("linux-image-arm64", "raspi-firmware", "firmware-brcm80211", "network-manager", "openssh-server"):
        assert needed in packages
    # What step 1 of docs/raspberry-pi.md installs is on the card, minus what Debian lacks.
    assert {"git", "make", "python3-venv", "python3-gpiozero", "polkitd"} <= set(packages)
    assert "python3-lgpio" not in packages


def test_the_initramfs_is_small_and_the_oled_s_bus_is_on() -> None:
    hook = build._essential_hook()
    assert "MODULES=list" in hook
    words = hook.split()
    for module in ("mmc_block", "bcm2835", "sdhci_iproc", "fixed", "gpio-regulator", "virtio_blk", "ext4"):
        assert module in words
    assert "dtparam=i2c_arm=on" in hook
    assert "ROOTPART=LABEL=RASPIROOT" in build._customize_hook()


TOOLS = ("mkfs.vfat", "mcopy", "mke2fs", "sfdisk", "blkid", "fsck.vfat")


@pytest.mark.slow
@pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in TOOLS),
    reason="needs dosfstools, mtools, e2fsprogs and fdisk (.ci/run installs them)",
)
def test_the_card_has_a_firmware_partition_and_a_root_as_debian_s_pi_images(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("arm_64bit=1\n")
    (root / "boot/firmware/monopoly-city.txt").write_text("name = monopoly-city\r\n")
    (root / "etc").mkdir()
    (root / "etc/hostname").write_text("monopoly-city\n")
    card = tmp_path / "card.img"
    with open(tmp_path / "log", "w") as log:
        build.write_card(root, card, log)
    assert card.stat().st_size == build.IMAGE_MIB << 20
    table = subprocess.run(["sfdisk", "--dump", str(card)], capture_output=True, text=True, check=True).stdout
    assert "label: dos" in table
    starts = [int(part.split("start=")[1].split(",")[0]) for part in table.splitlines() if "start=" in part]
    assert starts == [build.FIRMWARE_START_MIB * 2048, (build.FIRMWARE_START_MIB + build.FIRMWARE_MIB) * 2048]
    assert "type=c, bootable" in table
    fat = f"{card}@@{build.FIRMWARE_START_MIB << 20}"
    listing = subprocess.run(["mdir", "-b", "-i", fat, "::"], capture_output=True, text=True, check=True).stdout
    assert {"::/config.txt", "::/monopoly-city.txt"} <= set(listing.split())
    label = subprocess.run(["mlabel", "-s", "-i", fat], capture_output=True, text=True, check=True).stdout
    assert "RASPIFIRM" in label
    # The root's label and its files, at the second partition's offset.
    offset = (build.FIRMWARE_START_MIB + build.FIRMWARE_MIB) << 20
    probe = subprocess.run(
        ["blkid", "-p", "-O", str(offset), "-o", "value", "-s", "LABEL", str(card)], capture_output=True, text=True
    )
    assert probe.stdout.strip() == "RASPIROOT"
    # The firmware's files left the root: its folder is only the partition's mount point.
    assert list((root / "boot/firmware").iterdir()) == []
