"""The JSON Lines trace: one object per observable change (a public format, docs/simulate.md).

``simulate`` writes it on a virtual clock; the real-time backends write the
same lines with real seconds since start, so the two can be compared line by
line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import IO, Any, Protocol

from unit import i18n
from unit.core import (
    BuildDrawn,
    DisplayChanged,
    LedChanged,
    Output,
    ScreenChanged,
    SettingsChanged,
    SoundPlayed,
    StateChanged,
    SystemRequested,
    views,
)
from unit.core.protocol import (
    BuildRecord,
    DisplayRecord,
    LedRecord,
    Record,
    ScreenRecord,
    SettingsRecord,
    SoundRecord,
    StateRecord,
    SystemRecord,
    dumps,
)
from unit.errors import Text, UserError

log = logging.getLogger(__name__)

#: The records a core output makes (docs/simulate.md; the same objects go to the phones, unit/core/protocol.py).
OutputRecord = (
    StateRecord | LedRecord | SoundRecord | ScreenRecord | BuildRecord | SystemRecord | DisplayRecord | SettingsRecord
)


class TraceSink(Protocol):
    """Where the runtime writes its trace: the ``--trace`` file's :class:`TraceWriter`, or the phone link."""

    def write(self, t: float, outputs: Iterable[Output]) -> None:
        """The core's outputs at ``t`` seconds since the start."""

    def write_record(self, obj: dict[str, Any]) -> None:
        """A record the runtime or a backend makes itself (``resume``, a mock pin's ``pin``), as JSON data."""


def record(t: float, output: Output, words: views.Words) -> OutputRecord:
    """The trace record for one core output at time ``t`` (seconds)."""
    t = round(float(t), 3)
    match output:
        case StateChanged(state=state):
            return StateRecord(t, state)
        case LedChanged(mode=mode, hz=hz):
            return LedRecord(t, mode, hz if mode == "blink" else None)
        case SoundPlayed(name=name):
            return SoundRecord(t, name, tuple((hz, ms) for hz, ms in output.tones))
        case ScreenChanged(view=view):
            return ScreenRecord(t, views.describe(view, words))
        case BuildDrawn(result=result):
            return BuildRecord(t, result)
        case SystemRequested(action=action):
            return SystemRecord(t, action)
        case DisplayChanged(brightness=brightness, dimmed=dimmed):
            return DisplayRecord(t, brightness, dimmed)
        case SettingsChanged(choices=choices, reset=reset):
            return SettingsRecord(t, choices.layer(), reset)
    raise TypeError(f"not a core output: {output!r}")


def write_typed(sink: TraceSink, item: Record) -> None:
    """Write a typed record to any sink (a sink takes JSON data: the backends' ``pin`` records are not typed)."""
    sink.write_record(item.data())


class TraceWriter:
    """Writes trace lines to a text stream, one per change.

    The screen line says what the screen shows in words, so a change the words
    do not capture (the build result flashing) prints nothing new; likewise a
    display line says the brightness and dimming, not the pixel shift. After a
    ``settings`` line that changes the language, the words follow it.

    A stream that cannot be written (a full disk, ``/dev/full``) ends ``simulate``
    with one line (:class:`UserError`); a real-time trace (``flush``) is dropped
    instead, with one warning: the unit keeps its time without its trace.
    """

    def __init__(self, stream: IO[str], language: str, *, flush: bool = False, name: str = "stdout"):
        self.stream = stream
        self.language = language
        self.words = i18n.words(language)
        self.flush = flush  # real-time traces: every line on disk at once, and dropped on an error
        self.name = name  # where the trace goes, for the error line
        self.dropped = 0  # lines not written since the stream failed
        self._last_text: str | None = None
        self._last_display: tuple[str, bool] | None = None
        self._lock = threading.Lock()  # pin changes are traced from gpiozero's threads

    def write(self, t: float, outputs: Iterable[Output]) -> None:
        for output in outputs:
            item = record(t, output, self.words)
            if isinstance(item, ScreenRecord):
                if item.text == self._last_text:
                    continue
                self._last_text = item.text
            elif isinstance(item, DisplayRecord):
                if self._last_display is None:  # the screen starts lit at the configured brightness
                    self._last_display = (item.brightness, False)
                if (item.brightness, item.dimmed) == self._last_display:
                    continue  # only the pixel shift changed
                self._last_display = (item.brightness, item.dimmed)
            self.write_record(item.data())
            if isinstance(output, SettingsChanged) and output.choices.language != self.language:
                self.language = output.choices.language
                self.words = i18n.words(self.language)

    def write_record(self, obj: dict[str, Any]) -> None:
        line = dumps(obj) + "\n"
        with self._lock:
            if self.dropped:
                self.dropped += 1
                return
            try:
                self.stream.write(line)
                if self.flush:
                    self.stream.flush()
            except OSError as error:
                self._failed(error)

    def finish(self) -> None:
        """Flush what is buffered (``simulate`` writes to a buffered stdout); same errors as a write."""
        with self._lock:
            if self.dropped:
                return
            try:
                self.stream.flush()
            except OSError as error:
                self._failed(error)

    def _failed(self, error: OSError) -> None:
        why = error.strerror or str(error)
        if not self.flush:
            if isinstance(error, BrokenPipeError):
                raise error  # the reader went away (`| head`): the CLI ends quietly
            raise UserError(self.name, Text("cli.cannot_write", what=Text("cli.trace"), why=why)) from None
        self.dropped = 1
        log.warning("cannot write the trace to %s (%s): the trace stops here, the unit goes on", self.name, why)
