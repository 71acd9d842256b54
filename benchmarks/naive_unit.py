"""A deliberately naive unit, written only to be measured against (never used).

What a first attempt often looks like: a loop that wakes 10 times a second, polls the buttons,
redraws the whole screen on every tick, and counts the auction down by counting those sleeps. It uses
the same gpiozero devices (``Button``, with its HoldThread) and the same drawing code as the real unit,
so the difference measured is the design, not the libraries.
"""

from __future__ import annotations

import time

from gpiozero import LED, Button
from luma.core.device import dummy
from luma.core.render import canvas

from unit.backends import oled as screen
from unit.core import views

TICK = 0.1


class NaiveUnit:
    def __init__(self, factory, pins: dict, auction_seconds: int = 50):
        self.buttons = {name: Button(pins[name], pin_factory=factory) for name in ("power", "auction", "build")}
        self.led = LED(pins["led"], pin_factory=factory)
        self.display = dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1")
        self.painter = screen.Painter("fr")
        self.auction_seconds = auction_seconds
        self.left = 0
        self.ticks = 0

    def run(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.buttons["auction"].is_pressed and not self.left:
                self.left = self.auction_seconds
            if self.left:
                self.ticks += 1
                self.led.value = (self.ticks // 5) % 2 == 0
                if self.ticks % 10 == 0:  # "a second" is ten sleeps: it drifts
                    self.left -= 1
                view = views.Countdown(max(self.left, 1), self.auction_seconds)
            else:
                view = views.Ready(3540, True, 60)
            with canvas(self.display) as draw:  # redraw every tick, changed or not
                self.painter.paint(draw, view)
            time.sleep(TICK)

    def close(self) -> None:
        for device in (*self.buttons.values(), self.led):
            device.close()
