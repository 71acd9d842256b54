"""Helpers the tests share, all in this one module: waiting for a condition, running the unit (on a virtual
clock, on gpiozero's mock pins, in real time with its link), the phone companion in a thread, the sample
edition file, the phone-sized browser and what systemd says of a service file.

Imported by name (``from helpers import wait_for``); conftest.py keeps pytest's own setup (environment,
markers, hypothesis profiles, fixtures). No test module imports from another test module: what two of them
share lives here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import io
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from unit.app import config as configuration
from unit.app import scenario as scenarios
from unit.app.link import Link
from unit.app.runtime import Job, Runtime
from unit.app.scenario import Step
from unit.app.simulate import simulate
from unit.app.trace import TraceWriter
from unit.app.wifi import WifiRequests
from unit.backends.headless import Headless
from unit.calculator.history import Entry
from unit.core import Pressed, Released, Unit
from unit.core.protocol import SOCKET_NAME

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")

# --- waiting ------------------------------------------------------------------------------------------

POLL = 0.005  # seconds between two looks: short beside any deadline the tests wait for


def wait_for(predicate: Callable[[], T], timeout: float = 5.0, what: str | Callable[[], str] = "") -> T:
    """Look at ``predicate`` until it gives something true, and return that; fail the test after ``timeout``.

    The suite's one wait: a test waits for a condition it can name (a state, a pin, a record on a socket),
    not for a guessed number of seconds. The timeout only bounds a hang, so it is generous (the machine
    may be busy with other work); reaching it is a failure, never a measure of speed. ``what`` says what
    was awaited in the failure (a callable is asked only then, to show the latest state).
    """
    end = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > end:
            said = what() if callable(what) else what
            raise AssertionError(f"waited {timeout} s in vain{': ' + said if said else ''}")
        time.sleep(POLL)
    return value


def caught_up(runtime: Runtime, timeout: float = 5.0) -> None:
    """Return once the runtime's loop has handled everything posted to it before this call.

    A mark posted now runs after them (the loop's queue is first in, first out): the barrier of a test that
    shows nothing happened (a refused or a short press would have been posted, and handled, by then), where
    a sleep would only guess how long the loop takes.
    """
    done = threading.Event()
    runtime.post(Job("the test's mark", lambda at: done.set()))
    assert done.wait(timeout), f"the loop did not reach the test's mark in {timeout} s"


def trace_records(path: Path) -> list[dict]:
    """The records of the JSON-lines trace another process is writing at ``path``: its whole lines only (a
    line being written is read at the next look)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return [json.loads(line) for line in text.splitlines(keepends=True) if line.endswith("\n") and line.strip()]


def wait_for_record(path: Path, where: Callable[[dict], bool] = bool, timeout: float = 10.0) -> dict:
    """The first record of the trace at ``path`` that ``where`` accepts, once it is written."""
    return wait_for(
        lambda: next((record for record in trace_records(path) if where(record)), None),
        timeout,
        lambda: f"a record in {path}; it holds {trace_records(path)[:5]}",
    )


# --- the unit on a virtual clock ------------------------------------------------------------------------


def simulate_lines(until: float, events: list[dict], config: dict | None = None, seed: int = 0) -> str:
    """The exact text ``monopoly-city simulate`` prints for this scenario."""
    data = {"until": until, "events": events, "seed": seed}
    if config:
        data["config"] = config
    scenario = scenarios.parse(data, "test-scenario")
    cfg = configuration.load((scenario.config, "test-scenario: config")) if config else configuration.load()
    out = io.StringIO()
    simulate(cfg, scenario.steps(cfg), scenario.until, scenario.seed, TraceWriter(out, cfg.language).write)
    return out.getvalue()


def simulate_records(until: float, events: list[dict], config: dict | None = None, seed: int = 0) -> list[dict]:
    return [json.loads(line) for line in simulate_lines(until, events, config, seed).splitlines()]


def kinds(records: list[dict], kind: str, **match) -> list[dict]:
    """The records of one kind, optionally with some fields equal to given values."""
    return [r for r in records if r["kind"] == kind and all(r.get(k) == v for k, v in match.items())]


def times(records: list[dict], kind: str, **match) -> list[float]:
    return [r["t"] for r in kinds(records, kind, **match)]


# --- commands --------------------------------------------------------------------------------------------


def cli_json(capsys, *argv):
    """Run a ``monopoly-city`` command with --json: its status, its parsed output and its stderr."""
    from unit.cli import main

    status = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err


def cli(data: Path, *args: str) -> dict:
    """``monopoly-city ARGS --json`` as a separate process in the data folder, as at the table."""
    run = subprocess.run([sys.executable, "-m", "unit", *args, "--json"], capture_output=True, text=True, cwd=data)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def exposure(service: Path) -> tuple[float, str]:
    """systemd's overall exposure level of a service file (0.0 to 10.0, lower is safer) and its whole report.

    Read from the report's last line: ``--threshold`` counts in tenths of that scale (``--threshold=10``
    fails above 1.0), so the figure itself is what a test asserts on.
    """
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--threshold=100", str(service)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout)
    assert found, result.stdout[-600:]
    return float(found.group(1)), result.stdout


# --- the unit on gpiozero's mock pins, in real time ---------------------------------------------------------

# A 1.2 s auction with 0.45 s of warning: the LED's edges within two seconds.
QUICK = {"auction": {"seconds": 1.2, "warning_seconds": 0.45, "cancel_hold_seconds": 0.3}}
PINS = dataclasses.asdict(configuration.load().pins)


class Running:
    """A gpio runtime on mock pins, looping in a thread like the real service."""

    def __init__(self, overrides=None, **backend_options):
        from unit.backends.gpio import Gpio, pin_factory

        self.config = configuration.load(({**QUICK, **(overrides or {})}, "test"))
        self.backend = Gpio(self.config, pin_factory("mock"), **backend_options)
        self.runtime = Runtime(Unit(self.config), self.backend)
        self.runtime.open()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        try:
            while not self.runtime.stopped:
                self.runtime.step()
        finally:
            self.backend.close()

    def pin(self, name):
        return self.backend.factory.pin(PINS[name])

    def press(self, name, hold=0.02):
        """A finger on the button for ``hold`` seconds (a sleep: the duration is the input), then 20 ms off it."""
        self.pin(name).drive_low()
        time.sleep(hold)
        self.pin(name).drive_high()
        time.sleep(0.02)

    def stop(self):
        self.runtime.stop()
        self.thread.join(3)
        assert not self.thread.is_alive()


#: The LED's edge within 5 ms of its deadline (docs/reliability.md); every edge of every try within ten times
#: that (docs/dev/principles.md): a display or a file on the timing path is 0.1 s or more. Both beyond the
#: machine's own scheduling noise at that moment (:class:`WakeUpNoise`).
LED_CONTRACT = 0.005
LED_LOOSE = 10 * LED_CONTRACT


# --- the machine's own scheduling noise, beside the unit ------------------------------------------------


class WakeUpNoise:
    """What the machine did to the unit meanwhile: the noise a ``latency`` test judges the unit against
    (docs/dev/principles.md, "What a latency test may assert").

    Two measures, taken beside the unit while it runs (``with WakeUpNoise() as noise:`` around one auction, one
    run):

    - a bare thread in the unit's process, with nothing to do but sleep until absolute deadlines every
      :attr:`PERIOD` seconds as the unit's loop does (a queue's ``get`` with a timeout), on the loop's clock
      (``time.monotonic``), keeping how late it woke: other processes on the cores (a VM, a browser, other
      tests), a virtual machine's own pauses. :meth:`worst`: its latest wake-up in the whole run, not at the
      moment of each event: two threads of a busy machine are not late at the same moments (each waits for a
      core of its own), but by as much within a second;
    - how long the unit's own threads (every thread of the process but the test's, the one that made this, and
      the bare thread; ``with_caller``: the test's too, when the unit runs in it) waited for a core, read from
      Linux's ``/proc/self/task/TID/schedstat`` every :attr:`SAMPLE` seconds: a thread that does a few ms of
      Python at each wake-up (the loop, the display's frame) is preempted on a busy machine where the bare thread,
      done in microseconds, is not; and a thread preempted while it holds the GIL holds back the loop with it.
      :meth:`waited`: that time, from an event's deadline to the event. Elsewhere than on Linux, nothing.

    A slow thing on the unit's timing path (a display write on the loop, a file) makes the loop late while its
    threads sleep: neither measure grows, and the lateness counts in full."""

    PERIOD = 0.002
    SAMPLE = 0.01

    def __init__(self, with_caller: bool = False) -> None:
        self.woke: list[tuple[float, float]] = []  # (deadline, seconds late), deadlines on time.monotonic()
        self.waits: list[tuple[float, float]] = []  # (time, seconds the unit's threads waited for a core so far)
        self._stop = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="bare thread", daemon=True)
        self._not_the_unit = set() if with_caller else {threading.get_native_id()}
        self._schedstat = Path("/proc/self/task").is_dir()

    def __enter__(self) -> WakeUpNoise:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.put(None)
        self._thread.join(5)

    def _run(self) -> None:
        self._not_the_unit.add(threading.get_native_id())
        due = sample = time.monotonic()
        while True:
            try:
                self._stop.get(timeout=max(0.0, due - time.monotonic()))
                return
            except queue.Empty:
                pass
            now = time.monotonic()
            self.woke.append((due, now - due))
            if self._schedstat and now >= sample:
                self.waits.append((now, self._waited_so_far()))
                sample = now + self.SAMPLE
            due = max(due + self.PERIOD, now)

    def _waited_so_far(self) -> float:
        """Seconds the unit's threads have waited for a core since they started (schedstat's second field)."""
        total = 0
        for thread in threading.enumerate():
            if thread.native_id is None or thread.native_id in self._not_the_unit:
                continue
            try:
                total += int(Path(f"/proc/self/task/{thread.native_id}/schedstat").read_text().split()[1])
            except (OSError, IndexError, ValueError):  # a thread that just ended
                continue
        return total / 1e9

    def worst(self) -> float:
        """The latest the bare thread woke (seconds; 0 before it ever slept)."""
        return max((late for _due, late in self.woke), default=0.0)

    def waited(self, start: float, end: float) -> float:
        """Seconds the unit's threads waited for a core from ``start`` to ``end`` (from the samples around them)."""
        before = [w for t, w in self.waits if t <= start]
        after = [w for t, w in self.waits if t >= end]
        if not self.waits:
            return 0.0
        return (after[0] if after else self.waits[-1][1]) - (before[-1] if before else self.waits[0][1])

    def excuse(self, due: float, late: float) -> float:
        """What of ``late`` seconds of lateness, for an event due at ``due``, the machine accounts for: as late as
        the bare thread ever was meanwhile, or as long as the unit's threads waited for a core since its deadline."""
        return max(self.worst(), self.waited(due, due + max(late, 0.0)))


