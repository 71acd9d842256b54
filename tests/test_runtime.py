"""The real-time loop on the headless backend: same behaviour as simulate, in real seconds."""

from __future__ import annotations

import io
import json
import random
import threading
import time

import pytest
from helpers import WakeUpNoise, judged_tries, simulate_records, wait_for

from unit.app import config as configuration
from unit.app import scenario as scenarios
from unit.app.runtime import Job, Runtime
from unit.app.trace import TraceWriter
from unit.backends.base import Backend
from unit.backends.headless import Headless
from unit.cli import main
from unit.core import Pressed, Released, Unit

SHORT = {"auction": {"seconds": 1.5, "warning_seconds": 0.5}, "build": {"spin_seconds": 0.3, "show_seconds": 0.5}}
EVENTS = [
    {"at": 0, "press": "power"},
    {"at": 0.2, "press": "auction"},
    {"at": 0.5, "press": "auction"},  # a bump: ignored
    {"at": 2.0, "press": "build"},
]
UNTIL = 3.2


def real_time_trace(events, until, config, seed=4) -> tuple[float, list[dict]]:
    """The run's start (``time.monotonic``: its trace counts from it) and the trace's records."""
    scenario = scenarios.parse({"until": until, "events": events, "seed": seed, "config": config}, "rt")
    cfg = configuration.load((scenario.config, "rt"))
    out = io.StringIO()
    runtime = Runtime(
        Unit(cfg, random.Random(seed)),
        Headless(cfg.language),
        trace=TraceWriter(out, cfg.language),
        script=scenario.steps(cfg),
        until=scenario.until,
    )
    runtime.run()
    return runtime.start, [json.loads(line) for line in out.getvalue().splitlines()]


CONTRACT = 0.005  # the auction's warning and end within 5 ms of their deadlines (docs/reliability.md)
# Every record of every run: twenty times the contract (docs/dev/principles.md: ten times or more), the bound
# this test always had, beyond the machine's own noise then (helpers.WakeUpNoise). A thread of a busy machine was
# seen 74 ms late (two CPU hogs, load 2.5); a stall on the timing path (a display write, 0.4 s) is later than this
# in every run.
LOOSE = 0.1


@pytest.mark.slow
@pytest.mark.latency
def test_headless_trace_matches_simulate_in_order_content_and_time():
    """The same records as simulate's, in the same order; each at its virtual time or a little after (never
    before), on the loop's own clock: up to three runs, every record within LOOSE of its time in each, one
    run with the auction's warning and end (the contract's deadlines) within CONTRACT; both beyond what the
    machine did to the unit meanwhile (helpers.WakeUpNoise, helpers.judged_tries; docs/dev/principles.md)."""
    virtual = simulate_records(UNTIL, EVENTS, SHORT, seed=4)
    strip = lambda records: [{k: v for k, v in r.items() if k != "t"} for r in records]  # noqa: E731
    states = [i for i, r in enumerate(virtual) if r["kind"] == "state"]
    warning = next(i for i in states if virtual[i]["state"] == "warning")
    end = next(i for i in states if i > warning and virtual[i]["state"] == "ready")
    assert (virtual[warning]["t"], virtual[end]["t"]) == (1.2, 1.7)  # 0.2 + 1.5 - 0.5, and 0.2 + 1.5

    def attempt() -> tuple[bool, bool, object]:
        with WakeUpNoise(with_caller=True) as noise:  # the loop runs in this thread
            start, real = real_time_trace(EVENTS, UNTIL, SHORT)
        assert strip(real) == strip(virtual)
        lateness = [r["t"] - v["t"] for r, v in zip(real, virtual, strict=True)]
        beyond = [late - noise.excuse(start + v["t"], late) for v, late in zip(virtual, lateness, strict=True)]
        latest = max(range(len(real)), key=beyond.__getitem__)
        assert min(lateness) >= -0.002, lateness  # never early (t is rounded to the ms)
        assert beyond[latest] < LOOSE, f"{lateness[latest] * 1e3:.1f} ms late, beyond noise: {virtual[latest]}"
        seen = {"warning, end beyond the machine (ms)": (round(beyond[warning] * 1e3), round(beyond[end] * 1e3))}
        return True, max(beyond[warning], beyond[end]) < CONTRACT, seen

    judged_tries(attempt, "the warning and the end within 5 ms beyond the machine")


def test_loop_sleeps_when_nothing_is_due():
    """With the unit off there is no deadline: one wait, no polling, until an input arrives."""

    class CountingBackend(Backend):
        wakes = 0

        def tick(self, now):
            CountingBackend.wakes += 1

    runtime = Runtime(Unit(configuration.load()), CountingBackend())
    thread = threading.Thread(target=runtime.run)
    thread.start()
    time.sleep(0.3)  # nothing happens: an absence takes a while to see
    assert CountingBackend.wakes == 0
    runtime.post(Pressed("power"))
    runtime.post(Released("power"))
    wait_for(lambda: runtime.unit.state == "ready")
    runtime.stop()
    thread.join(2)
    assert not thread.is_alive()
    assert runtime.unit.state == "ready"
    assert 1 <= CountingBackend.wakes <= 3


