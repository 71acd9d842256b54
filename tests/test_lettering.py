"""The unit's Display pastes each text rendered once (oled.lettering): the same pixels as PIL drawing it.

The golden images check the screens as they are; these check the cache against PIL itself, for every
sample screen in every language (with and without the pixel shift) and for any text, size and anchor.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from luma.core.device import dummy
from luma.core.render import canvas
from PIL import Image, ImageDraw

from unit import i18n
from unit.backends import oled
from unit.core import DisplayChanged, views
from unit.core.settings import Brightness


def painted_by_pil(view: views.View, language: str) -> bytes:
    """The view painted as before the cache: PIL's own ``ImageDraw.text`` through luma's ``canvas``."""
    device = dummy(width=oled.WIDTH, height=oled.HEIGHT, mode="1")
    with canvas(device) as draw:
        oled.Painter(language).paint(draw, view)
    return bytes(device.image.tobytes())


@pytest.mark.parametrize("language", i18n.languages())
@pytest.mark.parametrize("name", sorted(views.SAMPLES))
def test_every_screen_is_drawn_as_pil_draws_it(language, name):
    view = views.SAMPLES[name]
    assert oled.render(view, language).tobytes() == painted_by_pil(view, language)


def test_the_shifted_picture_and_the_next_frame_start_blank():
    device = dummy(width=oled.WIDTH, height=oled.HEIGHT, mode="1")
    display = oled.Display(device, "fr")
    display.show(views.Countdown(seconds_left=8, total=50, warning=True))  # a lit screen, then a dark one
    display.adjust(DisplayChanged(Brightness.HIGH, False, (1, 1)))
    display.show(views.TimeUp())
    expected = Image.new("1", (oled.WIDTH, oled.HEIGHT))
    expected.paste(Image.frombytes("1", (oled.WIDTH, oled.HEIGHT), painted_by_pil(views.TimeUp(), "fr")), (1, 1))
    assert device.image.tobytes() == expected.tobytes()


@given(
    text=st.text(alphabet="AÈÉBCDEFGHIJKLMNOPQRSTUVWXYZéèàçôabcdefghijklmnopqrstuvwxyz0123456789 :·!×%/-", max_size=14),
    size=st.integers(min_value=8, max_value=40),
    anchor=st.sampled_from(["la", "ls", "rs", "mm", "ms", "lm"]),
    x=st.integers(min_value=-10, max_value=140),
    y=st.integers(min_value=-10, max_value=70),
    ink=st.sampled_from([oled.ON, oled.OFF]),
)
def test_a_text_pasted_from_the_cache_is_the_text_pil_draws(text, size, anchor, x, y, ink):
    ours, theirs = (Image.new("1", (oled.WIDTH, oled.HEIGHT), oled.OFF if ink == oled.ON else oled.ON) for _ in "ab")
    oled.LetteredDraw(ours).text((x, y), text, font=oled.font(size), fill=ink, anchor=anchor)
    ImageDraw.Draw(theirs).text((x, y), text, font=oled.font(size), fill=ink, anchor=anchor)
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("ink", [oled.ON, oled.OFF])
def test_every_countdown_number_pasted_digit_by_digit_is_the_number_pil_draws(ink):
    """A countdown's number is pasted from its digits, each rendered once (LetteredDraw.number): the same
    pixels as PIL drawing the whole number, for every number a countdown can show (auction.seconds <= 3600)."""
    paper = oled.OFF if ink == oled.ON else oled.ON
    typeface = oled.font(oled.COUNTDOWN_SIZE)
    ours, theirs = (Image.new("1", (oled.WIDTH, oled.HEIGHT)) for _ in "ab")
    draw_ours, draw_theirs = oled.LetteredDraw(ours), ImageDraw.Draw(theirs)
    numbers = range(0, 3601) if ink == oled.ON else range(0, 100)
    for number in numbers:
        for draw in (draw_ours, draw_theirs):
            draw.rectangle((0, 0, oled.WIDTH - 1, oled.HEIGHT - 1), fill=paper)
        draw_ours.number((oled.WIDTH // 2, 32), str(number), typeface, ink)
        draw_theirs.text((oled.WIDTH // 2, 32), str(number), font=typeface, fill=ink, anchor="mm")
        assert ours.tobytes() == theirs.tobytes(), number


@pytest.mark.parametrize("language", i18n.languages())
@pytest.mark.parametrize("shift", [(0, 0), (1, 1)])
def test_every_frame_of_a_countdown_on_its_backdrop_is_the_screen_pil_draws(language, shift):
    """The display pastes a countdown's backdrop (painted once) and draws the number and the bar over it: each
    frame of a countdown, second after second into the warning and past it to another screen and back, is
    PIL's painting of that second's view in full (shifted as asked)."""
    device = dummy(width=oled.WIDTH, height=oled.HEIGHT, mode="1")
    display = oled.Display(device, language)
    display.adjust(DisplayChanged(Brightness.HIGH, False, shift))
    total = 30
    seconds = [*range(total, -1, -1), 12, 3]
    for left in seconds:
        view = views.Countdown(seconds_left=left, total=total, warning=left <= 10)
        display.show(view)
        expected = Image.new("1", (oled.WIDTH, oled.HEIGHT))
        expected.paste(Image.frombytes("1", (oled.WIDTH, oled.HEIGHT), painted_by_pil(view, language)), shift)
        assert device.image.tobytes() == expected.tobytes(), left
        if left == 5:
            display.show(views.TimeUp())  # another screen between two countdown frames
