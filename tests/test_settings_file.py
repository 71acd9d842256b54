"""settings.json, like game.json, can never keep the unit down: whatever is there, it starts."""

from __future__ import annotations

import os

import pytest

from unit.app import config as configuration
from unit.app.settings import SettingsStore


def special(tmp_path, kind: str):
    path = tmp_path / "settings.json"
    if kind == "fifo":
        os.mkfifo(path)  # no writer: reading it would block for ever
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # endless
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        path.write_text("{" + " " * 100_000 + "}")
    elif kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    else:
        path.write_bytes(b"\xff\xfe garbage")
    return path


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "huge", "deep", "garbage"])
def test_a_bad_settings_file_is_moved_aside_and_the_unit_starts_with_its_configuration(tmp_path, kind, caplog):
    path = special(tmp_path, kind)
    config = configuration.load()
    assert SettingsStore(tmp_path).apply(config) == config  # and it returned: no hang
    assert "settings.json" in caplog.text and caplog.text.count("\n") == 1  # one line says why
    assert not path.exists() or path.is_dir()  # moved aside (a directory that cannot be renamed stays)
    assert list(tmp_path.glob("settings.json.bad-*")) or path.is_dir()
