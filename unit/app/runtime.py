"""The real-time loop that feeds the core, and the interface every backend implements.

One loop, one thread: it sleeps until the core's next deadline or an input,
whichever comes first (no polling, no chained ``sleep(1)``), on
``time.monotonic()``. Inputs from any thread (gpiozero callbacks, a scripted
press) only enqueue; the loop is the only caller of the core. What the core
returns goes to the backend, which only translates it for its hardware or
window, and to the trace.

The split follows gpiozero's devices and pins: :class:`Runtime` is the device
logic, written once; a :class:`Backend` is the pin factory, one per kind of
hardware.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from unit.app.persist import GameStore
from unit.app.settings import SettingsStore
from unit.app.wifi import ACTIONS as WIFI_ACTIONS
from unit.app.wifi import WifiRequests
from unit.backends.base import STOP, Backend, Clock, Stop
from unit.core import (
    DisplayChanged,
    Event,
    LedChanged,
    Output,
    ScreenChanged,
    SettingsChanged,
    SoundPlayed,
    StateChanged,
    SystemRequested,
    Unit,
)
from unit.core.clock import EPSILON
from unit.core.evening import Tally
from unit.notify import Notifier

if TYPE_CHECKING:
    from unit.app.scenario import Step  # scenarios are read by the commands that play one
    from unit.app.trace import TraceSink  # the records themselves only where one is written (the protocol: 8 ms)

log = logging.getLogger(__name__)

#: Seconds between saves of a running game, besides one at each change of state: what a restart may lose
#: when no clock measured the outage (docs/reliability.md: about 720 small writes an hour).
SAVE_EVERY = 5.0
#: A save (the game's, or the settings') waits until no core deadline is this close: the SD card must
#: not delay the LED.
SAVE_CLEARANCE = 0.1


@dataclass(frozen=True)
class Job:
    """Work another thread hands to the loop, to run there with the input's time (the loop is the core's
    only caller): a phone's settings, a pairing code to show. ``what`` names it in the log if it fails."""

    what: str
    run: Callable[[float], None]


Input = Event | Stop | Job


