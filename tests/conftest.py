"""pytest's setup for the whole suite: no display or sound card, hypothesis profiles, markers, shared fixtures.

The helpers the tests share live in helpers.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Random play: 1000 sequences in `make test`, 10,000 in `make soak` (HYPOTHESIS_PROFILE=soak).
settings.register_profile("default", max_examples=1000, deadline=None)
settings.register_profile("soak", max_examples=10_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# No display and no sound card here: SDL and gpiozero must never look for real ones.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


# --- markers: `make test` runs everything, `make check` leaves out slow, browser and install ------------------
# The markers are registered in pyproject.toml; a test module marks itself (pytestmark) or its slow tests.


def pytest_collection_modifyitems(items):
    """Every property test (hypothesis) is slow: a thousand examples each."""
    for item in items:
        if getattr(getattr(item, "function", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption(
        "--phone-images",
        metavar="DIR",
        help="write the phone screenshots into DIR/LANG/, not a temporary folder (make golden: docs/images/phone)",
    )


# --- fixtures ----------------------------------------------------------------------------------------------


@pytest.fixture
def data(tmp_path):
    """The calculator's folder with the three-district edition (``trois.edition.yaml``) in it: the web tests' own
    (a test file may define its own ``data``)."""
    from helpers import THREE_DISTRICTS

    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    return folder


@pytest.fixture
def write_yaml(tmp_path):
    """Write a text file under tmp_path and return its path as a string."""

    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


@pytest.fixture
def unit_on_pins():
    """Make gpio units on mock pins (``unit_on_pins(overrides, **backend_options)``); all stopped at the end."""
    from helpers import Running

    made = []

    def make(overrides=None, **options):
        running = Running(overrides, **options)
        made.append(running)
        return running

    yield make
    for running in made:
        if running.thread.is_alive():
            running.stop()


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium under Playwright, one per module (Playwright's loop ends with it). Without Chromium
    or Playwright the test is skipped with one line saying why (nothing is downloaded)."""
    from helpers import NO_BROWSER, browser

    if NO_BROWSER:
        pytest.skip(NO_BROWSER)
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
    with browser() as launched:
        yield launched


@pytest.fixture
def phone_images(request, tmp_path) -> Path:
    """Where the screenshot tests save their pictures: a temporary folder, or ``--phone-images DIR``."""
    folder = request.config.getoption("--phone-images")
    return Path(folder) if folder else tmp_path / "shots"
