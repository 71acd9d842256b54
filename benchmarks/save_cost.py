"""What saving the game costs the SD card: writes per hour at the runtime's cadence, and their size.

``python benchmarks/save_cost.py [--saves N] [--dir DIR]`` saves N games into DIR (a folder on the disk
to measure: on a Pi, the state folder's SD card) the way the runtime does, then prints:

- the cadence (``SAVE_EVERY``) and so the saves per hour of a running game, and what a restart with
  an untrusted clock can lose (at most one cadence);
- the bytes each save makes the process write (``/proc/self/io`` write_bytes: the data pages the
  kernel sends to the device for this process);
- the device's own count of sectors written during the run (``/sys/block/DEV/stat``: includes the
  file system journal and the folder's metadata, and anything else writing to that disk meanwhile,
  so an upper bound on a shared machine);
- how long a save takes (mean and max), since it runs on the unit's loop, away from core deadlines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from unit.app.persist import GameStore  # noqa: E402
from unit.app.runtime import SAVE_EVERY  # noqa: E402


def process_write_bytes() -> int | None:
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def device_of(folder: Path) -> str | None:
    """The block device (``vda``, ``mmcblk0``) holding ``folder``, from /sys."""
    dev = os.stat(folder).st_dev
    link = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    try:
        real = link.resolve()
    except OSError:
        return None
    # A partition's folder has a `partition` file; its parent is the disk.
    return (real.parent.name if (real / "partition").exists() else real.name) if real.exists() else None


def sectors_written(device: str | None) -> int | None:
    if device is None:
        return None
    try:
        return int(Path(f"/sys/block/{device}/stat").read_text().split()[6])
    except (OSError, IndexError, ValueError):
        return None


def measure(folder: Path, saves: int) -> dict:
    store = GameStore(folder)
    device = device_of(folder)
    store.save(0.0, 60, "ready")  # the folder exists, the first write is not counted
    before_bytes, before_sectors = process_write_bytes(), sectors_written(device)
    durations = []
    for n in range(saves):
        started = time.perf_counter()
        store.save(5.0 * n, 60, "ready")
        durations.append(time.perf_counter() - started)
    after_bytes, after_sectors = process_write_bytes(), sectors_written(device)
    per_hour = 3600 / SAVE_EVERY
    result = {
        "save_every_s": SAVE_EVERY,
        "saves_per_hour": round(per_hour),
        "file_bytes": store.path.stat().st_size,
        "save_ms_mean": round(statistics.mean(durations) * 1000, 2),
        "save_ms_max": round(max(durations) * 1000, 2),
        "device": device,
    }
    if before_bytes is not None and after_bytes is not None:
        per_save = (after_bytes - before_bytes) / saves
        result["process_bytes_per_save"] = round(per_save)
        result["process_kib_per_hour"] = round(per_save * per_hour / 1024)
    if before_sectors is not None and after_sectors is not None:
        per_save = (after_sectors - before_sectors) * 512 / saves
        result["device_bytes_per_save_upper_bound"] = round(per_save)
        result["device_mib_per_hour_upper_bound"] = round(per_save * per_hour / 2**20, 1)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--dir", type=Path, help="a folder on the disk to measure (default: a temporary one)")
    args = parser.parse_args()
    if args.dir:
        args.dir.mkdir(parents=True, exist_ok=True)
        result = measure(args.dir, args.saves)
    else:
        with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parent) as folder:
            result = measure(Path(folder), args.saves)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
