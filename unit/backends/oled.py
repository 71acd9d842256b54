"""Drawing the views on a 128x64 one-bit OLED, with PIL, sent to a luma device.

:class:`Display` draws onto any luma device: the real SSD1306/SH1106 on the
Pi, or luma's ``dummy`` device everywhere else (the emulator, ``--frames``,
the golden-image tests). Both get the same one-bit frame, so what the tests
see is what the OLED shows. A view is drawn only when it differs from the last
one: a full frame costs about 93 ms of a 100 kHz I2C bus. Each text is rendered
once (:func:`lettering`): a countdown draws the same words and digits every second.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources
from typing import Any

from luma.core.device import dummy
from PIL import Image, ImageDraw, ImageFont

from unit import i18n
from unit.core import DisplayChanged, views
from unit.core.settings import Brightness
from unit.core.views import BannerKind, SummaryPage

WIDTH, HEIGHT = 128, 64
#: The vendored DejaVu Sans Bold (with its licence beside it), for the OLED and the emulator's labels.
FONT = resources.files("unit.backends").joinpath("fonts/DejaVuSans-Bold.ttf")
ON, OFF = "white", "black"
#: The OLED's contrast (0-255) for each brightness; dimmed, the lowest.
CONTRAST = {Brightness.LOW: 0x20, Brightness.MEDIUM: 0x80, Brightness.HIGH: 0xFF}
DIMMED = 0x00
#: The size of a countdown's seconds (LetteredDraw.number draws them exactly as PIL would at this size).
COUNTDOWN_SIZE = 40

# The railway station, 16x16: a roof, a clock, two doors and the platform.
STATION_ICON = (
    "................",
    ".......##.......",
    ".....##..##.....",
    "...##......##...",
    ".##....##....##.",
    "################",
    ".#............#.",
    ".#....####....#.",
    ".#...#.#..#...#.",
    ".#....####....#.",
    ".#............#.",
    ".#.###....###.#.",
    ".#.#.#....#.#.#.",
    ".#.#.#....#.#.#.",
    "################",
    "################",
)


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """The vendored DejaVu Sans Bold with Pillow's basic layout, so rendering is identical on every machine.

    The basic layout places hinted glyphs at FreeType's whole-pixel advances: the
    letter spacing stays even in one bit (with libraqm the unhinted fractional
    advances leave holes, « BUILD INGS »), and it is what Pillow uses anyway
    where libraqm/libfribidi are missing.
    """
    with resources.as_file(FONT) as file:
        return ImageFont.truetype(str(file), size, layout_engine=ImageFont.Layout.BASIC)


def text_width(text: str, size: int) -> int:
    """The width ``text`` takes when drawn in one bit (mode "1", as on the OLED)."""
    left, _, right, _ = font(size).getbbox(text, mode="1")
    return int(right - left)


def fitting_size(text: str, largest: int, width: int = WIDTH - 4) -> int:
    """The largest font size up to ``largest`` at which ``text`` fits in ``width`` pixels."""
    size = largest
    while size > 8 and text_width(text, size) > width:
        size -= 1
    return size


@lru_cache(maxsize=512)
def lettering(text: str, typeface: ImageFont.FreeTypeFont, anchor: str) -> tuple[Any, int, int]:
    """``text`` rendered once in one bit (PIL's mask), and where its top left corner goes from the anchor point.

    FreeType hinting a 40-pixel number is most of the cost of a frame: a countdown draws the same words
    and digits every second. The mask is the one ``ImageDraw.text`` draws (``getmask2``, one layout and
    one rendering: measuring the text first would hint every glyph twice). 512 texts: a few hundred kB at most.
    """
    mask, (left, top) = typeface.getmask2(text, "1", anchor=anchor)
    return mask, int(left), int(top)


class LetteredDraw(ImageDraw.ImageDraw):
    """PIL's ``ImageDraw``, each text pasted from :func:`lettering` (the same pixels, rendered once).

    Only the unit's :class:`Display` draws with it, on one-bit images; anything it does not cache (several
    lines, a fractional position, extra options, another mode) is drawn by PIL as before.
    """

    def __init__(self, im: Image.Image, mode: str | None = None) -> None:
        super().__init__(im, mode)
        self._inks: dict[str, int] = {}  # PIL's ink for each colour name, looked up once

    def ink_of(self, fill: str) -> int:
        """PIL's ink for ``fill`` on this image (``ImageDraw._getink``: ImageColor's lookup, once per colour)."""
        ink = self._inks.get(fill)
        if ink is None:
            found, _ = self._getink(fill)
            assert found is not None
            ink = self._inks[fill] = found
        return ink

    def fill_box(self, box: tuple[int, int, int, int], fill: str) -> None:
        """``rectangle(box, fill=fill)``, the ink looked up once (a countdown fills its bar every second)."""
        self.draw.draw_rectangle(box, self.ink_of(fill), 1)

    def text(  # type: ignore[override]
        self,
        xy: tuple[float, float],
        text: str,
        fill: str | int | None = None,
        font: ImageFont.FreeTypeFont | None = None,
        anchor: str | None = None,
        **options: Any,
    ) -> None:
        x, y = xy
        plain = not options and font is not None and isinstance(text, str) and "\n" not in text
        if not plain or self.fontmode != "1" or x != int(x) or y != int(y):
            super().text(xy, text, fill, font, anchor, **options)
            return
        assert font is not None
        mask, left, top = lettering(text, font, anchor or "la")
        ink, fill_ink = self._getink(fill)  # as ImageDraw.text and ImageDraw.bitmap paste a mask
        self.draw.draw_bitmap((int(x) + left, int(y) + top), mask, fill_ink if ink is None else ink)

    def number(self, xy: tuple[int, int], digits: str, typeface: ImageFont.FreeTypeFont, fill: str) -> None:
        """A whole number centred on ``xy`` (anchor "mm"), pasted digit by digit from :func:`digit_glyphs`.

        A countdown's number is one never drawn before, each second: rendering it costs FreeType three
        hintings of each glyph. Its digits are rendered once each and laid out as PIL's basic layout lays
        them: pen positions at whole-pixel advances from the middle of the total advance, each glyph where
        PIL would paste it. tests/test_lettering.py checks that the pixels are PIL's own for every countdown
        number (1 to 3600) at :data:`COUNTDOWN_SIZE`; at some other sizes (15) they are not, so only the
        countdown draws with it. Advances that are not whole pixels are drawn by PIL as before.
        """
        glyphs = digit_glyphs(typeface)
        if glyphs is None or not digits.isdigit() or not digits.isascii() or self.fontmode != "1":
            self.text(xy, digits, fill=fill, font=typeface, anchor="mm")
            return
        x, y = xy
        placed = list(map(glyphs.__getitem__, digits))
        total = 0  # the advances, summed in this frame (no generator: this runs cold, once a second)
        for glyph in placed:
            total += glyph[3]
        pen = x - ((total // 2 + 32) >> 6)  # FreeType's PIXEL(position / 2): the anchor's middle
        ink = self.ink_of(fill)
        for mask, left, top, advance in placed:
            self.draw.draw_bitmap((pen + left, y + top), mask, ink)
            pen += advance >> 6


@cache
def digit_advance(typeface: ImageFont.FreeTypeFont, digit: str) -> int:
    """How far the pen moves after ``digit`` in one bit (hinted), in FreeType's 1/64 pixels."""
    return round(typeface.getlength(digit, mode="1") * 64)


