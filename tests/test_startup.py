"""A fast start on a slow Pi (issue 12): what `run` leaves until after READY=1, checked without a clock.

benchmarks/startup.py measures the time; these tests pin down what makes it: on the way to READY=1 the
unit loads the buttons, the LED and the buzzer, and nothing it can do without. Just after, the display's
thread imports PIL and luma, opens the OLED and draws the first frame, and the phone link is made on a
thread of its own and handed what the unit wrote before it (its snapshot as if it had been there).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from unit.app import config as configuration
from unit.app.launch import end_startup_pause
from unit.app.pairing import PAIRING_FILE
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.core import Unit, views

ROOT = Path(__file__).resolve().parent.parent

#: Loaded by `run` only after READY=1, or by other commands: the display (PIL, luma), the phone link (its
#: protocol, its words, its pairing), the entry points gpiozero never looks up here (importlib.metadata,
#: and email with it), scenarios, the calculator and the web service.
NOT_BEFORE_READY = (
    "unit.app.link",
    "unit.app.linkserver",
    "unit.app.pairing",
    "unit.core.protocol",
    "unit.app.trace",
    "tomllib",  # the words: the link's, for the phones
    "PIL",
    "luma",
    "unit.backends.oled",
    "importlib.metadata",
    "importlib_metadata",
    "importlib.resources",  # gpiozero's fonts: only for a segment display
    "tempfile",  # only to write a file, and nothing is written before READY=1 (lgpio's pins take LG_WD from it)
    "email",
    "secrets",
    "hmac",
    "unit.app.scenario",
    "unit.calculator",
    "unit.web",
    "difflib",  # a suggestion for a name not found: only on an error
)

#: Runs `monopoly-city run` as the service does (its --config and --state-dir), on mock pins, and prints
#: the modules loaded and the threads running at the moment READY=1 is sent; then ends the run there.
AT_READY = """
import json, sys, threading
from unit import notify
def at_ready(self, state):
    if state == "READY=1":
        print(json.dumps({"modules": sorted(sys.modules), "threads": [t.name for t in threading.enumerate()]}))
        raise SystemExit(0)
notify.Notifier.notify = at_ready
from unit.cli import main
main(sys.argv[1:])
"""


def at_ready(state_dir: Path) -> dict:
    argv = ["run", "--backend", "gpio", "--pins", "mock", "--config", str(ROOT / "systemd" / "config.yaml")]
    argv += ["--state-dir", str(state_dir)]
    done = subprocess.run([sys.executable, "-c", AT_READY, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_run_path_up_to_ready_loads_nothing_it_can_do_without(tmp_path):
    (tmp_path / PAIRING_FILE).write_text(json.dumps({"generation": "0123456789abcdef"}))  # not the first start
    seen = at_ready(tmp_path)
    modules = seen["modules"]
    loaded = [name for name in modules if any(name == m or name.startswith(m + ".") for m in NOT_BEFORE_READY)]
    assert loaded == []
    assert {"gpiozero", "gpiozero.pins.mock", "unit.app.persist", "unit.app.settings"} <= set(modules)
    assert "display" not in seen["threads"] and "link-accept" not in seen["threads"]  # both just after
    assert "buzzer" in seen["threads"]


#: `python -m unit run` as the service starts it: whether the garbage collector runs at READY=1, and once open.
GC_AROUND_READY = """
import gc, json, sys
from unit import notify
from unit.app import runtime
seen = {}
real_notify, real_open = notify.Notifier.notify, runtime.Runtime.open
def notify_(self, state):
    seen.setdefault("at_ready", gc.isenabled())
    real_notify(self, state)
