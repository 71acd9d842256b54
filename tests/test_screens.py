"""Every screen, pixel for pixel, in both languages, against the golden PNGs in tests/golden/.

On a mismatch the computed image and a diff are written beside the golden one
(``*.actual.png``, ``*.diff.png``). To accept new images on purpose, regenerate them
(and the documentation's images) with ``make golden``, then look at them.
A test run never writes a golden image, even a missing one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops

from unit.backends import oled as screen
from unit.core import views

GOLDEN = Path(__file__).parent / "golden"
CASES = [(language, name) for language in ("fr", "en") for name in views.SAMPLES]


@pytest.mark.parametrize("language,name", CASES, ids=[f"{lang}-{name}" for lang, name in CASES])
def test_screen_matches_golden_image(language, name):
    image = screen.render(views.SAMPLES[name], language)
    assert image.mode == "1" and image.size == (128, 64)
    golden = GOLDEN / language / f"{name}.png"
    assert golden.exists(), f"no golden image {golden}: create it with `make golden`"
    expected = Image.open(golden).convert("1")
    diff = ImageChops.difference(image.convert("L"), expected.convert("L"))
    if diff.getbbox() is not None:
        image.save(golden.with_suffix(".actual.png"))
        diff.save(golden.with_suffix(".diff.png"))
        pytest.fail(f"{golden} differs in {diff.getbbox()}: see {golden.with_suffix('.diff.png')}")


def test_only_dark_screen_is_blank():
    for name, view in views.SAMPLES.items():
        lit = screen.render(view, "fr").convert("L").getbbox() is not None
        assert lit == (name != "off"), name


def test_the_two_languages_differ_where_words_are_shown():
    for name in ("ready", "countdown", "sold", "time_up", "build_result"):
        a, b = (screen.render(views.SAMPLES[name], lang).convert("L") for lang in ("fr", "en"))
        assert ImageChops.difference(a, b).getbbox() is not None, name


def test_warning_is_inverted():
    calm = screen.render(views.Countdown(5, 50), "fr").convert("L")
    urgent = screen.render(views.Countdown(5, 50, warning=True), "fr").convert("L")
    lit = lambda image: sum(1 for p in image.getdata() if p)  # noqa: E731
    assert lit(urgent) > 128 * 64 // 2 > lit(calm)


def test_display_draws_only_on_change():
    class CountingDevice(type(dummy())):
        frames = 0

        def display(self, image):
            CountingDevice.frames += 1
            super().display(image)

    display = screen.Display(CountingDevice(width=128, height=64, mode="1"), "fr")
    assert display.show(views.Countdown(10, 50)) is True
    assert display.show(views.Countdown(10, 50)) is False
    assert display.show(views.Countdown(9, 50)) is True
    assert CountingDevice.frames == 2


def test_countdown_bar_shrinks_with_the_seconds_left():
    def bar_pixels(left):
        image = screen.render(views.Countdown(left, 50), "fr").convert("L")
        return sum(1 for x in range(128) if image.getpixel((x, 60)))

    assert bar_pixels(50) > bar_pixels(25) > bar_pixels(5) > 0


def test_the_pixel_shift_moves_the_whole_picture_and_dimming_lowers_the_contrast():
    from unit.core import DisplayChanged
    from unit.core.settings import Brightness

    device = dummy(width=128, height=64, mode="1")
    display = screen.Display(device, "fr")
    display.show(views.Welcome())
    still = device.image.copy()
    display.adjust(DisplayChanged(Brightness.HIGH, dimmed=True, shift=(1, 1)))
    moved = device.image
    assert display.contrast == screen.DIMMED
    left, top, right, bottom = still.getbbox()
    assert moved.getbbox() == (left + 1, top + 1, min(right + 1, 128), min(bottom + 1, 64))
    assert list(moved.crop((1, 1, 128, 64)).getdata()) == list(still.crop((0, 0, 127, 63)).getdata())
    display.adjust(DisplayChanged(Brightness.MEDIUM))
    assert display.contrast == screen.CONTRAST[Brightness.MEDIUM] and device.image.getbbox() == still.getbbox()
