"""``systemtest.run --prepare``: the card, the wheelhouse and QEMU 10 built or found, nothing booted; ``.ci/run``
runs it beside ``make test``, then the system test."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sdcard.build import BuildError
from systemtest import qemu10, run
from systemtest.image import Image

ROOT = Path(__file__).resolve().parent.parent


def test_prepare_builds_the_card_the_wheels_and_qemu_10_and_boots_nothing(tmp_path, monkeypatch, capsys):
    made: list[str] = []
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "gpiozero-2.0.1-py3-none-any.whl").touch()
    monkeypatch.setattr(
        run.images, "build", lambda repo, log: made.append("card") or (Image(tmp_path / "c", tmp_path), False)
    )
    monkeypatch.setattr(run, "wheelhouse", lambda repo, log: made.append("wheels") or wheels)
    monkeypatch.setattr(run.qemu10s, "fetch", lambda log: made.append("qemu") or qemu10.Qemu10(tmp_path, "QEMU 10.0.2"))
    monkeypatch.setattr(run, "Guest", None)  # a boot would fail on it
    assert run.main(["--prepare", "--log", str(tmp_path / "prepare.log")]) == 0
    assert made == ["card", "wheels", "qemu"]
    out = capsys.readouterr().out
    assert "the card built" in out and "1 wheels" in out and "QEMU 10.0.2" in out and "ready in" in out


def test_a_failed_preparation_is_one_line_naming_the_log_and_exit_status_1(tmp_path, monkeypatch, capsys):
    def refuse(repo, log):
        raise BuildError("building the image needs root (mmdebstrap, chroot, file owners): sudo make image")

    monkeypatch.setattr(run.images, "build", refuse)
    assert run.main(["--prepare", "--log", str(tmp_path / "prepare.log")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs root" in err and str(tmp_path / "prepare.log") in err


def test_a_log_that_cannot_be_written_is_one_line_and_exit_status_2(tmp_path, capsys):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    assert run.main(["--prepare", "--log", str(blocked / "prepare.log")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write the log" in err and str(blocked) in err


def test_ci_prepares_the_card_beside_make_test_and_boots_it_after():
    script = (ROOT / ".ci/run").read_text(encoding="utf-8")
    background = next(line for line in script.splitlines() if "systemtest.run --prepare" in line)
    assert background.startswith("setsid ") and background.endswith("&")  # its own session: killed as a whole
    assert 'kill -TERM -- -"$preparing"' in script  # a make test that fails stops mmdebstrap too
    order = [background, "\nmake test\n", 'wait "$preparing"', "\n$sudo make system-test"]
    assert [script.index(part) for part in order] == sorted(script.index(part) for part in order)
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci/run")]).returncode == 0
