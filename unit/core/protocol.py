"""The protocol between the unit and the phone companion: one JSON object a line on the unit's socket.

Both ends import this module, so the wire is written once: the unit's link
(:mod:`unit.app.link`) and the web service's hub (:mod:`unit.web.hub`). It is
pure (the standard library and the core's views), so the web service, which
never imports the unit's side, may use it too.

- The unit sends **records** (:data:`Record`): a :class:`Snapshot` on connect,
  then every trace record exactly as ``--trace`` writes it (docs/simulate.md is
  their contract; a ``screen`` record also carries its view as data), and the
  link's own ``settings``, ``pairing``, ``paired`` and ``error`` records.
- A client sends **messages** (:data:`Message`): one key, the verb (:class:`Verb`).

Both sides keep a :class:`Snapshot` of the unit and update it with :func:`fold`:
the link to greet a new client, the hub to render a page.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from unit.core import jsonread as read
from unit.core import views
from unit.core.events import BUTTONS, Button
from unit.core.settings import BuildResult

SOCKET_NAME = "unit.sock"  # in the state folder
#: Where the box's Wi-Fi helper (unit/boxwifi.py, as root) writes whether its own access point is up, replaced whole
#: at every change: the web service reads it (unit.web.address.read_wifi_status) and tells the unit. Here, in the
#: core, so that the CLI's ``serve --wifi-status`` default loads nothing of the web service on the unit's path.
WIFI_STATUS_PATH = "/run/monopoly-city-wifi/status.json"
PHONE_LINES = 3  # addresses the web service may give for the OLED
PHONE_LINE_CHARS = 48
WIFI_NAME_CHARS = 32  # a Wi-Fi network's name (SSID): 32 bytes at most
WIFI_PASSWORD_CHARS = (8, 63)  # WPA2's passphrase
QR_MODULES = 41  # the largest QR code taken (version 6): the OLED draws up to 64 modules a side
# Pairing codes (both ends: the unit makes and checks them, the web service bounds who may ask and try).
CODE_DIGITS = 6
CODE_SECONDS = 120.0  # a pairing code is valid this long after it is shown
CODE_TRIES = 5  # wrong tries at one session's code before it is void (then a new one must be asked for)
SESSION_CHARS = 64  # a pairing session's name on the wire, at most

#: A record or a message as JSON data.
Data = dict[str, Any]


class Kind(StrEnum):
    """A record's ``kind``."""

    SNAPSHOT = "snapshot"
    STATE = "state"
    LED = "led"
    SOUND = "sound"
    SCREEN = "screen"
    BUILD = "build"
    SYSTEM = "system"
    DISPLAY = "display"
    SETTINGS = "settings"
    RESUME = "resume"
    NOT_RESUMED = "not_resumed"
    PAIRING = "pairing"  # a pairing generation (and, to its asker, that a code is shown)
    PAIRED = "paired"  # the answer to a code
    ERROR = "error"  # to the sender only
    UNIT = "unit"  # the web service to its pages: the unit came or went


class Verb(StrEnum):
    """A message's one key."""

    PRESS = "press"
    RELEASE = "release"
    SETTINGS = "settings"
    PAIR = "pair"
    PHONE = "phone"


# --- records: the unit to its clients ------------------------------------------------------------------


_SCALARS = frozenset({str, int, float, bool})  # as they are in JSON (a StrEnum goes through _plain)


_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    """A record class's fields in order, ``t`` first where there is one (looked up once per class)."""
    names = _NAMES.get(kind)
    if names is None:
        names = tuple(field.name for field in dataclasses.fields(kind))
        names = _NAMES[kind] = ("t", *(n for n in names if n != "t")) if "t" in names else names
    return names


class _Record:
    """What every record does: its wire data, fields in order, ``t`` first and ``kind`` next.

    A field named in ``OPTIONAL`` is left out while None (``hz`` without a blink).
    """

    KIND: ClassVar[Kind]
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def data(self) -> Data:
        names = _field_names(type(self))
        timed = names[0] == "t"
        out: Data = {"t": getattr(self, "t")} if timed else {}  # noqa: B009 (not every record has t)
        out["kind"] = self.KIND.value
        for name in names[1:] if timed else names:
            value = getattr(self, name)
            if value is None:
                if name not in self.OPTIONAL:
                    out[name] = None
            else:
                out[name] = value if type(value) in _SCALARS else _plain(value)
        return out

    def line(self) -> bytes:
        """The record as it goes over the socket: one line of JSON."""
        return dumps(self.data()).encode() + b"\n"


