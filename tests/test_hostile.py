"""A few hostile inputs in every `make test` (`make soak` runs hundreds): benchmarks/hostile.py keeps working
and every outcome is clear or a still-valid file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import hostile  # noqa: E402


@pytest.mark.slow
def test_a_few_mutated_files_give_only_clear_lines():
    result = hostile.hostile_run(count=len(hostile.MUTATIONS), seed=2026, special=False, arguments=False)
    assert result["runs"] >= 4 * len(hostile.MUTATIONS)
    assert result["failures"] == [], result["failures"]
    assert result["clear"] > result["accepted"]


@pytest.mark.slow
def test_the_command_line_attacks_give_only_clear_lines():
    """Huge numbers, newlines in names, serve's port, outputs on /dev/full, full and read-only disks."""
    result = hostile.hostile_run(count=0, special=False)
    assert result["attacks"] >= 40
    assert result["failures"] == [], result["failures"]
