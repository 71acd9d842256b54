"""What the screen shows, as plain values, and the words for it in French and English.

The core emits one of these views whenever the screen changes; the OLED
renderer draws it and the trace prints :func:`describe` of it. A view carries
only what is visible (the clock already rounded as it is shown), so two equal
views are the same picture and need no redraw.
"""

from __future__ import annotations

from dataclasses import dataclass

BUILD_ICONS = (1, 2, 3, "station")


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
    """A short message over the clock: ``sold``, ``cancelled``, ``hour`` (with the hours), ``resumed``."""

    kind: str
    value: int = 0


@dataclass(frozen=True)
class Build:
    """The four icons; ``highlight`` is an index into BUILD_ICONS; ``result`` is set once drawn."""

    highlight: int
    result: int | str | None = None
    lit: bool = True


@dataclass(frozen=True)
class TimeUp:
    """The game is over: count fortunes."""


@dataclass(frozen=True)
class Shutdown:
    """The system is shutting down."""


View = Off | Ready | Countdown | Banner | Build | TimeUp | Shutdown

WORDS = {
    "fr": {
        "auction": "ENCHÈRES",
        "sold": "ADJUGÉ !",
        "cancelled": "ANNULÉ",
        "left": "RESTE",
        "played": "JOUÉ",
        "game": "PARTIE",
        "untimed": "SANS LIMITE",
        "build": "CONSTRUCTION",
        "station": "GARE",
        "up_to": "{n} BÂTIMENT MAX",
        "up_to_many": "{n} BÂTIMENTS MAX",
        "free_station": "UNE GARE GRATUITE",
        "time_up": "FIN DE PARTIE",
        "count": "Comptez vos fortunes",
        "hour": "{n} HEURE JOUÉE",
        "hours": "{n} HEURES JOUÉES",
        "resumed": "PARTIE REPRISE",
        "shutdown": "ARRÊT…",
    },
    "en": {
        "auction": "AUCTION",
        "sold": "SOLD!",
        "cancelled": "CANCELLED",
        "left": "LEFT",
        "played": "PLAYED",
        "game": "GAME",
        "untimed": "UNTIMED",
        "build": "BUILD",
        "station": "STATION",
        "up_to": "UP TO {n} BUILDING",
        "up_to_many": "UP TO {n} BUILDINGS",
        "free_station": "ONE FREE STATION",
        "time_up": "GAME OVER",
        "count": "Count your fortunes",
        "hour": "{n} HOUR PLAYED",
        "hours": "{n} HOURS PLAYED",
        "resumed": "GAME RESUMED",
        "shutdown": "SHUTTING DOWN…",
    },
}


def words(language: str) -> dict[str, str]:
    return WORDS[language]


def duration(seconds: float) -> str:
    """A clock value as the table reads it: ``45 s``, ``59 min``, ``1h05``."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60}h{minutes % 60:02d}"


def icon_name(result: int | str, language: str) -> str:
    return WORDS[language]["station"] if result == "station" else str(result)


def build_allowance(result: int | str, language: str) -> str:
    """What a build result lets the player do, in words."""
    w = WORDS[language]
    if result == "station":
        return w["free_station"]
    return w["up_to" if result == 1 else "up_to_many"].format(n=result)


def banner_text(view: Banner, language: str) -> str:
    w = WORDS[language]
    if view.kind == "hour":
        return w["hour" if view.value == 1 else "hours"].format(n=view.value)
    return w[view.kind]


def describe(view: View, language: str) -> str:
    """One line saying what the screen shows (the ``screen`` line of the trace)."""
    w = WORDS[language]
    match view:
        case Off():
            return ""
        case Ready(clock=clock, counts_down=True, game_minutes=minutes):
            return f"{w['left']} {duration(clock)} · {w['game']} {duration(minutes * 60)}"
        case Ready(clock=clock):
            return f"{w['played']} {duration(clock)} · {w['untimed']}"
        case Countdown(seconds_left=left, warning=warning):
            return f"{w['auction']} {left}" + (" !" if warning else "")
        case Banner():
            return banner_text(view, language)
        case Build(result=None, highlight=index):
            return f"{w['build']} … {icon_name(BUILD_ICONS[index], language)}"
        case Build(result=result):
            return f"{w['build']} : {icon_name(result, language)}"
        case TimeUp():
            return f"{w['time_up']} · {w['count']}"
        case Shutdown():
            return w["shutdown"]
    raise TypeError(f"not a view: {view!r}")


#: One example of every screen, by name: the golden images and docs/images are drawn from these.
SAMPLES: dict[str, View] = {
    "off": Off(),
    "ready": Ready(clock=59 * 60, counts_down=True, game_minutes=60),
    "ready_last_minute": Ready(clock=45, counts_down=True, game_minutes=60),
    "ready_untimed": Ready(clock=65 * 60, counts_down=False, game_minutes=None),
    "countdown": Countdown(seconds_left=50, total=50),
    "countdown_half": Countdown(seconds_left=23, total=50),
    "warning": Countdown(seconds_left=5, total=50, warning=True),
    "sold": Banner("sold"),
    "cancelled": Banner("cancelled"),
    "hour": Banner("hour", 1),
    "hours": Banner("hour", 2),
    "resumed": Banner("resumed"),
    "build_spin": Build(highlight=1),
    "build_result": Build(highlight=2, result=3),
    "build_result_flash": Build(highlight=2, result=3, lit=False),
    "build_one": Build(highlight=0, result=1),
    "build_station": Build(highlight=3, result="station"),
    "time_up": TimeUp(),
    "shutdown": Shutdown(),
}