@dataclass(frozen=True)
class StateRecord(_Record):
    KIND = Kind.STATE
    t: float
    state: str


@dataclass(frozen=True)
class LedRecord(_Record):
    KIND = Kind.LED
    OPTIONAL = frozenset({"hz"})
    t: float
    mode: str
    hz: float | None = None  # with a blink


@dataclass(frozen=True)
class SoundRecord(_Record):
    KIND = Kind.SOUND
    t: float
    name: str
    tones: tuple[tuple[int, int], ...]  # (Hz, ms); 0 Hz is a rest


@dataclass(frozen=True)
class ScreenRecord(_Record):
    """What the screen shows in words; the link adds the view as data (the trace file has no view)."""

    KIND = Kind.SCREEN
    OPTIONAL = frozenset({"view"})
    t: float
    text: str
    view: views.View | None = None


@dataclass(frozen=True)
class BuildRecord(_Record):
    KIND = Kind.BUILD
    t: float
    result: BuildResult


@dataclass(frozen=True)
class SystemRecord(_Record):
    KIND = Kind.SYSTEM
    t: float
    action: str


@dataclass(frozen=True)
class DisplayRecord(_Record):
    KIND = Kind.DISPLAY
    t: float
    brightness: str
    dimmed: bool


@dataclass(frozen=True)
class SettingsRecord(_Record):
    """The trace's ``values`` and ``reset`` (a choice made), and from the link every setting a phone may change."""

    KIND = Kind.SETTINGS
    OPTIONAL = frozenset({"values", "reset", "settings"})
    t: float
    values: Data | None = None
    reset: bool | None = None
    settings: Data | None = None  # dotted key -> value


@dataclass(frozen=True)
class ResumeRecord(_Record):
    KIND = Kind.RESUME
    t: float
    elapsed: float


@dataclass(frozen=True)
class NotResumedRecord(_Record):
    KIND = Kind.NOT_RESUMED
    t: float
    reason: str  # over, too_long
    off_minutes: float | None  # None: no clock could tell


@dataclass(frozen=True)
class PairingRecord(_Record):
    KIND = Kind.PAIRING
    OPTIONAL = frozenset({"code_pending"})
    generation: str
    code_pending: bool | None = None  # to the client that asked for a code


@dataclass(frozen=True)
class PairedRecord(_Record):
    KIND = Kind.PAIRED
    OPTIONAL = frozenset({"generation"})
    id: str
    ok: bool
    generation: str | None = None  # the generation the phone is now paired with


@dataclass(frozen=True)
class ErrorRecord(_Record):
    KIND = Kind.ERROR
    OPTIONAL = frozenset({"about"})
    error: str
    about: str | None = None  # "phone": an answer to the address, not to settings


@dataclass(frozen=True)
class UnitRecord(_Record):
    KIND = Kind.UNIT
    connected: bool


@dataclass(frozen=True)
class Led:
    mode: str
    hz: float | None = None


@dataclass(frozen=True)
class Shown:
    """The screen in a snapshot: its words and, when readable, its view."""

    text: str
    view: views.View | None


@dataclass(frozen=True)
class Snapshot(_Record):
    """The unit as it stands: what a client gets on connect, what a page is drawn from.

    ``clock`` is the game clock, kept while a countdown covers it. ``pairing`` and
    ``code_pending`` are the link's, for the web service only. A snapshot without a
    unit (the web service's while the unit is away) says only that.
    """

    KIND = Kind.SNAPSHOT
    OPTIONAL = frozenset({"t", "clock", "settings", "options", "pairing", "code_pending"})
    unit: bool = True
    t: float | None = None
    state: str = "off"
    led: Led = Led("off")
    screen: Shown = Shown("", views.Off())
    clock: views.Ready | None = None
    build: BuildResult | None = None
    settings: Data | None = None
    options: Mapping[str, tuple[Any, ...]] | None = None  # the values each setting may take
    pairing: str | None = None
    code_pending: bool | None = None

    def data(self) -> Data:
        if not self.unit:
            return {"kind": self.KIND.value, "unit": False}
        out = super().data()
        if self.t is None:
            out.pop("t", None)
        return out


