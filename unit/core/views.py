"""What the screen shows, as plain values, and how to say it in words.

The core emits one of these views whenever the screen changes; the OLED
renderer draws it and the trace prints :func:`describe` of it. A view carries
only what is visible (the clock already rounded as it is shown), so two equal
views are the same picture and need no redraw.

The words themselves are data (``unit/locales/*.toml``, keys ``screen.*``): the
core only names them. Whoever shows a view passes :class:`Words` in, so the
core reads no file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from unit.core import jsonread as read
from unit.core.menu import MenuItem
from unit.core.settings import BUILD_RESULTS, BuildResult

#: The four icons on the build screen, in order.
BUILD_ICONS = BUILD_RESULTS


class Words(Protocol):
    """The words of one language: ``words("screen.sold")`` (see :mod:`unit.i18n`)."""

    language: str

    def __call__(self, key: str, /, **values: object) -> str: ...


class BannerKind(StrEnum):
    SOLD = "sold"
    CANCELLED = "cancelled"
    HOUR = "hour"  # with the hours played
    RESUMED = "resumed"


@dataclass(frozen=True)
class Off:
    """Screen dark."""


@dataclass(frozen=True)
class Ready:
    """The game clock: seconds left (timed game) or played (untimed), as shown."""

    clock: int
    counts_down: bool
    game_minutes: float | None


@dataclass(frozen=True)
class Countdown:
    """An auction or deal running: seconds left, out of ``total``."""

    seconds_left: int
    total: float
    warning: bool = False


@dataclass(frozen=True)
class Banner:
    """A short message over the clock; ``value`` is the hours played for an ``hour`` banner."""

    kind: BannerKind
    value: int = 0


@dataclass(frozen=True)
class Build:
    """The four icons; ``highlight`` is an index into BUILD_ICONS; ``result`` is set once drawn."""

    highlight: int
    result: BuildResult | None = None
    lit: bool = True


@dataclass(frozen=True)
class TimeUp:
    """The game is over: count fortunes."""


@dataclass(frozen=True)
class Shutdown:
    """The system is shutting down."""


@dataclass(frozen=True)
class Welcome:
    """Switched off, awake: the name, what ON/OFF does, how to reach the settings.

    ``phone`` says that the phone companion is there: CONSTRUCTION then shows its address.
    """

    hold_seconds: float = 2.0  # how long to hold ENCHÈRES for the settings
    phone: bool = False


@dataclass(frozen=True)
class BoxWifi:
    """The box's own Wi-Fi (an access point, when no known network is there), as the web service reports it.

    ``on``: it is up, and phones join it with ``name`` and ``password``; ``qr`` is
    the Wi-Fi QR code phones' cameras read (``WIFI:T:WPA;S:…;P:…;;``), empty when
    it would not fit the screen (then the name and password are shown as text).
    """

    on: bool
    name: str = ""
    password: str = ""
    qr: tuple[str, ...] = ()


@dataclass(frozen=True)
class PhoneAddress:
    """Where the phones find the box, as the web service reports it.

    ``lines`` are the addresses as text (``monopoly.local:8080``); ``qr`` is the
    QR code of the first as rows of ``"0"``/``"1"`` (dark) modules: the web
    service draws it, so the unit needs no QR library. ``wifi``: None where the
    box cannot make its own Wi-Fi (no radio, not the SD card).
    """

    lines: tuple[str, ...]
    qr: tuple[str, ...] = ()
    wifi: BoxWifi | None = None

    @property
    def wifi_on(self) -> bool:
        return self.wifi is not None and self.wifi.on


def phone_pages(address: PhoneAddress | None) -> tuple[PhonePage, ...]:
    """The phone screen's pages in turn, those that have something to show: the address, then its QR code;
    with the box's own Wi-Fi on, its QR code then the page's (a camera's way), then both as text."""
    if address is None:
        return (PhonePage.TEXT,)
    qr = (PhonePage.QR,) if address.qr else ()
    if address.wifi is not None and address.wifi.on:
        return (*((PhonePage.WIFI,) if address.wifi.qr else ()), *qr, PhonePage.WIFI_TEXT, PhonePage.TEXT)
    return (PhonePage.TEXT, *qr)


class PhonePage(StrEnum):
    WIFI = "wifi"  # the box's own Wi-Fi first, as a QR code: join it, then open the page
    WIFI_TEXT = "wifi_text"  # its name and password, for those who type them
    TEXT = "text"
    QR = "qr"


@dataclass(frozen=True)
class Phone:
    """The phone companion's address (CONSTRUCTION on the welcome screen); ``address`` None: no web service."""

    address: PhoneAddress | None
    page: PhonePage = PhonePage.TEXT


@dataclass(frozen=True)
class Pairing:
    """A phone asked to pair: the code to type on it, over the welcome screen or the game clock."""

    code: str


@dataclass(frozen=True)
class Confirm:
    """« ÉTEINDRE ? »: ON/OFF was pressed during a game; a second press switches off."""


@dataclass(frozen=True)
class Menu:
    """One item of the settings menu with its current value (see :class:`unit.core.menu.Choices`).

    ``value`` is minutes for the game (None: untimed), seconds for the auction, a
    language code, a volume or a brightness; ``done`` says the factory settings are back.
    """

    item: MenuItem
    value: float | str | None
    position: int  # 1-based, of ``count``
    count: int
    done: bool = False


class SummaryPage(StrEnum):
    PLAYED = "played"
    AUCTIONS = "auctions"
    BUILDS = "builds"
    STREAK = "streak"


SUMMARY_PAGES: tuple[SummaryPage, ...] = tuple(SummaryPage)


@dataclass(frozen=True)
class Summary:
    """One page of the evening's summary (unit/core/evening.py has the counts)."""

    page: SummaryPage
    played: int = 0  # seconds
    sold: int = 0
    cancelled: int = 0
    builds: tuple[int, ...] = (0,) * len(BUILD_RESULTS)
    longest_streak: int = 0


View = (
    Off | Ready | Countdown | Banner | Build | TimeUp | Shutdown | Welcome | Confirm | Menu | Summary | Phone | Pairing
)


def duration(seconds: float) -> str:
    """A clock value as the table reads it: ``45 s``, ``59 min``, ``1h05``."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60}h{minutes % 60:02d}"


def icon_name(result: BuildResult, words: Words) -> str:
    return words("screen.station") if result == "station" else str(result)


def build_allowance(result: BuildResult, words: Words) -> str:
    """What a build result lets the player do, in words."""
    if result == "station":
        return words("screen.free_station")
    return words("screen.up_to" if result == 1 else "screen.up_to_many", n=result)


def game_length(minutes: float | None, words: Words) -> str:
    """A game length as the menu shows it: ``sans limite``, ``45 min``, ``1 h``, ``1 h 30``."""
    if minutes is None:
        return words("screen.value_untimed")
    whole = int(minutes)
    if whole < 60:
        return words("screen.value_minutes", n=whole)
    hours, rest = divmod(whole, 60)
    return words("screen.value_hours", n=hours) + (f" {rest:02d}" if rest else "")


def menu_label(item: MenuItem, words: Words) -> str:
    return words(f"screen.item_{item}")


#: The box's own Wi-Fi item's values: off, on, and asked for but not yet so.
WIFI_STATES = ("off", "on", "starting", "stopping")


def menu_value(view: Menu, words: Words) -> str:
    """The value shown beside an item, in words."""
    match view.item:
        case MenuItem.GAME:
            return game_length(view.value if not isinstance(view.value, str) else None, words)
        case MenuItem.AUCTION:
            return words("screen.value_seconds", n=int(float(view.value or 0)))
        case MenuItem.LANGUAGE:
            return words(f"screen.language_{view.value}")
        case MenuItem.SOUND:
            return words(f"screen.volume_{view.value}")
        case MenuItem.BRIGHTNESS:
            return words(f"screen.brightness_{view.value}")
        case MenuItem.WIFI:
            return words(f"screen.wifi_{view.value if view.value in WIFI_STATES else 'off'}")
    return words("screen.reset_done" if view.done else "screen.reset_ask")


def summary_lines(view: Summary, words: Words) -> tuple[str, str]:
    """A summary page as a title and a line."""
    match view.page:
        case SummaryPage.PLAYED:
            return words("screen.summary_played"), duration(view.played)
        case SummaryPage.AUCTIONS:
            return words("screen.summary_auctions"), words(
                "screen.summary_sold", sold=view.sold, cancelled=view.cancelled
            )
        case SummaryPage.BUILDS:
            counts = " ".join(f"{icon_name(r, words)}×{n}" for r, n in zip(BUILD_ICONS, view.builds, strict=True))
            return words("screen.summary_builds"), counts
    return words("screen.summary_streak"), words("screen.summary_in_a_row", n=view.longest_streak)


def spaced_code(code: str) -> str:
    """A pairing code as it is read aloud: ``123 456``."""
    return " ".join(code[i : i + 3] for i in range(0, len(code), 3))


def banner_text(view: Banner, words: Words) -> str:
    if view.kind == BannerKind.HOUR:
        return words("screen.hour" if view.value == 1 else "screen.hours", n=view.value)
    return words(f"screen.{view.kind}")


def describe(view: View, words: Words) -> str:
    """One line saying what the screen shows (the ``screen`` line of the trace)."""
    match view:
        case Off():
            return ""
        case Ready(clock=clock, counts_down=True, game_minutes=minutes) if minutes is not None:
            return f"{words('screen.left')} {duration(clock)} · {words('screen.game')} {duration(minutes * 60)}"
        case Ready(clock=clock):
            return f"{words('screen.played')} {duration(clock)} · {words('screen.untimed')}"
        case Countdown(seconds_left=left, warning=warning):
            return f"{words('screen.auction')} {left}" + (" !" if warning else "")
        case Banner():
            return banner_text(view, words)
        case Build(result=None, highlight=index):
            return f"{words('screen.build')} … {icon_name(BUILD_ICONS[index], words)}"
        case Build(result=result) if result is not None:
            return f"{words('screen.build')} : {icon_name(result, words)}"
        case TimeUp():
            return f"{words('screen.time_up')} · {words('screen.count')}"
        case Shutdown():
            return words("screen.shutdown")
        case Welcome(hold_seconds=hold, phone=phone):
            settings = words("screen.welcome_settings", s=f"{hold:g}")
            parts = [words("screen.welcome"), words("screen.welcome_play"), settings]
            return " · ".join(parts + ([words("screen.welcome_phone")] if phone else []))
        case Phone(address=None):
            return f"{words('screen.phone')} · {words('screen.phone_none')}"
        case Phone(address=address, page=PhonePage.QR) if address is not None and address.qr:
            return f"{words('screen.phone')} · {words('screen.phone_qr')} {address.lines[0]}"
        case Phone(address=address, page=PhonePage.WIFI) if address is not None and address.wifi_on:
            return f"{words('screen.wifi')} · {words('screen.phone_qr')} {address.wifi.name if address.wifi else ''}"
        case Phone(address=address, page=PhonePage.WIFI_TEXT) if address is not None and address.wifi_on:
            assert address.wifi is not None
            wifi = address.wifi
            return f"{words('screen.wifi')} · {wifi.name} · {words('screen.wifi_password')} {wifi.password}"
        case Phone(address=address) if address is not None:
            return " · ".join((words("screen.phone"), *address.lines))
        case Pairing(code=code):
            return f"{words('screen.pairing')} {spaced_code(code)}".rstrip()
        case Confirm():
            return f"{words('screen.confirm_off')} · {words('screen.confirm_hint')}"
        case Menu(item=item):
            return f"{words('screen.settings')} · {menu_label(item, words)} : {menu_value(view, words)}"
        case Summary():
            title, line = summary_lines(view, words)
            return f"{words('screen.summary')} · {title} : {line}"
    raise TypeError(f"not a view: {view!r}")


#: The QR code of ``http://192.168.1.23:8080/`` (segno, error level L): version 2, 25x25 modules.
SAMPLE_QR = (
    "1111111001110100101111111",
    "1000001000011100001000001",
    "1011101001110000101011101",
    "1011101010110111101011101",
    "1011101010101010001011101",
    "1000001001100100101000001",
    "1111111010101010101111111",
    "0000000001001010000000000",
    "1100011101101101100011000",
    "1010100100100101110011110",
    "1011101011011101001101011",
    "0100000100110001100011001",
    "1010001101101010111000001",
    "1011010011101111000000010",
    "1010001111101001010101011",
    "1001010100001010100010101",
    "1000001100101100111110100",
    "0000000011001011100010100",
    "1111111010110110101011001",
    "1000001010010000100010011",
    "1011101000111101111111100",
    "1011101000111100001101011",
    "1011101001001000010000101",
    "1000001010001001101110001",
    "1111111011110011101001001",
)
SAMPLE_ADDRESS = PhoneAddress(("monopoly.local:8080", "192.168.1.23:8080"), SAMPLE_QR)

#: The Wi-Fi QR code of the box's own network « Monopoly City », password k7m2x9p4qa: version 3, 29x29.
SAMPLE_WIFI_QR = (
    "11111110001010100010101111111",
    "10000010101000110110001000001",
    "10111010000010010000001011101",
    "10111010111011111100001011101",
    "10111010010000101111001011101",
    "10000010110110011010101000001",
    "11111110101010101010101111111",
    "00000000011100110000000000000",
    "11111011110101101101110101010",
    "01000000101010000001101010110",
    "10001111001000010000011101000",
    "01010001000010110010111010011",
    "10111111011011001101000111100",
    "10101001000001101101110110110",
    "01101110111111010010101100100",
    "11010101001100100001100001000",
    "01100011111101011111000101011",
    "11011001100011100101111011010",
    "10111011000001011110001110000",
    "10010000000010111000001010001",
    "10010111001010000000111111100",
    "00000000111000001001100010100",
    "11111110111110011011101010100",
    "10000010000100001011100011000",
    "10111010101100011110111111011",
    "10111010111011000101100011011",
    "10111010100001111111111111110",
    "10000010111011000010101011010",
    "11111110100010100101011011000",
)
SAMPLE_WIFI = BoxWifi(True, "Monopoly City", "k7m2x9p4qa", SAMPLE_WIFI_QR)
SAMPLE_WIFI_ADDRESS = PhoneAddress(("monopoly-city.local:8080", "10.42.0.1:8080"), SAMPLE_QR, SAMPLE_WIFI)

#: One example of every screen, by name: the golden images and docs/images are drawn from these.
SAMPLES: dict[str, View] = {
    "off": Off(),
    "ready": Ready(clock=59 * 60, counts_down=True, game_minutes=60),
    "ready_last_minute": Ready(clock=45, counts_down=True, game_minutes=60),
    "ready_untimed": Ready(clock=65 * 60, counts_down=False, game_minutes=None),
    "countdown": Countdown(seconds_left=50, total=50),
    "countdown_half": Countdown(seconds_left=23, total=50),
    "warning": Countdown(seconds_left=5, total=50, warning=True),
    "sold": Banner(BannerKind.SOLD),
    "cancelled": Banner(BannerKind.CANCELLED),
    "hour": Banner(BannerKind.HOUR, 1),
    "hours": Banner(BannerKind.HOUR, 2),
    "resumed": Banner(BannerKind.RESUMED),
    "build_spin": Build(highlight=1),
    "build_result": Build(highlight=2, result=3),
    "build_result_flash": Build(highlight=2, result=3, lit=False),
    "build_one": Build(highlight=0, result=1),
    "build_station": Build(highlight=3, result="station"),
    "time_up": TimeUp(),
    "shutdown": Shutdown(),
    "welcome": Welcome(),
    "welcome_phone": Welcome(phone=True),
    "phone": Phone(SAMPLE_ADDRESS),
    "phone_qr": Phone(SAMPLE_ADDRESS, PhonePage.QR),
    "phone_none": Phone(None),
    "phone_wifi": Phone(SAMPLE_WIFI_ADDRESS, PhonePage.WIFI),
    "phone_wifi_text": Phone(SAMPLE_WIFI_ADDRESS, PhonePage.WIFI_TEXT),
    "phone_wifi_qr": Phone(SAMPLE_WIFI_ADDRESS, PhonePage.QR),
    "pairing": Pairing("042917"),
    "confirm_off": Confirm(),
    "menu_game": Menu(MenuItem.GAME, 90, 1, 6),
    "menu_game_untimed": Menu(MenuItem.GAME, None, 1, 6),
    "menu_auction": Menu(MenuItem.AUCTION, 50, 2, 6),
    "menu_language": Menu(MenuItem.LANGUAGE, "fr", 3, 6),
    "menu_language_en": Menu(MenuItem.LANGUAGE, "en", 3, 6),
    "menu_sound": Menu(MenuItem.SOUND, "low", 4, 6),
    "menu_brightness": Menu(MenuItem.BRIGHTNESS, "medium", 5, 6),
    "menu_wifi": Menu(MenuItem.WIFI, "off", 6, 7),
    "menu_wifi_starting": Menu(MenuItem.WIFI, "starting", 6, 7),
    "menu_reset": Menu(MenuItem.RESET, None, 6, 6),
    "menu_reset_done": Menu(MenuItem.RESET, None, 6, 6, done=True),
    "summary_played": Summary(SummaryPage.PLAYED, played=3600),
    "summary_auctions": Summary(SummaryPage.AUCTIONS, sold=14, cancelled=3),
    "summary_builds": Summary(SummaryPage.BUILDS, builds=(5, 4, 2, 3)),
    "summary_streak": Summary(SummaryPage.STREAK, longest_streak=6),
}


# --- the codec: a view as JSON data and back (the link's ``view``, docs/phone.en.md) ------------------


def encode(view: View) -> dict[str, Any]:
    """A view as plain JSON data: ``{"name": "countdown", "seconds_left": 45, "total": 50, "warning": false}``.

    The name is the class's, in lower case; enums become their text, tuples lists, the phone's
    address a mapping: what :func:`decode` takes back.
    """
    return {"name": type(view).__name__.lower()} | {
        field.name: _plain(getattr(view, field.name)) for field in dataclasses.fields(view)
    }


def decode(data: object) -> View | None:
    """The view :func:`encode` gave ``data`` for; None for anything else (an unknown name or field, a wrong type).

    A page gets the view from another process: a view it cannot read shows as the
    words the unit sent with it, never as an error.
    """
    if not isinstance(data, dict):
        return None
    kind = _VIEWS.get(str(data.get("name")))
    if kind is None:
        return None
    readers = _FIELDS[kind]
    values = {key: value for key, value in data.items() if key != "name"}
    if not set(values) <= set(readers):
        return None
    try:
        return kind(**{key: readers[key](value) for key, value in values.items()})
    except (TypeError, ValueError, KeyError):
        return None


def _plain(value: object) -> object:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, PhoneAddress):
        plain: dict[str, object] = {"lines": list(value.lines), "qr": list(value.qr)}
        if value.wifi is not None:
            plain["wifi"] = dataclasses.asdict(value.wifi) | {"qr": list(value.wifi.qr)}
        return plain
    return value


def _menu_value(value: object) -> float | str | None:
    return value if value is None or isinstance(value, str) else read.number(value)


def _address(value: object) -> PhoneAddress | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= {"lines", "qr", "wifi"}:
        raise TypeError(value)
    wifi = value.get("wifi")
    if wifi is not None and (not isinstance(wifi, dict) or not set(wifi) <= {"on", "name", "password", "qr"}):
        raise TypeError(wifi)
    box_wifi = (
        None
        if wifi is None
        else BoxWifi(
            read.boolean(wifi["on"]),
            read.text(wifi.get("name", "")),
            read.text(wifi.get("password", "")),
            read.texts(wifi.get("qr", [])),
        )
    )
    return PhoneAddress(read.texts(value["lines"]), read.texts(value.get("qr", [])), box_wifi)


#: How each field of each view is read back from JSON (checked: a wrong type is refused, not drawn).
_FIELDS: dict[type[View], dict[str, read.Reader]] = {
    Off: {},
    Ready: {"clock": read.integer, "counts_down": read.boolean, "game_minutes": read.optional(read.number)},
    Countdown: {"seconds_left": read.integer, "total": read.number, "warning": read.boolean},
    Banner: {"kind": read.enum(BannerKind), "value": read.integer},
    Build: {"highlight": read.integer, "result": read.optional(read.build_result), "lit": read.boolean},
    TimeUp: {},
    Shutdown: {},
    Welcome: {"hold_seconds": read.number, "phone": read.boolean},
    Confirm: {},
    Menu: {
        "item": read.enum(MenuItem),
        "value": _menu_value,
        "position": read.integer,
        "count": read.integer,
        "done": read.boolean,
    },
    Summary: {
        "page": read.enum(SummaryPage),
        "played": read.integer,
        "sold": read.integer,
        "cancelled": read.integer,
        "builds": read.integers,
        "longest_streak": read.integer,
    },
    Phone: {"address": _address, "page": read.enum(PhonePage)},
    Pairing: {"code": read.text},
}
_VIEWS: dict[str, type[View]] = {kind.__name__.lower(): kind for kind in _FIELDS}
