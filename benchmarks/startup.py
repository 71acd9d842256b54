"""Start-up: from process start to READY=1 (the hardware open), and the package's import time.

The figure that matters is a ratio: READY=1 under 10 % of one core against Python's own start
(``python -c pass``, with its ``site``: the unit needs its virtual environment's) under the same quota,
both measured here in the same cgroup. Target: 5x or less (issue 19).

The unit is started as systemd/monopoly-city-unit.service starts it (on mock pins). Measured twice: on
this machine as it is, and under a CPU limit of 10 % of one core (a cgroup's CPU quota, see
cpulimit.py), a pessimistic stand-in for a Raspberry Pi Zero 2 W. Also measured: the time from READY=1
to the first frame (the display opens after READY=1), and the modules imported on the way to READY=1.
Under the limit the auction's timing is measured too: a slow CPU must not make the unit late.

    python benchmarks/startup.py [--runs N] [--cpu PERCENT]    (the limit needs root on Linux)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cpulimit import CpuLimit

HERE = Path(__file__).resolve().parent
#: The package's modules that `run --backend gpio` imports (the figure kept since the first benchmark).
IMPORTS = "import unit.cli, unit.app.runtime, unit.backends.gpio, unit.backends.oled, unit.core"
#: As systemd/monopoly-city-unit.service starts it (its --config and --state-dir, PYTHONDONTWRITEBYTECODE),
#: on mock pins; the state folder is a fresh one in a temporary folder.
RUN = [sys.executable, "-m", "unit", "run", "--backend", "gpio", "--pins", "mock"]
RUN += ["--config", str(HERE.parent / "systemd" / "config.yaml")]
SERVICE_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used so far, all its threads, from /proc/PID/task/*/schedstat (ns)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total / 1e9


def time_to_ready(
    limit: CpuLimit | None = None, cpu: list[float] | None = None, state_dir: str | None = None, python_options=()
) -> float:
    """Seconds from starting the process to its READY=1 on a NOTIFY_SOCKET of our own.

    With ``cpu``, the CPU seconds the process used up to READY=1 are appended to it: far steadier than
    the wall time under a CPU quota, which moves in steps of the quota's period. ``state_dir`` is the
    unit's --state-dir (default: a new, empty one); ``python_options`` go to the interpreter (-X importtime),
    whose stderr is then kept in ``state_dir``/stderr.
    """
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "notify.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        server.bind(path)
        server.settimeout(60)
        state_dir = state_dir or os.path.join(folder, "state")
        os.makedirs(state_dir, exist_ok=True)
        stderr = open(os.path.join(state_dir, "stderr"), "w") if python_options else subprocess.DEVNULL
        options = {"env": dict(os.environ, NOTIFY_SOCKET=path, **SERVICE_ENV), "stdout": subprocess.DEVNULL}
        options["stderr"] = stderr
        argv = [RUN[0], *python_options, *RUN[1:], "--state-dir", state_dir]
        started = time.perf_counter()
        unit = limit.popen(argv, **options) if limit else subprocess.Popen(argv, **options)
        try:
            while server.recv(64) != b"READY=1":
                pass
            ready = time.perf_counter() - started
            if cpu is not None:
                cpu.append(cpu_seconds(unit.pid))
            if python_options:  # what it printed up to READY=1
                with open(stderr.name) as printed, open(stderr.name + ".ready", "w") as copy:
                    copy.write(printed.read())
        finally:
            unit.terminate()
            unit.wait(30)
            server.close()
            if python_options:
                stderr.close()
    return ready


def importtime(code: str, limit: CpuLimit | None = None) -> list[tuple[int, int, str]]:
    """``python -X importtime -c code``: (self us, cumulative us, indented name) per module."""
    argv = [sys.executable, "-X", "importtime", "-c", code]
    options = {"capture_output": True, "text": True, "timeout": 120}
    result = limit.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) if limit else None
    stderr = result.stderr if limit else subprocess.run(argv, **options).stderr
    return parse_importtime(stderr)


def parse_importtime(stderr: str) -> list[tuple[int, int, str]]:
    rows = []
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (.*)$", line)
        if match:
            rows.append((int(match.group(1)), int(match.group(2)), match.group(3)))
    return rows


def import_time_ms(limit: CpuLimit | None = None) -> float:
    """The cumulative import time of the unit's modules (top-level entries whose name is unit.*)."""
    rows = importtime(IMPORTS, limit)
    return sum(cumulative for _, cumulative, name in rows if name.startswith("unit")) / 1000