Record = (
    Snapshot
    | StateRecord
    | LedRecord
    | SoundRecord
    | ScreenRecord
    | BuildRecord
    | SystemRecord
    | DisplayRecord
    | SettingsRecord
    | ResumeRecord
    | NotResumedRecord
    | PairingRecord
    | PairedRecord
    | ErrorRecord
    | UnitRecord
)


def fold(snapshot: Snapshot, record: Record) -> Snapshot:
    """The snapshot once ``record`` happened: a new value (readers on other threads keep the old one whole)."""
    t = getattr(record, "t", None)
    t = snapshot.t if t is None else t
    match record:
        case Snapshot():
            return record
        case StateRecord(state=state):
            return dataclasses.replace(snapshot, t=t, state=state)
        case LedRecord(mode=mode, hz=hz):
            return dataclasses.replace(snapshot, t=t, led=Led(mode, hz))
        case ScreenRecord(text=text, view=view):
            clock = view if isinstance(view, views.Ready) else snapshot.clock
            return dataclasses.replace(snapshot, t=t, screen=Shown(text, view), clock=clock)
        case BuildRecord(result=result):
            return dataclasses.replace(snapshot, t=t, build=result)
        case SettingsRecord(settings=settings) if settings is not None:
            return dataclasses.replace(snapshot, t=t, settings=settings)
    return snapshot if t == snapshot.t else dataclasses.replace(snapshot, t=t)


def dumps(data: Data) -> str:
    """One JSON line's text, as the trace writes it (UTF-8, not escaped)."""
    return json.dumps(data, ensure_ascii=False)


def _plain(value: object) -> object:
    """A field as JSON data: enums as text, views by their codec, the snapshot's parts as mappings, tuples as
    lists."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, views.View):
        return views.encode(value)
    if isinstance(value, Led):
        return {"mode": value.mode} | ({} if value.hz is None else {"hz": value.hz})
    if isinstance(value, Shown):
        return {"text": value.text, "view": None if value.view is None else views.encode(value.view)}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


# --- reading records (the web service's side) -------------------------------------------------------------


def read_record(data: object) -> Record | None:
    """The typed record of a line's data; None for a kind this side does not know or a malformed record."""
    if not isinstance(data, dict):
        return None
    try:
        return _READERS[Kind(str(data.get("kind")))](data)
    except (KeyError, TypeError, ValueError):
        return None


def _t(data: Data) -> float:
    return read.number(data["t"])


def _mapping(value: object) -> Data | None:
    if value is not None and not isinstance(value, dict):
        raise TypeError(value)
    return value


def _flag(value: object) -> bool | None:
    return None if value is None else bool(value)


_optional_text = read.optional(read.text)


def _led(data: Mapping[str, Any]) -> Led:
    hz = data.get("hz")
    return Led(read.text(data["mode"]), None if hz is None else read.number(hz))


def _ready(data: object) -> views.Ready | None:
    view = views.decode(data)
    return view if isinstance(view, views.Ready) else None


def _snapshot(data: Data) -> Snapshot:
    screen = data.get("screen") or {}
    build = data.get("build")
    t = data.get("t")
    options = data.get("options")
    return Snapshot(
        unit=bool(data.get("unit", True)),
        t=None if t is None else read.number(t),
        state=read.text(data.get("state", "off")),
        led=_led(data.get("led") or {"mode": "off"}),
        screen=Shown(read.text(screen.get("text", "")), views.decode(screen.get("view"))),
        clock=_ready(data.get("clock")),
        build=None if build is None else read.build_result(build),
        settings=_mapping(data.get("settings")),
        options=None if options is None else {str(k): tuple(v) for k, v in dict(options).items()},
        pairing=_optional_text(data.get("pairing")),
        code_pending=_flag(data.get("code_pending")),
    )


def _settings(data: Data) -> SettingsRecord:
    reset = data.get("reset")
    return SettingsRecord(
        _t(data), _mapping(data.get("values")), None if reset is None else bool(reset), _mapping(data.get("settings"))
    )


