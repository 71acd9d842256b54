"""Button to light and screen: from the auction button's pin edge to the LED pin change and to the new
frame on the display, on gpiozero's mock pins, over many presses.

    python benchmarks/latency.py [--presses N]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MockUnit, PinWatch, percentile  # noqa: E402
from luma.core.device import dummy  # noqa: E402


class FrameWatch(dummy):
    """luma's dummy device, noting when each frame arrives."""

    frame = threading.Event()
    at = 0.0

    def display(self, image):
        super().display(image)
        FrameWatch.at = time.perf_counter()
        FrameWatch.frame.set()


def measure(presses: int = 1000) -> dict:
    watch = PinWatch()
    unit = MockUnit(watch=watch, open_display=lambda config: FrameWatch(width=128, height=64, mode="1"))
    unit.press("power")
    unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    auction, power = unit.pin("auction"), unit.pin("power")
    to_led, to_frame = [], []
    for _ in range(presses):
        watch.led_changed.clear()
        FrameWatch.frame.clear()
        pressed = time.perf_counter()
        auction.drive_low()
        watch.led_changed.wait(2)
        to_led.append(watch.led_at - pressed)
        FrameWatch.frame.wait(2)
        to_frame.append(FrameWatch.at - pressed)
        auction.drive_high()
        power.drive_low()  # off, then on again: ready for the next auction
        power.drive_high()
        unit.wait_for(lambda: unit.runtime.unit.state == "off")
        power.drive_low()
        power.drive_high()
        unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    unit.close()
    ms = lambda values, p: percentile(values, p) * 1000  # noqa: E731
    return {
        "presses": presses,
        "led": {"p50_ms": ms(to_led, 50), "p99_ms": ms(to_led, 99)},
        "frame": {"p50_ms": ms(to_frame, 50), "p99_ms": ms(to_frame, 99)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=1000)
    figures = measure(parser.parse_args().presses)
    for what in ("led", "frame"):
        f = figures[what]
        print(
            f"pin edge to {what:5s}: p50 {f['p50_ms']:.3f} ms, p99 {f['p99_ms']:.3f} ms "
            f"over {figures['presses']} presses"
        )


if __name__ == "__main__":
    main()