class StampedInputs:
    """The runtime's input queue, keeping the time the runtime stamped on each input it was given, and the loop's
    own wake-ups for a deadline: the deadline it slept until (``runtime.next_wake``) and how late it woke, on its
    clock. A deadline already past when the loop asks (it was busy meanwhile) is a wake-up as late as that."""

    def __init__(self, inner: queue.SimpleQueue, runtime: Runtime):
        self.inner = inner
        self.runtime = runtime
        self.stamps: list[float] = []
        self.woke: list[tuple[float, float]] = []  # (deadline, seconds late)
        self._next_wake = runtime.next_wake
        self._wake: float | None = None

    def next_wake(self) -> float | None:
        self._wake = self._next_wake()
        return self._wake

    def put(self, item: tuple[float, Any]) -> None:
        self.stamps.append(item[0])
        self.inner.put(item)

    def get(self, block: bool = True, timeout: float | None = None) -> tuple[float, Any]:
        try:
            return self.inner.get(block, timeout)
        except queue.Empty:
            if self._wake is not None:  # woken by its deadline, not by an input
                self.woke.append((self._wake, self.runtime.clock() - self._wake))
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __enter__(self) -> StampedInputs:
        self.runtime.inputs = self  # the loop waits on ``inputs``: a put wakes it
        self.runtime.next_wake = self.next_wake  # the loop asks it at every step
        return self

    def __exit__(self, *exc: object) -> None:
        self.runtime.inputs = self.inner
        del self.runtime.next_wake  # the method again


