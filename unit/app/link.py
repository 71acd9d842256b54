"""The unit's end of the phone companion: the trace's records out to the phones, their messages in.

The unit's process stays the only one in charge of time. The web service
(``monopoly-city serve``, :mod:`unit.web`) is another process that connects to
a Unix socket in the state folder. What goes over it is
:mod:`unit.core.protocol` (docs/phone.en.md): a snapshot on connect, then every
trace record (``screen`` records with their view as data, the pairing code
taken out), and the link's own ``settings``, ``pairing``, ``paired`` and
``error`` records; a client sends presses, settings, pairing and where the
phones find it.

The parts: :class:`Link` (here) is the trace sink the runtime writes to and
the dispatcher of messages; :mod:`unit.app.linkserver` the socket and its
threads; :mod:`unit.app.pairing` the codes and the pairing generation;
:mod:`unit.app.phone_settings` the settings a phone may change.

Nothing here may delay the runtime: each record is serialised once and queued
for every client without waiting. The core is touched only on the loop's own
thread: whatever changes it is posted to the runtime as a :class:`Job`.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from unit import i18n
from unit.app.linkserver import Client, SocketServer
from unit.app.pairing import CODE_SECONDS, SESSIONLESS, Pairing, Verdict
from unit.app.phone_settings import OPTIONS, apply_settings, current_settings
from unit.app.runtime import Input, Job, Runtime
from unit.app.trace import TraceSink, record
from unit.core import Output, Pressed, Released, ScreenChanged, SettingsChanged, Unit, views
from unit.core.protocol import (
    SOCKET_NAME,
    BadLine,
    ChangeSettings,
    CheckCode,
    ErrorRecord,
    PairedRecord,
    PairingRecord,
    Press,
    Record,
    Release,
    RequestCode,
    ScreenRecord,
    SettingsRecord,
    ShowPhone,
    Snapshot,
    StateRecord,
    dumps,
    fold,
    read_message,
    read_record,
)
from unit.errors import UserError

log = logging.getLogger(__name__)

#: Applies a phone's settings on the loop and returns every setting (:func:`phone_settings.apply_settings`).
SettingsHandler = Callable[[Runtime, object, float], dict[str, Any]]
NO_UNIT = ErrorRecord("no unit attached")


class Link:
    """The trace sink the runtime writes to, and what the phones' messages do.

    ``trace`` (the ``--trace`` file's writer, if any) gets every record as
    before; each new pairing code goes to the core (on the OLED, over the
    calm screens) and the journal, and ``on_code`` is called with it (tests).
    ``clock`` times the codes. The pairing generation is renewed when the unit
    is switched off (the end of a game) or back to its factory settings: the
    web service's session cookies name it, so that renewing it unpairs every
    phone.
    """

    def __init__(
        self,
        state_dir: str | os.PathLike[str],
        language: str,
        *,
        trace: TraceSink | None = None,
        on_code: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.state_dir = Path(state_dir)
        self.trace = trace
        self.words = i18n.words(language)
        self.on_code = on_code
        self.clock = clock
        self.settings_handler: SettingsHandler = apply_settings
        self.runtime: Runtime | None = None
        self.post: Callable[[Input], None] | None = None  # the runtime's post(), once attached
        self.server = SocketServer(self.state_dir / SOCKET_NAME, self)
        self.snapshot = Snapshot(options=OPTIONS)  # read and replaced under the server's lock
        self._last_text: str | None = None
        self._phone_client: Client | None = None  # the client that said where the phones find it
        self.pairing = Pairing(self.state_dir)

    @property
    def path(self) -> Path:
        return self.server.path

    @property
    def generation(self) -> str:
        return self.pairing.generation

    @property
    def dropped(self) -> int:
        """Clients dropped for falling behind."""
        return self.server.dropped

    @property
    def unit(self) -> Unit | None:
        return self.runtime.unit if self.runtime is not None else None

    def start(self) -> bool:
        """Listen on the socket (only this user may connect); False, with a warning, when it cannot."""
        return self.server.start()

    def close(self) -> None:
        self.server.close()

    # --- the runtime's side: a trace sink -------------------------------------------------------------

    def attach(self, runtime: Runtime) -> None:
        """Take presses to ``runtime.post`` and settings to ``runtime.unit`` (call before ``runtime.run``)."""
        self.runtime = runtime
        self.post = runtime.post
        self.snapshot = dataclasses.replace(self.snapshot, settings=current_settings(runtime.unit.config))

    def write(self, t: float, outputs: Iterable[Output]) -> None:
        """The core's outputs at ``t``: to the trace file, then to every client (never waits)."""
        outputs = list(outputs)
        if self.trace is not None:
            self.trace.write(t, outputs)
        for output in outputs:
            item: Record = record(t, output, self.words)
            if isinstance(output, SettingsChanged) and isinstance(item, SettingsRecord):  # the menu or a phone
                self.words = i18n.words(output.choices.language)
                if output.reset:  # back to the factory settings: every phone must pair again
                    self.forget_pairings()
                if (unit := self.unit) is not None:
                    item = dataclasses.replace(item, settings=current_settings(unit.config))
            elif isinstance(output, ScreenChanged) and isinstance(item, ScreenRecord):
                view = output.view
                if isinstance(view, views.Pairing):  # the code is for whoever stands at the box
                    view = views.Pairing("")
                    item = dataclasses.replace(item, text=views.describe(view, self.words))
                if item.text == self._last_text:
                    continue
                self._last_text = item.text
                item = dataclasses.replace(item, view=view)
            self.publish(item)

    def write_record(self, obj: dict[str, Any]) -> None:
        """A record the runtime writes itself (``resume``), as JSON data."""
        if self.trace is not None:
            self.trace.write_record(obj)
        self._publish((dumps(obj) + "\n").encode(), read_record(obj))

    def publish(self, item: Record) -> None:
        """Fold ``item`` into the snapshot and queue it for every client."""
        self._publish(item.line(), item)

    def _publish(self, line: bytes, item: Record | None) -> None:
        ended = False

        def update() -> None:
            nonlocal ended
            if item is not None:
                ended = isinstance(item, StateRecord) and item.state == "off" and self.snapshot.state != "off"
                self.snapshot = fold(self.snapshot, item)

        self.server.broadcast(line, update)
        if ended:
            # Switching off ends the game, and its pairings with it. A phone paired while the unit is off
            # stays paired into the game that starts next (the banker switches on from the phone); a power
            # cut is not a switch off (the game resumes).
            self.forget_pairings()

    # --- the socket's side -------------------------------------------------------------------------------

    def greeting(self) -> bytes:
        """A new client's first line: the snapshot, with the pairing generation (for the web service only)."""
        snapshot = dataclasses.replace(
            self.snapshot, pairing=self.pairing.generation, code_pending=self.pairing.code_pending
        )
        return snapshot.line()

    def receive(self, client: Client, line: bytes) -> None:
        """One message from a client: a press, a release, settings, pairing or where the phones find it."""
        message = read_message(line)
        match message:
            case BadLine():
                client.send(message.record().line())
            case Press(button=button) | Release(button=button) if self.post is None:
                client.send(NO_UNIT.line())
            case Press(button=button):
                client.held.add(button)
                self._post(Pressed(button))
            case Release(button=button):
                client.held.discard(button)
                self._post(Released(button))
            case ChangeSettings(changes=changes):
                self._settings(client, changes)
            case RequestCode(session=session):
                self.new_code(session or SESSIONLESS)
                client.send(PairingRecord(self.generation, code_pending=True).line())
            case CheckCode(code=code, id=ident, session=session):
                ok = self.check_code(code, session or SESSIONLESS)
                client.send(PairedRecord(ident, ok, self.generation if ok else None).line())
            case ShowPhone(lines=lines, qr=qr, wifi=wifi):
                self._phone_client = client
                address = views.PhoneAddress(lines, qr, wifi)
                self._on_loop("the phone's address", lambda unit, at: unit.set_phone(address, at))

    def gone(self, client: Client) -> None:
        """A client went away: release the buttons it still held (a phone gone mid-press)."""
        held, client.held = set(client.held), set()
        for button in held:
            self._post(Released(button))
        if client is self._phone_client:  # the web service went away: no address to show
            self._phone_client = None
            self._on_loop("no phone address", lambda unit, at: unit.set_phone(None, at))

    # --- pairing ----------------------------------------------------------------------------------------

    def forget_pairings(self) -> None:
        """Every paired phone must pair again (a new game, the factory settings); every client is told."""
        generation = self.pairing.renew()
        self.server.broadcast(PairingRecord(generation).line())

    def new_code(self, session: str = SESSIONLESS) -> str:
        """A fresh pairing code for ``session``, valid CODE_SECONDS, shown on the unit's screen (and in the
        journal) over any other session's (which stays valid)."""
        code = self.pairing.new_code(self.clock(), session)
        log.warning("%s", self.words("web.pairing_code", code=code, s=CODE_SECONDS))  # the table's language
        if self.on_code is not None:
            self.on_code(code)
        self._on_loop("a pairing code", lambda unit, at: unit.show_code(code, CODE_SECONDS, at))
        return code

    def check_code(self, code: object, session: str = SESSIONLESS) -> bool:
        """True once for ``session``'s right code within its time; CODE_TRIES wrong tries of that session void
        its code. The screen lets go of a code that is no more, if it is the one shown."""
        checked = self.pairing.attempt(code if isinstance(code, str) else None, self.clock(), session)
        if checked.hides_code:
            self._on_loop("the pairing code's end", lambda unit, at: unit.hide_code(at))
        return checked.verdict == Verdict.RIGHT

    # --- changes to the core, on the loop ---------------------------------------------------------------

    def _post(self, event: Input) -> None:
        if self.post is not None:
            self.post(event)

    def _on_loop(self, what: str, change: Callable[[Unit, float], list[Output]]) -> None:
        """Change the core on the runtime's loop thread (its only caller), and apply what it does."""
        runtime = self.runtime
        if runtime is None:
            return
        self._post(Job(f"web link: {what}", lambda at: runtime.apply(at, change(runtime.unit, at))))

    def _settings(self, client: Client, changes: object) -> None:
        """Apply settings on the runtime's loop, then tell every client (or the sender what was wrong)."""
        runtime = self.runtime
        if self.post is None or runtime is None:
            client.send(NO_UNIT.line())
            return

        def apply(at: float) -> None:
            try:
                settings = self.settings_handler(runtime, changes, at)
            except UserError as error:
                client.send(ErrorRecord(str(error)).line())
                return
            except Exception:  # a bug here must not stop the unit's loop
                log.exception("web link: applying settings failed")
                client.send(ErrorRecord("settings: the unit could not apply them").line())
                return
            if settings == self.snapshot.settings:
                return  # told already: the core's settings line went to every client as it was applied
            self.publish(SettingsRecord(round(max(0.0, at - runtime.start), 3), settings=settings))

        self._post(Job("web link: settings", apply))
