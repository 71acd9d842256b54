"""The unit's end of the phone companion: a Unix socket in the state folder (docs/phone.en.md).

The unit's process stays the only one in charge of time. The web service
(``monopoly-city serve``, :mod:`unit.web`) is another process that connects
here. Over the socket, one JSON object per line:

- the unit sends a ``snapshot`` on connect, then every trace record (the same
  objects as ``--trace``, docs/simulate.md; ``screen`` records also carry the
  ``view`` as data, so a page can show it in its own language), plus the
  link's own records: ``settings``, ``pairing``, ``paired`` and ``error``;
- a client sends ``{"press": "auction"}`` / ``{"release": "auction"}`` (the
  runtime's ``post(Pressed(...))``), ``{"settings": {"game.minutes": 45}}``,
  ``{"pair": "request"}`` (a new pairing code, shown on the unit) and
  ``{"pair": {"code": "123456", "id": "..."}}`` (check a code) and
  ``{"phone": {"lines": ["monopoly.local:8080"], "qr": ["1110...", ...]}}``
  (where the phones find the service, for the OLED's phone screen).

The pairing code goes to the OLED, never to the clients: their ``screen``
record says only that a code is shown.

Nothing here may delay the runtime: the runtime hands records to
:meth:`Link.write` (the link is the trace object it already calls); each one
is serialised once and put on every client's bounded queue without waiting. A
client whose queue is full is dropped; each client has its own writer and
reader threads. The core is touched only on the loop's own thread: settings
are posted to the runtime as a job.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any

from unit import i18n
from unit.app import config as configuration
from unit.app.settings import choices_from
from unit.app.trace import TraceWriter, dumps, record
from unit.core import BUTTONS, Button, Output, Pressed, Released, ScreenChanged, SettingsChanged, Unit, menu, views
from unit.errors import UserError

log = logging.getLogger(__name__)

SOCKET_NAME = "unit.sock"
PAIRING_FILE = "web-pairing.json"
QUEUE_SIZE = 512  # records waiting for one client; a client this far behind is dropped
MAX_LINE = 4096  # bytes in one message from a client
SEND_TIMEOUT = 5.0  # seconds a client may take to accept one write
CODE_DIGITS = 6
CODE_SECONDS = 120.0  # a pairing code is valid this long after it is shown
CODE_TRIES = 5  # wrong tries before a code is void (then a new one must be asked for)
PHONE_LINES = 3  # addresses the web service may give for the OLED
PHONE_LINE_CHARS = 48
QR_MODULES = 41  # the largest QR code taken (version 6): the OLED draws up to 64 modules a side

#: The settings a phone may change: the device menu's five, under the configuration's keys.
SETTINGS: tuple[str, ...] = ("game.minutes", "auction.seconds", "language", "buzzer.volume", "display.brightness")
#: What each may be: the values the menu steps through, so the page and the menu never disagree.
OPTIONS: dict[str, tuple[Any, ...]] = {
    "game.minutes": menu.GAME_MINUTES,
    "auction.seconds": menu.AUCTION_SECONDS,
    "language": menu.LANGUAGES,
    "buzzer.volume": tuple(str(v) for v in menu.VOLUMES),
    "display.brightness": tuple(str(b) for b in menu.BRIGHTNESSES),
}


# --- settings: the same path as the device's menu ----------------------------------------------------


def current_settings(config: configuration.Config) -> dict[str, Any]:
    """The settable values of ``config``, by dotted key (plain JSON values)."""
    out: dict[str, Any] = {}
    for key in SETTINGS:
        value: Any = config
        for part in key.split("."):
            value = getattr(value, part)
        out[key] = str(value) if isinstance(value, StrEnum) else value
    return out


def apply_settings(runtime: Any, changes: Any, at: float) -> dict[str, Any]:
    """Check ``changes`` (dotted key -> value) and apply them as the device's menu would; return every setting.

    Runs on the runtime's loop thread (the core's only caller). The core applies
    the choices (a ``settings`` output), the runtime saves them in the state
    folder's settings.json (the menu's file) and the backend follows them, so the
    page, the menu and a restart agree. Raises :class:`~unit.errors.UserError`
    naming the key for a bad value; nothing is applied then.
    """
    if not isinstance(changes, dict) or not changes:
        raise UserError("settings", 'expected a mapping of settings like {"game.minutes": 45}')
    layer: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in SETTINGS:
            expected = ", ".join(SETTINGS)
            raise UserError(f"settings: {key}", f"not a setting the phone may change (expected one of {expected})")
        if value not in OPTIONS[key]:
            shown = ", ".join("null" if o is None else str(o) for o in OPTIONS[key])
            raise UserError(f"settings: {key}", f"expected one of {shown} (the device menu's values)")
        section, _, name = key.rpartition(".")
        (layer.setdefault(section, {}) if section else layer)[name] = value
    unit = runtime.unit
    choices = choices_from(layer, unit.config, "settings")  # the same checks as the saved file
    runtime.apply(at, unit.configure(choices, at))
    return current_settings(unit.config)


# --- records ------------------------------------------------------------------------------------------


def view_data(view: object) -> dict[str, Any]:
    """A screen's view as plain data: ``{"name": "countdown", "seconds_left": 45, ...}``."""
    data = dataclasses.asdict(view) if dataclasses.is_dataclass(view) else {}  # type: ignore[arg-type]
    return {"name": type(view).__name__.lower(), **data}