@dataclasses.dataclass
class Auction:
    """One auction on the mock pins: the press's time (``time.monotonic``), the LED pin's edges as (seconds after
    the press, lit), and the loop's wake-ups for its deadlines meanwhile (:class:`StampedInputs`)."""

    pressed: float
    edges: list[tuple[float, bool]]
    woke: list[tuple[float, float]]


def led_edges(unit: Running, expected: list[tuple[float, bool]]) -> Auction:
    """Switch on (if off), press the auction button pin, wait on the LED pin until the auction is over: the
    press, the pin's edges (``len(expected)`` of them if the unit keeps its contract; fewer when the loop was late
    by a blink's half-period) and the loop's wake-ups.

    Two stamps on one clock, both the program's: the time the runtime stamped on the press (``runtime.clock``,
    from which the core counts its deadlines) and the mock pin's own record of each change (``time.monotonic``
    too, from its clear). The wait is on the pin, never on the core's LED mode (the core says "off" a moment
    before the backend drives the pin): every edge, or the auction's time past; then the end, then the loop
    caught up, which it is only once it has driven the pin for the end (no edge can follow: the blink is
    stopped)."""
    if unit.runtime.unit.state == "off":
        unit.press("power")
    wait_for(lambda: unit.runtime.unit.state == "ready", what="the unit switched on")
    led = unit.pin("led")
    led.clear_states()
    cleared = led._last_change  # the pin's own clock at the clear: each state is timed from the one before
    with StampedInputs(unit.runtime.inputs, unit.runtime) as stamped:
        unit.press("auction")
        wait_for(lambda: stamped.stamps, what="the press stamped by the runtime")
        over = stamped.stamps[0] + expected[-1][0]  # the first stamp is the press's (put before the release's)
        # The auction's own length, asleep: no wake-up of this thread's (each takes the GIL) among the loop's.
        time.sleep(max(0.0, over - time.monotonic()))
        wait_for(lambda: len(led.states) > len(expected) or time.monotonic() > over + 1.0, 10, "the auction's time")
        wait_for(lambda: unit.runtime.unit.state == "ready", 10, "the end of the auction")
        caught_up(unit.runtime)
    pressed = stamped.stamps[0]
    seen, at = [], cleared
    for state in led.states[1:]:  # the first is the state when cleared
        at += state.timestamp
        seen.append((at - pressed, bool(state.state)))
    woke = [(due, late) for due, late in stamped.woke if pressed <= due <= pressed + expected[-1][0] + 0.01]
    return Auction(pressed, seen, woke)


