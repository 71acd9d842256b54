"""What ``make system-test`` says when a check fails: enough to act on from the end of a CI log alone (which is
often all that is kept), the unit's tracebacks named by boot, with the exception they ended with."""

from __future__ import annotations

import json

from systemtest import run


class Journal:
    """A guest whose ``journalctl -o json`` prints these (boot, message) entries."""

    def __init__(self, entries: list[tuple[str, object]]):
        self.entries = entries

    def out(self, command: str, check: bool = True) -> str:
        assert "-o json" in command and f"_SYSTEMD_UNIT={run.UNIT}.service" in command
        return "\n".join(json.dumps({"_BOOT_ID": boot, "MESSAGE": message}) for boot, message in self.entries)


def test_a_traceback_is_named_by_its_boot_the_line_before_it_and_its_exception():
    guest = Journal(
        [
            ("pi", "monopoly-city: a job on the loop failed: the display"),
            ("pi", "Traceback (most recent call last):"),
            ("pi", '  File "/usr/lib/x.py", line 3, in draw'),
            ("pi", "    device.display(image)"),
            ("pi", [255, 254]),  # a message that is not UTF-8: journald gives its bytes
            ("pi", "OSError: [Errno 121] Remote I/O error"),
            ("virt", "monopoly-city: resuming the game: 159 s already played"),
            ("virt-2", "monopoly-city: resuming the game: 205 s already played"),
        ]
    )
    (said,) = run.unit_tracebacks(guest)  # type: ignore[arg-type]
    assert said.startswith("2 boots ago: ")
    assert "a job on the loop failed: the display" in said and "OSError: [Errno 121] Remote I/O error" in said


def test_no_traceback_no_words_and_this_boot_is_said_so():
    assert run.unit_tracebacks(Journal([("a", "monopoly-city: ready")])) == []  # type: ignore[arg-type]
    journal = Journal([("a", "x"), ("b", "stopped"), ("b", "Traceback (most recent call last):"), ("b", "KeyError: 1")])
    assert run.unit_tracebacks(journal) == ["this boot: « stopped » … « KeyError: 1 »"]  # type: ignore[arg-type]


def test_each_failed_check_is_said_again_at_the_end(tmp_path, monkeypatch, capsys):
    """CI keeps the end of a log: each FAIL line comes again just before the verdict, whole."""

    def build(repo, log):
        raise run.BuildError("mmdebstrap failed: see the log")

    monkeypatch.setattr(run.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(run.images, "cache_root", lambda: tmp_path)
    monkeypatch.setattr(run.images, "build", build)
    assert run.main(["--log", str(tmp_path / "system-test.log")]) == 1
    *_, again, verdict, kept = capsys.readouterr().out.splitlines()
    assert again == f"system-test: FAIL system test: mmdebstrap failed: see the log (log: {tmp_path}/system-test.log)"
    assert "0 checks passed, 1 failed" in verdict and "FAILED: system test" in verdict and "kept" in kept