class Client:
    """One connection: a bounded queue of lines to send, a writer thread and a reader thread."""

    def __init__(self, link: Link, conn: socket.socket, number: int):
        self.link = link
        self.conn = conn
        self.number = number
        self.lines: queue.Queue[bytes | None] = queue.Queue(QUEUE_SIZE)
        self.held: set[str] = set()  # buttons this client pressed and did not release
        self.closed = False

    def offer(self, line: bytes) -> bool:
        """Queue a line without waiting; False when the client is too far behind (then it is dropped)."""
        try:
            self.lines.put_nowait(line)
            return True
        except queue.Full:
            return False

    def close(self) -> None:
        """Hang up now (a client too far behind): a write in progress fails at once."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self.conn.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(queue.Full):
            self.lines.put_nowait(None)

    def end(self) -> None:
        """Hang up once what is queued is sent (the last answer to a client that misbehaved)."""
        try:
            self.lines.put_nowait(None)
        except queue.Full:
            self.close()

    def write_loop(self) -> None:
        try:
            while (line := self.lines.get()) is not None:
                self.conn.sendall(line)
        except OSError:
            pass  # gone, hung up, or too slow to take one write in SEND_TIMEOUT
        finally:
            self.closed = True
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_RDWR)
            self.conn.close()
            self.link.drop(self)

    def read_loop(self) -> None:
        buffer = b""
        try:
            while not self.closed:
                chunk = self.conn.recv(4096)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        self.link.receive(self, line)
                if len(buffer) > MAX_LINE:
                    self.link.reply(self, {"kind": "error", "error": f"message longer than {MAX_LINE} bytes"})
                    break
        except OSError:
            pass
        finally:
            self.link.drop(self)
            self.end()


class Link:
    """The socket server, and the trace object the runtime writes to.

    ``trace`` (the ``--trace`` file's writer, if any) gets every record as
    before; each new pairing code goes to the core (on the OLED, over the
    calm screens) and the journal, and ``on_code`` is called with it (tests).
    The pairing generation, kept in
    the state folder, is renewed when the unit is switched off (the end of a
    game): the web service's session cookies name it, so that renewing it
    unpairs every phone.
    """

    def __init__(
        self,
        state_dir: str | os.PathLike,
        language: str,
        *,
        trace: TraceWriter | None = None,
        on_code: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / SOCKET_NAME
        self.trace = trace
        self.words = i18n.words(language)
        self.on_code = on_code
        self.clock = clock
        self.settings_handler: Callable[[Any, Any, float], dict[str, Any]] = apply_settings
        self.runtime: Any = None
        self.post: Callable[[Any], None] | None = None  # the runtime's post(), once attached
        self.unit: Unit | None = None
        self._lock = threading.Lock()  # the clients, the snapshot and the order of records
        self._clients: list[Client] = []
        self._count = 0
        self._server: socket.socket | None = None
        self._last_text: str | None = None
        self.dropped = 0  # clients dropped for falling behind (a figure for the benchmark)
        self.snapshot: dict[str, Any] = {"kind": "snapshot", "unit": True, "state": "off", "led": {"mode": "off"}}
        self.snapshot["screen"] = {"text": "", "view": {"name": "off"}}
        self.snapshot["build"] = None
        self.snapshot["options"] = {key: list(values) for key, values in OPTIONS.items()}  # the menu's values
        self._code: tuple[str, float, int] | None = None  # (code, expires at, wrong tries)
        self._phone_client: Client | None = None  # the client that said where the phones find it
        with contextlib.suppress(OSError):
            self.state_dir.mkdir(parents=True, exist_ok=True)
        self.generation = self._load_generation()

    # --- the runtime's side: a trace-like object ----------------------------------------------------

    def attach(self, runtime: Any) -> None:
        """Take presses to ``runtime.post`` and settings to ``runtime.unit`` (call before ``runtime.run``)."""
        self.runtime = runtime
        self.post = runtime.post
        self.unit = runtime.unit
        self.snapshot["settings"] = current_settings(runtime.unit.config)

    def write(self, t: float, outputs: Iterable[Output]) -> None:
        """The core's outputs at ``t``: to the trace file, then to every client (never waits)."""
        outputs = list(outputs)
        if self.trace is not None:
            self.trace.write(t, outputs)
        for output in outputs:
            obj = record(t, output, self.words)
            if isinstance(output, SettingsChanged):  # the menu (or a phone) changed them
                self.words = i18n.words(output.choices.language)
                if output.reset:  # back to the factory settings: every phone must pair again
                    self.forget_pairings()
                if self.unit is not None:
                    obj["settings"] = current_settings(self.unit.config)
            if obj["kind"] == "screen":
                assert isinstance(output, ScreenChanged)
                view = output.view
                if isinstance(view, views.Pairing):  # the code is for whoever stands at the box
                    view = views.Pairing("")
                    obj["text"] = views.describe(view, self.words)
                if obj["text"] == self._last_text:
                    continue
                self._last_text = obj["text"]
                obj["view"] = view_data(view)
            self.publish(obj)

    def write_record(self, obj: dict) -> None:
        """A record the runtime writes itself (``resume``)."""
        if self.trace is not None:
            self.trace.write_record(obj)
        self.publish(obj)

    def publish(self, obj: dict) -> None:
        """Fold ``obj`` into the snapshot and queue it for every client; drop those too far behind."""
        line = (dumps(obj) + "\n").encode()
        late = []
        with self._lock:
            self._fold(obj)
            for client in self._clients:
                if not client.offer(line):
                    late.append(client)
        for client in late:
            log.warning("web link: client %d too slow, dropped", client.number)
            self.dropped += 1
            client.close()

    def _fold(self, obj: dict) -> None:
        kind, snap = obj.get("kind"), self.snapshot
        snap["t"] = obj.get("t", snap.get("t"))
        if kind == "state":
            if snap["state"] != "off" and obj["state"] == "off":
                self._game_over()
            snap["state"] = obj["state"]
        elif kind == "led":
            snap["led"] = {k: v for k, v in obj.items() if k in ("mode", "hz")}
        elif kind == "screen":
            snap["screen"] = {"text": obj["text"], "view": obj.get("view")}
            if (obj.get("view") or {}).get("name") == "ready":
                snap["clock"] = obj["view"]  # the game clock, kept while a countdown covers it
        elif kind == "build":
            snap["build"] = obj["result"]
        elif kind == "settings" and "settings" in obj:  # (without a unit attached, only the trace's values)
            snap["settings"] = obj["settings"]

    # --- pairing ----------------------------------------------------------------------------------------

    def _load_generation(self) -> str:
        try:
            data = json.loads((self.state_dir / PAIRING_FILE).read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("generation"), str):
                return data["generation"]
        except (OSError, ValueError):
            pass
        import secrets  # here, not at every start: hmac and OpenSSL cost it about 3 ms of CPU

        return self._save_generation(secrets.token_hex(8))

    def _save_generation(self, generation: str) -> str:
        """Keep the pairing generation across restarts (a power cut keeps the phones paired)."""
        path = self.state_dir / PAIRING_FILE
        try:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"generation": generation}), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as error:
            log.warning("web link: cannot save the pairings in %s: %s", path, error.strerror or error)
        return generation

    def _game_over(self) -> None:
        """Switching off ends the game: its pairings end with it (called under the lock, on the loop).

        A phone paired while the unit is off stays paired into the game that starts next, so the
        banker can switch on from the phone; a power cut is not a switch off (the game resumes).
        """
        self._forget()

    def forget_pairings(self) -> None:
        """Every paired phone must pair again (a new game; issue 11's factory reset calls this too)."""
        with self._lock:
            self._forget()

    def _forget(self) -> None:
        import secrets

        self.generation = self._save_generation(secrets.token_hex(8))
        self._code = None
        self.snapshot["pairing"] = self.generation
        line = (dumps({"kind": "pairing", "generation": self.generation}) + "\n").encode()
        for client in self._clients:
            client.offer(line)

    def new_code(self) -> str:
        """A fresh pairing code, valid CODE_SECONDS, shown on the unit's screen (and in the journal)."""
        import secrets

        code = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
        with self._lock:
            self._code = (code, self.clock() + CODE_SECONDS, 0)
        log.warning("pairing code for the phone: %s (valid %d s)", code, CODE_SECONDS)
        if self.on_code is not None:
            self.on_code(code)
        self._on_loop(lambda unit, at: unit.show_code(code, CODE_SECONDS, at))
        return code

    def check_code(self, code: Any) -> bool:
        """True once for the right code within its time; CODE_TRIES wrong tries void the code."""
        import secrets

        with self._lock:
            if self._code is None:
                return False
            expected, expires, tries = self._code
            if self.clock() >= expires:
                self._code = None
                return False
            right = isinstance(code, str) and secrets.compare_digest(code.encode(), expected.encode())
            # One phone per code; too many wrong tries void it.
            self._code = None if right or tries + 1 >= CODE_TRIES else (expected, expires, tries + 1)
            void = self._code is None
        if void:
            self._on_loop(lambda unit, at: unit.hide_code(at))
        return right

    def _on_loop(self, change: Callable[[Unit, float], list[Output]]) -> None:
        """Change the core on the runtime's loop thread (its only caller), and apply what it does."""
        if self.post is None:
            return
        runtime = self.runtime

        def job(at: float) -> None:
            try:
                runtime.apply(at, change(runtime.unit, at))
            except Exception:  # a bug here must not stop the unit's loop
                log.exception("web link: a change from the phone companion failed")

        self.post(job)

    def _phone(self, client: Client, value: Any) -> None:
        """Where the phones find the web service: checked, then on the OLED's phone screen."""
        lines, qr = (value.get("lines"), value.get("qr", [])) if isinstance(value, dict) else (None, None)
        ok_lines = (
            isinstance(lines, list)
            and 1 <= len(lines) <= PHONE_LINES
            and all(isinstance(x, str) and 0 < len(x) <= PHONE_LINE_CHARS and x.isprintable() for x in lines)
        )
        ok_qr = (
            isinstance(qr, list)
            and len(qr) <= QR_MODULES
            and all(isinstance(row, str) and len(row) == len(qr) and set(row) <= {"0", "1"} for row in qr)
        )
        if not (ok_lines and ok_qr):
            error = "phone: expected lines (1 to 3 texts of at most 48 characters) and a square QR of at most 41"
            self.reply(client, {"kind": "error", "error": error, "about": "phone"})
            return
        assert isinstance(lines, list) and isinstance(qr, list)
        self._phone_client = client
        address = views.PhoneAddress(tuple(lines), tuple(qr))
        self._on_loop(lambda unit, at: unit.set_phone(address, at))

    # --- the clients' side ------------------------------------------------------------------------------

    def start(self) -> bool:
        """Listen on the socket (only this user may connect); False, with a warning, when it cannot."""
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()  # left by a unit that was killed
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as error:
            log.warning("web link: no socket: %s (the phones will not see the unit)", error)
            return False
        try:
            old = os.umask(0o177)
            try:
                server.bind(str(self.path))
            finally:
                os.umask(old)
            server.listen(16)
        except OSError as error:
            server.close()
            log.warning("web link: cannot listen on %s: %s (the phones will not see the unit)", self.path, error)
            return False
        self._server = server
        threading.Thread(target=self._accept_loop, name="link-accept", daemon=True).start()
        return True

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)
            server.close()
            with contextlib.suppress(OSError):
                self.path.unlink()
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            client.close()

    def _accept_loop(self) -> None:
        while (server := self._server) is not None:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            try:
                conn.settimeout(None)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(SEND_TIMEOUT))
            except OSError as error:  # a client gone at once: the next one is served all the same
                log.warning("web link: a client could not be set up (%s)", error)
                conn.close()
                continue
            with self._lock:
                self._count += 1
                client = Client(self, conn, self._count)
                snapshot = self.snapshot | {"pairing": self.generation, "code_pending": self._code is not None}
                client.offer((dumps(snapshot) + "\n").encode())
                self._clients.append(client)
            threading.Thread(target=client.write_loop, name=f"link-write-{client.number}", daemon=True).start()
            threading.Thread(target=client.read_loop, name=f"link-read-{client.number}", daemon=True).start()

    def drop(self, client: Client) -> None:
        """Forget a client; release the buttons it still held (a phone gone mid-press)."""
        with self._lock:
            if client not in self._clients:
                return
            self._clients.remove(client)
            held, client.held = set(client.held), set()
        if self.post is not None:
            for button in held:
                self.post(Released(Button(button)))
        if client is self._phone_client:  # the web service went away: no address to show
            self._phone_client = None
            self._on_loop(lambda unit, at: unit.set_phone(None, at))

    def reply(self, client: Client, obj: dict) -> None:
        if not client.offer((dumps(obj) + "\n").encode()):
            client.close()

    def receive(self, client: Client, line: bytes) -> None:
        """One message from a client: a press, a release, settings or pairing."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply
            message = None
        if not isinstance(message, dict) or len(message) != 1:
            self.reply(client, {"kind": "error", "error": "expected one JSON object with one key per line"})
            return
        ((verb, value),) = message.items()
        if verb in ("press", "release") and value in BUTTONS:
            if self.post is None:
                self.reply(client, {"kind": "error", "error": "no unit attached"})
            elif verb == "press":
                client.held.add(value)
                self.post(Pressed(Button(value)))
            else:
                client.held.discard(value)
                self.post(Released(Button(value)))
        elif verb == "settings":
            self._settings(client, value)
        elif verb == "pair" and value == "request":
            self.new_code()
            self.reply(client, {"kind": "pairing", "generation": self.generation, "code_pending": True})
        elif verb == "phone":
            self._phone(client, value)
        elif verb == "pair" and isinstance(value, dict):
            ok = self.check_code(value.get("code"))
            answer = {"kind": "paired", "id": str(value.get("id", ""))[:64], "ok": ok}
            self.reply(client, answer | ({"generation": self.generation} if ok else {}))
        else:
            self.reply(client, {"kind": "error", "error": f"unknown message {verb!r}"})

    def _settings(self, client: Client, changes: Any) -> None:
        """Apply settings on the runtime's loop, then tell every client (or the sender what was wrong)."""
        if self.post is None or self.unit is None:
            self.reply(client, {"kind": "error", "error": "no unit attached"})
            return
        runtime = self.runtime

        def job(at: float) -> None:
            try:
                settings = self.settings_handler(runtime, changes, at)
            except UserError as error:
                self.reply(client, {"kind": "error", "error": str(error)})
                return
            except Exception:  # a bug here must not stop the unit's loop
                log.exception("web link: applying settings failed")
                self.reply(client, {"kind": "error", "error": "settings: the unit could not apply them"})
                return
            if settings == self.snapshot.get("settings"):
                return  # told already: the core's settings line went to every client as it was applied
            start = getattr(self.runtime, "start", 0.0)
            self.publish({"t": round(max(0.0, at - start), 3), "kind": "settings", "settings": settings})

        self.post(job)  # the runtime runs callables on its loop thread


def _timeval(seconds: float) -> bytes:
    import struct

    return struct.pack("ll", int(seconds), int((seconds % 1) * 1e6))