def edge_lateness(edges: list[tuple[float, bool]], expected: list[tuple[float, bool]]) -> list[float | None]:
    """How late each expected edge came on the pin (seconds), None for one the pin never showed: a loop woken a
    blink's half-period late finds the LED already due back where it was, and drives nothing (two edges lost).
    Each pin edge goes to the latest expected edge of its state due before it, so two lost edges are told from
    two late ones; an edge the unit should never have made fails the test."""
    lateness: list[float | None] = []
    j = 0
    for i, (due, lit) in enumerate(expected):
        later = next((d for d, same in expected[i + 2 :: 2] if same == lit), None)
        if j < len(edges) and edges[j][1] == lit and (later is None or edges[j][0] < later - LED_CONTRACT):
            lateness.append(abs(edges[j][0] - due))
            j += 1
        else:
            lateness.append(None)
    assert j == len(edges) and lateness.count(None) % 2 == 0, f"the LED's edges {edges}, expected {expected}"
    return lateness


def judged_tries(attempt: Callable[[], tuple[bool, bool, object]], contract: str, tries: int = 3) -> None:
    """A latency contract over tries (docs/dev/principles.md): ``attempt()`` runs one, asserts the loose bound
    itself, and says whether the machine left it judgeable (no event of the contract lost to it: a blink's
    edge a late loop rightly never drove), whether it met ``contract``, and what it saw. Passes at the first judged try
    that meets it; fails once ``tries`` judged tries have not; a try the machine spoiled does not count, and
    after twice ``tries`` attempts without ``tries`` judged ones the test is skipped, saying so: the loose
    bound held in each, the contract could not be judged on a machine that busy."""
    seen = []
    missed = 0
    for _ in range(2 * tries):
        judged, met, what = attempt()
        seen.append(what if judged else {"not judged, the machine too busy": what})
        if judged and met:
            return
        missed += judged
        if missed == tries:
            raise AssertionError(f"no try within {contract} (each try): {seen}")
    pytest.skip(f"{contract}: the machine too busy to judge it in {len(seen)} tries (the loose bound held): {seen}")


def assert_auctions_keep_time(unit: Running, expected: list[tuple[float, bool]], at_deadlines: tuple[int, ...]):
    """The LED's latency contract (docs/dev/principles.md), judged beyond what the machine did to the unit in the
    same auction (:class:`WakeUpNoise`): in every auction, every wake-up of the loop for a deadline and every edge
    on the pin within LED_LOOSE of its time beyond that, the edges ``expected`` and no other (two of them lost
    only to a loop late by a blink's half-period, which the first check judges); in one auction (of three the
    machine left judgeable, :func:`judged_tries`), the edges at the core's deadlines (the indices
    ``at_deadlines``) within LED_CONTRACT beyond it. Every edge is timed from the press: the blink's edges are
    absolute times from its start (the press, the warning), timed by the loop, never a sleep after the edge
    before, so one late edge does not move the next. A busy machine delays the unit by what the noise measures;
    a slow thing on the timing path delays the loop alone, every auction."""
    gap = min(b - a for (a, _), (b, _) in zip(expected, expected[1:]))
    ms = lambda x: None if x is None else round(x * 1e3, 1)  # noqa: E731  for the messages

    def attempt() -> tuple[bool, bool, object]:
        with WakeUpNoise() as noise:
            auction = led_edges(unit, expected)
        late = edge_lateness(auction.edges, expected)
        events = [(auction.pressed + due, x) for x, (due, _) in zip(late, expected) if x is not None]
        events += auction.woke  # the loop's wake-ups for its deadlines: a lost edge's lateness is its loop's
        beyond = max((x - noise.excuse(due, x) for due, x in events), default=0.0)
        loop = max((x for _, x in auction.woke), default=0.0)
        what = {"edges late": [ms(x) for x in late], "loop late": ms(loop), "beyond the machine": ms(beyond)}
        what["bare thread"] = ms(noise.worst())
        assert beyond < LED_LOOSE, f"LED edges late by (ms) {what}"
        assert None not in late or loop > gap - LED_CONTRACT, f"edges lost, the loop on time: {what}"
        assert unit.pin("led").state == 0  # dark after the end
        at = [(auction.pressed + expected[i][0], late[i]) for i in at_deadlines]
        judged = all(x is not None for _, x in at)  # a deadline's edge lost to the machine: nothing to judge
        met = judged and max(x - noise.excuse(due, x) for due, x in at) < LED_CONTRACT
        return judged, met, what

    judged_tries(attempt, f"the LED's edges within {LED_CONTRACT * 1e3:g} ms of the deadlines beyond the machine")


