"""Regenerate every picture of the screens in one go (``make golden``):

- tests/golden/LANG/NAME.png: the exact 128x64 one-bit image of each screen, which
  tests/test_screens.py compares pixel for pixel;
- docs/images/LANG/NAME.png: the same images scaled 3x with crisp pixels, so they read
  well in a browser, and the emulator window from a real run, off-screen;
- docs/images/phone/LANG/NAME.png: the phone companion's pages on a phone-sized screen, taken by the
  browser tests that check them (``pytest -m browser --phone-images docs/images/phone``), so a
  picture is only kept when the page shows what it should. Needs Chromium (``.ci/run`` installs it).

Look at what changed before committing (git shows the PNGs that differ).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from PIL import Image  # noqa: E402

from unit import i18n  # noqa: E402
from unit.app import config as configuration  # noqa: E402
from unit.app import halt  # noqa: E402
from unit.app.runtime import Runtime  # noqa: E402
from unit.app.scenario import Step  # noqa: E402
from unit.backends import oled as screen  # noqa: E402
from unit.backends.emulator import Emulator  # noqa: E402
from unit.core import (  # noqa: E402
    Pressed,
    Released,
    Unit,
    views,  # noqa: E402
)

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
GOLDEN = ROOT / "tests" / "golden"
PHONE = IMAGES / "phone"
# The tests that take the phone screenshots (each checks the page before each picture).
PHONE_TESTS = [
    "tests/test_web_browser.py::test_phone_sized_screenshots_of_every_page",
    "tests/test_web_editions_browser.py::test_phone_sized_screenshots_of_the_editions_pages",
    "tests/test_web_game_browser.py::test_a_city_evening_in_the_browser_agrees_with_the_command_line",
    "tests/test_web_bank_browser.py::test_phone_sized_screenshots_of_the_views",
    "tests/test_web_cards_browser.py::test_phone_sized_screenshots_of_the_card_screens",
]
SCALE = 3
# A white SSD1306 on its black glass.
PALETTE = [12, 14, 18] + [0, 0, 0] * 254 + [235, 245, 255]


def save_screen(view: views.View, language: str, path: Path) -> None:
    image = screen.render(view, language).convert("P")
    image.putpalette(PALETTE)
    image = image.resize((screen.WIDTH * SCALE, screen.HEIGHT * SCALE), Image.NEAREST)
    image.save(path)


def save_unplug(language: str, path: Path) -> None:
    """The « safe to unplug » sign the shutdown hook leaves on the glass (unit/app/halt.py), on a dummy OLED."""
    from luma.core.device import dummy

    device = dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1")
    halt.show(device, language)
    device.image.save(path)


def save_window(language: str, path: Path) -> None:
    config = configuration.load(({"language": language}, "docs"))
    backend = Emulator(config, screenshot=str(path))
    script = [Step(0.0, Pressed("power")), Step(0.05, Released("power")), Step(0.1, Pressed("auction"))]
    script.append(Step(0.15, Released("auction")))
    Runtime(Unit(config, random.Random(1)), backend, script=script, until=0.3).run()


def main() -> None:
    for language in i18n.languages():
        golden = GOLDEN / language
        golden.mkdir(parents=True, exist_ok=True)
        for name, view in views.SAMPLES.items():
            screen.render(view, language).save(golden / f"{name}.png")
        save_unplug(language, golden / "unplug.png")
        print(f"wrote {len(views.SAMPLES) + 1} golden images in {golden}")
        folder = IMAGES / language
        folder.mkdir(parents=True, exist_ok=True)
        for name, view in views.SAMPLES.items():
            save_screen(view, language, folder / f"{name}.png")
        save_window(language, folder / "emulator.png")
        print(f"wrote {len(views.SAMPLES) + 1} images in {folder}")
    save_phone_pages()


def save_phone_pages() -> None:
    """The phone screenshots, by the browser tests that check each page; a failed check stops `make golden`."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--phone-images", str(PHONE)]
    result = subprocess.run([*command, *PHONE_TESTS], cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"make_images.py: a phone screenshot was not taken (pytest exited {result.returncode})")
    print(f"wrote {len(list(PHONE.glob('*/*.png')))} images in {PHONE}")


if __name__ == "__main__":
    main()