def ready_imports(state_dir: str, runs: int = 5) -> list[tuple[int, int, str]]:
    """What the unit imports on its way to READY=1: (self us, cumulative us, name), from ``-X importtime``.

    Each module's times are the least of ``runs`` starts: an import that another process interrupted is
    not counted at what the interruption cost.
    """
    least: dict[str, tuple[int, int, str]] = {}
    for _ in range(runs):
        time_to_ready(state_dir=state_dir, python_options=("-X", "importtime"))
        with open(os.path.join(state_dir, "stderr.ready")) as file:
            for row in parse_importtime(file.read()):
                least[row[2]] = min(row, least.get(row[2], row))
    return list(least.values())


def heaviest(rows: list[tuple[int, int, str]], count: int = 12) -> list[tuple[str, float]]:
    """The imports that cost most, by top-level package (the unit's by subpackage), in ms."""
    totals: dict[str, float] = {}
    for own, _, name in rows:
        name = name.strip()
        key = ".".join(name.split(".")[:2]) if name.startswith("unit.") else name.split(".")[0]
        totals[key] = totals.get(key, 0.0) + own / 1000
    return sorted(totals.items(), key=lambda item: -item[1])[:count]


#: The unit as `run` starts it, in one process (mock pins, no link): the time from READY=1 to the first frame
#: on the display (its thread imports PIL and luma, opens the device and draws the welcome screen).
FIRST_FRAME = """
import time
from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.core import Unit
config = configuration.load()
backend = Gpio(config, pin_factory("mock"))
runtime = Runtime(Unit(config), backend)
runtime.open()
ready = time.perf_counter()
assert backend.worker is not None and backend.worker.wait_shown(60) and backend.display is not None
print((time.perf_counter() - ready) * 1000)
backend.close()
"""


def first_frame_ms(limit: CpuLimit | None = None) -> float:
    """Milliseconds from READY=1 to the welcome screen on the (dummy) display."""
    argv = [sys.executable, "-c", FIRST_FRAME]
    options = {"stdout": subprocess.PIPE, "text": True, "env": dict(os.environ, **SERVICE_ENV)}
    result = limit.run(argv, **options) if limit else subprocess.run(argv, check=True, **options)
    return float(result.stdout.split()[-1])


#: Python's own start, the scale of the start-up ratio: the interpreter with its ``site`` (as the unit runs).
PYTHON_START = [sys.executable, "-c", "pass"]


def interpreter_ms(limit: CpuLimit | None = None, cpu: list[float] | None = None) -> float:
    """Python's own start (``python -c pass``), wall milliseconds; with ``cpu``, its CPU seconds appended."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    if limit:
        limit.run(PYTHON_START)
    else:
        subprocess.run(PYTHON_START, check=True)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu is not None:
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return elapsed


def auction_lateness(limit: CpuLimit, runs: int = 3) -> dict:
    """timing_accuracy.py's auction (gpio on mock pins and headless) run under the limit."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import timing_accuracy; "
        f"print(json.dumps(timing_accuracy.measure(runs={runs}, seconds=6.0)))"
    )
    result = limit.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def figures(runs: int, limit: CpuLimit | None, ratio_only: bool = False) -> dict:
    """``runs`` starts with one state folder, after a first start that is not counted: the service's state
    folder lasts from one start to the next (the first start ever also writes the phones' pairing file).

    The unit's starts and Python's own alternate, so that both sides of the ratio meet the same minutes of
    the machine: measured one series after the other, a drift of the machine's speed between the two
    series moved the ratio by more than the code did.
    """
    cpu: list[float] = []
    python_cpu: list[float] = []
    ready: list[float] = []
    python: list[float] = []
    with tempfile.TemporaryDirectory() as state_dir:
        time_to_ready(limit, state_dir=state_dir)
        interpreter_ms(limit)
        for _ in range(runs):
            ready.append(time_to_ready(limit, cpu, state_dir))
            python.append(interpreter_ms(limit, python_cpu))
    out = {
        "ready_median_s": statistics.median(ready),
        "ready_max_s": max(ready),
        "ready_cpu_median_s": statistics.median(cpu),
        "interpreter_ms": statistics.median(python),
        "interpreter_cpu_ms": statistics.median(python_cpu) * 1000,
    }
    out["ratio"] = out["ready_median_s"] * 1000 / out["interpreter_ms"]  # wall time against wall time
    out["cpu_ratio"] = out["ready_cpu_median_s"] * 1000 / out["interpreter_cpu_ms"]  # the steadier one
    if ratio_only:
        return out
    imports = [import_time_ms(limit) for _ in range(runs)]
    out["import_median_ms"] = statistics.median(imports)
    out["first_frame_ms"] = statistics.median(first_frame_ms(limit) for _ in range(runs))
    return out


