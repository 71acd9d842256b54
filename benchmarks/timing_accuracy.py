"""How late the real-time loop is: scripted auctions on the headless backend and on gpio mock pins.

Each run starts an auction shortened by configuration (`auction.seconds: 6`) with a scripted press and
measures how long after its exact time the warning (5 s left) and the end (LED off) reached the backend.

    python benchmarks/timing_accuracy.py [--runs N] [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import statistics

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.app.scenario import Step
from unit.backends.gpio import Gpio, pin_factory
from unit.backends.headless import Headless
from unit.core import LedChanged, Pressed, Released, StateChanged, Unit

WARNING = 5.0


def recording(backend_class):
    class Recording(backend_class):
        """Notes when the LED mode reaches the backend, on the loop's clock."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.led_changes: list[tuple[float, LedChanged]] = []

        def set_led(self, led, at):
            self.led_changes.append((self.clock(), led))
            super().set_led(led, at)

    return Recording


def one_auction(backend: str, seconds: float) -> tuple[float, float]:
    config = configuration.load(({"auction": {"seconds": seconds, "warning_seconds": WARNING}}, "benchmark"))
    if backend == "headless":
        recorder = recording(Headless)(config.language)
    else:
        recorder = recording(Gpio)(config, pin_factory("mock"))
    script = [Step(0.0, Pressed("power")), Step(0.05, Released("power"))]
    script += [Step(0.2, Pressed("auction")), Step(0.3, Released("auction"))]
    runtime = Runtime(Unit(config, random.Random(0)), recorder, script=script, until=0.2 + seconds + 0.3)
    started = {}
    apply = runtime.apply

    def noting_apply(at, outputs, **options):  # options: the runtime's own (led_from: the deadline it was due at)
        if StateChanged("countdown") in outputs:
            started["at"] = at  # the press time the core counts from
        apply(at, outputs, **options)

    runtime.apply = noting_apply
    runtime.run()
    start = started["at"]
    (warned, _), (ended, _) = recorder.led_changes[1], recorder.led_changes[2]
    return warned - (start + seconds - WARNING), ended - (start + seconds)


def measure(runs: int = 5, seconds: float = 6.0) -> dict:
    out = {}
    for backend in ("headless", "gpio-mock"):
        results = [one_auction(backend, seconds) for _ in range(runs)]
        out[backend] = {
            label: {"median_ms": statistics.median(v) * 1000, "max_ms": max(v) * 1000}
            for label, v in (("warning", [w for w, _ in results]), ("end", [e for _, e in results]))
        }
    out["runs"], out["seconds"] = runs, seconds
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    figures = measure(args.runs, args.seconds)
    for backend in ("headless", "gpio-mock"):
        for label in ("warning", "end"):
            f = figures[backend][label]
            print(
                f"{backend:9s} {label:7s} lateness over {args.runs} runs of {args.seconds:g} s: "
                f"median {f['median_ms']:.3f} ms, max {f['max_ms']:.3f} ms"
            )


if __name__ == "__main__":
    main()