# --- the unit in real time with its link, a client of its socket, the web service ----------------------


class StampedTrace(TraceWriter):
    """The ``--trace`` writer, keeping each record with the wall-clock time it was written."""

    def __init__(self, language: str):
        super().__init__(io.StringIO(), language)
        self.stamped: list[tuple[float, dict]] = []

    def write_record(self, obj: dict) -> None:
        self.stamped.append((time.time(), obj))
        super().write_record(obj)

    @property
    def records(self) -> list[dict]:
        return [obj for _, obj in self.stamped]


class RunningUnit:
    """A unit in real time on the headless backend, in a thread, with its link on ``state_dir``."""

    def __init__(self, state_dir: Path, config: dict | None = None, script: list[Step] | None = None, **link_args):
        self.config = configuration.load((config or {}, "test"))
        self.trace = StampedTrace(self.config.language)
        self.codes: list[str] = []  # the pairing codes the unit showed, oldest first
        link_args.setdefault("on_code", self.codes.append)
        self.link = Link(state_dir, self.config.language, trace=self.trace, **link_args)
        self.runtime = Runtime(
            Unit(self.config),
            Headless(self.config.language),
            trace=self.link,
            script=script,
            wifi=WifiRequests(state_dir),
        )
        self.link.attach(self.runtime)
        self.thread = threading.Thread(target=self.runtime.run, daemon=True)

    def __enter__(self) -> RunningUnit:
        assert self.link.start()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.runtime.stop()
        self.thread.join(5)
        self.link.close()

    def press(self, button: str) -> None:
        self.runtime.post(Pressed(button))
        self.runtime.post(Released(button))

    def shown_code(self, codes: list[str] | None = None) -> str:
        """The pairing code the unit shows (the link makes it on its own thread, just after the request)."""
        codes = self.codes if codes is None else codes
        wait_for(lambda: bool(codes), what="a pairing code")
        return codes[-1]


class LinkClient:
    """A client of the unit's socket, reading records in a thread."""

    def __init__(self, state_dir: Path, *, read: bool = True):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(Path(state_dir) / SOCKET_NAME))
        self.records: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        if read:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while chunk := self.sock.recv(65536):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self.records.put(json.loads(line))
        self.records.put({"kind": "closed"})
        self.sock.close()

    def send(self, obj: dict) -> None:
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def next(self, kind: str | None = None, timeout: float = 5.0, **match) -> dict:
        """The next record (of ``kind``, with fields equal to ``match``), skipping others."""
        end = time.monotonic() + timeout
        while True:
            obj = self.records.get(timeout=max(0.01, end - time.monotonic()))
            self.seen.append(obj)
            if (kind is None or obj["kind"] == kind) and all(obj.get(k) == v for k, v in match.items()):
                return obj

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)


class Banker:
    """One phone at the bank, through Starlette's test client: its own cookies, the token and the version of the last
    view it looked at (the tests of the game's views and taps)."""

    def __init__(self, app: Any, name: str = "soiree"):
        from starlette.testclient import TestClient

        self.http = TestClient(app, base_url="http://box.local")
        self.name = name
        self.csrf = ""
        self.version = ""

    def look(self, path: str = "") -> Any:
        page = self.http.get(f"/games/{self.name}{path}")
        assert page.status_code == 200, page.text
        self.csrf = re.search(r'data-csrf="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        found = re.search(r'name="version" value="([^"]+)"', page.text)
        self.version = found.group(1) if found else self.version
        return page

    def create(self, edition: str, players: str, taken: bool = True) -> Any:
        """A new game from the games' page; ``taken``: it must be made (else the answer, refused or not)."""
        page = self.http.get("/games")
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        form = {"csrf": self.csrf, "name": self.name, "edition": edition, "players": players}
        answer = self.http.post("/games", data=form, follow_redirects=False)
        assert answer.status_code == 303 or not taken, answer.text[:300]
        return answer

    def post(self, where: str = "/bank", **form: str) -> Any:
        """The form as the view last seen sends it (``where``: ``/bank``, or ``""`` for a correction)."""
        data = {"csrf": self.csrf, "version": self.version, **form}
        return self.http.post(f"/games/{self.name}{where}", data=data, follow_redirects=False)

    def tap(self, where: str = "/bank", **form: str) -> Any:
        """Look at the table, then tap: what a person does; the tap must be taken."""
        self.look()
        answer = self.post(where, **form)
        if answer.status_code != 303:
            found = re.search(r'id="error"[^>]*>([^<]*)<', answer.text)
            raise AssertionError(html.unescape(found.group(1)) if found else answer.text[:300])
        return answer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(
    state_dir: Path | None, language: str = "fr", box: bool | None = None, wifi_status: Path | None = None
) -> Iterator[str]:
    """The web application under uvicorn in a thread, on a free loopback port: yields its base URL. ``box``
    False: a laptop's service (the calculator open while no unit runs), else a box's with a ``state_dir``
    (the calculator written from paired phones only: :func:`pair_page`); ``wifi_status``: the box's Wi-Fi
    helper's status file (None: the service's default, /run/monopoly-city-wifi/status.json)."""
    from unit.web.app import create_app

    wifi = {} if wifi_status is None else {"wifi_status": wifi_status}
    with _served(create_app(state_dir, language, box=box, **wifi)) as url:
        yield url