class Runtime:
    """Runs a :class:`~unit.core.Unit` in real time on a :class:`Backend`.

    ``script`` plays scripted inputs at their times after the start;
    ``until`` ends the run that many seconds after the start. With a
    ``store`` the game in progress survives a power cut; ``notifier`` tells
    systemd when the unit is ready and that its loop is alive, and ``on_ready``
    is called once it has.
    """

    def __init__(
        self,
        unit: Unit,
        backend: Backend,
        *,
        clock: Clock = time.monotonic,
        trace: TraceSink | None = None,
        script: list[Step] | None = None,
        until: float | None = None,
        store: GameStore | None = None,
        notifier: Notifier | None = None,
        settings: SettingsStore | None = None,
        on_ready: Callable[[], None] | None = None,
        wifi: WifiRequests | None = None,
    ):
        self.unit = unit
        self.backend = backend
        self.clock = clock
        self.trace = trace
        self.script = list(script or [])
        self.until = until
        self.store = store
        self.settings = settings  # where the settings menu's choices are saved
        self.wifi = wifi  # where the menu's « box's Wi-Fi » goes (None: nowhere, and the log says so)
        self.notifier = notifier if notifier is not None else Notifier({})
        self.on_ready = on_ready  # called once READY=1 is sent (the launch ends its start-up pause)
        self.inputs: queue.SimpleQueue[tuple[float, Input]] = queue.SimpleQueue()
        self.start = 0.0
        self._next_save: float | None = None
        self._settings_due: SettingsChanged | None = None  # a choice not yet written (the newest wins)
        self._next_settings_save: float | None = None
        self._next_ping: float | None = None
        self._core_due: float | None = None  # the core's next deadline, as the last next_wake() found it
        self._core_called = True  # the core was called since: its next deadline must be asked again
        self.stopped = False
        self._pumps = type(backend).wait is not Backend.wait

    # --- inputs, from any thread ------------------------------------------------------------

    def post(self, event: Input) -> None:
        """Enqueue an input (or a :class:`Job`), stamped with the time it happened. Safe from any thread."""
        self.inputs.put((self.clock(), event))

    def stop(self) -> None:
        """Ask the loop to end. Safe from any thread and from signal handlers."""
        self.inputs.put((self.clock(), STOP))

    # --- the loop -------------------------------------------------------------------------------

    def open(self) -> None:
        self.backend.open(self.post, self.clock)
        # Time zero is when the hardware is ready: scripted times and the trace count from here.
        self.start = self.backend.started = self.clock()
        if not self._resume():
            self.apply(self.start, self.unit.start(self.start))  # the welcome screen and its chime
        self.notifier.notify("READY=1")  # the hardware is open
        if self.on_ready is not None:
            self.on_ready()
        self.backend.ready()  # then what may come a moment later: the display
        if self.notifier.watchdog_interval:
            self._next_ping = self.start

    def run(self) -> None:
        """Open the backend, loop until stopped, close the backend."""
        try:
            self.open()
            while not self.stopped:
                self.step()
        finally:
            self.notifier.notify("STOPPING=1")
            self._write_settings()  # a choice made just before the end is not lost
            self.backend.close()  # also after an open that failed halfway: the backend releases what it claimed

    def _resume(self) -> bool:
        """Carry on a game that a power cut interrupted, if it was short and the game not over.

        A game that was over, or an outage longer than ``power.resume_within_minutes``,
        is not resumed: the unit starts at the welcome screen, and the log and the
        trace (a ``not_resumed`` line) say why. A wall clock that went backwards
        cannot tell how long the outage was: the game resumes, as before.
        """
        if self.store is None:
            return False
        saved = self.store.load()
        if saved is None:
            return False
        played = self.store.resume_elapsed(saved)
        if played > saved.played:  # the outage counted up to now: the game clock restarts at time zero
            played = max(saved.played, played - (self.clock() - self.start))
        off = self.store.outage(saved)  # None: no trustworthy clock could tell (resumed, as before)
        limit = self.unit.config.power.resume_within_minutes * 60
        over = saved.state == "time_up" or (saved.minutes is not None and played >= saved.minutes * 60)
        why = "over" if over else "too_long" if off is not None and off > limit else None
        if why is not None:
            if why == "over":
                log.warning("not resuming the saved game: it was over (%.0f s played)", played)
            else:
                assert off is not None
                log.warning(
                    "not resuming the saved game: the power was out %.0f min (at most %g)", off / 60, limit / 60
                )
            if self.trace is not None:
                from unit.app.trace import write_typed
                from unit.core.protocol import NotResumedRecord

                minutes = None if off is None else round(off / 60, 1)
                write_typed(self.trace, NotResumedRecord(0.0, why, minutes))
            self.store.clear()
            return False
        log.warning("resuming the game: %.0f s already played", played)
        if self.trace is not None:
            from unit.app.trace import write_typed
            from unit.core.protocol import ResumeRecord

            write_typed(self.trace, ResumeRecord(0.0, round(played, 3)))
        tally = Tally.from_dict(saved.counts)
        self.apply(self.start, self.unit.power_on(self.start, played=played, tally=tally))
        return True

    def next_wake(self) -> float | None:
        """The earliest of the core's deadline, the next scripted input, the end and the backend's.

        Asked at every wake-up, cold (a countdown's loop wakes twice a second): a few comparisons, no list.
        The core is asked only if it was called since (the loop is its only caller): a wake-up for the
        backend alone leaves its deadlines as they were.
        """
        if self._core_called:
            self._core_due, self._core_called = self.unit.next_deadline(), False
        wake = self._core_due
        script = self.start + self.script[0].at if self.script else None
        end = None if self.until is None else self.start + self.until
        for due in (
            self.backend.next_deadline(),
            self._next_save,
            self._next_ping,
            self._next_settings_save,
            script,
            end,
        ):
            if due is not None and (wake is None or due < wake):
                wake = due
        return wake

    def step(self, max_wait: float | None = None) -> None:
        """Sleep until the next deadline or input (at most ``max_wait`` s), then act on what is due.

        A wake-up for the backend alone (the LED's blink between two seconds of a countdown) leaves the core
        alone: no input came, and none of its deadlines is due (as :meth:`Unit.advance` would find).
        """
        wake = self.next_wake()
        timeout = None if wake is None else max(0.0, wake - self.clock())
        if max_wait is not None:
            timeout = max_wait if timeout is None else min(timeout, max_wait)
        inputs = self._wait(timeout)
        if inputs:
            self._core_called = True  # an input, or a job (which may call the core)
        for at, event in inputs:
            if isinstance(event, Stop):
                self.stopped = True
                return
            if isinstance(event, Job):
                self._run(event, at)
                continue
            self.apply(at, self.unit.handle(event, at))
        now = self.clock()
        due = self._core_due
        if inputs:
            self.apply(now, self.unit.advance(now))
        elif due is not None and due <= now + EPSILON:
            # What a deadline changes counts from the deadline: a blink the warning starts keeps the core's grid
            # (its edges ride the core's seconds), not the moment the loop happened to wake just after it.
            self.apply(now, self.unit.advance(now), led_from=due)
        while self.script and self.start + self.script[0].at <= now:
            self.backend.inject(self.script.pop(0).event)
        if self.until is not None and now >= self.start + self.until:
            self.stopped = True
        if self._next_save is not None and now >= self._next_save:
            if (later := self._clear_of_deadlines(now)) is not None:
                self._next_save = later
            else:
                self._save(now)
        if self._next_settings_save is not None and now >= self._next_settings_save:
            if (later := self._clear_of_deadlines(now)) is not None:
                self._next_settings_save = later
            else:
                self._write_settings()
        if self._next_ping is not None and now >= self._next_ping:
            self.notifier.notify("WATCHDOG=1")  # from the loop itself: a hung loop stops the pings
            self._next_ping = now + (self.notifier.watchdog_interval or 0.0)
        self.backend.tick(now)

    def _run(self, job: Job, at: float) -> None:
        """Run a job on the loop; a bug in it is logged, it must not stop the unit."""
        try:
            job.run(at)
        except Exception:
            log.exception("a job on the loop failed: %s", job.what)

    def _wait(self, timeout: float | None) -> list[tuple[float, Input]]:
        """Inputs that arrive within ``timeout`` seconds (all that are queued, at least one if any)."""
        got: list[tuple[float, Input]] = []
        if self._pumps:
            # The window's events are posted to the queue meanwhile; a queued input must not wait.
            self.backend.wait(0.0 if not self.inputs.empty() else timeout)
        else:
            try:
                got.append(self.inputs.get(timeout=timeout))
            except queue.Empty:
                return got
        while True:
            try:
                got.append(self.inputs.get_nowait())
            except queue.Empty:
                return got

    def apply(self, at: float, outputs: list[Output], led_from: float | None = None) -> None:
        """Hand the core's outputs to the trace and the backend.

        The LED and the buzzer go first: they cost nothing, while a frame can hold the I2C bus for
        about 93 ms on a Pi and saving the game waits for the SD card. A blink counts from ``led_from``
        (the deadline that set it) when given, else from ``at``.
        """
        self._core_called = True  # outputs come from a call of the core: its deadlines may have moved
        if not outputs:
            return
        if self.trace is not None:
            self.trace.write(max(0.0, at - self.start), outputs)
        for output in outputs:
            if isinstance(output, LedChanged):
                self.backend.set_led(output, at if led_from is None else led_from)
            elif isinstance(output, SoundPlayed):
                self.backend.play(output)
            elif isinstance(output, DisplayChanged):
                self.backend.set_display(output)
            elif isinstance(output, SettingsChanged):
                self._save_settings(output)
        for output in outputs:
            if isinstance(output, ScreenChanged):
                self.backend.show(output.view)
        for output in outputs:
            if isinstance(output, SystemRequested) and output.action in WIFI_ACTIONS:
                # Only from the menu, with no game running: a few milliseconds of writing time nothing.
                if self.wifi is None or not self.wifi.ask(output.action):
                    log.info("the box's Wi-Fi was asked %s: nothing here makes one", output.action)
            elif isinstance(output, SystemRequested):  # after the shutdown screen is up
                log.info("system action requested: %s", output.action)
                if self.backend.request(output.action):
                    self.stopped = True
        if self.store is not None and any(isinstance(o, StateChanged) for o in outputs):
            self._save(at)

    def _clear_of_deadlines(self, now: float) -> float | None:
        """None when the loop may write a file now; else when to try again (just after the close deadline).

        The backend's deadlines count too: the gpio backend's LED blinks from this loop."""
        due = [d for d in (self.unit.next_deadline(), self.backend.next_deadline()) if d is not None]
        if due and min(due) - now < SAVE_CLEARANCE:
            return min(due) + 0.001  # right after it, when the loop is idle again
        return None

    def _save_settings(self, change: SettingsChanged) -> None:
        """A choice in the settings menu (or from a phone): the backend follows it at once, the file soon.

        The write waits for a moment clear of the core's deadlines, like the game's
        saves: a phone may change a setting during an auction.
        """
        self.backend.retune(self.unit.config)
        if self.settings is not None:
            self._settings_due = change
            self._next_settings_save = self.clock()

    def _write_settings(self) -> None:
        change, self._settings_due, self._next_settings_save = self._settings_due, None, None
        if change is None or self.settings is None:
            return
        if change.reset:
            self.settings.clear()
        else:
            self.settings.save(change.choices)

    def _save(self, now: float) -> None:
        """Save the running game, or forget it once switched off on purpose."""
        if self.store is None:
            return
        if self.unit.state == "off" or self.unit.game is None:
            self.store.clear()
            self._next_save = None
            return
        # Played as of this instant: the store stamps the save with its clocks right away.
        played = self.unit.game.played(self.clock())
        self.store.save(played, self.unit.config.game.minutes, self.unit.state, counts=self.unit.tally.as_dict())
        self._next_save = now + SAVE_EVERY
