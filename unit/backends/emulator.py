"""The ``emulator`` backend: the unit in a pygame-ce window on any laptop.

The OLED image comes from luma's ``dummy`` device, exactly as the real screen
would get it, scaled 4x with crisp pixels. Around it: the red LED, blinking as
the core says, and the three buttons, which work with the mouse (press and
hold) and with the keyboard. Sounds are square-wave tones through
``pygame.mixer``; with no audio device the window runs mute.

Not luma.emulator: it owns the window, calls ``sys.exit()`` on Escape, sleeps
in every ``display()`` and pulls in upstream pygame over pygame-ce.
"""

from __future__ import annotations

import logging
import math
import os
import sys
from array import array
from collections.abc import Iterable
from importlib import resources
from typing import Any

from luma.core.device import dummy

from unit import i18n
from unit.backends import oled as screen
from unit.backends.base import STOP, Clock, DrawnLed, Post
from unit.backends.oled import CONTRAST, DIMMED
from unit.core import (
    Button,
    Config,
    DisplayChanged,
    LedChanged,
    LedMode,
    Pressed,
    Released,
    SoundPlayed,
    Switched,
    views,
)
from unit.core.settings import PowerControl, Volume

log = logging.getLogger(__name__)
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before any `import pygame`

SCALE = 4
WINDOW = (600, 470)
OLED_AT = (44, 40)
LED_AT = (300, 324)
LED_RADIUS = 11
BUTTON_TOP, BUTTON_SIZE = 352, (160, 52)
BUTTON_LEFTS = {Button.POWER: 44, Button.AUCTION: 220, Button.BUILD: 396}

BACKGROUND = (34, 36, 42)
CASE = (58, 62, 70)
BEZEL = (8, 8, 10)
PIXEL_ON = (235, 245, 255)  # a white SSD1306
PIXEL_OFF = (12, 14, 18)
LED_LIT = (255, 36, 24)
LED_DARK = (70, 14, 12)
BUTTON_UP = (200, 202, 208)
BUTTON_DOWN = (130, 132, 140)
LABEL = (20, 20, 24)
HINT = (190, 194, 202)
#: The sound volume as the mixer's (the settings menu changes it).
VOLUME = {Volume.OFF: 0.0, Volume.LOW: 0.25, Volume.HIGH: 1.0}

# Both languages' letters work, whatever the configured language.
KEYS = {
    "o": Button.POWER,
    "p": Button.POWER,
    "e": Button.AUCTION,
    "a": Button.AUCTION,
    "space": Button.AUCTION,
    "c": Button.BUILD,
    "b": Button.BUILD,
}

#: Cap on one wait, so that Ctrl-C in the terminal is seen: SDL's wait does not wake for signals.
MAX_WAIT = 0.5


