"""The composition root of ``monopoly-city run``: the unit put together from what the command line asked.

``unit/cli.py`` parses the command line, reads the configuration (``--config``, ``--lang``) and says
errors; here the parts are chosen and wired: the settings menu's file over that configuration, the saved
game, the trace, the backend from the registry (:mod:`unit.backends`) with the gpiozero pin factory it
drives (chosen here, never looked up by the backend), the phone link and the runtime; then the runtime
runs, and everything is closed in the reverse order.

Everything is imported where it is used: on the way to READY=1 only what the chosen backend needs is
loaded (``tests/test_startup.py``). The phone link (its protocol, its words, its socket) comes just after
READY=1: made on a thread of its own, then handed the records written so far (:class:`Backlog`) on the
loop, so that its snapshot is the one it would have folded from the first line.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from unit import i18n
from unit.errors import Text, UserError

if TYPE_CHECKING:
    from unit.app.link import Link
    from unit.app.runtime import Runtime
    from unit.app.scenario import Scenario
    from unit.app.signals import StopSignals
    from unit.app.trace import TraceSink, TraceWriter
    from unit.backends.base import Backend
    from unit.core import Output
    from unit.core.settings import Config

log = logging.getLogger(__name__)

#: The game in progress and the settings menu's choices on a Pi (systemd/monopoly-city-unit.service's).
DEFAULT_PI_STATE_DIR = "/var/lib/monopoly-city"


def end_startup_pause() -> None:
    """Resume the garbage collector that ``unit.__main__`` paused for the start-up (nothing if it runs).

    What the start-up made lives as long as the program: it is frozen (no collection walks it again) rather
    than collected (about 10 ms here, for a few hundred objects).
    """
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def is_raspberry_pi() -> bool:
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as file:
            return "Raspberry Pi" in file.read()
    except OSError:
        return False


def default_state_dir() -> str:
    """Where ``run`` keeps its state, and opens the phone companion's socket, without ``--state-dir`` on this
    machine: the service's folder on a Raspberry Pi (the gpio backend), else the user's configuration folder
    (the emulator or the terminal: ``make run``). ``serve`` looks there too."""
    if is_raspberry_pi():
        return DEFAULT_PI_STATE_DIR
    from unit.app.settings import user_config_dir

    return str(user_config_dir())


def default_backend() -> str:
    """The real hardware on a Raspberry Pi, the emulator window where there is a display, else the terminal."""
    if is_raspberry_pi():
        return "gpio"
    from unit.backends.emulator import has_display

    return "emulator" if has_display() else "terminal"


def default_pins() -> str:
    """gpiozero's pin factory: lgpio on a Raspberry Pi, the mock pins anywhere else."""
    return "lgpio" if is_raspberry_pi() else "mock"


class Backlog:
    """The runtime's trace sink until the phone link takes over, just after READY=1.

    Each call goes on to the ``--trace`` file at once (its lines keep their order with the pins' records)
    and is kept, to be played to the link (:meth:`hand_over`), so that its snapshot is the one it would
    have folded had it been the sink from the first line. Written and handed over on the loop only.
    """

    def __init__(self, trace: TraceSink | None) -> None:
        self.trace = trace
        self.calls: list[tuple[float, list[Output]] | dict[str, Any]] = []

    def write(self, t: float, outputs: Iterable[Output]) -> None:
        outputs = list(outputs)
        if self.trace is not None:
            self.trace.write(t, outputs)
        self.calls.append((t, outputs))

    def write_record(self, obj: dict[str, Any]) -> None:
        if self.trace is not None:
            self.trace.write_record(obj)
        self.calls.append(obj)

    def hand_over(self, link: Link) -> None:
        """Play what was written to ``link`` (made without the trace file, which has it all already)."""
        for call in self.calls:
            if isinstance(call, dict):
                link.write_record(call)
            else:
                link.write(*call)
        self.calls = []
        link.trace = self.trace

    def give_up(self, runtime: Runtime) -> None:
        """No link after all: the runtime writes to the trace file alone, and nothing more is kept."""
        runtime.trace = self.trace
        self.calls = []


@dataclass(frozen=True)
class Request:
    """What ``run`` was asked for besides the configuration (None: the default for this machine)."""

    backend: str | None = None
    pins: str | None = None  # gpio: lgpio or mock
    state_dir: str | None = None
    seed: int | None = None
    trace: str | None = None  # a file, or - for stdout
    frames: str | None = None  # headless
    screenshot: str | None = None  # emulator


