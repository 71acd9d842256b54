"""The settings menu on the device: its items, their values, and what a choice changes.

The menu changes five settings; :class:`Choices` holds them as values. Applied
to a :class:`~unit.core.settings.Config` it gives the new configuration, and
:meth:`Choices.layer` is the same thing as a configuration layer (the saved
settings file, unit/app/settings.py), so the file and the running unit agree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from unit.core.settings import Brightness, Config, Volume


class MenuItem(StrEnum):
    GAME = "game"
    AUCTION = "auction"
    LANGUAGE = "language"
    SOUND = "sound"
    BRIGHTNESS = "brightness"
    WIFI = "wifi"  # the box's own Wi-Fi: listed only where the box can make one (an action, not a setting)
    RESET = "reset"


MENU_ITEMS: tuple[MenuItem, ...] = tuple(MenuItem)

#: The values each item steps through, in order (the game length in minutes, None: untimed).
GAME_MINUTES: tuple[float | None, ...] = (None, 30, 45, 60, 90, 120, 180)
AUCTION_SECONDS: tuple[float, ...] = (30, 40, 50, 60, 90)
LANGUAGES: tuple[str, ...] = ("fr", "en")
VOLUMES: tuple[Volume, ...] = tuple(Volume)
BRIGHTNESSES: tuple[Brightness, ...] = tuple(Brightness)


def next_value(options: tuple[Any, ...], current: Any) -> Any:
    """The option after ``current``; from a value not in the list, the first one above it."""
    if current in options:
        return options[(options.index(current) + 1) % len(options)]
    numbers = [o for o in options if o is not None]
    above = [o for o in numbers if current is not None and o > current]
    return above[0] if above else options[0]


@dataclass(frozen=True)
class Choices:
    """The five settings the menu changes."""

    game_minutes: float | None
    auction_seconds: float
    language: str
    volume: Volume
    brightness: Brightness

    @classmethod
    def of(cls, config: Config) -> Choices:
        return cls(
            config.game.minutes,
            config.auction.seconds,
            config.language,
            config.buzzer.volume,
            config.display.brightness,
        )

    def value(self, item: MenuItem) -> float | str | None:
        """The current value of ``item`` (None for an untimed game and for the reset item)."""
        match item:
            case MenuItem.GAME:
                return self.game_minutes
            case MenuItem.AUCTION:
                return self.auction_seconds
            case MenuItem.LANGUAGE:
                return self.language
            case MenuItem.SOUND:
                return self.volume
            case MenuItem.BRIGHTNESS:
                return self.brightness
        return None

    def changed(self, item: MenuItem) -> Choices:
        """These choices with ``item`` moved on to its next value."""
        match item:
            case MenuItem.GAME:
                return replace(self, game_minutes=next_value(GAME_MINUTES, self.game_minutes))
            case MenuItem.AUCTION:
                return replace(self, auction_seconds=next_value(AUCTION_SECONDS, self.auction_seconds))
            case MenuItem.LANGUAGE:
                return replace(self, language=next_value(LANGUAGES, self.language))
            case MenuItem.SOUND:
                return replace(self, volume=next_value(VOLUMES, self.volume))
            case MenuItem.BRIGHTNESS:
                return replace(self, brightness=next_value(BRIGHTNESSES, self.brightness))
        return self

    def apply(self, config: Config) -> Config:
        """``config`` with these choices; the dependent settings kept within their limits.

        The final warning cannot be longer than the game, nor the auction's warning
        as long as the auction: they shrink with a shorter choice.
        """
        game = replace(config.game, minutes=self.game_minutes)
        if self.game_minutes is not None:
            game = replace(game, final_warning_minutes=min(game.final_warning_minutes, self.game_minutes))
        warning = min(config.auction.warning_seconds, self.auction_seconds - 1)
        return replace(
            config,
            language=self.language,
            game=game,
            auction=replace(config.auction, seconds=self.auction_seconds, warning_seconds=warning),
            buzzer=replace(config.buzzer, volume=self.volume),
            display=replace(config.display, brightness=self.brightness),
        )

    def layer(self) -> dict[str, Any]:
        """The choices as a configuration layer (the keys of unit/app/defaults.yaml)."""
        return {
            "language": self.language,
            "game": {"minutes": self.game_minutes},
            "auction": {"seconds": self.auction_seconds},
            "buzzer": {"volume": str(self.volume)},
            "display": {"brightness": str(self.brightness)},
        }