_READERS: dict[Kind, Callable[[Data], Record]] = {
    Kind.SNAPSHOT: _snapshot,
    Kind.STATE: lambda d: StateRecord(_t(d), read.text(d["state"])),
    Kind.LED: lambda d: LedRecord(_t(d), *dataclasses.astuple(_led(d))),
    Kind.SOUND: lambda d: SoundRecord(_t(d), read.text(d["name"]), tuple((int(hz), int(ms)) for hz, ms in d["tones"])),
    Kind.SCREEN: lambda d: ScreenRecord(_t(d), read.text(d.get("text", "")), views.decode(d.get("view"))),
    Kind.BUILD: lambda d: BuildRecord(_t(d), read.build_result(d["result"])),
    Kind.SYSTEM: lambda d: SystemRecord(_t(d), read.text(d["action"])),
    Kind.DISPLAY: lambda d: DisplayRecord(_t(d), read.text(d["brightness"]), bool(d["dimmed"])),
    Kind.SETTINGS: _settings,
    Kind.RESUME: lambda d: ResumeRecord(_t(d), read.number(d["elapsed"])),
    Kind.NOT_RESUMED: lambda d: NotResumedRecord(
        _t(d), read.text(d["reason"]), None if d.get("off_minutes") is None else read.number(d["off_minutes"])
    ),
    Kind.PAIRING: lambda d: PairingRecord(read.text(d["generation"]), _flag(d.get("code_pending"))),
    Kind.PAIRED: lambda d: PairedRecord(str(d.get("id", "")), d.get("ok") is True, _optional_text(d.get("generation"))),
    Kind.ERROR: lambda d: ErrorRecord(str(d.get("error", "")), _optional_text(d.get("about"))),
    Kind.UNIT: lambda d: UnitRecord(bool(d["connected"])),
}


# --- messages: a client to the unit ------------------------------------------------------------------------


class _Message:
    VERB: ClassVar[Verb]

    def value(self) -> object:
        raise NotImplementedError

    def data(self) -> Data:
        return {self.VERB.value: self.value()}

    def line(self) -> bytes:
        return dumps(self.data()).encode() + b"\n"


@dataclass(frozen=True)
class _ButtonMessage(_Message):
    button: Button

    def value(self) -> object:
        return self.button.value


@dataclass(frozen=True)
class Press(_ButtonMessage):
    VERB = Verb.PRESS


@dataclass(frozen=True)
class Release(_ButtonMessage):
    VERB = Verb.RELEASE


@dataclass(frozen=True)
class ChangeSettings(_Message):
    """Dotted key -> value, as the phone sends them; the unit checks them against the menu's values."""

    VERB = Verb.SETTINGS
    changes: object

    def value(self) -> object:
        return self.changes


@dataclass(frozen=True)
class RequestCode(_Message):
    """Show a new pairing code on the unit, for ``session`` (the web service's name for the asking phone).

    The code is that session's: only a :class:`CheckCode` of the same session can use it, and only its
    wrong tries count against it. ``{"pair": "request"}`` (no session) is the one code of the sessionless.
    """

    VERB = Verb.PAIR
    session: str | None = None

    def value(self) -> object:
        return "request" if self.session is None else {"request": True, "session": self.session}


@dataclass(frozen=True)
class CheckCode(_Message):
    """Is ``code`` the one shown for ``session``? ``id`` comes back with the answer (a :class:`PairedRecord`)."""

    VERB = Verb.PAIR
    code: str | None  # None: not a text (a wrong try all the same)
    id: str
    session: str | None = None  # None: the sessionless code ({"pair": "request"})

    def value(self) -> object:
        out: Data = {"code": self.code, "id": self.id}
        if self.session is not None:
            out["session"] = self.session
        return out


@dataclass(frozen=True)
class ShowPhone(_Message):
    """Where the phones find the web service, for the OLED's phone screen (its QR code drawn by the service)."""

    VERB = Verb.PHONE
    lines: tuple[str, ...]
    qr: tuple[str, ...] = ()
    wifi: views.BoxWifi | None = None  # absent: the box cannot make its own Wi-Fi

    def value(self) -> object:
        out: dict[str, object] = {"lines": list(self.lines), "qr": list(self.qr)}
        if self.wifi is not None:
            out["wifi"] = (
                {"on": True, "name": self.wifi.name, "password": self.wifi.password, "qr": list(self.wifi.qr)}
                if self.wifi.on
                else {"on": False}
            )
        return out


Message = Press | Release | ChangeSettings | RequestCode | CheckCode | ShowPhone