@contextlib.contextmanager
def serving_data(data: Path, state_dir: Path | None = None, language: str = "fr") -> Iterator[str]:
    """The web application on ``data`` as the calculator's folder (``state_dir``: the unit's, or None), under
    uvicorn in a thread on a free loopback port: yields its base URL."""
    from unit.web.app import create_app

    with _served(create_app(state_dir, language, data)) as url:
        yield url


@contextlib.contextmanager
def _served(app: Any) -> Iterator[str]:
    """``app`` under uvicorn in a thread on a free loopback port, told its address as server.py tells it."""
    import uvicorn

    port = free_port()
    app.state.web.hub.listening = ("127.0.0.1", port)  # as server.py does: the unit shows it
    from unit.web.server import Server

    server = Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"), app.state.web.hub)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started, 10, "the web service to start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


# --- a phone paired with the unit (docs/phone.en.md, "Who may do what") -----------------------------------


def pair_client(client: Any, unit: RunningUnit) -> None:
    """Pair a test client's phone with ``unit`` as a person does on the Remote: ask for a code, type the one the
    unit shows. The client keeps the paired session's cookie (a new session id: its pages' CSRF token changes,
    so read it again). Another client paired the same way is paired too: several phones at once."""
    page = client.get("/remote")
    csrf = re.search(r'data-csrf="([^"]+)"', page.text).group(1)
    before = len(unit.codes)
    assert client.post("/pair/request", data={"csrf": csrf}).url.query == b"m=shown"
    wait_for(lambda: len(unit.codes) > before, what="the pairing code on the unit")
    answer = client.post("/pair", data={"csrf": csrf, "code": unit.codes[-1]})
    assert answer.url.path == "/remote" and answer.url.query == b"m=paired", answer.url


@contextlib.contextmanager
def a_box(state_dir: Path, language: str = "fr", config: dict | None = None) -> Iterator[tuple[str, RunningUnit]]:
    """A box: a unit running on ``state_dir`` and its web service beside it, as on the Pi: (base URL, the unit).
    Its calculator is written from paired phones only: a page pairs with :func:`pair_page`."""
    with RunningUnit(state_dir, config) as unit, serving(state_dir, language) as base:
        yield base, unit


def pair_page(page: Any, base: str, unit: RunningUnit, codes: list[str] | None = None) -> None:
    """The same for a browser's page (Playwright): its context keeps the paired session's cookie. ``codes``: the
    list the unit's codes go to, when the unit was given an ``on_code`` of its own."""
    codes = unit.codes if codes is None else codes
    page.goto(base + "/remote")
    wait_for_unit(page)  # the service reaches the unit: the request shows a code
    csrf = page.get_attribute("body", "data-csrf")
    before = len(codes)
    assert page.request.post(base + "/pair/request", form={"csrf": csrf}).url.endswith("m=shown")
    wait_for(lambda: len(codes) > before, what="the pairing code on the unit")
    answer = page.request.post(base + "/pair", form={"csrf": csrf, "code": codes[-1]})
    assert answer.url.endswith("m=paired"), answer.url


# --- the calculator's sample files and forms -------------------------------------------------------------

