"""The ``headless`` backend: no window, no hardware; the trace and, if asked, the frames.

With a frames folder it draws every view on luma's ``dummy`` device (the same
pipeline as the OLED) and saves one PNG per distinct frame, named by its order
and its time since start.
"""

from __future__ import annotations

import logging
from pathlib import Path

from luma.core.device import dummy

from unit.backends import oled as screen
from unit.backends.base import Backend, Clock, Post
from unit.core import Config, DisplayChanged, views

log = logging.getLogger(__name__)


class Headless(Backend):
    name = "headless"

    def __init__(self, language: str, frames: str | Path | None = None):
        self.language = language
        self.frames = Path(frames) if frames is not None else None
        self.display: screen.Display | None = None
        self.saved = 0
        self._last_frame: bytes | None = None

    def open(self, post: Post, clock: Clock) -> None:
        super().open(post, clock)
        if self.frames is not None:
            self.frames.mkdir(parents=True, exist_ok=True)
            self.display = screen.Display(dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1"), self.language)

    def show(self, view: views.View) -> None:
        if self.display is None or self.frames is None or not self.display.show(view):
            return
        image = self.display.device.image
        frame = image.tobytes()
        if frame == self._last_frame:
            return  # a different view that looks the same (the clock behind a banner)
        self._last_frame = frame
        self.saved += 1
        elapsed = self.clock() - self.started
        image.save(self.frames / f"frame-{self.saved:04d}-{elapsed:08.3f}s.png")

    def set_display(self, display: DisplayChanged) -> None:
        if self.display is not None:
            self.display.adjust(display)

    def retune(self, config: Config) -> None:
        self.language = config.language
        if self.display is not None:
            self.display.set_language(config.language)
