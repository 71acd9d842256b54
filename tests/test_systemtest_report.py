"""What ``make system-test`` says when a check fails: enough to act on from the end of a CI log alone (which is
often all that is kept), the unit's tracebacks named by boot, with the exception they ended with."""

from __future__ import annotations

import json

import pytest

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


class CrashingGuest:
    """A guest whose boot after ``first`` fails in QEMU (its console says so), the next boots."""

    def __init__(
        self, folder, first: int = 1, console: str = "[ 68.2] Internal error: Oops: 0000000096000004 [#1] SMP"
    ):
        self.folder, self.boots, self.cuts, self.web_port, self.disks = folder, first, 0, 8080, []
        self.failing = console
        self.pace = 1.0

    @property
    def console(self):
        return self.folder / f"console-{self.boots}.log"

    def boot(self, machine: str = "virt") -> float:
        self.boots += 1
        if not (self.folder / f"console-{self.boots}-failed.log").exists():
            self.console.write_text(self.failing + "\n")
            raise run.GuestError(f"{self.emulator_fault()}: see {self.console}")
        self.console.write_text("Debian GNU/Linux 12 monopoly-test ttyAMA0\n")
        return 61.0

    def emulator_fault(self) -> str | None:
        text = self.console.read_text()
        if "Oops" in text:
            return "the guest kernel crashed (Oops: 0000000096000004)"
        if "dwc2" in text:
            return "QEMU's USB network adapter was never enumerated"
        return None

    def create_disk(self, name: str) -> None:
        self.disks.append(name)

    def cut(self) -> None:
        self.cuts += 1


def test_a_boot_whose_guest_kernel_crashed_is_tried_once_more_and_said_so(tmp_path, capsys):
    guest = CrashingGuest(tmp_path)
    report = run.Report()
    test = run.SystemTest(guest, report, tmp_path, tmp_path, None)  # type: ignore[arg-type]
    test.boot("unplugged right after the install")
    assert guest.boots == 2 and guest.cuts == 1 and report.failed == [] and guest.disks == []
    assert (tmp_path / "console-2-failed.log").read_text().count("Oops") == 1
    line = capsys.readouterr().out
    assert "boot 2: unplugged right after the install: SSH answered 61 s" in line
    assert (
        "at the first try the guest kernel crashed (Oops: 0000000096000004) (its console: console-2-failed.log): "
        "booted again\n" in line
    )


def test_a_first_boot_that_qemu_failed_is_tried_again_on_a_fresh_copy_of_the_card(tmp_path, capsys):
    guest = CrashingGuest(tmp_path, first=0, console="[ 118.5] dwc2 3f980000.usb: Not connected")
    report = run.Report()
    test = run.SystemTest(guest, report, tmp_path, tmp_path, None)  # type: ignore[arg-type]
    test.boot("the card's first boot, as a Raspberry Pi 3 B", machine="raspi3b")
    assert guest.boots == 1 and guest.cuts == 1 and report.failed == [] and guest.disks == [run.BOX_NAME]
    line = capsys.readouterr().out
    assert "boot 1: the card's first boot, as a Raspberry Pi 3 B: SSH answered 61 s" in line
    assert (
        "USB network adapter was never enumerated (its console: console-1-failed.log): booted again on a fresh" in line
    )


def test_a_boot_that_fails_without_a_crash_still_stops_the_run(tmp_path):
    guest = CrashingGuest(tmp_path, console="Debian GNU/Linux 12 monopoly-test ttyAMA0")
    test = run.SystemTest(guest, run.Report(), tmp_path, tmp_path, None)  # type: ignore[arg-type]
    with pytest.raises(run.GuestError):
        test.boot("after the power cut")
    assert guest.cuts == 0


class SlowBank:
    """A phone whose bank page is too slow once, then a payment too slow once, then answers; then the power goes."""

    PAGE = '<form data-csrf="tok"><input name="version" value="7"></form>'

    def __init__(self, pace: float = 1.0) -> None:
        self.pace = lambda: pace
        self.calls: list[tuple[str, float]] = []
        self.answers = [TimeoutError(), (200, "", self.PAGE), TimeoutError(), (200, "", self.PAGE), (303, "/g", "")]

    def request(self, method: str, path: str, form: object = None, timeout: float = 60) -> tuple[int, str, str]:
        self.calls.append((method, timeout))
        if not self.answers:
            raise ConnectionResetError("the power was cut")
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_slow_bank_page_is_asked_again_and_a_payment_never_answered_is_counted_apart():
    phone = SlowBank()
    payments = run.Payments(phone, "/games/coupure")  # type: ignore[arg-type]
    payments._run()  # on this thread: it returns when the connection is lost
    assert [method for method, _ in phone.calls] == ["GET", "GET", "POST", "GET", "POST", "GET"]
    assert all(timeout >= 120 for _, timeout in phone.calls)
    assert len(payments.answered) == 1 and payments.unanswered == 1 and not payments.in_flight
    assert payments.refused == ["GET /games/coupure: no answer in 120 s", "a payment: no answer in 120 s"]


