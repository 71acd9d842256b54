"""The ``terminal`` backend: the unit in a text terminal, over SSH too.

The 128x64 frame comes from luma's ``dummy`` device, through the same
:class:`~unit.backends.oled.Display` as the OLED, and is printed with Unicode
braille (2x4 pixels a character: 64x16, fits an 80x24 terminal) or half blocks
(1x2 pixels: 128x32, where the terminal is at least 130x40). Below it: the LED
as a red dot, the keys, and the last sound (rung on the terminal bell, or not).

A terminal reports key presses, never releases, so a key is a short press
(pressed and released at once) and the capital letter holds the button down
until a button key is typed again: the core's own hold deadlines then make
the long press. The held button's own key only lets go; another button's key
lets go and presses that button. The keys are read in their own thread and
only posted; the loop draws.

A resized terminal is drawn again at once (SIGWINCH, in the main thread,
only wakes the key thread, which redraws); one smaller than the braille
frame says so, and how big it must be, instead of a cut picture.
"""

from __future__ import annotations

import logging
import os
import re
import selectors
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from luma.core.device import dummy

from unit import i18n
from unit.backends import oled as screen
from unit.backends.base import STOP, Clock, DrawnLed, Post
from unit.core import Button, Config, LedChanged, LedMode, Pressed, Released, SoundPlayed, Switched, views
from unit.core.settings import PowerControl, Volume

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

# Both languages' letters work, whatever the configured language (as in the emulator).
KEYS = {
    "o": Button.POWER,
    "p": Button.POWER,
    "e": Button.AUCTION,
    "a": Button.AUCTION,
    " ": Button.AUCTION,
    "c": Button.BUILD,
    "b": Button.BUILD,
}
QUIT = {"q", "\x1b"}
MUTE = "s"
ESCAPE_SEQUENCE = re.compile(r"\x1b(\[[0-9;?]*[@-~]|O.)")

