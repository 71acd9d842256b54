"""What the benchmarks share: a gpio unit on gpiozero's mock pins, driven like the real one."""

from __future__ import annotations

import resource
import threading
import time

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.core import Unit


class PinWatch:
    """Stands in for a trace: the gpio backend reports each LED and buzzer pin change to it."""

    def __init__(self):
        self.changes: list[tuple[float, str, float]] = []
        self.led_changed = threading.Event()
        self.led_at = 0.0

    def write_record(self, record: dict) -> None:
        now = time.perf_counter()
        self.changes.append((now, record["pin"], record["value"]))
        if record["pin"] == "led":
            self.led_at = now
            self.led_changed.set()


def benchmark_config(overrides: dict | None = None):
    """The defaults with ``overrides``; each ON/OFF press switches at once (the benchmarks time presses,
    not the « ÉTEINDRE ? » question)."""
    return configuration.load(({"power": {"confirm_off": False}}, "benchmark"), (overrides or {}, "benchmark"))


def wait_until(predicate, timeout: float) -> None:
    """Until ``predicate()`` holds; TimeoutError after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("the unit did not get there")
        time.sleep(0.0005)


class MockUnit:
    """A gpio unit on mock pins with its loop in a thread, as the service runs it."""

    def __init__(self, overrides: dict | None = None, watch: PinWatch | None = None, open_display=None):
        self.config = benchmark_config(overrides)
        self.backend = Gpio(self.config, pin_factory("mock"), trace=watch, open_display=open_display)
        self.runtime = Runtime(Unit(self.config), self.backend)
        self.runtime.open()
        # The display opens just after READY=1 (docs/dev/architecture.md): measure from a settled unit.
        assert self.backend.worker is not None
        self.backend.worker.wait_shown(10)
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.runtime.stopped:
            self.runtime.step()

    def pin(self, name: str):
        return self.backend.factory.pin(getattr(self.config.pins, name))

    def press(self, name: str) -> None:
        pin = self.pin(name)
        pin.drive_low()
        pin.drive_high()

    def wait_for(self, predicate, timeout: float = 5.0) -> None:
        wait_until(predicate, timeout)

    def close(self) -> None:
        self.runtime.stop()
        self.thread.join(5)
        self.backend.close()


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]