@cache
def digit_glyphs(typeface: ImageFont.FreeTypeFont) -> dict[str, tuple[Any, int, int, int]] | None:
    """Each digit's mask, its corner from the pen (anchor "lm"), and its advance (1/64 pixels), rendered once;
    None when an advance is not a whole pixel (PIL would place the digits otherwise)."""
    glyphs = {digit: (*lettering(digit, typeface, "lm"), digit_advance(typeface, digit)) for digit in "0123456789"}
    return None if any(advance % 64 for *_, advance in glyphs.values()) else glyphs


def centred(draw: ImageDraw.ImageDraw, y: int, text: str, size: int, fill: str = ON) -> None:
    draw.text((WIDTH // 2, y), text, font=font(size), fill=fill, anchor="mm")


class Painter:
    """Draws one view in one language onto a PIL ``ImageDraw``."""

    def __init__(self, language: str):
        self.language = language
        self.words = i18n.words(language)

    def paint(self, draw: ImageDraw.ImageDraw, view: views.View) -> None:
        match view:
            case views.Off():
                pass
            case views.Ready():
                self.ready(draw, view)
            case views.Countdown():
                self.countdown(draw, view)
            case views.Banner():
                self.banner(draw, view)
            case views.Build():
                self.build(draw, view)
            case views.TimeUp():
                self.time_up(draw)
            case views.Shutdown():
                self.shutdown(draw)
            case views.Welcome():
                self.welcome(draw, view)
            case views.Confirm():
                self.confirm(draw)
            case views.Menu():
                self.menu(draw, view)
            case views.Summary():
                self.summary(draw, view)
            case views.Phone():
                self.phone(draw, view)
            case views.Pairing():
                self.pairing(draw, view)
            case _:
                raise TypeError(f"not a view: {view!r}")

    def ready(self, draw: ImageDraw.ImageDraw, view: views.Ready) -> None:
        w = self.words
        label = w("screen.left") if view.counts_down else w("screen.played")
        if view.counts_down and view.game_minutes is not None:
            length = f"{w('screen.game')} {views.duration(view.game_minutes * 60)}"
        else:
            length = w("screen.untimed")
        draw.text((0, 10), label, font=font(10), fill=ON, anchor="ls")
        draw.text((WIDTH, 10), length, font=font(10), fill=ON, anchor="rs")
        draw.line((0, 13, WIDTH - 1, 13), fill=ON)
        clock = views.duration(view.clock)
        number, _, unit = clock.partition(" ")
        if unit:  # "59 min", "45 s": a big number and its unit beside it
            size = 36
            unit_width = text_width(unit, 14) + 3
            total = text_width(number, size) + unit_width
            x = (WIDTH - total) // 2
            draw.text((x, 40), number, font=font(size), fill=ON, anchor="lm")
            draw.text((x + total - unit_width + 3, 52), unit, font=font(14), fill=ON, anchor="ls")
        else:  # "1h05"
            centred(draw, 40, clock, fitting_size(clock, 36))

    def countdown(self, draw: ImageDraw.ImageDraw, view: views.Countdown) -> None:
        self.countdown_backdrop(draw, view.warning)
        self.countdown_seconds(draw, view)

    def countdown_backdrop(self, draw: ImageDraw.ImageDraw, warning: bool) -> None:
        """What every frame of a countdown shares: the word, the warning's mark, the bar's frame (and the paper)."""
        # The warning is the same screen inverted: visibly more urgent, with no extra timing.
        ink, paper = (OFF, ON) if warning else (ON, OFF)
        if warning:
            draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), fill=paper)
        # On a baseline low enough that the accent of ENCHÈRES is not clipped.
        draw.text((1, 12), self.words("screen.auction"), font=font(11), fill=ink, anchor="ls")
        if warning:
            draw.text((WIDTH - 2, 12), "!", font=font(11), fill=ink, anchor="rs")
        draw.rectangle((0, 56, WIDTH - 1, HEIGHT - 1), outline=ink, fill=paper)  # the bar, empty

    def countdown_seconds(self, draw: ImageDraw.ImageDraw, view: views.Countdown) -> None:
        """What changes each second, over the backdrop: the number and the bar's filling (how much is left)."""
        ink = OFF if view.warning else ON
        filled = round((WIDTH - 4) * min(1.0, view.seconds_left / view.total))
        if isinstance(draw, LetteredDraw):  # the unit's display: the digits rendered once each, the inks looked up once
            draw.number((WIDTH // 2, 32), str(view.seconds_left), font(COUNTDOWN_SIZE), ink)
            if filled > 0:
                draw.fill_box((2, 58, 1 + filled, HEIGHT - 3), ink)
            return
        centred(draw, 32, str(view.seconds_left), COUNTDOWN_SIZE, ink)
        if filled > 0:
            draw.rectangle((2, 58, 1 + filled, HEIGHT - 3), fill=ink)

    def banner(self, draw: ImageDraw.ImageDraw, view: views.Banner) -> None:
        text = views.banner_text(view, self.words)
        two_lines = view.kind in (BannerKind.HOUR, BannerKind.RESUMED)
        first, _, second = text.partition(" ") if two_lines else (text, "", "")
        if view.kind == BannerKind.HOUR:  # "2 HEURES JOUÉES": the number big, the words below
            centred(draw, 22, first, 34)
            centred(draw, 54, second, fitting_size(second, 14))
        elif second:
            centred(draw, 20, first, fitting_size(first, 18))
            centred(draw, 44, second, fitting_size(second, 18))
        else:
            centred(draw, 32, text, fitting_size(text, 24))

    def build(self, draw: ImageDraw.ImageDraw, view: views.Build) -> None:
        w = self.words
        draw.text((0, 10), w("screen.build"), font=font(10), fill=ON, anchor="ls")
        cell, gap = 28, 4
        x0 = (WIDTH - (4 * cell + 3 * gap)) // 2
        top = 16
        for index, icon in enumerate(views.BUILD_ICONS):
            x = x0 + index * (cell + gap)
            box = (x, top, x + cell - 1, top + cell - 1)
            chosen = index == view.highlight
            lit = chosen and (view.result is None or view.lit)
            draw.rectangle(box, outline=ON, fill=ON if lit else OFF)
            ink = OFF if lit else ON
            if icon == "station":
                self.station(draw, x + (cell - 16) // 2, top + (cell - 16) // 2, ink)
            else:
                draw.text((x + cell // 2, top + cell // 2), str(icon), font=font(20), fill=ink, anchor="mm")
        if view.result is not None:
            allowance = views.build_allowance(view.result, self.words)
            centred(draw, 56, allowance, fitting_size(allowance, 12))

    @staticmethod
    def station(draw: ImageDraw.ImageDraw, x: int, y: int, ink: str) -> None:
        for dy, row in enumerate(STATION_ICON):
            for dx, pixel in enumerate(row):
                if pixel == "#":
                    draw.point((x + dx, y + dy), fill=ink)

    def time_up(self, draw: ImageDraw.ImageDraw) -> None:
        title = self.words("screen.time_up")
        centred(draw, 14, title, fitting_size(title, 18))
        draw.line((8, 28, WIDTH - 9, 28), fill=ON)
        first, second = self.words("screen.count").rsplit(" ", 1)
        centred(draw, 40, first, fitting_size(first, 13))
        centred(draw, 56, second, fitting_size(second, 13))

    def shutdown(self, draw: ImageDraw.ImageDraw) -> None:
        text = self.words("screen.shutdown")
        centred(draw, 32, text, fitting_size(text, 18))

    def welcome(self, draw: ImageDraw.ImageDraw, view: views.Welcome) -> None:
        w = self.words
        title = w("screen.welcome")
        centred(draw, 11, title, fitting_size(title, 16))
        draw.line((8, 22, WIDTH - 9, 22), fill=ON)
        lines = [w("screen.welcome_play"), w("screen.welcome_settings", s=f"{view.hold_seconds:g}")]
        if view.phone:  # three lines, a little smaller
            lines.append(w("screen.welcome_phone"))
            size = min(fitting_size(line, 11) for line in lines)
            for y, line in zip((33, 45, 57), lines, strict=True):
                centred(draw, y, line, size)
            return
        for y, line in zip((36, 53), lines, strict=True):
            centred(draw, y, line, fitting_size(line, 12))

    def confirm(self, draw: ImageDraw.ImageDraw) -> None:
        question, hint = self.words("screen.confirm_off"), self.words("screen.confirm_hint")
        draw.rectangle((0, 0, WIDTH - 1, 40), fill=ON)  # the question stands out from any game screen
        centred(draw, 21, question, fitting_size(question, 20), OFF)
        centred(draw, 54, hint, fitting_size(hint, 12))

    def phone(self, draw: ImageDraw.ImageDraw, view: views.Phone) -> None:
        """The address as text; or its QR code on a lit square (dark modules, as scanners expect); with the box's
        own Wi-Fi on, its QR code and its name and password first (views.phone_pages gives the order)."""
        w = self.words
        address = view.address
        pages = views.phone_pages(address)
        page = view.page if view.page in pages else views.PhonePage.TEXT
        following = pages[pages.index(page) + 1] if pages.index(page) + 1 < len(pages) else None
        hint = w("screen.phone_back" if following is None else "screen.phone_more")
        if address is not None and address.wifi is not None and page == views.PhonePage.WIFI:
            self.qr(draw, address.wifi.qr, 0, 0, HEIGHT)
            self.column(draw, (w("screen.wifi"), *self.wrapped(address.wifi.name)), hint)
            return
        if address is not None and address.wifi is not None and page == views.PhonePage.WIFI_TEXT:
            draw.text((0, 10), w("screen.wifi"), font=font(10), fill=ON, anchor="ls")
            draw.line((0, 13, WIDTH - 1, 13), fill=ON)
            centred(draw, 27, address.wifi.name, fitting_size(address.wifi.name, 12))
            label = w("screen.wifi_password")
            centred(draw, 40, label, fitting_size(label, 9))
            centred(draw, 53, address.wifi.password, fitting_size(address.wifi.password, 12))
            return
        if address is not None and page == views.PhonePage.QR:
            self.qr(draw, address.qr, 0, 0, HEIGHT)
            self.column(draw, (w("screen.phone"),), hint)
            return
        draw.text((0, 10), w("screen.phone"), font=font(10), fill=ON, anchor="ls")
        draw.line((0, 13, WIDTH - 1, 13), fill=ON)
        lines = address.lines[:2] if address is not None else (w("screen.phone_none"),)
        if len(lines) > 1 and text_width(lines[0], 8) > WIDTH - 4:  # a long host name: the address alone
            lines = lines[1:]
        size = min(fitting_size(line, 12) for line in lines) if lines else 12
        for y, line in zip((27, 41) if len(lines) > 1 else (34,), lines, strict=False):
            centred(draw, y, line, size)
        if following == views.PhonePage.QR:
            hint = w("screen.phone_next")
        draw.text((WIDTH // 2, 61), hint, font=font(fitting_size(hint, 9)), fill=ON, anchor="ms")

    @staticmethod
    def column(draw: ImageDraw.ImageDraw, lines: tuple[str, ...], hint: str) -> None:
        """Beside a QR code: a title (and a name under it) at the top, the button's hint at the bottom."""
        right, width = (HEIGHT + WIDTH) // 2, WIDTH - HEIGHT - 2
        tops, bottoms = ((14,), (44, 57)) if len(lines) == 1 else ((11, 24, 34), (49, 61))
        for y, line, largest in zip(tops, lines, (11, 10, 10), strict=False):
            draw.text((right, y), line, font=font(fitting_size(line, largest, width)), fill=ON, anchor="ms")
        button, _, action = hint.partition(" : " if " : " in hint else ": ")
        for y, line in zip(bottoms, (button, action), strict=True):
            draw.text((right, y), line, font=font(fitting_size(line, 10, width)), fill=ON, anchor="ms")

    @staticmethod
    def wrapped(name: str, width: int = WIDTH - HEIGHT - 2) -> tuple[str, ...]:
        """A network's name on at most two lines of the narrow column, cut at a space where one fits."""
        if text_width(name, 9) <= width or " " not in name:
            return (name,)
        words = name.split(" ")
        for cut in range(len(words) - 1, 0, -1):
            first = " ".join(words[:cut])
            if text_width(first, 9) <= width:
                return first, " ".join(words[cut:])
        return words[0], " ".join(words[1:])

    @staticmethod
    def qr(draw: ImageDraw.ImageDraw, rows: tuple[str, ...], x: int, y: int, side: int) -> None:
        """A QR code in a lit ``side``-pixel square: whole pixels per module, a quiet zone around."""
        modules = len(rows)
        scale = max(1, side // (modules + 2))
        offset = (side - modules * scale) // 2
        draw.rectangle((x, y, x + side - 1, y + side - 1), fill=ON)
        for r, row in enumerate(rows):
            for c, module in enumerate(row):
                if module == "1":
                    left, top = x + offset + c * scale, y + offset + r * scale
                    draw.rectangle((left, top, left + scale - 1, top + scale - 1), fill=OFF)

    def pairing(self, draw: ImageDraw.ImageDraw, view: views.Pairing) -> None:
        w = self.words
        title, hint = w("screen.pairing"), w("screen.pairing_hint")
        centred(draw, 8, title, fitting_size(title, 12))
        draw.line((8, 16, WIDTH - 9, 16), fill=ON)
        code = views.spaced_code(view.code)
        centred(draw, 36, code, fitting_size(code, 26))
        centred(draw, 57, hint, fitting_size(hint, 10))

    def header(self, draw: ImageDraw.ImageDraw, title: str, position: int, count: int) -> None:
        draw.text((0, 10), title, font=font(10), fill=ON, anchor="ls")
        draw.text((WIDTH, 10), f"{position}/{count}", font=font(10), fill=ON, anchor="rs")
        draw.line((0, 13, WIDTH - 1, 13), fill=ON)

    def menu(self, draw: ImageDraw.ImageDraw, view: views.Menu) -> None:
        w = self.words
        # The item in the header (« 1/6 » says it is a menu), its value big below.
        self.header(draw, views.menu_label(view.item, w), view.position, view.count)
        value = views.menu_value(view, w)
        centred(draw, 29, value, fitting_size(value, 18))
        # What the two buttons do, one line each (ON/OFF leaves: the welcome screen said so).
        for baseline, key in ((51, "screen.settings_next"), (61, "screen.settings_change")):
            hint = w(key)
            size = fitting_size(hint, 9)
            draw.text((WIDTH // 2, baseline), hint, font=font(size), fill=ON, anchor="ms")

    def summary(self, draw: ImageDraw.ImageDraw, view: views.Summary) -> None:
        w = self.words
        index = views.SUMMARY_PAGES.index(view.page)
        self.header(draw, w("screen.summary"), index + 1, len(views.SUMMARY_PAGES))
        title, line = views.summary_lines(view, w)
        centred(draw, 25, title, fitting_size(title, 12))
        if view.page == SummaryPage.AUCTIONS:  # « adjugées 14 · annulées 3 »: one count a line
            first, _, second = line.partition(" · ")
            size = min(fitting_size(first, 13), fitting_size(second, 13))
            centred(draw, 42, first, size)
            centred(draw, 56, second, size)
            return
        if view.page != SummaryPage.BUILDS:
            size = 24 if view.page == SummaryPage.PLAYED else 14
            centred(draw, 48, line, fitting_size(line, size))
            return
        # The four results as on the build screen, each with its count below.
        cell, gap = 20, 12
        x0 = (WIDTH - (4 * cell + 3 * gap)) // 2
        for index, (icon, count) in enumerate(zip(views.BUILD_ICONS, view.builds, strict=True)):
            x = x0 + index * (cell + gap)
            draw.rectangle((x, 33, x + cell - 1, 33 + cell - 1), outline=ON)
            if icon == "station":
                self.station(draw, x + 2, 35, ON)
            else:
                draw.text((x + cell // 2, 33 + cell // 2), str(icon), font=font(14), fill=ON, anchor="mm")
            draw.text((x + cell // 2, 63), f"×{count}", font=font(10), fill=ON, anchor="ms")


class Display:
    """A luma device showing views; redraws only when the view (or its offset) changes.

    A countdown's frame is its backdrop (:meth:`Painter.countdown_backdrop`, painted once per language and
    warning) with the number and the bar's filling over it: the thread drawing it wakes once a second, cold,
    and each call of PIL's Python costs there (docs/performance.md).
    """

    def __init__(self, device: Any, language: str) -> None:
        self.device = device  # a luma device (ssd1306, sh1106, dummy)
        # One frame painted over and over (the devices copy what they are sent): no new image each time.
        self.frame = Image.new(device.mode, device.size)
        self._on_frame = LetteredDraw(self.frame)
        self.picture = Image.new("1", (WIDTH, HEIGHT))  # the picture to shift, then pasted on the frame
        self._on_picture = LetteredDraw(self.picture)
        self.painter = Painter(language)
        self.view: views.View | None = None
        self.shift = (0, 0)
        self.contrast: int | None = None
        self._backdrops: dict[tuple[str, bool], Image.Image] = {}  # a countdown's, by language and warning

    def show(self, view: views.View) -> bool:
        """Draw ``view``; return False when it was already on the screen."""
        if view == self.view:
            return False
        self.view = view
        self._draw()
        return True

    def set_language(self, language: str) -> None:
        """Words in another language from now on (the settings menu): redraw in them."""
        if language != self.painter.language:
            self.painter = Painter(language)
            if self.view is not None:
                self._draw()

    def adjust(self, display: DisplayChanged) -> None:
        """Set the contrast (the brightness, or dimmed) and move the picture by ``display.shift``."""
        contrast = DIMMED if display.dimmed else CONTRAST[display.brightness]
        if contrast != self.contrast:
            self.device.contrast(contrast)
            self.contrast = contrast
        if display.shift != self.shift:
            self.shift = display.shift
            if self.view is not None:
                self._draw()

    def _draw(self) -> None:
        """Paint the view on a new frame and send it (as luma's ``canvas`` does, with :class:`LetteredDraw`)."""
        assert self.view is not None
        shifted = self.shift != (0, 0)  # against burn-in: the same picture, a pixel or two further on
        image, draw = (self.picture, self._on_picture) if shifted else (self.frame, self._on_frame)
        if isinstance(self.view, views.Countdown):
            # The whole picture, nothing to clear first; pasted by PIL's core (Image.paste's checks cost here).
            image.im.paste(self._backdrop(self.view.warning).im, (0, 0, WIDTH, HEIGHT))
            self.painter.countdown_seconds(draw, self.view)
        else:
            draw.fill_box((0, 0, WIDTH - 1, HEIGHT - 1), OFF)
            self.painter.paint(draw, self.view)
        if shifted:
            self._on_frame.fill_box((0, 0, WIDTH - 1, HEIGHT - 1), OFF)
            self._on_frame.bitmap(self.shift, self.picture, fill=ON)
        self.device.display(self.frame)

    def _backdrop(self, warning: bool) -> Image.Image:
        """A countdown's backdrop in the current language, painted on its first frame."""
        key = (self.painter.language, warning)
        backdrop = self._backdrops.get(key)
        if backdrop is None:
            backdrop = self._backdrops[key] = Image.new("1", (WIDTH, HEIGHT))
            self.painter.countdown_backdrop(LetteredDraw(backdrop), warning)
        return backdrop


def render(view: views.View, language: str) -> Image.Image:
    """The exact 128x64 one-bit image the OLED shows for ``view``."""
    device = dummy(width=WIDTH, height=HEIGHT, mode="1")
    Display(device, language).show(view)
    image: Image.Image = device.image
    return image
