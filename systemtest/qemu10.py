"""QEMU 10 from bookworm-backports, unpacked beside the host's QEMU, not installed: the one with a Pi's I²C.

Debian 12's QEMU (7.2) has no I²C controller on ``-M raspi3b``, so the box's OLED cannot be shown there; QEMU
10 has the BCM2835's three, and ``-device ssd0303,bus=i2c-bus.1,address=0x3c`` answers at the OLED's address
on the guest's ``/dev/i2c-1`` (its ``-trace i2c_send -trace i2c_event`` lines are read by systemtest/ssd1306.py).

The packages are fetched with an ``apt-get`` of their own (its own sources list, lists and cache, in the cache
folder): the machine's apt configuration is neither read for sources nor changed. They are unpacked with
``dpkg-deb -x`` into ``~/.cache/monopoly-city/system-test/qemu10-VERSION/``, which a ``complete`` file marks
as whole. The unpacked QEMU needs ``QEMU_MODULE_DIR`` (else it loads the installed QEMU's modules and aborts:
"Only modules from the same build can be loaded") and ``-L`` for its firmware; hence the four module packages
beside the three it needs: every module name the installed QEMU has must exist in its own folder.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from sdcard.build import MIRROR, SUITE, BuildError, run
from systemtest.image import cache_root

BACKPORTS = f"{SUITE}-backports"
SOURCE = f"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {MIRROR} {BACKPORTS} main\n"
PACKAGES = [
    "qemu-system-arm",
    "qemu-system-common",
    "qemu-system-data",
    "qemu-system-gui",
    "qemu-system-modules-opengl",
    "qemu-system-modules-spice",
    "qemu-block-extra",
]
#: The major version this module unpacks (the folder's and the class's name say it).
MAJOR = "10"


@dataclass(frozen=True)
class Qemu10:
    """An unpacked QEMU 10: run ``binary`` with ``-L data`` and ``env`` added to the environment."""

    folder: Path
    version: str  # the first line of ``--version``

    @property
    def binary(self) -> Path:
        return self.folder / "usr" / "bin" / "qemu-system-aarch64"

    @property
    def data(self) -> Path:
        return self.folder / "usr" / "share" / "qemu"

    @property
    def env(self) -> dict[str, str]:
        """What to add to QEMU's environment: its own modules (``usr/lib/<triplet>/qemu``), not the host's."""
        return {"QEMU_MODULE_DIR": str(_module_dir(self.folder))}


def fetch(log: TextIO) -> Qemu10:
    """QEMU 10 unpacked in the cache (downloaded the first time); the steps' output goes to ``log``."""
    root = cache_root()
    for folder in sorted(root.glob("qemu10-*"), reverse=True):
        if (folder / "complete").exists():
            return Qemu10(folder, _version(folder, log))
    apt = root / "qemu10-apt"
    version = _candidate(apt, log)
    folder = root / f"qemu10-{version.split(':')[-1]}"
    shutil.rmtree(folder, ignore_errors=True)  # a download or unpacking cut short
    debs = folder / "debs"
    debs.mkdir(parents=True)
    _apt_get(apt, ["download", *[f"{name}={version}" for name in PACKAGES]], log, cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        run(["dpkg-deb", "-x", str(deb), str(folder)], log)
    shutil.rmtree(debs)
    qemu = Qemu10(folder, _version(folder, log))
    (folder / "complete").write_text(f"{version}\n", encoding="utf-8")
    return qemu


def _apt_options(apt: Path) -> list[str]:
    """apt's folders and sources, all in ``apt``: only bookworm-backports, no list of the machine's read or kept."""
    return [
        "-o", f"Dir::Etc::SourceList={apt / 'sources.list'}", "-o", "Dir::Etc::SourceParts=-",
        "-o", f"Dir::State::Lists={apt / 'lists'}", "-o", f"Dir::Cache={apt / 'cache'}",
        "-o", "APT::Get::List-Cleanup=0", "-o", "Acquire::Languages=none",
        # The cache is root's (mode 700): apt's download sandbox user could not write there.
        "-o", "APT::Sandbox::User=root",
    ]  # fmt: skip


def _apt_get(apt: Path, arguments: list[str], log: TextIO, cwd: Path | None = None) -> None:
    """``apt-get`` with the folder's own configuration; run in ``cwd`` (``apt-get download`` saves there)."""
    command = ["apt-get", "-q", *_apt_options(apt), *arguments]
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    result = subprocess.run(command, stdout=log, stderr=log, cwd=cwd)
    if result.returncode != 0:
        raise BuildError(f"step failed ({result.returncode}): {' '.join(command)[:300]}")


def _candidate(apt: Path, log: TextIO) -> str:
    """The version of qemu-system-arm in bookworm-backports, after an ``apt-get update`` of that suite alone."""
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(SOURCE, encoding="utf-8")
    _apt_get(apt, ["update"], log)
    command = ["apt-cache", *_apt_options(apt), "show", "--no-all-versions", f"{PACKAGES[0]}/{BACKPORTS}"]
    result = subprocess.run(command, capture_output=True, text=True)
    versions = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("Version: ")]
    if result.returncode != 0 or not versions:
        raise BuildError(f"step failed ({result.returncode}): {' '.join(command)}: {result.stderr.strip()[:300]}")
    if not versions[0].split(":")[-1].startswith(f"{MAJOR}."):
        raise BuildError(f"{BACKPORTS} has {PACKAGES[0]} {versions[0]}, not QEMU {MAJOR}: systemtest/qemu10.py")
    return versions[0]


def _module_dir(folder: Path) -> Path:
    found = sorted(folder.glob("usr/lib/*/qemu"))
    if not found:
        raise BuildError(f"{folder} has no usr/lib/*/qemu (QEMU's modules)")
    return found[0]


def _version(folder: Path, log: TextIO) -> str:
    """The unpacked QEMU's ``--version`` (first line): it runs on this machine with the host's libraries."""
    binary = folder / "usr" / "bin" / "qemu-system-aarch64"
    env = {"QEMU_MODULE_DIR": str(_module_dir(folder)), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([str(binary), "--version"], capture_output=True, text=True, env=env)
    if result.returncode != 0 or not result.stdout.startswith(f"QEMU emulator version {MAJOR}."):
        log.write(result.stdout + result.stderr)
        raise BuildError(f"step failed ({result.returncode}): {binary} --version: {result.stderr.strip()[:300]}")
    return result.stdout.splitlines()[0]


if __name__ == "__main__":  # fetch (or find) it alone: python3 -m systemtest.qemu10
    qemu = fetch(sys.stdout)
    print(qemu.version)
    print(f"QEMU_MODULE_DIR={qemu.env['QEMU_MODULE_DIR']} {qemu.binary} -L {qemu.data}")