class Launch:
    """One ``run``: the parts it made (and must close), each decided once.

    :meth:`run` composes and runs; the attributes stay readable afterwards (the tests look at the
    backend, the runtime and the pin factory).
    """

    def __init__(self, config: Config, request: Request, scenario: Scenario | None = None) -> None:
        self.config = config  # --config (and --lang, and the scenario's block): what « factory settings » restores
        self.request = request
        self.scenario = scenario
        self.backend_name = request.backend or default_backend()
        self.pins = request.pins or default_pins()
        self.state_dir = self._state_dir()
        self.trace_file: IO[str] | None = None
        self.pin_factory: Any = None
        self.backend: Backend | None = None
        self.link: Link | None = None  # the phones' link, made just after READY=1 when there is a state folder
        self._link_thread: threading.Thread | None = None
        self.signals: StopSignals | None = None  # SIGTERM and Ctrl-C's wake-up pipe, while the runtime runs

    def _state_dir(self) -> str | None:
        """--state-dir, else the Pi service's folder on real pins, else (the emulator on a laptop) the user's."""
        state_dir = self.request.state_dir
        if state_dir is None and self.backend_name == "gpio" and self.pins == "lgpio":
            state_dir = DEFAULT_PI_STATE_DIR
        elif state_dir is None and self.backend_name in ("emulator", "terminal") and not self.scenario:
            from unit.app.settings import user_config_dir

            state_dir = str(user_config_dir())  # a laptop: the settings menu's choices are kept there (and serve's)
        # Absolute paths now: importing lgpio may chdir() the whole process (to $LG_WD).
        return os.path.abspath(state_dir) if state_dir else None

    def run(self) -> int:
        """Compose the unit, run it until it stops, release everything; the exit status.

        A shutdown that failed (no polkit, say) must not leave the unit ended on « ARRÊT… »: exit 1 and
        systemd (Restart=on-failure) starts it again, switched off and ready.
        """
        try:
            self._run()
        finally:
            self._close()
        return 1 if getattr(self.backend, "shutdown_failed", False) else 0

    def _run(self) -> None:
        import random
        import signal

        from unit.app.persist import GameStore
        from unit.app.runtime import Runtime
        from unit.app.settings import SettingsStore
        from unit.app.signals import StopSignals
        from unit.app.wifi import WifiRequests
        from unit.core import Unit
        from unit.notify import Notifier

        request, scenario, state_dir = self.request, self.scenario, self.state_dir
        settings = SettingsStore(state_dir) if state_dir else None
        config = settings.apply(self.config) if settings is not None else self.config
        steps = scenario.steps(config) if scenario else None
        seed = request.seed if request.seed is not None else (scenario.seed if scenario else None)
        trace = self._open_trace(config.language)
        self.backend = backend = self._make_backend(config, trace)
        # The phone companion's socket (monopoly-city serve) lives in the state folder: the link comes just
        # after READY=1, and is handed what the runtime wrote before.
        backlog = Backlog(trace) if state_dir else None
        runtime = Runtime(
            Unit(config, random.Random(seed), factory=self.config),
            backend,
            trace=backlog if backlog is not None else trace,  # then the link, which writes the trace on, and more
            script=steps,
            until=scenario.until if scenario else None,
            store=GameStore(state_dir) if state_dir else None,
            notifier=Notifier(),
            settings=settings,
            on_ready=lambda: self._ready(runtime, backlog, config.language),
            wifi=WifiRequests(state_dir) if state_dir else None,
        )
        signal.signal(signal.SIGTERM, lambda *_: runtime.stop())
        if self.backend_name == "headless" and not scenario:  # say why nothing happens
            words = i18n.words(config.language)
            print(f"monopoly-city: {words('cli.headless_waits')}", file=sys.stderr, flush=True)
        # A signal noted just before the loop sleeps would wait for its next wake, for ever with no deadline:
        # the wake-up pipe turns each into an input on the loop's queue (unit/app/signals.py); read from READY=1.
        self.signals = StopSignals(runtime.stop)
        try:
            runtime.run()
        finally:
            self.signals.close()
            if self._link_thread is not None:
                self._link_thread.join(30)  # a link being made: made, then closed
            if self.link is not None:
                self.link.close()

    def _ready(self, runtime: Runtime, backlog: Backlog | None, language: str) -> None:
        """READY=1 is sent (on the loop): the collector resumes, the signals' pipe is read, and the phone link
        is made on its own thread (all before the loop's first wait)."""
        end_startup_pause()
        if self.signals is not None:
            self.signals.start()
        if backlog is not None and self.state_dir:
            state_dir = self.state_dir
            self._link_thread = threading.Thread(
                target=self._make_link, args=(runtime, backlog, state_dir, language), name="link-open", daemon=True
            )
            try:
                self._link_thread.start()
            except RuntimeError:  # "can't start new thread" (TasksMax): the unit keeps its time without the phones
                log.exception("the phone link could not be started: the unit goes on without the phones")
                self._link_thread = None
                backlog.give_up(runtime)

    def _make_link(self, runtime: Runtime, backlog: Backlog, state_dir: str, language: str) -> None:
        """Import and make the link (its protocol, words, pairing file) off the loop, then attach it on the loop:
        handed the backlog, it becomes the runtime's trace sink and listens on its socket."""
        from unit.app.runtime import Job

        try:
            from unit.app.link import Link

            self.link = link = Link(state_dir, language)
        except Exception:  # a bug: the unit keeps its time without the phones
            log.exception("the phone link could not be made: the unit goes on without the phones")
            runtime.post(Job("no phone link", lambda at: backlog.give_up(runtime)))
            return

        def attach(at: float) -> None:
            try:
                link.attach(runtime)
                backlog.hand_over(link)
                runtime.trace = link
                link.start()
            except Exception:  # a bug: the trace file alone, and the backlog no longer kept (it would grow all evening)
                log.exception("the phone link could not be attached: the unit goes on without the phones")
                backlog.give_up(runtime)
                link.close()

        runtime.post(Job("the phone link", attach))

    def _open_trace(self, language: str) -> TraceWriter | None:
        """--trace: the JSON Lines trace, to a file or to stdout (which the terminal backend needs for itself)."""
        name = self.request.trace
        if self.backend_name == "terminal" and name == "-":
            raise UserError("--trace -", Text("cli.terminal_owns_stdout"))
        if not name:
            return None
        from unit.app.trace import TraceWriter

        self.trace_file = sys.stdout if name == "-" else open_for_writing(name, "trace")
        return TraceWriter(self.trace_file, language, flush=True, name=name)

    def _make_backend(self, config: Config, trace: TraceWriter | None) -> Backend:
        """The backend from the registry; for gpio, with the pin factory made here."""
        from unit import backends
        from unit.backends.base import Setup

        request = self.request
        frames = os.path.abspath(request.frames) if request.frames else None
        if frames:
            make_folder(frames, "frames")
        screenshot = os.path.abspath(request.screenshot) if request.screenshot else None
        if self.backend_name == "gpio":  # the launch decides the pins, the backend drives them
            from unit.backends.gpio import pin_factory

            self.pin_factory = pin_factory(self.pins)
        setup = Setup(config, trace=trace, pin_factory=self.pin_factory, frames=frames, screenshot=screenshot)
        return backends.create(self.backend_name, setup)

    def _close(self) -> None:
        if self.pin_factory is not None:
            from unit.backends.gpio import close_calmly

            close_calmly(self.pin_factory, "the GPIO chip")  # after the backend's close (in Runtime.run)
        if self.trace_file not in (None, sys.stdout):
            assert self.trace_file is not None
            try:
                self.trace_file.close()
            except OSError:
                pass  # already reported once by the trace writer


def run(config: Config, request: Request, scenario: Scenario | None = None) -> int:
    """``monopoly-city run``: compose the unit from ``config`` and ``request``, run it; the exit status."""
    return Launch(config, request, scenario).run()


def open_for_writing(path: str, what: str) -> IO[str]:
    """``path`` opened for writing, or one line naming it and why not."""
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UserError(path, Text("cli.cannot_write", what=Text(f"cli.{what}"), why=exc.strerror or exc)) from None


def make_folder(path: str, what: str) -> None:
    """Make the folder ``path`` (and its parents), or one line naming it and why not."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise UserError(path, Text("cli.not_a_folder", what=Text(f"cli.{what}"))) from None
    except OSError as exc:
        raise UserError(
            path, Text("cli.cannot_create_folder", what=Text(f"cli.{what}"), why=exc.strerror or exc)
        ) from None