def has_display() -> bool:
    """Whether SDL can open a window here (or has been told to draw off-screen)."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def square_wave(tones: Iterable[tuple[float, float]], rate: int, channels: int, volume: float = 0.25) -> bytes:
    """16-bit samples for ``(Hz, ms)`` tones, built with the stdlib: pygame.sndarray needs numpy."""
    amplitude = int(32767 * volume)
    samples = array("h")
    for hz, ms in tones:
        count = int(rate * ms / 1000)
        if hz <= 0:
            samples.extend([0] * (count * channels))
            continue
        half_period = rate / (2 * hz)
        for i in range(count):
            value = amplitude if int(i / half_period) % 2 == 0 else -amplitude
            samples.extend([value] * channels)
    return samples.tobytes()


class Emulator(DrawnLed):
    """A window that behaves like the unit on the table."""

    name = "emulator"

    def __init__(self, config: Config, screenshot: str | None = None):
        self.config = config
        self.language = config.language
        self.words = i18n.words(config.language)
        self.screenshot = screenshot
        self.switch_control = config.power.control == PowerControl.SWITCH
        self.switch_on = False
        self.held: set[Button] = set()
        self.led = LedChanged(LedMode.OFF)
        self.led_since = 0.0
        self._led_lit = False
        self._sounds: dict[str, Any] = {}
        self.volume = VOLUME[config.buzzer.volume]
        self.contrast = CONTRAST[config.display.brightness]  # the lit pixels dim with it, as on the OLED
        self._channel: Any = None
        self.pg: Any = None  # pygame, once open
        self.window: Any = None

    # --- opening and closing ------------------------------------------------------------------

    def open(self, post: Post, clock: Clock) -> None:
        super().open(post, clock)
        import pygame

        self.pg = pygame
        pygame.display.init()
        pygame.font.init()
        self.audio = self._open_audio()
        self.window = pygame.display.set_mode(WINDOW)
        pygame.display.set_caption("Monopoly City Unit")
        self.display = screen.Display(dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1"), self.language)
        self.display.show(views.Off())
        with resources.as_file(screen.FONT) as font_path:
            self.label_font = pygame.font.Font(str(font_path), 15)
            self.hint_font = pygame.font.Font(str(font_path), 10)
        self.buttons = {name: pygame.Rect(left, BUTTON_TOP, *BUTTON_SIZE) for name, left in BUTTON_LEFTS.items()}
        self.redraw()

    def _open_audio(self) -> bool:
        try:
            self.pg.mixer.init(frequency=44100, size=-16, channels=1)
        except self.pg.error as error:
            log.warning("no audio device (%s): the emulator runs mute", error)
            return False
        return True

    def close(self) -> None:
        """Close the window (safe to call twice, and after an open that failed halfway)."""
        if self.pg is None:
            return
        if self.screenshot and self.window is not None:
            self.save(self.screenshot)
        self.pg.quit()
        self.pg, self.window = None, None

    def save(self, path: str) -> None:
        """Save the window as an image (PNG by the file name)."""
        self.pg.image.save(self.window, path)

    # --- inputs -------------------------------------------------------------------------------

    def wait(self, timeout: float | None) -> None:
        pg = self.pg
        timeout = MAX_WAIT if timeout is None else min(timeout, MAX_WAIT)
        events = []
        if timeout > 0:
            first = pg.event.wait(max(1, math.ceil(timeout * 1000)))
            if first.type != pg.NOEVENT:
                events.append(first)
        events += pg.event.get()
        for event in events:
            self.handle(event)

    def handle(self, event: Any) -> None:
        """Translate one pygame event into the unit's inputs."""
        pg = self.pg
        if event.type == pg.QUIT:
            self.post(STOP)
        elif event.type in (pg.KEYDOWN, pg.KEYUP):
            if event.type == pg.KEYDOWN and event.key == pg.K_ESCAPE:
                self.post(STOP)
                return
            button = KEYS.get(pg.key.name(event.key))
            if button is not None:
                self.button(button, down=event.type == pg.KEYDOWN)
        elif event.type == pg.MOUSEBUTTONDOWN and event.button == 1:
            for name, rect in self.buttons.items():
                if rect.collidepoint(event.pos):
                    self.button(name, down=True)
        elif event.type == pg.MOUSEBUTTONUP and event.button == 1:
            for name in list(self.held):
                self.button(name, down=False)
        elif event.type in (pg.WINDOWEXPOSED, pg.VIDEOEXPOSE):
            self.redraw()

    def button(self, name: Button, down: bool) -> None:
        if down == (name in self.held):
            return  # already in that position (a key held while the mouse also presses)
        if down:
            self.held.add(name)
        else:
            self.held.discard(name)
        if name == Button.POWER and self.switch_control:
            if down:  # a latching switch: each click flips it
                self.switch_on = not self.switch_on
                self.post(Switched(self.switch_on))
        else:
            self.post(Pressed(name) if down else Released(name))
        self.redraw()

    # --- outputs ------------------------------------------------------------------------------

    def show(self, view: views.View) -> None:
        if self.display.show(view):
            self.redraw()

    def play(self, sound: SoundPlayed) -> None:
        if not self.audio:
            return
        if sound.name not in self._sounds:
            rate, _, channels = self.pg.mixer.get_init()
            self._sounds[sound.name] = self.pg.mixer.Sound(buffer=square_wave(sound.tones, rate, channels))
        if self._channel is not None:
            self._channel.stop()  # the newest sound replaces the one playing
        if self.volume <= 0:
            self._channel = None
            return
        self._sounds[sound.name].set_volume(self.volume)
        self._channel = self._sounds[sound.name].play()

    def set_display(self, display: DisplayChanged) -> None:
        self.display.adjust(display)
        self.contrast = DIMMED if display.dimmed else CONTRAST[display.brightness]
        self.redraw()

    def retune(self, config: Config) -> None:
        """The settings menu changed the language or the volume: the window follows at once."""
        self.config = config
        self.language = config.language
        self.words = i18n.words(config.language)
        self.volume = VOLUME[config.buzzer.volume]
        self.display.set_language(config.language)
        self.redraw()

    def pixel_colour(self) -> tuple[int, int, int]:
        """A lit pixel at the current contrast: a dimmed OLED still glows a little."""
        level = 0.35 + 0.65 * self.contrast / 255
        red, green, blue = (round(off + (on - off) * level) for off, on in zip(PIXEL_OFF, PIXEL_ON, strict=True))
        return red, green, blue

    # --- drawing ------------------------------------------------------------------------------

    def redraw(self) -> None:
        pg = self.pg
        win = self.window
        win.fill(BACKGROUND)
        pg.draw.rect(win, CASE, (16, 12, WINDOW[0] - 32, WINDOW[1] - 44), border_radius=18)
        # The OLED, scaled with nearest-neighbour: crisp pixels.
        x, y = OLED_AT
        pg.draw.rect(win, BEZEL, (x - 10, y - 10, screen.WIDTH * SCALE + 20, screen.HEIGHT * SCALE + 20))
        image = self.display.device.image.convert("L")
        surface = pg.image.frombytes(image.tobytes(), image.size, "P")
        surface.set_palette([PIXEL_OFF] * 255 + [self.pixel_colour()])
        win.blit(pg.transform.scale(surface, (screen.WIDTH * SCALE, screen.HEIGHT * SCALE)), OLED_AT)
        # The LED.
        self._led_lit = self.led_lit(self.clock())
        pg.draw.circle(win, LED_LIT if self._led_lit else LED_DARK, LED_AT, LED_RADIUS)
        pg.draw.circle(win, BEZEL, LED_AT, LED_RADIUS, width=2)
        # The buttons.
        for name, rect in self.buttons.items():
            down = name in self.held or (name == Button.POWER and self.switch_control and self.switch_on)
            pg.draw.rect(win, BUTTON_DOWN if down else BUTTON_UP, rect, border_radius=10)
            text = self.label_font.render(self.words(f"emulator.{name}"), True, LABEL)
            win.blit(text, text.get_rect(center=rect.center))
        hint = self.hint_font.render(self.words("emulator.hint"), True, HINT)
        win.blit(hint, hint.get_rect(center=(WINDOW[0] // 2, WINDOW[1] - 16)))
        pg.display.flip()
