"""The taps per transaction, counted as a thumb does them (issue 27, « One screen per action »): the issue's table
holds in Chromium at 360x640, from the view the banker is on, with no scrolling before any tap.

The count is benchmarks/web_taps.py's own (the evening it plays, the same thumb): ``make bench`` prints the table
beside the one-page game's and fails when a transaction needs more; this test fails the same way. Counting is not
timing: nothing here depends on the machine's speed. Skipped with one line without Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import web_taps  # noqa: E402

pytestmark = pytest.mark.browser


def test_every_transaction_takes_no_more_taps_than_the_issue_s_table(chromium):
    counts = web_taps.measure(chromium)
    assert web_taps.over(counts) == [], web_taps.table(counts)
    assert set(counts) == set(web_taps.ALLOWED)
    assert all(count.scroll == 0 for count in counts.values())
    assert counts["rent (square by 3 letters)"].letters == 3
    assert counts["auction sale after the box's countdown"].amount  # the price typed, nothing else