@dataclass(frozen=True)
class BadLine:
    """A line the unit does not obey: the error record answered to its sender."""

    error: str
    about: str | None = None

    def record(self) -> ErrorRecord:
        return ErrorRecord(self.error, self.about)


NOT_ONE_OBJECT = BadLine("expected one JSON object with one key per line")
BAD_PHONE = BadLine(
    f"phone: expected lines (1 to {PHONE_LINES} texts of at most {PHONE_LINE_CHARS} characters)"
    f" and a square QR of at most {QR_MODULES}",
    "phone",
)

BAD_WIFI = BadLine(
    f'phone: wifi: expected {{"on": false}} or {{"on": true}} with a name of 1 to {WIFI_NAME_CHARS} characters,'
    f" a password of {WIFI_PASSWORD_CHARS[0]} to {WIFI_PASSWORD_CHARS[1]} and a square QR of at most {QR_MODULES}",
    "phone",
)

BAD_SESSION = BadLine(f"pair: expected a session of 1 to {SESSION_CHARS} characters")


def read_message(line: bytes) -> Message | BadLine:
    """A client's line as a message, or why it is refused."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply
        return NOT_ONE_OBJECT
    return message_from(data)


def message_from(data: object) -> Message | BadLine:
    """A message from its JSON data (``{"press": "auction"}``), or why it is refused."""
    if not isinstance(data, dict) or len(data) != 1:
        return NOT_ONE_OBJECT
    ((verb, value),) = data.items()
    if verb in (Verb.PRESS, Verb.RELEASE) and value in BUTTONS:
        return Press(Button(value)) if verb == Verb.PRESS else Release(Button(value))
    if verb == Verb.SETTINGS:
        return ChangeSettings(value)
    if verb == Verb.PAIR and value == "request":
        return RequestCode()
    if verb == Verb.PAIR and isinstance(value, dict):
        session = value.get("session")
        if session is not None and not (isinstance(session, str) and 0 < len(session) <= SESSION_CHARS):
            return BAD_SESSION
        if value.get("request") is True:
            return RequestCode(session)
        code = value.get("code")
        return CheckCode(code if isinstance(code, str) else None, str(value.get("id", ""))[:64], session)
    if verb == Verb.PHONE:
        return _phone(value)
    return BadLine(f"unknown message {verb!r}")


def _phone(value: object) -> ShowPhone | BadLine:
    lines, qr = (value.get("lines"), value.get("qr", [])) if isinstance(value, dict) else (None, None)
    ok_lines = (
        isinstance(lines, list)
        and 1 <= len(lines) <= PHONE_LINES
        and all(isinstance(x, str) and 0 < len(x) <= PHONE_LINE_CHARS and x.isprintable() for x in lines)
    )
    ok_qr = _square_qr(qr)
    if not (ok_lines and ok_qr) or not isinstance(lines, list) or not isinstance(qr, list):
        return BAD_PHONE
    wifi = value.get("wifi") if isinstance(value, dict) else None
    if wifi is None:
        return ShowPhone(tuple(lines), tuple(qr))
    box_wifi = _box_wifi(wifi)
    return BAD_WIFI if box_wifi is None else ShowPhone(tuple(lines), tuple(qr), box_wifi)


def _box_wifi(wifi: object) -> views.BoxWifi | None:
    """``{"on": false}``, or ``{"on": true, "name": …, "password": …, "qr": […]}``: the box's own Wi-Fi."""
    if not isinstance(wifi, dict) or not isinstance(wifi.get("on"), bool):
        return None
    if not wifi["on"]:
        return views.BoxWifi(False)
    name, password, qr = wifi.get("name"), wifi.get("password"), wifi.get("qr", [])
    ok = (
        isinstance(name, str)
        and 0 < len(name) <= WIFI_NAME_CHARS
        and name.isprintable()
        and isinstance(password, str)
        and WIFI_PASSWORD_CHARS[0] <= len(password) <= WIFI_PASSWORD_CHARS[1]
        and password.isprintable()
        and _square_qr(qr)
    )
    return views.BoxWifi(True, str(name), str(password), tuple(qr)) if ok else None


def _square_qr(qr: object) -> bool:
    return (
        isinstance(qr, list)
        and len(qr) <= QR_MODULES
        and all(isinstance(row, str) and len(row) == len(qr) and set(row) <= {"0", "1"} for row in qr)
    )