def test_on_a_slow_host_a_bank_page_is_waited_for_as_much_longer_as_the_guest_booted_slower():
    phone = SlowBank(pace=2.75)  # the phone's request stretches its own timeout; the refusal says the real wait
    payments = run.Payments(phone, "/games/coupure")  # type: ignore[arg-type]
    payments._run()
    assert payments.refused == ["GET /games/coupure: no answer in 330 s", "a payment: no answer in 330 s"]
    assert {timeout for _, timeout in phone.calls} == {run.PAGE_SECONDS}  # stretched once, by the phone


def test_a_phone_stretches_its_waits_and_its_requests_by_the_guests_pace(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(run.time, "sleep", lambda seconds: clock.__setitem__(0, clock[0] + seconds))
    phone = run.Phone(1, pace=lambda: 3.0)
    assert phone.wait(lambda record: True, 10) is None
    assert 30.0 <= clock[0] < 30.2  # 10 s of waiting, three times over

    made = {}

    class Connection:
        def __init__(self, host, port, timeout):
            made["timeout"] = timeout
            raise TimeoutError

    monkeypatch.setattr(run.http.client, "HTTPConnection", Connection)
    with pytest.raises(TimeoutError):
        phone.request("GET", "/", timeout=60)
    assert made["timeout"] == 180


def test_a_slow_boot_is_said_in_its_line(tmp_path, capsys):
    guest = CrashingGuest(tmp_path, first=0, console="")
    (tmp_path / "console-1-failed.log").write_text("")  # no fault: it boots at once
    guest.pace = 2.76
    test = run.SystemTest(guest, run.Report(), tmp_path, tmp_path, None)  # type: ignore[arg-type]
    test.boot("after the cut during a save")
    assert "SSH answered 61 s after QEMU started (a slow host: the waits stretched ×2.8)" in capsys.readouterr().out


class StoppedUnit:
    """A guest whose unit is not running (systemd's MainPID 0): its commands written down."""

    def __init__(self) -> None:
        self.pace = 1.0
        self.commands: list[str] = []

    def out(self, command: str, check: bool = True, **options: object) -> str:
        self.commands.append(command)
        if command.startswith("systemctl show"):
            return "MainPID=0\nNRestarts=3\nActiveState=activating\nSubState=auto-restart\nResult=watchdog\n"
        if "journalctl" in command:
            return "monopoly-city-unit.service: Watchdog timeout (limit 30s)!\n"
        return ""

    def ssh(self, command: str, **options: object) -> None:
        self.commands.append(command)


def test_the_watchdog_check_never_stops_process_group_0_and_says_why_the_unit_is_not_running(tmp_path, monkeypatch):
    """A CI run's unit was not running when the watchdog check came: « kill -STOP 0 » stopped the test's own
    SSH session for 120 s and said nothing of the unit. Its next start is waited for first (2 min)."""
    clock = [0.0]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(run.time, "sleep", lambda seconds: clock.__setitem__(0, clock[0] + seconds))
    guest, report = StoppedUnit(), run.Report()
    test = run.SystemTest(guest, report, tmp_path, tmp_path, None)  # type: ignore[arg-type]
    test.watchdog()
    assert not any("kill" in command for command in guest.commands) and 120 <= clock[0] < 125
    ((name, detail),) = report.failures
    assert name == "watchdog" and detail.startswith("no unit process to stop: monopoly-city-unit activating")
    assert "auto-restart, watchdog, 3 restarts" in detail and "Watchdog timeout (limit 30s)!" in detail


class NewGameBank(SlowBank):
    """A phone on which the payments start their own game first: /remote's token, then POST /games."""

    def __init__(self, games: tuple[int, str, str]) -> None:
        super().__init__()
        self.answers = [games, (200, "", self.PAGE), (303, "/g", "")]

    def csrf(self) -> str:
        return "tok"


def test_payments_started_without_a_game_start_one_on_the_phone_first():
    phone = NewGameBank((303, "/games/coupure?m=created", ""))
    payments = run.Payments(phone)  # type: ignore[arg-type]
    payments._run()
    assert payments.path == "/games/coupure" and [m for m, _ in phone.calls] == ["POST", "GET", "POST", "GET"]
    assert len(payments.answered) == 1


def test_a_game_the_phone_could_not_start_is_one_refusal_and_no_payment():
    phone = NewGameBank((403, "", ""))
    payments = run.Payments(phone)  # type: ignore[arg-type]
    payments._run()
    assert payments.path == "" and payments.answered == [] and payments.refused == ["POST /games « Coupure »: 403 "]