def test_inputs_from_other_threads_are_stamped_when_they_happen():
    clock_now = [100.0]
    runtime = Runtime(Unit(configuration.load()), Backend(), clock=lambda: clock_now[0])
    runtime.open()
    runtime.post(Pressed("power"))
    clock_now[0] = 100.5
    runtime.step(max_wait=0)
    assert runtime.unit.state == "ready"
    assert runtime.unit.game.start == 100.0


@pytest.mark.slow
def test_frames_are_written_once_per_distinct_frame(tmp_path, capsys, write_yaml):
    script = write_yaml(
        "s.yaml",
        "until: 1.2\nconfig: {auction: {seconds: 1, warning_seconds: 0.5}}\n"
        "events:\n  - {at: 0, press: power}\n  - {at: 0.1, press: auction}\n",
    )
    frames = tmp_path / "frames"
    trace = tmp_path / "trace.jsonl"
    status = main(["run", "--backend", "headless", "--script", script, "--frames", str(frames), "--trace", str(trace)])
    assert status == 0
    names = sorted(p.name for p in frames.iterdir())
    # welcome, ready, countdown 1, warning 1, sold banner: five distinct pictures
    assert len(names) == 5 and names[0].startswith("frame-0001-")
    texts = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in texts if r["kind"] == "screen"] == [
        "MONOPOLY CITY · ON/OFF : jouer · ENCHÈRES 2 s : réglages",
        "RESTE 1h00 · PARTIE 1h00",
        "ENCHÈRES 1",
        "ENCHÈRES 1 !",
        "ADJUGÉ !",
    ]


def test_emulator_without_a_display_says_what_to_do(monkeypatch, capsys):
    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    status = main(["run", "--backend", "emulator"])  # a plain `run` falls back to the terminal
    err = capsys.readouterr().err
    assert status == 2 and "--backend terminal" in err and "SDL_VIDEODRIVER=dummy" in err
    assert err.count("\n") == 1


def test_a_setting_changed_just_before_a_deadline_is_written_after_it_never_on_the_timing_path(tmp_path):
    """A phone may change a setting mid-auction: settings.json waits for a moment clear of the core's deadlines.
    On a virtual clock, stepped as the loop wakes: the change arrives exactly 30 ms before the countdown's next
    second, the file is written just after that second, and not within SAVE_CLEARANCE of the one after."""
    from unit.app import runtime as runtimes
    from unit.app.phone_settings import apply_settings
    from unit.app.settings import SettingsStore

    writes: list[tuple[float, float | None]] = []

    class Spy(SettingsStore):
        def save(self, choices):
            writes.append((runtime.clock(), runtime.unit.next_deadline()))
            super().save(choices)

    now = [0.0]
    config = configuration.load(({"auction": {"seconds": 5, "warning_seconds": 1}}, "test"))
    runtime = Runtime(Unit(config), Headless(config.language), settings=Spy(tmp_path), clock=lambda: now[0])
    runtime.open()
    for button in ("power", "auction"):
        runtime.post(Pressed(button))
        runtime.post(Released(button))
    runtime.step(max_wait=0)
    assert runtime.unit.state == "countdown"
    deadline = runtime.unit.next_deadline()
    assert deadline is not None

    def step_to(t: float) -> None:
        """Every wake of the loop up to ``t``, then ``t``."""
        while (due := runtime.next_wake()) is not None and due <= t:
            now[0] = due
            runtime.step(max_wait=0)
        now[0] = t

    step_to(deadline - 0.03)
    runtime.post(Job("settings", lambda at: apply_settings(runtime, {"game.minutes": 90}, at)))
    runtime.step(max_wait=0)
    assert writes == []  # not now: the deadline is 30 ms away
    step_to(deadline + 1.0)
    assert len(writes) == 1
    written_at, next_deadline = writes[0]
    assert deadline < written_at <= deadline + 0.01  # just after the deadline it came close to
    assert next_deadline is None or next_deadline - written_at >= runtimes.SAVE_CLEARANCE
    assert SettingsStore(tmp_path).apply(configuration.load()).game.minutes == 90


def test_a_setting_changed_as_the_unit_stops_is_not_lost(tmp_path):
    from unit.app.phone_settings import apply_settings
    from unit.app.settings import SettingsStore

    config = configuration.load()
    runtime = Runtime(Unit(config), Backend(), settings=SettingsStore(tmp_path))
    runtime.post(Job("settings", lambda at: apply_settings(runtime, {"language": "en"}, at)))
    runtime.stop()
    runtime.run()
    assert SettingsStore(tmp_path).apply(configuration.load()).language == "en"