def precompile() -> None:
    """Compile the package as install.sh does on the Pi, so no run pays for compiling it.

    Where PYTHONDONTWRITEBYTECODE is set (the service sets it; so may a shell) Python never writes the
    compiled files itself and every start would compile the whole package again (about 15 % of it).
    """
    package = HERE.parent / "unit"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, stdout=subprocess.DEVNULL)


def ratio(runs: int = 9, cpu_percent: float = 10.0) -> dict:
    """Only the start-up ratio under the limit (READY=1 against ``python -c pass``), and its parts."""
    precompile()
    with CpuLimit(cpu_percent) as limit:
        return {"limit": limit.describe(), **figures(runs, limit, ratio_only=True)}


def measure(runs: int = 5, cpu_percent: float = 10.0) -> dict:
    precompile()
    with tempfile.TemporaryDirectory() as state_dir:
        time_to_ready(state_dir=state_dir)
        before_ready = ready_imports(state_dir)
    out = {"runs": runs, **figures(runs, None), "heaviest": heaviest(before_ready)}
    out["ready_modules"] = [name.strip() for _, _, name in before_ready]
    out["ready_import_ms"] = sum(own for own, _, _ in before_ready) / 1000
    try:
        limit = CpuLimit(cpu_percent)
    except OSError as error:
        out["limited"] = None
        out["limit"] = f"no CPU limit possible here ({error}): run as root on Linux with cgroups"
        return out
    with limit:
        out["limit"] = limit.describe()
        out["limited"] = figures(runs, limit)
        out["limited"]["auction"] = auction_lateness(limit)
    return out


def print_ratio(g: dict) -> None:
    print(
        f"  READY=1 / python -c pass: {g['ratio']:.2f}x wall ({g['ready_median_s'] * 1000:.0f} ms / "
        f"{g['interpreter_ms']:.0f} ms), {g['cpu_ratio']:.2f}x CPU ({g['ready_cpu_median_s'] * 1000:.0f} ms / "
        f"{g['interpreter_cpu_ms']:.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cpu", type=float, default=10.0, metavar="PERCENT")
    parser.add_argument("--ratio", action="store_true", help="only READY=1 against python -c pass, under the limit")
    args = parser.parse_args()
    if args.ratio:
        g = ratio(args.runs, args.cpu)
        print(f"under {g['limit']}:")
        print_ratio(g)
        return
    f = measure(args.runs, args.cpu)
    for label, g in (("this machine", f), (f"under {f['limit']}", f["limited"])):
        if g is None:
            print(f"{label}: skipped")
            continue
        print(f"{label}:")
        ready, worst = g["ready_median_s"] * 1000, g["ready_max_s"] * 1000
        print(f"  process start to READY=1: median {ready:.0f} ms, max {worst:.0f} ms")
        print(f"  CPU time to READY=1 (all threads): median {g['ready_cpu_median_s'] * 1000:.0f} ms")
        print(f"  import time of the package (python -X importtime): median {g['import_median_ms']:.0f} ms")
        print(f"  Python's own start (python -c pass): median {g['interpreter_ms']:.0f} ms")
        print_ratio(g)
        print(f"  READY=1 to the first frame on the display: median {g['first_frame_ms']:.0f} ms")
        if "auction" in g:
            for backend in ("headless", "gpio-mock"):
                end = g["auction"][backend]["end"]
                late = f"median {end['median_ms']:.2f} ms, max {end['max_ms']:.2f} ms"
                print(f"  auction end lateness, {backend}: {late}")
    print(f"imports up to READY=1: {len(f['ready_modules'])} modules, {f['ready_import_ms']:.0f} ms own time")
    print("heaviest imports (own time, this machine): " + ", ".join(f"{n} {ms:.1f} ms" for n, ms in f["heaviest"]))


if __name__ == "__main__":
    main()