THREE_DISTRICTS = """\
game: city
name: Trois quartiers (inventé)
starting_cash: 20M
go_salary: 2M
industry_tax: 1M
hazards: {prison: 4, dump: 2, sewage_plant: 2, power_station: 3}
groups:
  - name: vert
    skyscraper_cost: 4M
    districts:
      - {name: Les Halles, price: 1M, residential_cost: 200k, industrial_cost: 400k,
         rents: [50k, 100k, 150k, 200k, 300k, 400k, 500k, 700k, 900k]}
      - {name: Quai Nord, price: 1.2M, residential_cost: 200k, industrial_cost: 400k,
         rents: [60k, 120k, 180k, 240k, 360k, 480k, 600k, 840k, 1.1M]}
  - name: gris
    skyscraper_cost: 5M
    districts:
      - {name: Port Sud, price: 2M, residential_cost: 300k, industrial_cost: 500k,
         rents: [100k, 200k, 300k, 400k, 500k, 600k, 800k, 1M, 1.2M]}
"""

JSON = {"accept": "application/json"}  # the header of the page's script: answers as JSON
RENTS = ["100k", "300k", "600k", "1M", "1,5M", "2M", "2,5M", "3M", "4M"]


def card(token: str, ver: str, n: str = "", **values: str) -> dict:
    """The card form of the Editions pages: every field empty but ``values``."""
    from unit.web import editions

    form = {"csrf": token, "version": ver, "n": n} | {key: "" for key in editions.CARD_FIELDS}
    return form | values


def full_card(name: str, group: str, price: str = "2M", rents: list[str] = RENTS, sky: str = "5M") -> dict:
    values = {"name": name, "group": group, "price": price, "residential_cost": "500k", "industrial_cost": "1M"}
    return values | {f"rent{j}": rent for j, rent in enumerate(rents)} | {"skyscraper_cost": sky}


# --- a phone-sized page in Debian's Chromium (Playwright) ---------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
NO_BROWSER = (
    f"no Chromium at {CHROMIUM}: .ci/run installs it: apt-get install chromium" if not os.path.exists(CHROMIUM) else ""
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True, "has_touch": True}
#: The smallest phone the pages are made for, upright (issue 22): the documentation's screenshots.
SMALL_PHONE = PHONE | {"viewport": {"width": 360, "height": 640}}
DOC_IMAGES = ROOT / "docs" / "images" / "phone"  # where `make golden` puts the screenshots


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (nothing is downloaded)."""
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@contextlib.contextmanager
def phone(chromium, lang: str = "fr", size: dict[str, Any] | None = None) -> Iterator[Any]:
    """A page on a phone-sized screen (``size``: :data:`PHONE` by default), in a fresh context (no cookies),
    speaking ``lang``."""
    context = chromium.new_context(**(size or PHONE), locale=lang)
    try:
        yield context.new_page()
    finally:
        context.close()


def screenshot(page, path: Path, *shown: str, full_page: bool = False) -> Path:
    """Save what the page shows into ``path``, after checking that it shows it: every selector of ``shown``
    is visible, and the picture is the screen's width and not blank (both light and dark pixels, more than
    a handful of colours: a page that failed to load or style is one flat colour)."""
    from PIL import Image

    for selector in shown:
        assert page.is_visible(selector), f"{path.name}: {selector} is not visible"
    page.screenshot(path=path, full_page=full_page)
    with Image.open(path) as image:
        width = page.viewport_size["width"]
        assert abs(image.width - width) <= 1, (path, image.size)  # Chromium may round a mobile landscape down
        grey = image.convert("L")
        darkest, lightest = grey.getextrema()
        assert darkest < 80 and lightest > 175, f"{path.name}: no contrast ({darkest}..{lightest})"
        assert image.convert("RGB").getcolors(16) is None, f"{path.name}: 16 colours or fewer"  # None: more
    return path


def create(page, base: str, name: str, edition: str, players: str) -> None:
    """A new game from the Games page."""
    page.goto(f"{base}/games")
    page.fill("#new-name", name)
    page.check(f"#new-edition input[value='{edition}']")  # the board, by its radio
    page.fill("#new-players", players)
    page.click("#create")
    page.wait_for_url(f"**/games/{name}")


def answered(page) -> None:
    """The view's answer is in: the page's script swapped it in (or the browser loaded it)."""
    page.wait_for_selector("body:not([data-busy])", state="attached")
    page.wait_for_selector(".table", state="attached")


def view(page, path: str = "") -> None:
    """A view of the game the page shows, by its path below the game (``/square/Les Halles``), as a link would."""
    game = page.url.split("/games/", 1)[1].split("/", 1)[0].split("?", 1)[0]
    base = page.url.split("/games/", 1)[0]
    page.goto(f"{base}/games/{game}{path}")
    page.wait_for_selector(".table")


def buy(page, player: int, square: str) -> None:
    """From any view of the game: the player's chip, « Buy… », the square at its printed price (one tap each);
    back on the player's view, the square among theirs."""
    page.click(f"#chip-{player}")
    answered(page)
    page.click("#to-buy")
    answered(page)
    page.click(f"#buy-grid button[value='{square}']")
    answered(page)
    page.wait_for_selector(f"#holdings a:has-text('{square}')")