def open_(self):
    real_open(self)
    seen["open"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()
    print(json.dumps(seen))
    raise SystemExit(0)
notify.Notifier.notify, runtime.Runtime.open = notify_, open_
from unit.__main__ import main
main()
"""


def test_the_start_up_pauses_the_garbage_collector_until_ready_then_freezes_what_it_made(tmp_path):
    """The start's objects live as long as the program: no collection walks them on the way to READY=1;
    then they are frozen (never walked again) and collections resume."""
    argv = ["run", "--backend", "gpio", "--pins", "mock", "--state-dir", str(tmp_path)]
    done = subprocess.run([sys.executable, "-c", GC_AROUND_READY, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["at_ready"] is False and seen["open"] is True and seen["frozen"] > 10_000


def test_only_a_paused_collector_is_resumed_and_frozen():
    """In a process that never paused it (the tests, a program calling unit.cli.main), nothing is frozen."""
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    end_startup_pause()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.disable()
    try:
        end_startup_pause()
        assert gc.isenabled() and gc.get_freeze_count() > frozen
    finally:
        gc.enable()
        gc.unfreeze()


def test_simulate_loads_neither_the_hardware_nor_the_link_nor_a_suggestion():
    """`simulate` needs the core, the configuration and the trace: not gpiozero, PIL, the phone link or difflib."""
    code = "import sys; from unit.__main__ import main; main(); print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    scenario = ROOT / "docs" / "examples" / "demo-game.yaml"
    done = subprocess.run(
        [sys.executable, "-c", code, "simulate", str(scenario)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    modules = set(done.stderr.split())
    assert "unit.core" in modules and "unit.app.simulate" in modules
    for name in ("gpiozero", "PIL", "luma", "unit.app.link", "unit.app.linkserver", "difflib"):
        assert name not in modules, name


#: `monopoly-city run` as the service starts it, ended once the phone link listens (just after READY=1): what
#: the link's snapshot holds then, and whether READY=1 came first.
AT_LINK = """
import json, sys
from unit import notify
from unit.app import link
said = []
real_notify, real_start = notify.Notifier.notify, link.Link.start
notify.Notifier.notify = lambda self, state: (said.append(state), real_notify(self, state))
def start(self):
    listening = real_start(self)
    snapshot = self.snapshot
    print(json.dumps({"said": said, "listening": listening, "state": snapshot.state, "screen": snapshot.screen.text,
                      "led": snapshot.led.mode, "settings": snapshot.settings is not None}))
    raise SystemExit(0)
link.Link.start = start
from unit.cli import main
main(sys.argv[1:])
"""


def test_just_after_ready_the_link_listens_with_the_snapshot_of_the_first_line(tmp_path):
    """The link is made after READY=1 and handed what the unit wrote before: its snapshot has the welcome
    screen, as when it was the runtime's trace sink from the first line."""
    argv = ["run", "--backend", "gpio", "--pins", "mock", "--config", str(ROOT / "systemd" / "config.yaml")]
    argv += ["--state-dir", str(tmp_path)]
    done = subprocess.run([sys.executable, "-c", AT_LINK, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["said"] == ["READY=1"] and seen["listening"] is True
    assert seen["state"] == "off" and seen["led"] == "off" and seen["settings"]
    assert seen["screen"].startswith("MONOPOLY CITY")  # the welcome screen, written before READY=1


def test_the_first_start_writes_the_pairing_file(tmp_path):
    """The first start ever generates the phones' pairing generation, just after READY=1 (the link's)."""
    argv = ["run", "--backend", "gpio", "--pins", "mock", "--state-dir", str(tmp_path)]
    done = subprocess.run([sys.executable, "-c", AT_LINK, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / PAIRING_FILE).read_text())["generation"]


def test_gpiozero_still_finds_pin_factories_by_name():
    """gpiozero is imported without importlib.metadata, which it gets when it looks an entry point up."""
    code = (
        "import sys; from unit.backends.gpio import pin_factory; pin_factory('mock').close(); "
        "assert 'importlib.metadata' not in sys.modules and 'importlib_metadata' not in sys.modules; "
        "from gpiozero import LED, Device; from gpiozero.pins.mock import MockFactory; "
        "MockFactory(pin_class='mockpwmpin').close(); LED(5).close(); "  # names: entry points
        "print(type(Device.pin_factory).__name__, 'importlib.metadata' in sys.modules)"
    )
    env = {"GPIOZERO_PIN_FACTORY": "mock", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MockFactory", "True"]


def test_gpiozero_still_reads_its_fonts():
    """gpiozero is imported without importlib.resources, which it gets when it reads a segment display's font."""
    code = (
        "import sys; from unit.backends.gpio import pin_factory; pin_factory('mock').close(); "
        "assert 'importlib.resources' not in sys.modules and 'tempfile' not in sys.modules; "
        "from gpiozero import boards; "
        "font = boards.resources.files('gpiozero.fonts').joinpath('7seg.txt').read_text(); "
        "print(len(font.splitlines()) > 3, 'importlib.resources' in sys.modules, 'importlib_resources' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "False"]


def test_the_display_opens_after_ready_and_draws_the_newest_view():
    config = configuration.load()
    backend = Gpio(config, pin_factory("mock"))
    backend.open(lambda event: None, lambda: 0.0)
    try:
        backend.show(views.Shutdown())
        assert backend.worker is None and backend.display is None  # nothing drawn before READY=1
        backend.ready()
        assert backend.worker is not None and backend.worker.wait_shown(10)
        assert backend.display is not None and backend.display.view == views.Shutdown()
    finally:
        backend.close()


def test_the_runtime_sends_ready_then_the_display_shows_the_welcome_screen():
    config = configuration.load()
    backend = Gpio(config, pin_factory("mock"))
    runtime = Runtime(Unit(config), backend)
    runtime.open()
    try:
        assert backend.worker is not None and backend.worker.wait_shown(10)
        assert backend.display is not None and backend.display.view == backend.view
        assert isinstance(backend.view, views.Welcome)
    finally:
        backend.close()


class Lines:
    """A trace file's writer, as the runtime and the link write to it."""

    def __init__(self) -> None:
        self.lines: list[object] = []

    def write(self, t, outputs) -> None:
        self.lines += [(t, output) for output in outputs]

    def write_record(self, obj) -> None:
        self.lines.append(obj)


def test_the_backlog_passes_each_line_on_at_once_and_hands_the_link_its_first_lines(tmp_path):
    """Until the link takes over, the trace file gets every line at once, in order; the link is then played
    the same lines (its snapshot as from the first line) and writes on to the same file, nothing twice."""
    from unit.app.launch import Backlog
    from unit.app.link import Link
    from unit.core import LedChanged, LedMode, ScreenChanged, StateChanged

    trace = Lines()
    backlog = Backlog(trace)
    welcome = views.Welcome(hold_seconds=2.0)
    backlog.write_record({"t": 0.0, "kind": "resume", "played": 12.5})
    backlog.write(0.0, [StateChanged("ready"), LedChanged(LedMode.ON), ScreenChanged(welcome)])
    assert trace.lines == [
        {"t": 0.0, "kind": "resume", "played": 12.5},
        (0.0, StateChanged("ready")),
        (0.0, LedChanged(LedMode.ON)),
        (0.0, ScreenChanged(welcome)),
    ]
    link = Link(tmp_path, "fr")
    backlog.hand_over(link)
    assert link.trace is trace and len(trace.lines) == 4  # played to the link, not written again
    assert link.snapshot.state == "ready" and link.snapshot.led.mode == "on"
    assert link.snapshot.screen.view == welcome and link.snapshot.screen.text.startswith("MONOPOLY CITY")
    link.write(1.0, [StateChanged("off")])
    assert trace.lines[-1] == (1.0, StateChanged("off")) and link.snapshot.state == "off"
    assert backlog.calls == []


class PostedAtOnce:
    """A runtime as the link's thread sees it: ``post`` runs a job at once (as the loop would, later)."""

    def __init__(self, trace) -> None:
        self.trace = trace
        self.unit = Unit(configuration.load())

    def post(self, job) -> None:
        job.run(0.0)


@pytest.mark.parametrize("failing", ["__init__", "attach"])
def test_a_link_that_fails_leaves_the_trace_file_alone_and_keeps_nothing_more(tmp_path, monkeypatch, caplog, failing):
    """Nothing stops the unit: a link that cannot be made or attached is said once in the log, the runtime
    writes on to the trace file alone, and the backlog keeps no more lines (it would grow all evening)."""
    from unit.app import launch
    from unit.app.link import Link
    from unit.core import StateChanged

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(Link, failing, broken)
    trace = Lines()
    backlog = launch.Backlog(trace)
    runtime = PostedAtOnce(backlog)
    backlog.write(0.0, [StateChanged("off")])
    started = launch.Launch(configuration.load(), launch.Request(backend="headless", state_dir=str(tmp_path)))
    with caplog.at_level("ERROR", logger="unit.app.launch"):
        started._make_link(runtime, backlog, str(tmp_path), "fr")
    assert runtime.trace is trace and backlog.calls == []
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        f"the phone link could not be {'made' if failing == '__init__' else 'attached'}"
    ]


def test_a_link_thread_that_cannot_start_leaves_the_unit_running_on_its_trace_file(tmp_path, monkeypatch, caplog):
    """At the service's task limit a thread cannot start: READY=1 still goes on, said once in the log, the
    trace file alone, nothing kept for a link that will never come."""
    import threading

    from unit.app import launch
    from unit.core import StateChanged

    def refused(self):
        raise RuntimeError("can't start new thread")

    trace = Lines()
    backlog = launch.Backlog(trace)
    runtime = PostedAtOnce(backlog)
    backlog.write(0.0, [StateChanged("off")])
    started = launch.Launch(configuration.load(), launch.Request(backend="headless", state_dir=str(tmp_path)))
    monkeypatch.setattr(threading.Thread, "start", refused)
    with caplog.at_level("ERROR", logger="unit.app.launch"):
        started._ready(runtime, backlog, "fr")
    assert runtime.trace is trace and backlog.calls == []
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["the phone link could not be started"]


def test_the_lgpio_factory_imports_tempfile_only_when_the_service_did_not_set_lg_wd():
    """lgpio's FIFO folder: the service's LG_WD as it is (no tempfile before READY=1 on the Pi); else the
    temporary folder. (lgpio is not installed here: the factory fails after the folder is chosen.)"""
    code = (
        "import os, sys; from unit.backends.gpio import pin_factory\n"
        "try: pin_factory('lgpio')\nexcept Exception: pass\n"
        "print(os.environ['LG_WD'], 'tempfile' in sys.modules)"
    )
    for given, expected in (("/run/monopoly-city", ["/run/monopoly-city", "False"]), (None, ["/tmp", "True"])):
        env = {"PATH": "/usr/bin:/bin", "TMPDIR": "/tmp", **({"LG_WD": given} if given else {})}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == expected
