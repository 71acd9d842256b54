"""pytest's setup for the whole suite: no display or sound card, hypothesis profiles, shared fixtures.

The helpers the tests share live in helpers.py.
"""

from __future__ import annotations

import os

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


@pytest.fixture
def write_yaml(tmp_path):
    """Write a text file under tmp_path and return its path as a string."""

    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


# --- the slow tests carry a marker: `make test` runs everything, `pytest -m "not slow"` is the quick loop ----------

SLOW_MODULES = {"test_service", "test_power_cut"}  # installs into a temporary root; kills and restarts the unit


def pytest_collection_modifyitems(items):
    """Mark as slow: property tests (hypothesis), power cuts, service installs."""
    for item in items:
        function = getattr(item, "function", None)
        hypothesis = getattr(function, "is_hypothesis_test", False)
        if hypothesis or item.module.__name__ in SLOW_MODULES or "power_cut" in item.name:
            item.add_marker(pytest.mark.slow)