RED, DIM, RESET = "\x1b[1;31m", "\x1b[2m", "\x1b[0m"
HOME_CLEAR = "\x1b[H\x1b[J"
ENTER, LEAVE = "\x1b[?1049h\x1b[?25l", "\x1b[?25h\x1b[?1049l"  # alternate screen, hidden cursor
BLOCKS_NEED = (screen.WIDTH + 2, screen.HEIGHT // 2 + 7)  # columns, rows
BRAILLE_NEED = (screen.WIDTH // 2 + 2, screen.HEIGHT // 4 + 6)  # the smallest terminal the frame fits in

# Braille dots in a 2x4 cell: (x, y) -> bit (Unicode's numbering 1-8).
BRAILLE_BITS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08, (1, 1): 0x10, (1, 2): 0x20}
BRAILLE_BITS |= {(0, 3): 0x40, (1, 3): 0x80}
HALF_BLOCKS = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def braille(image: Image.Image) -> list[str]:
    """A one-bit image as lines of braille characters, 2x4 pixels each."""
    width, height = image.size
    pixels = image.load()
    assert pixels is not None
    lines = []
    for top in range(0, height, 4):
        line = []
        for left in range(0, width, 2):
            bits = 0
            for (dx, dy), bit in BRAILLE_BITS.items():
                x, y = left + dx, top + dy
                if x < width and y < height and pixels[x, y]:
                    bits |= bit
            line.append(chr(0x2800 + bits))
        lines.append("".join(line))
    return lines


def half_blocks(image: Image.Image) -> list[str]:
    """A one-bit image as lines of half blocks, 1x2 pixels each."""
    width, height = image.size
    pixels = image.load()
    assert pixels is not None
    return [
        "".join(HALF_BLOCKS[bool(pixels[x, y]), bool(y + 1 < height and pixels[x, y + 1])] for x in range(width))
        for y in range(0, height, 2)
    ]


def frame_lines(image: Image.Image, style: str) -> list[str]:
    """The frame in a box, in ``style`` (``braille`` or ``blocks``)."""
    rows = half_blocks(image) if style == "blocks" else braille(image)
    width = len(rows[0])
    return ["┌" + "─" * width + "┐", *("│" + row + "│" for row in rows), "└" + "─" * width + "┘"]


def pick_style(columns: int, lines: int) -> str:
    """Half blocks where the terminal is big enough for them, braille otherwise."""
    return "blocks" if columns >= BLOCKS_NEED[0] and lines >= BLOCKS_NEED[1] else "braille"


class Keys:
    """Reads single key presses from a file descriptor in a thread and hands each to ``on_key``.

    On a terminal, it switches to cbreak mode (keys arrive without Enter, Ctrl-C still
    interrupts) and restores the terminal on :meth:`close`.
    """

    def __init__(self, fd: int, on_key: Callable[[str], None], on_resize: Callable[[], None] | None = None):
        self.fd = fd
        self.on_key = on_key
        self.on_resize = on_resize
        self._saved: list[Any] | None = None  # the terminal's modes, restored on close
        self._wake_r, self._wake_w = os.pipe()
        self._resized_r, self._resized_w = os.pipe()  # SIGWINCH's handler writes here (see resized())
        os.set_blocking(self._resized_w, False)
        self._thread = threading.Thread(target=self._run, name="terminal-keys", daemon=True)

    def start(self) -> None:
        if os.isatty(self.fd):
            import termios
            import tty

            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)
        self._thread.start()

    def resized(self) -> None:
        """The terminal changed size: safe from a signal handler (one non-blocking write; the thread redraws)."""
        try:
            os.write(self._resized_w, b"r")
        except (BlockingIOError, OSError):  # already signalled, or closed
            pass

    def close(self) -> None:
        os.write(self._wake_w, b"x")
        self._thread.join(1)
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None
        for fd in (self._wake_r, self._wake_w, self._resized_r, self._resized_w):
            os.close(fd)

    def _run(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.fd, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            selector.register(self._resized_r, selectors.EVENT_READ)
            while True:
                ready = [key.fd for key, _ in selector.select()]
                if self._wake_r in ready:
                    return
                if self._resized_r in ready:
                    os.read(self._resized_r, 64)
                    if self.on_resize is not None:
                        self.on_resize()
                if self.fd not in ready:
                    continue
                data = os.read(self.fd, 64)
                if not data:  # end of input (stdin from /dev/null): no more keys, the unit goes on
                    selector.unregister(self.fd)  # a resize still redraws
                    continue
                # An arrow or function key's sequence is no button; Escape alone quits.
                for key in ESCAPE_SEQUENCE.sub("", data.decode("utf-8", errors="ignore")):
                    self.on_key(key)


class Terminal(DrawnLed):
    """The unit drawn in the terminal, driven from the keyboard."""

    name = "terminal"

    def __init__(self, config: Config, *, out: TextIO | None = None, keys_fd: int | None = None, bell: bool = True):
        self.config = config
        self.language = config.language
        self.words = i18n.words(self.language)
        self.out = out if out is not None else sys.stdout
        self.keys_fd = keys_fd if keys_fd is not None else sys.stdin.fileno()
        self.bell = bell
        self.switch_control = config.power.control == PowerControl.SWITCH
        self.switch_on = False
        self.held: set[Button] = set()
        self.led = LedChanged(LedMode.OFF)
        self.led_since = 0.0
        self._led_lit = False
        self.sound = ""
        self._lock = threading.Lock()  # the key thread and the loop both draw
        self.keys: Keys | None = None
        self._previous_winch: object = None  # SIGWINCH's handler before ours, put back on close

    # --- opening and closing ------------------------------------------------------------------

    def open(self, post: Post, clock: Clock) -> None:
        super().open(post, clock)
        self.display = screen.Display(dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1"), self.language)
        self.display.show(views.Off())
        self.out.write(ENTER)
        self.redraw()
        self.keys = Keys(self.keys_fd, self.key, on_resize=self.redraw)
        self.keys.start()
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGWINCH"):
            self._previous_winch = signal.signal(signal.SIGWINCH, self._resized)

    def _resized(self, *_signal: object) -> None:
        if self.keys is not None:
            self.keys.resized()

    def close(self) -> None:
        if self._previous_winch is not None:
            signal.signal(signal.SIGWINCH, self._previous_winch)  # type: ignore[arg-type]
            self._previous_winch = None
        if self.keys is not None:
            self.keys.close()
        self.out.write(LEAVE)
        self.out.flush()

    # --- inputs -------------------------------------------------------------------------------

    def key(self, key: str) -> None:
        """One key typed: a short press, a hold (capital letter), a release, mute or quit."""
        if key in QUIT:
            self.post(STOP)
            return
        if key == MUTE:
            self.bell = not self.bell
            self.redraw()
            return
        button = KEYS.get(key.lower())
        if button is None:
            return
        if self.held:  # any button key lets go of what is held; the held button's own key does only that
            released = set(self.held)
            for name in sorted(released):
                self.post(Released(name))
            self.held.clear()
            if button in released:
                self.redraw()
                return
        if button == Button.POWER and self.switch_control:
            self.switch_on = not self.switch_on  # a latching switch: each key flips it
            self.post(Switched(self.switch_on))
        elif key.isupper():
            self.held.add(button)
            self.post(Pressed(button))
        else:
            self.post(Pressed(button))
            self.post(Released(button))
        self.redraw()

    # --- outputs ------------------------------------------------------------------------------

    def show(self, view: views.View) -> None:
        if self.display.show(view):
            self.redraw()

    def play(self, sound: SoundPlayed) -> None:
        self.sound = sound.name
        if self.bell and self.config.buzzer.volume != Volume.OFF:
            self.out.write("\a")
        self.redraw()

    def retune(self, config: Config) -> None:
        """The settings menu changed the language or the volume: the words and the bell follow at once."""
        self.config = config
        self.language = config.language
        self.words = i18n.words(config.language)
        self.display.set_language(config.language)
        self.redraw()

    # --- drawing ------------------------------------------------------------------------------

    def lines(self, style: str) -> list[str]:
        """Everything on the terminal, line by line (without colours)."""
        w = self.words
        lit = self.led_lit(self.clock())
        dot = "●" if lit else "○"
        state = ""
        if self.switch_control:
            state = f"   {w('emulator.power')}: {'ON' if self.switch_on else 'OFF'}"
        sound = f"♪ {self.words('terminal.sounds.' + self.sound)}" if self.sound else ""
        bell = w("terminal.bell") if self.bell else w("terminal.mute")
        status = f" {w('terminal.led')} {dot}{state}   {sound}"
        names = ", ".join(w(f"emulator.{n}") for n in sorted(self.held))
        held = w("terminal.held", names=names) if self.held else ""
        return [
            *frame_lines(self.display.device.image, style),
            status,
            f" {w('terminal.keys')}",
            f" {w('terminal.more')}",
            f" {w('terminal.sound')}: {bell}   {held}",
        ]

    def too_small(self, columns: int, rows: int) -> list[str] | None:
        """The line to show instead of the frame when the terminal cannot hold it, or None."""
        need_columns, need_rows = BRAILLE_NEED
        if columns >= need_columns and rows >= need_rows:
            return None
        return [self.words("terminal.too_small", need=f"{need_columns}x{need_rows}", have=f"{columns}x{rows}")]

    def size(self) -> os.terminal_size:
        """The terminal's own size, which a resize changes. Not COLUMNS and LINES first, as
        ``shutil.get_terminal_size()`` reads them: exported once (by a shell, or pytest-xdist's workers), they
        stay as they were after a resize, and the frame would never give way to « too small »."""
        try:
            return os.get_terminal_size(self.out.fileno())
        except (OSError, ValueError):  # not a terminal (a test's StringIO): the environment, or 80x24
            return shutil.get_terminal_size()

    def redraw(self) -> None:
        # The size is read under the lock too: a frame composed for the old size must not be written after the
        # resize's own redraw (the loop's redraw and the key thread's raced, and the pane kept the old frame).
        with self._lock:
            size = self.size()
            small = self.too_small(size.columns, size.lines)
            if small is not None:
                self.out.write(HOME_CLEAR + "\r\n".join(small))
                self.out.flush()
                return
            lines = self.lines(pick_style(size.columns, size.lines))
            self._led_lit = self.led_lit(self.clock())
            if self._led_lit:  # the lit LED in red
                lines[-4] = lines[-4].replace("●", f"{RED}●{RESET}", 1)
            else:
                lines[-4] = lines[-4].replace("○", f"{DIM}○{RESET}", 1)
            self.out.write(HOME_CLEAR + "\r\n".join(lines))
            self.out.flush()
