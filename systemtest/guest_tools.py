"""Small programs the system test runs inside the guest, as root (copied to /usr/local/lib/system-test).

``watch OUT NAME=LINE...``: samples /sys/kernel/debug/gpio every 2 ms and writes each change of the named
lines (``time name hi|lo``, on the guest's monotonic clock) to OUT: the LED and buzzer lines as the
kernel sees them, driven by lgpio.

``cut-during-save DIR``: waits for the unit's atomic write of ``game.json`` to be under way (its
temporary ``.game-*.tmp`` exists) and resets the machine at once, without syncing: a power cut in the
middle of a save (QEMU runs with ``-no-reboot``, so it exits).
"""

from __future__ import annotations

import os
import re
import sys
import time

LINE = re.compile(r"gpio-(\d+)\s+\([^|]*\|[^)]*\)\s+(in|out)\s+(hi|lo)")


def watch(out_path: str, names: list[str]) -> None:
    wanted = {int(line): name for name, line in (item.split("=") for item in names)}
    last: dict[int, str] = {}
    with open(out_path, "w", buffering=1) as out:
        while True:
            with open("/sys/kernel/debug/gpio") as file:
                text = file.read()
            now = time.monotonic()
            base_match = re.search(r"GPIOs (\d+)-", text)
            base = int(base_match.group(1)) if base_match else 0
            for match in LINE.finditer(text):
                offset, level = int(match.group(1)) - base, match.group(3)
                if offset in wanted and last.get(offset) != level:
                    last[offset] = level
                    out.write(f"{now:.4f} {wanted[offset]} {level}\n")
            time.sleep(0.002)


def cut_during_save(folder: str) -> None:
    while True:
        if any(name.startswith(".game-") and name.endswith(".tmp") for name in os.listdir(folder)):
            with open("/proc/sysrq-trigger", "w") as trigger:
                trigger.write("b")  # reboot now: no sync, no unmount


if __name__ == "__main__":
    if sys.argv[1] == "watch":
        watch(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "cut-during-save":
        cut_during_save(sys.argv[2])
