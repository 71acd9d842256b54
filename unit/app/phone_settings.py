"""The settings a phone may change: the device menu's five, by the same path as the menu (docs/phone.en.md).

The core applies them (a ``settings`` output), the runtime saves them in the
state folder's settings.json (the menu's file) and the backend follows them,
so the page, the menu and a restart never disagree.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.app.settings import choices_from
from unit.core import menu
from unit.errors import UserError

#: The settings a phone may change, under the configuration's keys.
SETTINGS: tuple[str, ...] = ("game.minutes", "auction.seconds", "language", "buzzer.volume", "display.brightness")
#: What each may be: the values the menu steps through, so the page and the menu never disagree.
OPTIONS: dict[str, tuple[Any, ...]] = {
    "game.minutes": menu.GAME_MINUTES,
    "auction.seconds": menu.AUCTION_SECONDS,
    "language": menu.LANGUAGES,
    "buzzer.volume": tuple(str(v) for v in menu.VOLUMES),
    "display.brightness": tuple(str(b) for b in menu.BRIGHTNESSES),
}


def current_settings(config: configuration.Config) -> dict[str, Any]:
    """The settable values of ``config``, by dotted key (plain JSON values)."""
    out: dict[str, Any] = {}
    for key in SETTINGS:
        value: Any = config
        for part in key.split("."):
            value = getattr(value, part)
        out[key] = str(value) if isinstance(value, StrEnum) else value
    return out


def apply_settings(runtime: Runtime, changes: object, at: float) -> dict[str, Any]:
    """Check ``changes`` (dotted key -> value) and apply them as the device's menu would; return every setting.

    Runs on the runtime's loop thread (the core's only caller). Raises
    :class:`~unit.errors.UserError` naming the key for a bad value; nothing is
    applied then.
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
