"""How fast `simulate` runs a long game: a 10-hour untimed game with 1000 presses.

Prints the figures; nothing asserts on them (speed is measured here, never in tests).

    python benchmarks/simulate_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time

from unit.app import config as configuration
from unit.app import scenario as scenarios
from unit.app.simulate import simulate
from unit.app.trace import TraceWriter

HOURS = 10
PRESSES = 1000


def ten_hour_scenario(seed: int = 1) -> dict:
    """Power on, then 1000 presses of auction, build and the odd cancelling hold."""
    rng = random.Random(seed)
    events = [{"at": 0, "press": "power"}]
    gap = HOURS * 3600 / (PRESSES + 1)
    for i in range(1, PRESSES):
        at = round(i * gap, 3)
        if i % 10 == 0:
            events.append({"at": at, "hold": "auction", "seconds": 2.5})
        else:
            events.append({"at": at, "press": rng.choice(["auction", "build", "auction"])})
    return {"until": HOURS * 3600, "seed": seed, "config": {"game": {"minutes": None}}, "events": events}


def run_once(data: dict) -> tuple[float, int]:
    scenario = scenarios.parse(data, "benchmark")
    config = configuration.load((scenario.config, "benchmark"))
    out = io.StringIO()
    start = time.perf_counter()
    simulate(config, scenario.steps(config), scenario.until, scenario.seed, TraceWriter(out, config.language).write)
    elapsed = time.perf_counter() - start
    return elapsed, out.getvalue().count("\n")


def measure(repeat: int = 5) -> dict:
    data = ten_hour_scenario()
    runs = [run_once(data) for _ in range(repeat)]
    seconds = [s for s, _ in runs]
    median = statistics.median(seconds)
    return {
        "hours": HOURS,
        "presses": len(data["events"]),
        "lines": runs[0][1],
        "repeat": repeat,
        "best_s": min(seconds),
        "median_s": median,
        "speed": HOURS * 3600 / median,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    f = measure(parser.parse_args().repeat)
    print(f"simulate: {f['hours']} h untimed game, {f['presses']} presses, {f['lines']} trace lines")
    print(f"  best {f['best_s'] * 1000:.1f} ms, median {f['median_s'] * 1000:.1f} ms over {f['repeat']} runs")
    print(f"  {f['speed']:,.0f}x real time (median)")


if __name__ == "__main__":
    main()