def tap(page, square: str, value: str) -> None:
    """One correction made without paying on a square's view (``residential=3``, ``skyscraper=1``), among its
    folded corrections (the bank's taps are test_web_bank_browser.py's); the view comes back."""
    view(page, f"/square/{square}")
    page.locator("#fix-square").evaluate("details => { details.open = true; }")
    page.click(f"#fix-square button[value='{value}']")
    answered(page)


def shown_fortunes(page) -> dict[str, int]:
    rows = page.query_selector_all("#ranking tbody tr")
    return {row.get_attribute("data-player"): int(row.get_attribute("data-fortune")) for row in rows}


def wait_for_unit(page: Any) -> None:
    """The live stream is open and the unit is there (no wait_for_function: the page's CSP forbids eval)."""
    page.wait_for_selector("body[data-stream='unit']", state="attached")
    page.wait_for_selector("#nounit", state="hidden")


def csrf(client: Any, path: str = "/editions") -> str:
    """The CSRF token a page at ``path`` gives its forms."""
    found = re.search(r'data-csrf="([^"]+)"', client.get(path).text)
    assert found is not None, f"no CSRF token on {path}"
    return found.group(1)


def version(client: Any, name: str = "ma-ville") -> str:
    """The version an edition's card page shows (what a save must name)."""
    found = re.search(r'name="version" value="([^"]*)"', client.get(f"/editions/{name}/card").text)
    assert found is not None, f"no version on the card page of {name}"
    return found.group(1)


def bank_flow(entries: Iterable[Entry]) -> int:
    """What the bank paid the players, net, over ``entries``: the players' cash moved by that much (the tests'
    measure of money conserved: the bank's actions move cash between players, or to and from the bank, only)."""
    flow = 0
    for entry in entries:
        for p in entry.payments:
            if p.payer is None and p.payee is not None:
                flow += p.amount
            elif p.payee is None and p.payer is not None:
                flow -= p.amount
    return flow


# --- what a page asks of a thumb and of a screen reader (issue 27 item 6) ----------------------------------

#: The smallest target a thumb hits at a table (CSS px, both dimensions): WCAG 2.5.5's 44.
THUMB = 44
#: What a person taps: a checkbox or a radio wrapped in its label is tapped through the label (measured there).
CONTROLS = "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]"
_TARGETS = """(selector) => {
  const seen = [];
  for (const element of document.querySelectorAll(selector)) {
    let target = element;
    const label = element.closest("label");
    if (element.matches("input[type=checkbox], input[type=radio]") && label) target = label;
    if (!target.getClientRects().length || getComputedStyle(target).visibility === "hidden") continue;
    if (target !== element && seen.some((s) => s.el === target)) continue;
    const box = target.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // visually hidden (a radio under its label)
    const words = (target.textContent || target.value || "").trim().replace(/\\s+/g, " ").slice(0, 30);
    const name = (target.id ? "#" + target.id : target.tagName.toLowerCase()) + " " + words;
    const round = (n) => Math.round(n * 10) / 10;
    seen.push({ el: target, name: name, width: round(box.width), height: round(box.height) });
  }
  return seen.map((s) => [s.name, s.width, s.height]);
}"""


def small_targets(page: Any) -> list[tuple[str, float, float]]:
    """Every control the page shows that is under :data:`THUMB` CSS px wide or high: (which, width, height)."""
    return [tuple(t) for t in page.evaluate(_TARGETS, CONTROLS) if t[1] < THUMB or t[2] < THUMB]


def axe_violations(page: Any) -> list[str]:
    """axe-core's violations of every impact on the page as it is shown, one line each (rule, impact, where):
    axe-core from the ``axe-playwright-python`` package (its bundled axe.min.js: nothing is fetched)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"resultTypes": ["violations"]}).response
    return [
        f"{v['id']} ({v['impact']}): {node['target']} {node.get('failureSummary', '')[:160]!r}"
        for v in results["violations"]
        for node in v["nodes"]
    ]


def assert_accessible(page: Any, what: str = "") -> None:
    """0 axe-core violations and every control at least :data:`THUMB` CSS px both ways (issue 27 item 6)."""
    where = what or page.url
    violations = axe_violations(page)
    assert not violations, f"{where}: axe-core: " + "\n".join(violations)
    small = small_targets(page)
    assert not small, f"{where}: controls under {THUMB} CSS px: {small}"


def without_revision(text: str | bytes) -> str:
    """A game file's text without its ``revision:`` line: every write adds one to it (a version never repeats), so
    a file undone back to where it was is that file but for this line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return re.sub(r"(?m)^revision: \d+\n", "", text)
