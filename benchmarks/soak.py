"""The long reliability runs (``make soak``), then docs/reliability.md rewritten with their figures.

- random use: 10,000 random press/hold/switch sequences against the core (hypothesis profile ``soak``);
- power cuts: 200 SIGKILLs of the mock-backend unit at random moments, each followed by a restart;
- the display failing, the watchdog, the bad-input corpus, and 24 virtual hours of random play.

Each is a pytest run of the same tests `make test` runs, with longer settings.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "reliability.md"

RUNS = [
    ("random", "tests/test_core_properties.py", {"HYPOTHESIS_PROFILE": "soak"}),
    (
        "power_cuts",
        "tests/test_reliability.py::test_power_cuts_at_random_moments_resume_the_time_played",
        {"MONOPOLY_CITY_POWER_CUTS": "200"},
    ),
    ("soak", "tests/test_reliability.py::test_a_day_of_random_play_does_not_grow_memory", {}),
    ("display", "tests/test_gpio.py", {}),
    ("watchdog", "tests/test_notify.py", {}),
    ("bad_input", "tests/test_bad_input.py", {}),
]


def main() -> int:
    results, figures = {}, {}
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        for name, target, extra in RUNS:
            print(f"soak: {name} ({target})", flush=True)
            env = dict(os.environ, MONOPOLY_CITY_REPORT=str(report), **extra)
            started = time.monotonic()
            run = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            summary = (run.stdout.strip().splitlines() or ["(no output)"])[-1]
            results[name] = {"ok": run.returncode == 0, "seconds": time.monotonic() - started, "summary": summary}
            print(f"  {'passed' if run.returncode == 0 else 'FAILED'}: {summary}", flush=True)
            if run.returncode:
                print(run.stdout[-3000:], flush=True)
        if report.exists():
            figures = json.loads(report.read_text())
    write_doc(results, figures)
    return 0 if all(r["ok"] for r in results.values()) else 1


def write_doc(results: dict, figures: dict) -> None:
    bad = sum(1 for p in (ROOT / "tests/data/bad").glob("*/*"))
    cuts = figures.get("power_cuts", {})
    soak = figures.get("soak", {})
    status = lambda name: "passed" if results[name]["ok"] else "**FAILED**"  # noqa: E731
    rows = [
        (
            "Random use: 10,000 random press/hold/switch sequences against the core; no exception, at most one "
            "countdown, the LED dark outside countdowns, the clock never backwards, `time_up` never early",
            f"{status('random')} ({results['random']['seconds']:.0f} s)",
        ),
        (
            "Power cuts: SIGKILL of the mock-backend unit at random moments, restarted each time; resumes within 1 s "
            "of the time played, the state file always readable",
            f"{status('power_cuts')}: {cuts.get('cuts', '?')} cuts, resume error median "
            f"{cuts.get('median_error_s', '?')} s, max {cuts.get('max_error_s', '?')} s",
        ),
        (
            "Soak: 24 virtual hours of random play through `simulate`; memory growth after the first hour (< 1 MB)",
            f"{status('soak')}: {soak.get('growth_bytes', 0) / 1024:.1f} KiB",
        ),
        (
            "Display failure: I2C errors on every transfer, then on every other one; LED and buzzer timing exact, "
            "the display back when the errors stop",
            f"{status('display')}",
        ),
        (
            "Watchdog: with a fake `NOTIFY_SOCKET`, READY=1 once the hardware is open, WATCHDOG=1 from the loop, "
            "no ping from a hung loop",
            f"{status('watchdog')}",
        ),
        (
            f"Bad input corpus: {bad} malformed configuration, scenario, edition and game files; exit 2 and one line "
            "naming the file and the place, nothing on stdout",
            f"{status('bad_input')}",
        ),
    ]
    lines = [
        "# Reliability",
        "",
        "A device that sits on a table for an evening must be exact, light and unbreakable. The fast part of",
        "these checks runs in `make test` on every change (1000 random sequences, 20 power cuts, the whole",
        "bad-input corpus, a virtual day); `make soak` runs the long part and rewrites this file.",
        "",
        f"- **Date:** {datetime.date.today().isoformat()}",
        "- **Command:** `make soak`",
        "",
        "| check | latest result |",
        "|---|---|",
        *[f"| {what} | {result} |" for what, result in rows],
        "",
        "## Where each check lives",
        "",
        "- `tests/test_core_properties.py`: hypothesis sequences (profile `default` 1000, `soak` 10,000).",
        "- `tests/test_reliability.py`: the power cuts (`MONOPOLY_CITY_POWER_CUTS`, 20 by default) and the",
        "  virtual day.",
        "- `tests/test_gpio.py`: the failing and the intermittent display, on gpiozero's mock pins.",
        "- `tests/test_notify.py`: READY and WATCHDOG on a fake notify socket.",
        "- `tests/test_bad_input.py` and `tests/data/bad/`: the corpus and the line each file must produce.",
        "- `tests/test_power_cut.py`: the saved game itself (atomic writes, corrupt or foreign files, the wall",
        "  clock going backwards).",
        "",
    ]
    DOC.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    sys.exit(main())
