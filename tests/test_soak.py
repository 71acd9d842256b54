"""`make soak` (benchmarks/soak.py) writes docs/reliability.md: what it says of systemd is what the service files
say, and each figure names the command that makes it alone."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import soak  # noqa: E402

DOC = ROOT / "docs" / "reliability.md"


def test_the_systemd_values_written_are_the_service_files():
    unit = soak.service_settings(soak.UNIT_SERVICE)
    web = soak.service_settings(soak.WEB_SERVICE)
    text = "\n".join(soak.systemd_section())
    assert f"`RestartSec={unit['RestartSec']}`" in text and f"`WatchdogSec={unit['WatchdogSec']}`" in text
    assert f"a restart {unit['RestartSec']} s later" in text
    assert f"`RestartSec={web['RestartSec']}`" in text
    if unit.get("StartLimitIntervalSec") == "0":
        assert "never gives up" in text and "StartLimitBurst" not in text


def test_the_doc_says_what_the_service_files_say():
    """docs/reliability.md as committed (the last `make soak`): every systemd setting it names has the files'
    value (it once said RestartSec=2 while the files said 5)."""
    unit = soak.service_settings(soak.UNIT_SERVICE)
    section = DOC.read_text(encoding="utf-8").split("## What stops the unit", 1)[1].split("\n## ", 1)[0]
    unit_sentence = section.split("The web service", 1)[0]
    said = dict(re.findall(r"`(\w+)=([^`]+)`", unit_sentence))
    assert said, section[:400]
    assert {key: unit.get(key) for key in said} == said


def test_each_row_names_the_command_that_makes_it_alone():
    assert soak.command_of("hostile") == f"`python benchmarks/hostile.py --count {soak.HOSTILE_PER_KIND}`"
    assert soak.command_of("routes") == f"`python benchmarks/hostile.py --routes --count {soak.ROUTES_COUNT}`"
    assert soak.command_of("power_cuts") == (
        "`MONOPOLY_CITY_POWER_CUTS=200 python -m pytest "
        "tests/test_reliability.py::test_power_cuts_at_random_moments_resume_the_time_played`"
    )
    import hostile

    assert soak.TIMED_ATTACKS == ["web-one-address", "web-many-addresses", "pairing", "socket-clients"]
    assert set(soak.TIMED_ATTACKS) <= set(hostile.EXTRA)  # each alone: python benchmarks/hostile.py --attack NAME
