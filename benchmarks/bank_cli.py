"""The command line's bank, measured: one ``monopoly-city pay GAME Bruno Alice 10k``, a whole process start.

The example City game (docs/examples/city-game.yaml, 3 players, on the example edition) is copied to a
temporary folder twice: as it is (a history of 0 entries) and with a history of 2,000 entries (a long
evening: payments back and forth, each applied by :func:`unit.calculator.bank.apply` as the command would).
Each run restores the file, then times the command as a person types it (wall and CPU time), from the
process start to its exit: Python's start, the imports, reading and checking the game file and its
edition, the bank's action, writing the file back atomically, printing the line. The game file's size
with 2,000 entries is stated.

    python benchmarks/bank_cli.py [--runs N] [--entries N]

``measure()`` returns the figures as a dict (for ``make bench``); nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLES = ROOT / "docs" / "examples"
COMMAND = [sys.executable, "-m", "unit.cli", "pay"]


def long_evening(game_file: Path, entries: int) -> None:
    """Give ``game_file`` a history of ``entries`` payments, written as the bank writes it."""
    from unit.calculator import bank, position

    game = position.load(str(game_file))
    for i in range(entries):
        payer, payee = ("Bruno", "Alice") if i % 2 == 0 else ("Alice", "Bruno")
        game, _ = bank.apply(game, bank.Pay(payer, payee, 10_000, "carte chance" if i % 7 == 0 else None))
    game_file.write_text(position.dumps(game, "city-example.yaml"), encoding="utf-8")


def time_pay(game_file: Path, runs: int) -> tuple[list[float], list[float]]:
    """Wall times and CPU times (s) of ``pay GAME Bruno Alice 10k``, the file restored before each run. The CPU
    time (user + system, the child's) is the steadier figure on a shared machine."""
    original = game_file.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    walls, cpus = [], []
    for _ in range(runs):
        game_file.write_bytes(original)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([*COMMAND, str(game_file), "Bruno", "Alice", "10k"], check=True, env=env, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    game_file.write_bytes(original)
    return walls, cpus


def measure(runs: int = 9, entries: int = 2000) -> dict:
    out: dict = {"runs": runs, "entries": entries}
    with tempfile.TemporaryDirectory(prefix="bank-cli-") as folder:
        for label, count in (("empty", 0), ("long", entries)):
            where = Path(folder) / label
            where.mkdir()
            for name in ("city-game.yaml", "city-example.yaml"):
                shutil.copy(EXAMPLES / name, where / name)
            game_file = where / "city-game.yaml"
            if count:
                long_evening(game_file, count)
            walls, cpus = time_pay(game_file, runs)
            out[label] = {
                "median_ms": statistics.median(walls) * 1000,
                "max_ms": max(walls) * 1000,
                "cpu_median_ms": statistics.median(cpus) * 1000,
                "bytes": game_file.stat().st_size,
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--entries", type=int, default=2000)
    args = parser.parse_args()
    f = measure(args.runs, args.entries)
    for label, what in (("empty", "history of 0 entries"), ("long", f"history of {f['entries']} entries")):
        g = f[label]
        print(
            f"pay, {what}: median {g['median_ms']:.0f} ms, max {g['max_ms']:.0f} ms, CPU median "
            f"{g['cpu_median_ms']:.0f} ms ({f['runs']} runs); game file {g['bytes'] / 1024:.1f} KiB"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
