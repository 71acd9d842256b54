"""The choices made in the settings menu, saved beside the saved game as a layer over ``--config``.

``settings.json`` in the state folder holds the five values the menu changes
(game length, auction length, language, sound, brightness) under the keys of
``defaults.yaml``. It is written atomically (temporary file, fsync, rename,
fsync of the folder), so a power cut leaves the old choices or the new ones.
A file that cannot be read or checked is ignored with one warning: the unit
starts with the configuration's values, and the saved game is not touched.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from unit.app import config as configuration
from unit.app.persist import move_aside, read_small_file
from unit.core.menu import Choices
from unit.core.settings import Brightness, Config, Volume
from unit.errors import UserError
from unit.files import clear_leftovers, sync_directory, write_atomically

log = logging.getLogger(__name__)

FORMAT = "monopoly-city-unit/settings/1"
FILENAME = "settings.json"
MAX_BYTES = 16_384  # five settings: anything larger is not a settings file
#: The keys the menu sets, each checked with the configuration's own rule.
KEYS = (("language",), ("game", "minutes"), ("auction", "seconds"), ("buzzer", "volume"), ("display", "brightness"))


def user_config_dir(app: str = "monopoly-city") -> Path:
    """Where the platform keeps a user's configuration: ~/.config (XDG), Application Support, %APPDATA%."""
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming") / app
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / app
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / app


def choices_from(layer: Any, base: Config, source: str) -> Choices:
    """The menu's choices read from a settings layer over ``base``; raises UserError naming the key."""
    if not isinstance(layer, dict):
        raise UserError(source, "expected a mapping of settings")
    values: dict[str, Any] = {}
    for path in KEYS:
        node: Any = layer
        for key in path:
            node = node.get(key, KeyError) if isinstance(node, dict) else KeyError
        if node is KeyError:
            continue  # not chosen: the configuration's value stays
        rule: Any = configuration.SCHEMA
        for key in path:
            rule = rule[key]
        values[".".join(path)] = rule(node, f"{source}: {'.'.join(path)}")
    now = Choices.of(base)
    return Choices(
        game_minutes=values.get("game.minutes", now.game_minutes),
        auction_seconds=values.get("auction.seconds", now.auction_seconds),
        language=values.get("language", now.language),
        volume=Volume(values.get("buzzer.volume", now.volume)),
        brightness=Brightness(values.get("display.brightness", now.brightness)),
    )


class SettingsStore:
    """``settings.json`` in a state folder (``--state-dir``)."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.path = self.directory / FILENAME

    def load(self) -> dict[str, Any] | None:
        """The saved layer, or None; a corrupt or foreign file is ignored with one warning."""
        clear_leftovers(self.path)  # a write the power cut interrupted
        raw, why = read_small_file(self.path, MAX_BYTES)  # never blocks on a FIFO, never reads /dev/zero
        if why is not None:
            move_aside(self.path, why, "starting with the configured settings")
        if raw is None:
            return None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError(f"expected format {FORMAT!r}")
            layer = data["settings"]
            if not isinstance(layer, dict):
                raise ValueError("settings is not a mapping")
        except (ValueError, KeyError, RecursionError) as error:
            move_aside(self.path, f"not saved settings ({str(error)[:80]})", "starting with the configured settings")
            return None
        return layer

    def apply(self, config: Config) -> Config:
        """``config`` with the saved choices over it; with the configured values if the file is bad."""
        layer = self.load()
        if layer is None:
            return config
        try:
            return choices_from(layer, config, str(self.path)).apply(config)
        except UserError as error:
            log.warning("ignoring %s (%s); starting with the configured settings", self.path, error)
            return config

    def save(self, choices: Choices) -> None:
        data = json.dumps({"format": FORMAT, "settings": choices.layer()}, ensure_ascii=False, indent=1)
        try:
            self._write_atomically(data.encode())
        except OSError as error:
            log.warning("cannot save the settings in %s: %s", self.directory, error.strerror or error)

    def clear(self) -> None:
        """Back to the factory settings: the file goes."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError as error:
            log.warning("cannot remove %s: %s", self.path, error.strerror or error)
            return
        sync_directory(self.directory)

    def _write_atomically(self, data: bytes) -> None:
        write_atomically(self.path, data)
