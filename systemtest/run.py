"""``make system-test``: the card people flash (``make image``), booted in arm64 virtual machines.

The card's own Debian 12 arm64 kernel under ``qemu-system-aarch64`` (TCG): first as a Raspberry Pi 3 B
(``-M raspi3b``, the Pi's own device tree and pin controller), the card's first boot; then the same card
under ``-M virt``, whose GPIO chip (QEMU's PL061) has lines a test can press, with real systemd, polkit and
lgpio: the guide's install over the card's unit, then unplugged at once; play, and pay on the phone; resume
after a power cut during the payments, every payment answered before it kept; a cut during a save, the
watchdog, the bad configuration, the broken state folder and the shutdown button; the uninstall.
One line per check; the exit status is 1 when any check failed. How it works and how to debug it:
docs/dev/system-test.md.

    python3 -m systemtest.run [--keep] [--log FILE]
    python3 -m systemtest.run --prepare [--log FILE]

``--prepare`` only builds (or finds) what the run needs from the network and qemu-user: the card, the wheelhouse,
QEMU 10. ``.ci/run`` starts it beside ``make test``: a cold card is 10 to 15 minutes, mostly on one core.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlencode

from sdcard.build import BuildError, wheelhouse
from systemtest import image as images
from systemtest import qemu10 as qemu10s
from systemtest import ssd1306
from systemtest.guest import Guest, GuestError, free_port

REPO = Path(__file__).resolve().parent.parent
UNIT = "monopoly-city-unit"
WEB = "monopoly-city-web"
STATE = "/var/lib/monopoly-city"
WEB_STATE = "/var/lib/monopoly-city-web"  # the web service's own folder: its secret and the calculator's files
WEB_USER = "monopoly-city-web"
TOOLS = "/usr/local/lib/system-test/guest_tools.py"
GIT_REPO = "/srv/git/monopoly-city-unit.git"
#: The table's configuration in the guest: QEMU's PL061 has 8 lines, each pressed high through qtest, like a
#: TTP223 touch button (buttons.pressed: high).
GUEST_CONFIG = """\
# The system test's table (systemtest/run.py): QEMU's GPIO chip has 8 lines; line 3 is its power key,
# which gives a high level when pressed, like a touch button.
language: fr
pins: {power: 3, auction: 4, build: 5, led: 6, buzzer: 7}
buttons: {pressed: high}
"""
BAD_CONFIG = GUEST_CONFIG.replace("led: 6", "led: 40")
AUCTION_SECONDS = 50.0
#: The game the phone pays in until the power is cut (its file: ``coupure.game.yaml``).
PAYMENTS_GAME = "Coupure"
#: How long a bank page is waited for before it is asked again (times the guest's pace): the web service draws it
#: under its tenth of a core and TCG; a page asked again before the first was drawn doubles its work.
PAGE_SECONDS = 120.0
#: How a phone on the table's network names the box: its address on QEMU's user network and the service's port.
#: The host reaches it through a forwarded port of its own, but the web service answers only to its own names and
#: addresses with its own port (unit.web.guard.HostCheck), so the requests say this Host, as a phone's would.
GUEST_HOST = "10.0.2.15:8080"
PIP_CONF = "[global]\nno-index = true\nfind-links = /var/cache/wheelhouse\n"
#: The box's name in the test's copy of the card's settings file (monopoly-city.txt).
BOX_NAME = "monopoly-test"
#: The remote's presses on the Pi 3 B, each with the state the live stream shows once it arrived.
PI_PRESSES = (("power", "ready"), ("auction", "countdown"))
#: The unit's pins in the card's default configuration (systemd/config.yaml), on the Pi's pinctrl-bcm2835.
PI_PINS = {"power": 17, "auction": 27, "build": 22, "led": 23, "buzzer": 18}

#: The unit's screens as the dummy-display tests draw them (``make golden``), in the card's language.
GOLDEN = REPO / "tests" / "golden" / "fr"

#: The PL061 lines as gpiozero numbers them here (GPIOn is line n of gpiochip0): GUEST_CONFIG's pins.
LINES = {"power": 3, "auction": 4, "build": 5, "led": 6, "buzzer": 7}
#: A firm tap, for the checks that run beside the simulated radios: there the guest's kernel sometimes ran its
#: 30 ms software debounce so late that a 100 ms pulse had ended before it looked, and the press was lost.
TAP = 0.3
#: The box's own Wi-Fi (unit/boxwifi.py): its status, its wait at boot; the test phone's DHCP client's script
#: (busybox udhcpc sets no address by itself; /run is noexec, so the script lives in /var/tmp).
WIFI_STATUS = "/run/monopoly-city-wifi/status.json"
WIFI_WAIT = 60.0
BOXWIFI = "/usr/local/lib/monopoly-city/boxwifi.py"  # the helper, as its service runs it
DHCP_SCRIPT = b"""#!/bin/sh
case "$1" in bound|renew) ip addr flush dev "$interface"; ip addr add "$ip/${mask:-24}" dev "$interface";; esac
"""
HERE = Path(__file__).resolve().parent
#: busybox udhcpd's settings for the home network's side (systemtest/run.py, _back_at_home).
HOME_DHCP = b"""start 192.168.50.100
end 192.168.50.150
interface wlan2
lease_file /var/tmp/home/leases
pidfile /run/home/udhcpd.pid
option subnet 255.255.255.0
option router 192.168.50.1
"""


# --- what the host prepares -----------------------------------------------------------------------


def source_repository(work: Path) -> Path:
    """A bare git repository of the working tree as it is (committed or not) for the guest to clone."""
    stash = subprocess.run(["git", "-C", str(REPO), "stash", "create"], capture_output=True, text=True, check=True)
    commit = stash.stdout.strip() or "HEAD"
    tree = work / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    git = ["git", "-c", "user.name=system-test", "-c", "user.email=system-test@localhost", "-C", str(tree)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the working tree under test"], check=True)
    bare = work / "git" / "monopoly-city-unit.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(tree), str(bare)], check=True)
    return bare.parent


def guide_block(contains: str) -> str:
    """The first shell block of docs/raspberry-pi.md that contains ``contains``: run as written."""
    text = (REPO / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        if contains in block:
            return str(block).strip()
    raise SystemExit(f"system-test: docs/raspberry-pi.md has no block with {contains!r} any more")


# --- reporting ----------------------------------------------------------------------------------------


class Report:
    """One line per check, as it ends: ``ok`` or ``FAIL``, its name, what was measured."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.failures: list[tuple[str, str]] = []  # each failed check's name and detail, said again at the end
        self.passed = 0

    def line(self, status: str, name: str, detail: str) -> None:
        minutes, seconds = divmod(int(time.monotonic() - self.started), 60)
        print(f"[{minutes:2d}:{seconds:02d}] {status:4s} {name}: {detail}", flush=True)

    def ok(self, name: str, detail: str) -> None:
        self.passed += 1
        self.line("ok", name, detail)

    def fail(self, name: str, detail: str) -> None:
        self.failures.append((name, detail))
        self.line("FAIL", name, detail)

    @property
    def failed(self) -> list[str]:
        return [name for name, _ in self.failures]

    def check(self, name: str, good: bool, detail: str) -> bool:
        (self.ok if good else self.fail)(name, detail)
        return good


# --- the phone, from the host (QEMU forwards the guest's port 8080) -----------------------------------


class Phone:
    """A phone's browser, reduced to what the checks need: the session cookie, CSRF tokens, forms, the stream."""

    def __init__(self, port: int, host: str = GUEST_HOST, pace: Callable[[], float] = lambda: 1.0):
        self.port = port
        self.host = host  # the address the phone typed (the Host header)
        self.pace = pace  # the guest's (Guest.pace): every wait and request timeout stretched by it
        self.cookie = ""
        self.token = ""  # the paired session's CSRF token
        self.records: list[tuple[float, dict[str, Any]]] = []  # the live stream: (host time, record)

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None, timeout: float = 60
    ) -> tuple[int, str, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout * self.pace())
        headers = {"Host": self.host} | ({"Cookie": self.cookie} if self.cookie else {})
        body = None
        if form is not None:
            body = urlencode(form)
            headers |= {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://{self.host}"}
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        text = response.read().decode(errors="replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("mc_session="):
                self.cookie = value.split(";")[0]
        connection.close()
        return response.status, response.getheader("location") or "", text

    def csrf(self) -> str:
        _, _, page = self.request("GET", "/remote")
        match = re.search(r'data-csrf="([^"]+)"', page)
        if match is None:
            raise GuestError("the /remote page has no CSRF token")
        return match.group(1)

    def pair(self, guest: Guest) -> str:
        """Ask for a code (shown on the unit, and in its journal: docs/phone.en.md), type it in."""
        since = guest.out("date +%s").strip()
        status, where, _ = self.request("POST", "/pair/request", {"csrf": self.csrf()})
        if "m=shown" not in where:
            raise GuestError(f"asking for a pairing code: {status} {where}")
        code = ""
        for _ in range(20):
            journal = guest.out(
                f"sudo journalctl -u {UNIT} --since @{since} -o cat -g 'pairing code|code d.appairage' --no-pager",
                check=False,
            )
            found = re.findall(r"(?:pairing code|code d'appairage)\D*(\d+)", journal)  # the table's language
            if found:
                code = found[-1]
                break
            time.sleep(0.5)
        status, where, _ = self.request("POST", "/pair", {"csrf": self.csrf(), "code": code})
        if "m=paired" not in where:
            raise GuestError(f"pairing with the code from the journal ({code!r}): {status} {where}")
        self.token = self.csrf()  # a new session once paired
        return code

    def press(self, button: str, action: str = "press") -> int:
        """A press, a release or a tap from the remote (with the session's token, fetched once: no page load
        between a press and its release, which would lengthen the press)."""
        if not self.token:
            self.token = self.csrf()
        status, _, _ = self.request("POST", "/press", {"csrf": self.token, "button": button, "action": action})
        return status

    def listen(self, again: int = 0) -> None:
        """Read the live stream (/events) on a thread, keeping each record with the host's time; a stream that
        breaks is opened ``again`` more times (the first record of each is the unit's state)."""

        def read() -> None:
            for _ in range(again + 1):
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
                    connection.request("GET", "/events", headers={"Host": self.host})
                    response = connection.getresponse()
                    while line := response.readline():
                        if line.startswith(b"data: "):
                            self.records.append((time.monotonic(), json.loads(line[6:])))
                except (OSError, http.client.HTTPException, ValueError):
                    pass  # the guest went away, or dropped the stream
                time.sleep(2)

        threading.Thread(target=read, name="events", daemon=True).start()

    def snapshot_state(self) -> str | None:
        """The unit's state as the stream last said it."""
        said = [r.get("state") for _, r in list(self.records) if r.get("kind") in ("state", "snapshot")]
        return said[-1] if said else None

    def last_screen(self) -> dict[str, Any]:
        """The screen the stream last showed (a ``screen`` record, or a snapshot's), {} before any."""
        for _, record in reversed(list(self.records)):
            if record.get("kind") == "screen":
                return record
            if record.get("kind") == "snapshot":
                screen = record.get("screen")
                return {"kind": "screen", **screen} if isinstance(screen, dict) else {}
        return {}

    def first(self, predicate: Callable[[dict[str, Any]], bool], after: float = 0.0) -> float | None:
        return next((t for t, record in list(self.records) if t >= after and predicate(record)), None)

    def wait(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float, after: float = 0.0, stretch: bool = True
    ) -> float | None:
        """When a record since ``after`` (host time) holds, waited for ``timeout`` seconds times the pace (unless
        ``stretch`` is false: a wait bounded by one of the unit's own delays, which run on its clock)."""
        end = time.monotonic() + timeout * (self.pace() if stretch else 1.0)
        while time.monotonic() < end:
            found = self.first(predicate, after)
            if found is not None:
                return found
            time.sleep(0.1)
        return None


class Payments:
    """A banker paying on the phone, on a thread: a new game (unless ``path`` names one), the game's page (its
    version), then one GO salary for the first player, again and again until the box goes away. Each payment
    answered 303 is kept with the host's time."""

    def __init__(self, phone: Phone, path: str = ""):
        self.phone = phone
        self.path = path  # /games/NAME
        self.answered: list[float] = []
        self.refused: list[str] = []  # other answers, « status: location »
        self.in_flight = False  # a payment sent and not yet answered (when the power is cut)
        self.unanswered = 0  # payments sent and never answered (the page too slow): made or not, nobody knows
        self._thread = threading.Thread(target=self._run, name="payments", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def alive(self) -> bool:
        return self._thread.is_alive()

    def _new_game(self) -> bool:
        """The game the payments go to, started on the phone as a banker would (POST /games)."""
        try:
            form = {
                "csrf": self.phone.csrf(),
                "title": PAYMENTS_GAME,
                "edition": "classic-fr",
                "players": "Alice, Bruno",
            }
            status, where, _ = self.phone.request("POST", "/games", form, timeout=PAGE_SECONDS)
        except (OSError, http.client.HTTPException, GuestError) as error:
            status, where = 0, f"{type(error).__name__}: {error}"
        if status != 303 or not where.startswith("/games/"):
            self.refused.append(f"POST /games « {PAYMENTS_GAME} »: {status} {where}")
            return False
        self.path = where.split("?")[0]
        return True

    def _run(self) -> None:
        if not self.path and not self._new_game():
            return
        # A page slower than its wait (the first one, the web service under its tenth of a core and TCG: seen
        # past 60 s on a slow host) is asked again, as a banker would; only a connection lost ends the taps.
        while True:
            try:
                _, _, page = self.phone.request("GET", self.path, timeout=PAGE_SECONDS)
            except TimeoutError:
                self.refused.append(f"GET {self.path}: no answer in {PAGE_SECONDS * self.phone.pace():.0f} s")
                continue
            except (OSError, http.client.HTTPException):
                return  # the power was cut
            version = re.search(r'name="version" value="([^"]+)"', page)
            csrf = re.search(r'data-csrf="([^"]+)"', page)
            if version is None or csrf is None:
                self.refused.append(f"{self.path} has no version or CSRF token")
                return
            form = {"csrf": csrf[1], "version": version[1], "action": "player", "player": "0", "op": "salary"}
            self.in_flight = True
            try:
                status, where, _ = self.phone.request("POST", f"{self.path}/bank", form, timeout=PAGE_SECONDS)
            except TimeoutError:
                self.in_flight = False
                self.unanswered += 1
                self.refused.append(f"a payment: no answer in {PAGE_SECONDS * self.phone.pace():.0f} s")
                continue
            except (OSError, http.client.HTTPException):
                return  # the power was cut, the payment in flight
            self.in_flight = False
            if status == 303:
                self.answered.append(time.monotonic())
            else:
                self.refused.append(f"{status}: {where}")
                time.sleep(1)


def record_start_up(name: str, figures: dict[str, float]) -> None:
    """The start-up figures of this run, kept for ``make bench`` (docs/performance.md quotes the latest)."""
    path = images.cache_root() / "start-up.json"
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = {}
    kept[name] = {**figures, "date": time.strftime("%Y-%m-%d"), "command": "sudo make system-test"}
    path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def state_is(state: str) -> Callable[[dict[str, Any]], bool]:
    return lambda record: record.get("kind") in ("state", "snapshot") and record.get("state") == state


# --- the guest's side ---------------------------------------------------------------------------------


def screen_is(name: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A live-stream record of the screen showing the view ``name`` with these fields (``page="wifi"``)."""

    def holds(record: dict[str, Any]) -> bool:
        view = record.get("view") or {}
        return (
            record.get("kind") == "screen"
            and view.get("name") == name
            and all(view.get(key) == value for key, value in fields.items())
        )

    return holds


def show(guest: Guest, service: str, *properties: str) -> dict[str, str]:
    text = guest.out(f"systemctl show {service} -p {','.join(properties)}", check=False)
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def wait_active(guest: Guest, service: str, timeout: float) -> dict[str, str] | None:
    """The service's state once active, waited for ``timeout`` seconds times the guest's pace; None if never."""
    end = time.monotonic() + timeout * guest.pace
    while time.monotonic() < end:
        values = show(guest, service, "ActiveState", "SubState", "Type", "MainPID", "NRestarts")
        if values.get("ActiveState") == "active":
            return values
        time.sleep(2)
    return None


def service_said(guest: Guest, service: str, count: int = 4) -> str:
    """A service's state and the last lines systemd and it logged in this boot, in one line: what a check that
    found it not doing its part reports (a CI run's « not active; journal: [] » said nothing of why)."""
    values = show(guest, service, "ActiveState", "SubState", "Result", "NRestarts")
    text = guest.out(f"sudo journalctl -b -u {service} -n {count} -o cat --no-pager", check=False)
    last = [line.strip()[-200:] for line in text.splitlines() if line.strip()]
    return (
        f"{service} {values.get('ActiveState', '?')} ({values.get('SubState', '?')}, {values.get('Result', '?')}, "
        f"{values.get('NRestarts', '?')} restarts), its last lines: {last}"
    )


def unit_journal(guest: Guest, since: str, invocation: str = "") -> list[str]:
    """What the unit's own processes logged since ``since`` (seconds since the epoch, in the guest); with
    ``invocation`` (systemd's InvocationID), what that start of the service logged alone."""
    only = f" _SYSTEMD_INVOCATION_ID={invocation}" if invocation else ""
    text = guest.out(
        f"sudo journalctl _SYSTEMD_UNIT={UNIT}.service{only} --since @{since} -o cat --no-pager", check=False
    )
    return [line for line in text.splitlines() if line.strip()]


def unit_tracebacks(guest: Guest) -> list[str]:
    """Each traceback in the unit's journal over every boot of the card, in one line: the boot (« this boot »,
    « 2 boots ago »), the line logged before it and the exception it ended with."""
    text = guest.out(
        f"sudo journalctl _SYSTEMD_UNIT={UNIT}.service -o json --output-fields=_BOOT_ID,MESSAGE --no-pager",
        check=False,
    )
    said: list[tuple[str, str]] = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("MESSAGE")
        if isinstance(message, str):  # journald keeps a message that is not UTF-8 as a list of bytes
            said.append((str(entry.get("_BOOT_ID", "")), message))
    boots = list(dict.fromkeys(boot for boot, _ in said))
    found = []
    for i, (boot, message) in enumerate(said):
        if "Traceback" not in message:
            continue
        before = said[i - 1][1].strip() if i else ""
        ending = next((m for b, m in said[i + 1 :] if b == boot and m[:1] not in (" ", "\t", "")), "?")
        ago = len(boots) - 1 - boots.index(boot)
        when = "this boot" if ago == 0 else "the boot before" if ago == 1 else f"{ago} boots ago"
        found.append(f"{when}: « {before[-120:]} » … « {ending.strip()[-160:]} »")
    return found


def watched_lines(guest: Guest) -> list[tuple[float, str, str]]:
    text = guest.out("sudo cat /run/system-test-gpio.log", check=False)
    changes = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3:
            changes.append((float(parts[0]), parts[1], parts[2]))
    return changes


def start_watching(guest: Guest) -> None:
    names = " ".join(f"{name}={line}" for name, line in LINES.items())
    guest.ssh(f"sudo sh -c 'nohup python3 {TOOLS} watch /run/system-test-gpio.log {names} >/dev/null 2>&1 &'")


# --- the checks, in the order of an evening -----------------------------------------------------------


class SystemTest:
    def __init__(self, guest: Guest, report: Report, wheels: Path, sources: Path, log: TextIO):
        self.guest = guest
        self.report = report
        self.wheels = wheels
        self.sources = sources
        self.log = log
        self.phone = Phone(0, pace=lambda: self.guest.pace)
        self.payments: Payments | None = None  # the GO salaries tapped until the power cut
        self.ready_at = 0.0  # host time the game started (the power key's press reached the unit)
        self.wired = ""  # the guest's wired link, let go by NetworkManager while the radios are on
        self.wifi_restarted: float | None = None  # guest time the Wi-Fi helper was started beside the radios

    def boot(self, why: str, machine: str = "virt") -> None:
        """Boot the card; a boot that QEMU failed (:meth:`Guest.emulator_fault`: a guest kernel crash, an Oops in
        the scheduler about one run in ten; the Pi 3 B's USB network adapter never enumerated) is tried once more,
        the plug pulled as a person would, and said so in its line. The card's first boot is tried again on a fresh
        copy of the card: what the first boot does is what the checks after it read."""
        again = ""
        try:
            seconds = self.guest.boot(machine=machine)
        except GuestError:
            fault = self.guest.emulator_fault()
            if fault is None:
                raise
            self.guest.cut()
            kept = self.guest.console.with_name(f"{self.guest.console.stem}-failed.log")
            self.guest.console.rename(kept)
            self.guest.boots -= 1  # the same boot, its console kept aside
            fresh = ""
            if self.guest.boots == 0:
                self.guest.create_disk(BOX_NAME)
                fresh = " on a fresh copy of the card"
            seconds = self.guest.boot(machine=machine)
            again = f"; at the first try {fault} (its console: {kept.name}): booted again{fresh}"
        slow = f" (a slow host: the waits stretched ×{self.guest.pace:.1f})" if self.guest.pace > 1.1 else ""
        self.report.ok(
            f"boot {self.guest.boots}", f"{why}: SSH answered {seconds:.0f} s after QEMU started{slow}{again}"
        )
        self.phone = Phone(self.guest.web_port, pace=lambda: self.guest.pace)

    # 0. the card's first boot, as a Raspberry Pi 3 B ---------------------------------------------------

    def first_boot(self) -> None:
        """What the card did alone at its first boot: grown to the card, its name and key from monopoly-city.txt,
        its own machine id and SSH host keys, no failed unit."""
        guest = self.guest
        size = int(guest.out("df -B1 --output=size / | tail -1").strip() or 0)
        name = guest.out("hostname").strip()
        machine_id = guest.out("cat /etc/machine-id").strip()
        keys = guest.out("ls /etc/ssh/ | grep -c '^ssh_host_.*_key$'", check=False).strip()
        state = guest.out("systemctl is-system-running --wait", check=False, timeout=400).strip()
        failed = guest.out("systemctl list-units --failed --plain --no-legend", check=False).split("\n")
        failed = [line.split()[0] for line in failed if line.strip()]
        home = guest.out("sudo nmcli -g 802-11-wireless.ssid connection show home-wifi", check=False).strip()
        self.report.check(
            "first boot",
            size > 3 << 30 and name == BOX_NAME and re.fullmatch(r"[0-9a-f]{32}", machine_id) is not None
            and keys not in ("", "0") and state == "running" and home == images.HOME_WIFI[0],
            f"root {size / 2**30:.1f} GiB on the 4 GiB card, name {name!r} (monopoly-city.txt said {BOX_NAME!r}), "
            f"machine id {machine_id[:8] or 'none'}…, {keys} SSH host keys, the test's key from monopoly-city.txt let "
            f"it in, NetworkManager's home Wi-Fi {home!r} (it said {images.HOME_WIFI[0]!r}); "
            f"system {state}{', failed: ' + ', '.join(failed) if failed else ''}",
        )  # fmt: skip

    def on_a_pi(self) -> None:
        """The card as flashed, on the Pi's own device tree: the unit READY on pinctrl-bcm2835 with the card's
        default pins, the phone page through the forwarded port."""
        guest = self.guest
        values = wait_active(guest, UNIT, 300)
        chip = guest.out("sudo gpiodetect", check=False).strip()
        info = guest.out("sudo gpioinfo pinctrl-bcm2835", check=False)
        used = {name: bool(re.search(rf"line\s+{pin}:.*\bused\b", info)) for name, pin in PI_PINS.items()}
        self.report.check(
            "on a Pi 3 B",
            values is not None and "pinctrl-bcm2835" in chip and all(used.values()),
            f"{UNIT} {'active (READY)' if values else 'not active'}; {chip.splitlines()[0] if chip else 'no chip'}; "
            f"the card's pins taken: {', '.join(f'{n} GPIO{PI_PINS[n]}' for n, u in used.items() if u) or 'none'}",
        )
        self.phone_page("phone page on a Pi 3 B", "QEMU's forwarded port (USB network)", "")
        i2c = guest.out("ls /dev/i2c-* 2>/dev/null", check=False).split()
        self.report.ok("i2c on a Pi 3 B", f"I²C buses: {', '.join(i2c) or 'none'} (the OLED's is /dev/i2c-1)")

    # 1. install as the guide says ------------------------------------------------------------------

    def install(self) -> bool:
        guest = self.guest
        guest.put(self.wheels, "/var/cache/wheelhouse")
        # No network in the guest: pip installs from the wheelhouse (as if from PyPI).
        guest.ssh("sudo tee /etc/pip.conf >/dev/null", input=PIP_CONF.encode())
        guest.put(self.sources, "/srv/git")
        guest.put(Path(__file__).parent, "/usr/local/lib/system-test")
        guest.ssh(f"sudo chown -R {images.USER}: /srv/git")
        # Step 4 of the guide (settings), written before the install, which keeps an existing file.
        guest.ssh(
            "sudo mkdir -p /etc/monopoly-city && sudo tee /etc/monopoly-city/config.yaml >/dev/null",
            input=GUEST_CONFIG.encode(),
        )
        clone = guide_block("git clone")
        started = time.monotonic()
        result = guest.ssh(
            f"REPO={GIT_REPO}\n{clone}\n{guide_block('sudo make install-pi')}", timeout=1500, check=False
        )
        seconds = time.monotonic() - started
        said = result.stdout.decode(errors="replace").strip().splitlines()
        if result.returncode != 0:
            said += result.stderr.decode(errors="replace").strip().splitlines()
        if not self.report.check(
            "install",
            result.returncode == 0,
            f"git clone + sudo make install-pi took {seconds:.0f} s; last line: {said[-1:]}",
        ):
            return False
        path = guest.out("bash -lc 'command -v monopoly-city'", check=False).strip()
        self.report.check(
            "on the PATH",
            path == "/usr/local/bin/monopoly-city",
            f"`command -v monopoly-city` in a new login shell: {path or 'nothing'}",
        )
        return True

    # 2. the services -------------------------------------------------------------------------------

    def services(self) -> None:
        for service, limit in ((UNIT, 1.0), (WEB, 1.0)):
            # Both Type=notify: active once ready (the web service once it answers, slow under TCG).
            values = wait_active(self.guest, service, 300)
            state = values or show(self.guest, service, "ActiveState", "SubState", "Type", "Result")
            said, capped = f"Type={state.get('Type')} {state.get('ActiveState')}/{state.get('SubState')}", True
            if service == WEB:  # a tenth of one core once it answers (its ExecStartPost), its start-up uncapped
                quota = show(self.guest, service, "CPUQuotaPerSecUSec").get("CPUQuotaPerSecUSec", "")
                capped = quota == "100ms"
                said += f", CPUQuotaPerSecUSec={quota or '?'} once ready (100ms: a tenth of one core)"
            self.report.check(f"{service} starts", values is not None and capped, said)
            text = self.guest.out(f"systemd-analyze security --no-pager {service}.service", check=False)
            match = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\w+)", text)
            score = float(match.group(1)) if match else 99.0
            self.report.check(
                f"{service} hardening",
                score <= limit,
                f"systemd-analyze security: {match.group(1) + ' ' + match.group(2) if match else text[-200:]}"
                f" (at most {limit})",
            )

        self.phone_page(
            "phone page",
            "QEMU's forwarded port",
            " (under emulation its start-up is slow)",
        )

    def phone_page(self, name: str, through: str, note: str) -> None:
        """``/remote`` asked until it answers (400 s at most, times the pace), and when, after the kernel started:
        kept for ``make bench``."""
        status, end = 0, time.monotonic() + 400 * self.guest.pace
        while time.monotonic() < end and status != 200:
            try:
                status = self.phone.request("GET", "/remote")[0]
            except (OSError, http.client.HTTPException):
                time.sleep(5)
        uptime = self.guest.out("cut -d' ' -f1 /proc/uptime", check=False).strip()
        if status == 200 and uptime:
            record_start_up(name, {"after_kernel_s": round(float(uptime))})
        self.report.check(
            name,
            status == 200,
            f"/remote answered through {through} {float(uptime or 'nan'):.0f} s after the kernel started{note}",
        )

    def oled(self, what: str, names: list[str]) -> None:
        """What the unit sent to the OLED on the Pi's I²C bus (QEMU's trace of every byte to 0x3c, replayed as an
        SSD1306 reads it): a frame equal, pixel for pixel, to one of the golden images ``names``. The frames are
        written beside the run's consoles (``oled-WHAT.png``) for a person to look at."""
        trace = self.guest.i2c_trace
        lines = trace.read_text(encoding="utf-8", errors="replace").splitlines() if trace.exists() else []
        frames = ssd1306.frames(lines)
        golden = {name: ssd1306.read_png(GOLDEN / f"{name}.png") for name in names}
        best: tuple[int, str, bytes] | None = None
        for frame in frames:
            for name, picture in golden.items():
                wrong = ssd1306.differences(frame, picture)
                if best is None or wrong < best[0]:
                    best = (wrong, name, frame)
        slug = re.sub(r"[^a-z0-9]+", "-", what.lower()).strip("-")
        if best is not None:
            ssd1306.write_png(best[2], self.guest.folder / f"oled-{slug}.png")
        self.report.check(
            f"OLED: {what}",
            best is not None and best[0] == 0,
            f"{len(frames)} frames decoded from {sum(1 for line in lines if 'send(' in line)} bytes sent to 0x3c; "
            + (f"closest to {best[1]}.png: {best[0]} pixels differ" if best else "no frame at all"),
        )

    def auction_on_a_pi(self) -> None:
        """An auction on the Pi 3 B, for its frames on the OLED: started from a paired phone's remote (QEMU's BCM2835
        GPIO has no inputs: the buttons are pressed on the virt machine), then its 50 s to the end. Under emulation
        the web service sometimes drops a connection: a request is tried again, a press only when the live stream
        shows that it did not arrive."""
        phone = self.phone
        for attempt in range(3):
            try:
                phone.pair(self.guest)
                break
            except (OSError, http.client.HTTPException, GuestError):
                if attempt == 2:
                    raise
                time.sleep(5)
        listening = time.monotonic()
        phone.listen(again=5)
        # The stream's first record (the unit's state) before the first press: under TCG and CPUQuota=10% it can
        # take longer than a press's wait, and a press seen late would be pressed again.
        opened = phone.wait(lambda r: r.get("kind") == "snapshot", 120, listening)
        sent = time.monotonic()
        arrived = {button: self._press_until(button, state, sent) for button, state in PI_PRESSES}
        sold = phone.wait(lambda r: r.get("kind") == "sound" and r.get("name") == "sold", AUCTION_SECONDS + 30, sent)
        off = self._switch_off(time.monotonic())  # as a table ends its evening: the next start is a new game
        states = [r.get("state") for _, r in list(phone.records) if r.get("kind") in ("state", "snapshot")]
        self.report.check(
            "auction on a Pi 3 B",
            all(arrived.values()) and sold is not None and off,
            "paired, "
            + (f"the live stream open in {opened - listening:.0f} s" if opened else "the live stream never opened")
            + "; ON/OFF then ENCHÈRES from the remote: "
            + ", ".join(
                f"{button} {'seen' if seen else 'never seen'} on the live stream" for button, seen in arrived.items()
            )
            + f"; the end {'heard' if sold else 'never heard'}; ON/OFF twice: {'off' if off else 'still on'}"
            + ("" if all(arrived.values()) and sold and off else f"; the states it showed: {states[-8:]}"),
        )

    def _switch_off(self, after: float) -> bool:
        """ON/OFF from the remote, and again to answer « ÉTEINDRE ? »: the game off, until the stream says so.
        Each a tap (the press and its release in one request): a release that waited for the press's answer
        came over 3 s late once under TCG, a long ON/OFF, and the Pi 3 B switched itself off."""
        for _ in range(3):
            try:
                for _ in range(2):
                    self.phone.press("power", "tap")
                    time.sleep(0.5)
            except (OSError, http.client.HTTPException):
                pass
            if self.phone.wait(state_is("off"), 20, after=after) is not None:
                return True
        return False

    def _press_until(self, button: str, state: str, after: float) -> bool:
        """The remote's tap of ``button`` (its press and release in one request, as :meth:`_switch_off`), again
        while the stream does not show ``state``."""
        for _ in range(3):
            try:
                self.phone.press(button, "tap")
            except (OSError, http.client.HTTPException):
                pass  # the answer was lost: the stream says whether the press arrived
            if self.phone.wait(state_is(state), 20, after=after) is not None:
                return True
        return False

    def start_up(self, name: str = "start-up") -> None:
        """From the plug to the welcome screen: the unit waits for no network (issue 29). Its READY and
        ``multi-user.target`` on the guest's monotonic clock, which starts with the kernel; a ratio, since TCG
        is slow."""
        guest = self.guest

        def entered(unit: str, moment: str = "ActiveEnterTimestampMonotonic") -> float:
            return int(show(guest, unit, moment).get(moment, "0") or 0) / 1e6

        ready, everything = entered(f"{UNIT}.service"), entered("multi-user.target")
        # Its own start, from its process's exec to READY: what systemd's TimeoutStartSec bounds.
        started = entered(f"{UNIT}.service", "ExecMainStartTimestampMonotonic")
        network = entered("network-online.target")
        after = show(guest, UNIT, "After").get("After", "").split()
        waits = [name for name in after if name.startswith(("network", "systemd-networkd", "NetworkManager"))]
        self.report.check(
            name,
            ready > 0 and not waits,
            f"READY {ready:.1f} s after the kernel started (its own start {ready - started:.1f} s), "
            f"multi-user.target {everything:.1f} s "
            f"(ratio {ready / everything if everything else float('nan'):.2f}); network-online.target "
            + (f"{network:.1f} s" if network else "not reached")
            + f"; the unit is ordered after {', '.join(waits) if waits else 'no network target'}",
        )
        if ready > 0 and everything > 0:
            record_start_up(name, {"ready_s": round(ready, 1), "multi_user_s": round(everything, 1)})

    # 3. the buttons on the GPIO chip, then an auction from the phone --------------------------------

    def watch(self) -> None:
        """The host's eyes from the welcome screen on: the GPIO watcher in the guest, the live stream."""
        start_watching(self.guest)
        self.phone.listen()
        if self.phone.wait(lambda record: True, 30) is None:  # the stream's first record: the unit's state
            self.report.fail("live stream", f"no record from /events in {30 * self.guest.pace:.0f} s")

    def settings_menu(self) -> None:
        """ENCHÈRES held on the welcome screen opens the settings, CONSTRUCTION changes one, ON/OFF leaves: each
        a finger on its PL061 line (qtest), seen on the live stream."""
        guest, phone = self.guest, self.phone
        marker = float(guest.out("python3 -c 'import time; print(time.monotonic())'").strip())
        held = time.monotonic()
        guest.press(LINES["auction"], 2.5)
        opened = phone.wait(state_is("settings"), 10, after=held)
        pressed = time.monotonic()
        guest.press(LINES["build"], TAP)  # beside the radios: a firm tap (TAP)
        changed = phone.wait(lambda r: r.get("kind") == "settings", 10, after=pressed)
        record = next(
            (r for t, r in list(phone.records) if changed and t >= changed and r.get("kind") == "settings"), {}
        )
        minutes = record.get("values", {}).get("game", {}).get("minutes")
        leaving = time.monotonic()
        guest.press(LINES["power"], TAP)
        left = phone.wait(state_is("off"), 10, after=leaving)
        time.sleep(1)
        clicks = [c for c in watched_lines(guest) if c[1] == "buzzer" and c[0] >= marker]  # the menu's clicks
        self.report.check(
            "settings menu",
            bool(opened and changed and left),
            f"ENCHÈRES held 2.5 s on line {LINES['auction']}: the settings "
            + (f"{opened - held:.2f} s after the press began" if opened else "never opened")
            + f"; CONSTRUCTION on line {LINES['build']}: the game's length now {minutes} min"
            + f"; ON/OFF on line {LINES['power']}: {'the welcome screen again' if left else 'still in the menu'}"
            # Reported, not required: a 20 ms click sampled every 2 ms may show no edge (power_on's tones are checked).
            + f"; the clicks: {len(clicks)} changes of the buzzer's line {LINES['buzzer']}",
        )

    # --- the box's own Wi-Fi (issue 29, item 4): two mac80211_hwsim radios, a phone in its own namespace -----

    def radios(self) -> None:
        """Three simulated Wi-Fi radios, the wired link let go, and the Wi-Fi helper started as at every boot: its
        60 s wait for a known network runs while the web service starts (slow under TCG)."""
        guest, report = self.guest, self.report
        guest.ssh("sudo modprobe mac80211_hwsim radios=3")
        wanted = {"wlan0", "wlan1", "wlan2"}
        radios = self._wait_out("ls /sys/class/net", lambda out: wanted <= set(out.split()), 30)
        if not report.check(
            "three Wi-Fi radios",
            radios is not None,
            "mac80211_hwsim: wlan0 (the box's), wlan1 (a phone's), wlan2 (home)",
        ):
            return
        # The phone's radio and the home's, each in a network namespace of its own: their only way to the box is the
        # air, and the box's NetworkManager sees one radio, its own.
        for space, radio in (("phone", "wlan1"), ("home", "wlan2")):
            guest.ssh(
                f"sudo ip netns add {space} && sudo iw phy $(cat /sys/class/net/{radio}/phy80211/name) set netns"
                f" name {space} && sudo ip netns exec {space} ip link set lo up"
                f" && sudo mkdir -p /run/{space} /var/tmp/{space}"
            )
        # The wired link the test talks through is not a network the box should count: NetworkManager lets go of
        # it (its address stays, so SSH does too), as a box at a holiday house has no cable.
        self.wired = guest.out("nmcli -g DEVICE,TYPE device | sed -n 's/:ethernet$//p' | head -1").strip()
        guest.ssh(f"sudo nmcli device set {self.wired} managed no")
        self.wifi_restarted = float(guest.out("date +%s.%N").strip())  # the guest's clock: the status file's too
        guest.ssh("sudo systemctl restart monopoly-city-wifi.service")  # what every boot does

    def box_wifi(self) -> None:
        """No known network at boot: the box's own access point, its QR code on the OLED and the share page; a
        phone joins it with wpa_supplicant and DHCP, loads the live page, pairs and presses through it; the
        settings menu stops it and starts it again (each a finger on a PL061 line)."""
        guest = self.guest
        if self.wifi_restarted is None:
            return  # no radios: said once by radios
        stops: list[Callable[[], None]] = []  # the phone's forwarded port, once made
        try:
            self._box_wifi_checks(self.wifi_restarted, stops)
        finally:
            for stop in stops:
                stop()
            guest.ssh(
                "sudo pkill -f wifi_phone.py; sudo kill $(cat /run/phone/wpa.pid) $(cat /run/home/wpa.pid) 2>/dev/null;"
                " sudo pkill -f 'busybox udhcpd'; sudo ip netns del phone; sudo ip netns del home;"
                f" sudo nmcli device set {self.wired} managed yes",
                check=False,
            )

    def _wait_out(self, command: str, good: Callable[[str], bool], timeout: float) -> str | None:
        end = time.monotonic() + timeout * self.guest.pace
        while time.monotonic() < end:
            out = self.guest.out(command, check=False)
            if good(out):
                return out
            time.sleep(1)
        return None

    def _wifi_status(self, on: bool, timeout: float) -> dict[str, Any] | None:
        found = self._wait_out(f"cat {WIFI_STATUS}", lambda out: f'"on": {str(on).lower()}' in out, timeout)
        return json.loads(found) if found else None

    def _box_wifi_checks(self, restarted: float, stops: list[Callable[[], None]]) -> None:
        """``restarted``: when the helper was started (the guest's clock), its wait running since; what is to be
        stopped at the end goes in ``stops``."""
        guest, report, phone = self.guest, self.report, self.phone
        status = self._wifi_status(True, 240)
        # When the helper wrote « on » (the file is replaced whole), not when the test looked: the guest's clock.
        clock = f"python3 -c 'import os; print(os.stat(\"{WIFI_STATUS}\").st_mtime)'" if status else "date +%s.%N"
        up = float(guest.out(clock).strip()) - restarted
        if not report.check(
            "box's own Wi-Fi at boot",
            status is not None and status.get("address") == "10.42.0.1",
            f"no known network: the access point « {status['name']} » up {up:.0f} s after its service started"
            f" (the wait is {WIFI_WAIT:g} s), the box at {status['address']}"
            if status
            else f"no access point {up:.0f} s after its service started",
        ):
            return
        assert status is not None
        name, password = status["name"], status["password"]
        # What the table sees: CONSTRUCTION on the welcome screen, the Wi-Fi's QR code; the share page, the same.
        # The web service tells the unit within its 2 s look at the status (slower under CPUQuota=10% and TCG):
        # a press before that shows the address first, so the finger presses on until the Wi-Fi's page comes.
        pressed = first = time.monotonic()
        oled = None
        for _ in range(8):
            guest.press(LINES["build"], TAP)
            oled = phone.wait(screen_is("phone", page="wifi"), 6, after=pressed)
            if oled:
                break
            pressed = time.monotonic()
        shown = next((r for t, r in list(phone.records) if oled and t >= oled and r.get("kind") == "screen"), {})
        wifi = (shown.get("view") or {}).get("address", {}).get("wifi", {})
        _, _, share = phone.request("GET", "/share")
        shared = re.findall(r'id="wifi-(?:name|password)">([^<]*)<', share)
        report.check(
            "box's Wi-Fi shown",
            bool(oled) and wifi.get("name") == name and len(wifi.get("qr", [])) == 29 and shared == [name, password],
            f"CONSTRUCTION on line {LINES['build']}: the screen's Wi-Fi page "
            + (
                f"{oled - pressed:.1f} s after the press ({oled - first:.0f} s after the first),"
                f" a {len(wifi.get('qr', []))}-module QR code"
                if oled
                else f"never came (the screens seen: {self._screens_since(first)})"
            )
            + f"; the share page: {shared}",
        )
        # The phone joins as a phone's camera would have it: WPA2 with the name and password, then DHCP.
        config = f'network={{\n ssid="{name}"\n psk="{password}"\n key_mgmt=WPA-PSK\n proto=RSN\n}}\n'
        guest.ssh("sudo tee /run/phone/wpa.conf >/dev/null", input=config.encode())
        script = "/var/tmp/phone/udhcpc.sh"
        guest.ssh(f"sudo tee {script} >/dev/null && sudo chmod 755 {script}", input=DHCP_SCRIPT)
        guest.ssh("sudo tee /var/tmp/phone/wifi_phone.py >/dev/null", input=(HERE / "wifi_phone.py").read_bytes())
        joining = time.monotonic()
        guest.ssh(
            "sudo ip netns exec phone wpa_supplicant -B -i wlan1 -c /run/phone/wpa.conf -P /run/phone/wpa.pid"
            " -f /run/phone/wpa.log"
        )
        lease = guest.out(
            "sudo ip netns exec phone busybox udhcpc -i wlan1 -n -q -t 30 -T 2 -s /var/tmp/phone/udhcpc.sh 2>&1",
            check=False,
        )
        joined = time.monotonic() - joining
        address = re.search(r"lease of (\S+) obtained", lease)
        if not report.check(
            "a phone joins the box's Wi-Fi",
            address is not None,
            "wpa_supplicant (WPA2) and busybox udhcpc in the phone's namespace: "
            + (f"{address.group(1)} by DHCP {joined:.1f} s after it began" if address else f"no lease: {lease[-200:]}"),
        ):
            return
        # Its browser: every request crosses the radio (systemtest/wifi_phone.py, reached through SSH).
        guest.ssh(
            "sudo rm -f /run/phone/web.sock; sudo sh -c 'ip netns exec phone setsid python3"
            " /var/tmp/phone/wifi_phone.py /run/phone/web.sock 10.42.0.1 8080 </dev/null >/run/phone/relay.log 2>&1 &'"
        )
        self._wait_out("ls /run/phone", lambda out: "web.sock" in out, 20)
        port = free_port()
        stops.append(guest.forward(port, "/run/phone/web.sock"))
        on_wifi = Phone(port, host="10.42.0.1:8080", pace=lambda: guest.pace)
        page_status, _, page = on_wifi.request("GET", "/")
        code = on_wifi.pair(guest)
        on_wifi.listen()
        on_wifi.wait(lambda r: r.get("kind") == "snapshot", 20)
        sent = time.monotonic()
        statuses = [on_wifi.press("build", "tap")]
        seen = on_wifi.wait(lambda r: r.get("kind") == "screen", 20, after=sent)
        report.check(
            "a phone on the box's Wi-Fi",
            page_status == 200 and bool(seen) and statuses == [204],
            f"http://10.42.0.1:8080/ over the air: {page_status}, {len(page)} bytes; paired with code {code};"
            f" CONSTRUCTION from its remote: {statuses}, "
            + (f"its screen on the live stream {seen - sent:.1f} s later" if seen else "nothing on the live stream"),
        )
        # The settings menu stops it (the known networks have the radio back) and starts it again.
        stopped = self._menu_wifi()
        off = self._wifi_status(False, 60)
        active = guest.out("nmcli -t -f NAME connection show --active", check=False)
        self._leave_menu()
        started = self._menu_wifi()
        again = self._wifi_status(True, 120)
        qr = phone.wait(screen_is("phone", page="wifi"), 60, after=started or time.monotonic())
        report.check(
            "box's Wi-Fi from the menu",
            bool(stopped and off and "monopoly-city-hotspot" not in active and started and again and qr)
            and again is not None
            and again["password"] == password,
            "ENCHÈRES held, ENCHÈRES to « Wi-Fi du boîtier », CONSTRUCTION: "
            + ("stopped (NetworkManager's radio free for a known network)" if off else "not stopped")
            + "; again: "
            + (
                "up with the same password, the Wi-Fi's QR code on the screen"
                if qr
                else f"no QR code (the screens seen: {self._screens_since(started or time.monotonic())})"
            ),
        )
        # Stopped for what follows by the helper's own command (the menu's stop is proven above): one walk less.
        guest.ssh(f"sudo python3 {BOXWIFI} stop", check=False)
        self._wifi_status(False, 60)
        self._leave_menu()
        self._back_at_home()

    def _back_at_home(self) -> None:
        """The home Wi-Fi of the card's monopoly-city.txt comes on air (the third radio: WPA2, and busybox's DHCP
        server, in a namespace of their own): NetworkManager joins it with the profile the box wrote from that file,
        and the next boot's wait finds it joined, so the box makes no network of its own."""
        guest, report = self.guest, self.report
        name, password = images.HOME_WIFI
        if self._wifi_status(False, 30) is None:  # its radio is the box's access point: no home can be joined
            report.fail("back at home", f"the box's own Wi-Fi is still on: {BOXWIFI} stop did not stop it")
            return
        access_point = (
            f"network={{\n ssid={name.encode().hex()}\n mode=2\n frequency=2437\n key_mgmt=WPA-PSK\n proto=RSN\n"
            f' pairwise=CCMP\n group=CCMP\n psk="{password}"\n}}\n'
        )
        guest.ssh("sudo tee /run/home/ap.conf >/dev/null", input=access_point.encode())
        guest.ssh("sudo tee /run/home/udhcpd.conf >/dev/null", input=HOME_DHCP)
        on_air = time.monotonic()
        guest.ssh(
            "sudo ip netns exec home ip addr add 192.168.50.1/24 dev wlan2 && sudo touch /var/tmp/home/leases"
            " && sudo ip netns exec home busybox udhcpd /run/home/udhcpd.conf"
            " && sudo ip netns exec home wpa_supplicant -B -i wlan2 -c /run/home/ap.conf -P /run/home/wpa.pid"
            " -f /run/home/wpa.log"
        )
        # Joined: activated, its address leased (listed as active from the start of its activation: read then,
        # the address was not there yet).
        joined = self._wait_out(
            "nmcli -t -f NAME,DEVICE,STATE connection show --active",
            lambda out: "home-wifi:wlan0:activated" in out.split(),
            240,
        )
        took = time.monotonic() - on_air
        address = (self._wait_out("nmcli -g IP4.ADDRESS device show wlan0", lambda out: "/" in out, 30) or "").strip()
        booted = time.monotonic()
        guest.ssh("sudo systemctl restart monopoly-city-wifi.service")  # the next evening's boot, at home
        ended = self._wait_out(
            "systemctl is-active monopoly-city-wifi.service", lambda out: out.strip() in ("inactive", "failed"), 90
        )
        said = guest.out("sudo journalctl -b -u monopoly-city-wifi.service -n 4 -o cat", check=False)  # this run's
        status = json.loads(guest.out(f"cat {WIFI_STATUS}", check=False) or "{}")
        known = "a known network is joined" in said
        report.check(
            "back at home",
            bool(joined and address.startswith("192.168.50.") and ended and known and status.get("on") is False),
            f"the home Wi-Fi « {name} » of monopoly-city.txt on air: "
            + (f"joined {took:.0f} s later, the box at {address}" if joined else f"not joined in {took:.0f} s")
            + "; the helper at the next boot: "
            + (
                f"a known network joined, no Wi-Fi of its own ({time.monotonic() - booted:.0f} s)"
                if known and status.get("on") is False
                else f"{said.strip().splitlines()[-1:] or 'nothing said'}, the status {status}"
            ),
        )

    def _screens_since(self, after: float) -> str:
        """The views the live stream showed since ``after``, in a few words each: what a failure needs to say."""
        seen = []
        for at, record in list(self.phone.records):
            view = record.get("view") or {}
            if at >= after and record.get("kind") == "screen":
                wifi = (view.get("address") or {}).get("wifi")
                seen.append(
                    "/".join(str(part) for part in (view.get("name"), view.get("page")) if part)
                    + (f" (wifi on: {wifi.get('on')}, {len(wifi.get('qr', []))} rows)" if wifi else "")
                )
        return ", ".join(seen[-10:]) or "none"

    def _leave_menu(self) -> None:
        """ON/OFF in the settings menu: the welcome screen (the menu stays open 30 s after the last press)."""
        if self.phone.snapshot_state() == "settings":
            pressed = time.monotonic()
            self.guest.press(LINES["power"], TAP)
            # The screen, not only the state: the state's record may come first, and the next menu walk reads
            # the last screen (seen: the menu's, still; CONSTRUCTION pressed on the welcome screen asked nothing).
            self.phone.wait(state_is("off"), 15, after=pressed)
            self.phone.wait(screen_is("welcome"), 15, after=pressed)

    def _menu_wifi(self) -> float | None:
        """Into the settings menu, on to the Wi-Fi item, CONSTRUCTION: when it was pressed (None: not reached).

        As a person does it, looking at the screen before each press. Beside the simulated radios the guest
        now and then lost a press or handed two to the unit at once (:data:`TAP`), so a finger counting its
        presses blind lands on another item: each press waits (8 s at most) for the screen to change, the menu
        is gone round again when it went past the item, and opened again (three times at most) when it closed,
        30 s after the last press it saw.
        """
        guest, phone, pace = self.guest, self.phone, self.guest.pace
        began = time.monotonic()

        def said(what: str) -> None:  # in the log: where a slow walk spent its time
            self.log.write(f"menu walk +{time.monotonic() - began:5.1f} s: {what}\n")

        for _ in range(3):
            if not screen_is("menu")(phone.last_screen()):  # held only where the menu is not open: held in it,
                held = time.monotonic()  # ENCHÈRES opens nothing new
                guest.press(LINES["auction"], 2.5)
                # The menu's screen, not the state: the state's record may come first, and the walk reads screens.
                opened = phone.wait(screen_is("menu"), 20, after=held)
                said("ENCHÈRES held: " + ("the menu" if opened else f"no menu on the screen in {20 * pace:.0f} s"))
                if not opened:
                    continue
            for _ in range(24):  # round the menu's 7 items more than once, a press in two lost
                shown = phone.last_screen()
                if not screen_is("menu")(shown):
                    said("the menu closed")
                    break  # closed: open it again
                if screen_is("menu", item="wifi")(shown):
                    pressed = time.monotonic()
                    guest.press(LINES["build"], TAP)
                    done = phone.wait(lambda r: r.get("kind") == "system", 30, after=pressed)
                    said("CONSTRUCTION on the Wi-Fi item: " + ("asked" if done else f"none in {30 * pace:.0f} s"))
                    return pressed if done else None
                moved = time.monotonic()
                guest.press(LINES["auction"], TAP)
                # 8 s, not 20: in one run every other tap here was lost (the next one moved at once); a tap
                # that was only slow is seen on the next look, and the walk goes round again if it went past.
                # Not stretched: the unit closes its menu 30 s after the last press, slow host or not.
                screen = phone.wait(lambda r: r.get("kind") == "screen", 8, after=moved, stretch=False)
                item = (shown.get("view") or {}).get("item")
                said(f"ENCHÈRES on the item {item}: " + ("moved" if screen else "no screen in 8 s"))
        return None

    def power_on(self) -> None:
        pressed = time.monotonic()
        self.guest.press(LINES["power"])
        ready = self.phone.wait(state_is("ready"), 15, after=pressed)
        if not self.report.check(
            "power key",
            ready is not None,
            f"ON/OFF pressed 100 ms on line {LINES['power']} (qtest): welcome -> ready "
            + (f"on the live stream {ready - pressed:.2f} s later" if ready else "never"),
        ):
            return
        assert ready is not None
        self.ready_at = pressed
        time.sleep(2)
        buzzer = [c for c in watched_lines(self.guest) if c[1] == "buzzer"]
        sound = self.phone.first(lambda r: r.get("kind") == "sound" and r.get("name") == "power_on", pressed)
        self.report.check(
            "buzzer line",
            len(buzzer) >= 2,
            f"{len(buzzer)} changes of GPIO line {LINES['buzzer']} read in /sys/kernel/debug/gpio "
            f"while the unit played « power_on » (stream: {'yes' if sound else 'no'})",
        )

    def build_and_cancel(self) -> None:
        """CONSTRUCTION draws the buildings; ENCHÈRES starts an auction, and held 2.5 s cancels it: on the stream,
        and on the LED's line, lit then dark."""
        guest, phone = self.guest, self.phone
        marker = float(guest.out("python3 -c 'import time; print(time.monotonic())'").strip())
        pressed = time.monotonic()
        guest.press(LINES["build"])
        drawn = phone.wait(lambda r: r.get("kind") == "build", 15, after=pressed)
        result = next((r.get("result") for t, r in list(phone.records) if drawn and t >= drawn and "result" in r), None)
        self.report.check(
            "build draw",
            drawn is not None,
            f"CONSTRUCTION on line {LINES['build']}: "
            + (f"« {result} » drawn, on the stream {drawn - pressed:.2f} s after the press" if drawn else "no draw"),
        )
        time.sleep(1)
        pressed = time.monotonic()
        guest.press(LINES["auction"])
        counting = phone.wait(state_is("countdown"), 10, after=pressed)
        time.sleep(2)
        held = time.monotonic()
        guest.press(LINES["auction"], 2.5)
        cancelled = phone.wait(lambda r: r.get("kind") == "sound" and r.get("name") == "cancelled", 10, after=held)
        ready = phone.wait(state_is("ready"), 10, after=held)
        time.sleep(1)
        led = [level for t, name, level in watched_lines(guest) if name == "led" and t >= marker]
        self.report.check(
            "auction cancelled",
            bool(counting and cancelled and ready and led[:1] == ["hi"] and led[-1:] == ["lo"]),
            f"ENCHÈRES on line {LINES['auction']}: {'a countdown' if counting else 'no countdown'}; held 2.5 s: "
            + (f"« cancelled » {cancelled - held:.2f} s after the press began" if cancelled else "not cancelled")
            + f"; LED line {LINES['led']}: {len(led)} changes, {'dark' if led[-1:] == ['lo'] else 'not dark'} after",
        )

    def auction(self) -> None:
        guest, phone = self.guest, self.phone
        try:
            phone.pair(guest)
        except GuestError as error:
            self.report.fail("pairing", str(error))
            return
        self.report.ok("pairing", "code asked on /remote, read in the unit's journal, typed in: paired")
        marker = float(guest.out("python3 -c 'import time; print(time.monotonic())'").strip())
        sent = time.monotonic()
        phone.press("auction", "tap")  # a tap: a release sent after the press's answer can come late (a cancel)
        counting = phone.wait(state_is("countdown"), 10, after=sent)
        self.report.check(
            "remote press",
            counting is not None,
            f"POST /press auction (a tap) over QEMU's forwarded port: countdown on the stream "
            f"{(counting - sent) if counting else float('nan'):.2f} s later",
        )
        if counting is not None:
            self.start_payments()  # after the press: a bank page being drawn would hold the press up
        sold = phone.wait(lambda r: r.get("kind") == "sound" and r.get("name") == "sold", AUCTION_SECONDS + 20, sent)
        time.sleep(1)
        led = [(t, level) for t, name, level in watched_lines(guest) if name == "led" and t >= marker]
        if not led or led[0][1] != "hi":
            self.report.fail("LED line", f"no rise of GPIO line {LINES['led']} after the press: {led[:4]}")
            return
        start, end = led[0][0], led[-1][0]
        halves = [b[0] - a[0] for a, b in zip(led, led[1:])]
        slow = [h for h in halves if h > 0.3]
        fast = [h for h in halves if h <= 0.3]
        # The unit's own times (the trace's t, on its clock): from the countdown to the LED switched off.
        # This auction's records only (the one cancelled before it had its own countdown).
        records = [r for t, r in phone.records[:] if t >= sent]
        began = next((r["t"] for r in records if state_is("countdown")(r) and "t" in r), None)
        ended = next(
            (r["t"] for r in records if r.get("kind") == "led" and r.get("mode") == "off"
             and began is not None and r.get("t", 0) > began),
            None,
        )  # fmt: skip
        late = (ended - began - AUCTION_SECONDS) * 1000 if began is not None and ended is not None else float("nan")
        self.report.check(
            "auction on the LED",
            # -1 ms: each of the two t is rounded to the millisecond in the trace (one run read « -0 ms »)
            led[-1][1] == "lo" and abs(end - start - AUCTION_SECONDS) < 0.5 and -1 <= late < 500,
            f"GPIO line {LINES['led']}: {len(slow)} slow half-periods of {sum(slow) / max(1, len(slow)):.3f} s, "
            f"{len(fast)} fast of {sum(fast) / max(1, len(fast)):.3f} s, dark {end - start:.3f} s after it lit; "
            f"the unit switched it off {late:+.0f} ms after its {AUCTION_SECONDS:.0f} s deadline (its trace; TCG)",
        )
        lag = ""
        if sold is None:  # the stream stopped, or lags: how long since its last record, and the service's state
            last = phone.records[-1] if phone.records else None
            lag = (
                f"; its last record « {last[1].get('kind')} » {time.monotonic() - last[0]:.0f} s ago"
                if last
                else "; no record at all"
            ) + f"; {service_said(guest, WEB)}"
        self.report.check(
            "auction on the stream",
            counting is not None and sold is not None,
            f"countdown then « sold » {(sold - counting) if sold and counting else float('nan'):.2f} s "
            f"later on /events (host clock){lag}",
        )

    # 4. power cuts ---------------------------------------------------------------------------------

    def start_payments(self) -> None:
        """A banker taps GO salaries on the paired phone, one after another, until the power is cut (issue 28).
        Started during the auction (:meth:`auction`, once its countdown is seen): the bank's pages, slow under the
        web service's tenth of a core, take their minute beside the auction's 50 s rather than after them."""
        if self.payments is None:
            self.payments = Payments(self.phone)
            self.payments.start()

    def payments_answered(self) -> None:
        """The payments started during the auction: at least three answered before the cut that follows."""
        self.start_payments()  # when the auction's countdown was not seen, they start now
        payments = self.payments
        assert payments is not None
        end = time.monotonic() + 300 * self.guest.pace  # the game's first page alone took a minute (Payments._run)
        while time.monotonic() < end and len(payments.answered) < 3 and payments.alive():
            time.sleep(0.5)
        answered = len(payments.answered)
        self.report.check(
            "payments",
            answered >= 3,
            f"{answered} GO salaries tapped on {payments.path or '(no game)'} answered 303 so far; the taps go "
            "on until the cut"
            + (f" (last refusal: {payments.refused[-1]}, {len(payments.refused)} in all)" if payments.refused else "")
            + ("" if answered >= 3 else f"; {service_said(self.guest, WEB)}"),
        )

    def payments_kept(self) -> None:
        """After the reboot: the game loads, and every payment answered 303 before the cut is in it."""
        payments = self.payments
        if payments is None or not payments.path:
            self.report.fail("payments after the cut", "no payments were tapped (no game was started on the phone)")
            return
        answered, in_flight = len(payments.answered), payments.in_flight
        path = f"{WEB_STATE}/calculator/{payments.path.rsplit('/', 1)[-1]}.game.yaml"
        said = self.guest.ssh(f"sudo monopoly-city --lang en history {path} --json", check=False)
        try:
            entries = json.loads(said.stdout)["history"]
        except (ValueError, KeyError, TypeError):
            entries = None
        fortunes = self.guest.out(f"sudo monopoly-city --lang en fortune {path}", check=False).splitlines()
        alice = next((line.strip() for line in fortunes if "Alice" in line), "Alice: no fortune")
        found = len(entries) if isinstance(entries, list) else None
        self.report.check(
            "payments after the cut",
            found is not None and answered <= found <= answered + (1 if in_flight else 0) + payments.unanswered,
            f"{answered} payments answered 303 before the cut, "
            f"{'one more under way' if in_flight else 'none under way'} when it came"
            + (f" ({payments.unanswered} never answered)" if payments.unanswered else "")
            + "; after the reboot the game "
            + (
                f"loads with {found} entries in its history (monopoly-city history --json); « {alice} »"
                if found is not None
                else f"does not load: {said.stderr.decode(errors='replace').strip()[-200:]}"
            ),
        )

    def cut_in_game(self) -> float | None:
        """Pull the plug mid-game, right after a periodic save; the seconds played at the cut."""
        time.sleep(6)  # a save every 5 s: one after the auction for sure
        played = time.monotonic() - self.ready_at if self.ready_at else None
        self.guest.cut()
        self.report.check(
            "power cut",
            played is not None,
            f"QEMU killed {played:.0f} s into the game" if played else "QEMU killed, but no game had started",
        )
        return played

    def resumed(self, played: float | None, what: str) -> None:
        guest = self.guest
        values = wait_active(guest, UNIT, 120)
        tracebacks = unit_tracebacks(guest)  # the persistent journal: every boot of the card so far
        boots = guest.out(f"sudo journalctl -b 0 _SYSTEMD_UNIT={UNIT}.service -o cat --no-pager", check=False)
        resumed = re.findall(r"resuming the game: (\d+) s already played", boots)
        detail = f"{UNIT} {'active' if values else 'not active'}; journal: {resumed and resumed[-1] + ' s played'}"
        if played is not None and resumed:
            lost = played - float(resumed[-1])
            detail += f"; {played:.0f} s had been played at the cut: {lost:.0f} s lost"
            detail += " (the outage itself not counted: the guest's clock is not NTP-synchronised)"
        if tracebacks:
            detail += f"; {len(tracebacks)} traceback(s) in the unit's journal, the last one {tracebacks[-1]}"
        if not values or not resumed:
            detail += f"; {service_said(guest, UNIT)}"
        self.report.check(what, bool(values and resumed and not tracebacks), detail)

    def cut_during_save(self) -> None:
        guest = self.guest
        guest.ssh(f"sudo sh -c 'nohup python3 {TOOLS} cut-during-save {STATE} >/dev/null 2>&1 &'", check=False)
        started = time.monotonic()
        exited = guest.wait_exit(30)
        if not exited:
            guest.cut()
        self.report.check(
            "cut during a save",
            exited,
            f"the machine reset without a sync while .game-*.tmp existed, {time.monotonic() - started:.1f} s "
            "after the watcher started",
        )

    # 5. systemd's side: the watchdog, a bad file, a broken state folder ---------------------------

    def watchdog(self) -> None:
        guest = self.guest
        before = wait_active(guest, UNIT, 120) or {}  # between two starts, its next one
        if before.get("MainPID", "0") == "0":  # « kill -STOP 0 » would stop the test's own SSH session
            self.report.fail("watchdog", f"no unit process to stop: {service_said(guest, UNIT)}")
            return
        since = guest.out("date +%s").strip()
        stopped = time.monotonic()
        guest.ssh(f"sudo kill -STOP {before['MainPID']}")
        restarted = None
        while time.monotonic() - stopped < 120 * guest.pace:
            now = show(guest, UNIT, "MainPID", "NRestarts", "ActiveState")
            if now.get("ActiveState") == "active" and now.get("MainPID") not in ("0", before["MainPID"]):
                restarted = time.monotonic() - stopped
                break
            time.sleep(3)
        said = guest.out(f"sudo journalctl -u {UNIT} --since @{since} -o cat --no-pager", check=False)
        self.report.check(
            "watchdog",
            restarted is not None and "Watchdog timeout" in said,
            f"SIGSTOP: 'Watchdog timeout' in the journal, running again "
            f"{restarted or float('nan'):.0f} s later (WatchdogSec=30, RestartSec=5)",
        )

    def bad_config(self) -> None:
        guest = self.guest
        guest.ssh("sudo tee /etc/monopoly-city/config.yaml >/dev/null", input=BAD_CONFIG.encode())
        since = guest.out("date +%s").strip()
        guest.ssh(f"sudo systemctl restart {UNIT}", check=False, timeout=60)
        time.sleep(12)  # more than RestartSec: a restart would have happened
        values = show(guest, UNIT, "ActiveState", "Result", "ExecMainStatus", "NRestarts", "InvocationID")
        # Since the restart, one line about the pin (a restart by systemd would say it again); and that line
        # alone from the process that read the file (the one before it, started by the watchdog's check, may
        # still be logging its own start-up in the same second).
        said = [line for line in unit_journal(guest, since) if "pins.led" in line]
        lines = unit_journal(guest, since, invocation=values.get("InvocationID", ""))
        self.report.check(
            "bad configuration",
            values.get("ExecMainStatus") == "2"
            and values.get("ActiveState") == "failed"
            and len(said) == 1
            and len(lines) == 1,
            f"exit status {values.get('ExecMainStatus')}, {values.get('ActiveState')}, not restarted; journal: {lines}",
        )
        guest.ssh("sudo tee /etc/monopoly-city/config.yaml >/dev/null", input=GUEST_CONFIG.encode())
        guest.ssh(f"sudo systemctl reset-failed {UNIT}; sudo systemctl start {UNIT}", check=False, timeout=120)

    def broken_state(self) -> None:
        guest = self.guest
        guest.ssh(f"sudo systemctl stop {UNIT}", timeout=60)
        since = guest.out("date +%s").strip()
        guest.ssh(
            f"sudo sh -c 'echo not a game > {STATE}/game.json; rm -f {STATE}/settings.json; "
            f"mkfifo {STATE}/settings.json; chown root:root {STATE}; chmod 000 {STATE}'"
        )
        guest.ssh(f"sudo systemctl start {UNIT}", check=False, timeout=120)
        values = wait_active(guest, UNIT, 60)
        lines = unit_journal(guest, since)
        self.report.check(
            "broken state folder",
            values is not None and not any("Traceback" in x for x in lines),
            f"garbage game.json, a FIFO for settings.json, the folder root's and mode 000: "
            f"{'active' if values else 'not active'}; journal: {lines[:3]}",
        )

    # 6. the shutdown button, through polkit ---------------------------------------------------------

    def shutdown(self) -> None:
        guest = self.guest
        started = time.monotonic()
        guest.set_line(LINES["power"], True)  # held 3 s: shut down
        time.sleep(4)
        try:
            guest.set_line(LINES["power"], False)
        except (GuestError, OSError):
            pass  # QEMU already gone: the machine powered off
        off = guest.wait_exit(180)
        console = guest.console_text()
        hook = re.search(r"system-shutdown/monopoly-city (succeeded|failed with exit status \d+)", console)
        self.report.check(
            "shutdown",
            off,
            f"ON/OFF held 4 s on line {LINES['power']}: QEMU exited {time.monotonic() - started:.0f} s after the press "
            "(systemctl poweroff as the service's user, allowed by the polkit rule)"
            if off
            else f"the guest did not power off in {180 * self.guest.pace:.0f} s",
        )
        if not off:
            guest.cut()
        self.report.check(
            "safe-to-unplug hook",
            hook is not None,
            f"run by systemd-shutdown after the file systems were read-only: « {hook.group(0) if hook else 'not run'} »"
            " (exit status 1: the virt machine has no I²C bus; the sign itself is read off the Pi 3 B boot's bus)",
        )

    def after_shutdown(self) -> None:
        said = self.guest.out("sudo journalctl -b -1 -o cat --no-pager", check=False)
        failed = "the shutdown command failed" in said
        self.report.check(
            "poweroff allowed",
            "System is powering down" in said and not failed,
            "the previous boot's journal: logind's 'System is powering down', no 'shutdown command failed' from "
            "the unit",
        )

    def phone_edition(self) -> None:
        """An edition typed on a phone (the calculator's page), for the uninstall to keep."""
        phone = self.phone
        # Beside the bank's pages (the payments started during the auction), under the web's tenth of a core.
        form = {"csrf": phone.csrf(), "name": "ma-table"}
        status, where, _ = phone.request("POST", "/editions/new", form, timeout=120)
        listed = self.guest.out(f"sudo ls -R {WEB_STATE}/calculator", check=False)
        self.report.check(
            "phone edition",
            status == 303 and "ma-table" in listed,
            f"POST /editions/new « ma-table »: {status} {where}; in {WEB_STATE}/calculator: "
            + ("yes" if "ma-table" in listed else "no"),
        )

    def least_privilege(self) -> None:
        """The web service runs as its own user, which reaches the unit's socket and nothing else of its folder
        (the pairing and the remote press above went through that socket)."""
        guest = self.guest
        pid = show(guest, WEB, "MainPID").get("MainPID", "0")
        user = guest.out(f"ps -o user= -p {pid}", check=False).strip()
        as_web = f"sudo -u {WEB_USER}"
        game = guest.ssh(f"{as_web} cat {STATE}/game.json", check=False)
        listing = guest.ssh(f"{as_web} ls {STATE}", check=False)
        socket = guest.out(f"sudo stat -c '%A %U:%G' {STATE}/unit.sock", check=False).strip()
        folder = guest.out(f"sudo stat -c '%a %U:%G' {STATE} {WEB_STATE}", check=False).split("\n")
        has_game = guest.ssh(f"sudo test -f {STATE}/game.json", check=False).returncode == 0
        self.report.check(
            "least privilege",
            user == WEB_USER
            and has_game
            and game.returncode != 0
            and listing.returncode != 0
            and socket == "srw-rw---- monopoly:monopoly",
            f"the web service runs as {user or '?'}; as that user, reading {STATE}/game.json "
            f"{'failed' if game.returncode else 'WORKED'} ({game.stderr.decode(errors='replace').strip()[-60:]}), "
            f"listing {STATE} {'failed' if listing.returncode else 'WORKED'}; unit.sock {socket}; "
            f"folders {[f.strip() for f in folder if f.strip()]}",
        )

    # 7. uninstall --------------------------------------------------------------------------------------

    def uninstall(self) -> None:
        guest = self.guest
        block = guide_block("sudo make uninstall-pi")
        result = guest.ssh(f"cd monopoly-city-unit && {block}", check=False, timeout=300)
        gone = {
            "the services": f"test ! -e /etc/systemd/system/{UNIT}.service -a ! -e /etc/systemd/system/{WEB}.service",
            "the users": f"! getent passwd monopoly && ! getent passwd {WEB_USER}",
            "/opt/monopoly-city": "test ! -e /opt/monopoly-city",
            "the polkit rule": "test ! -e /etc/polkit-1/rules.d/50-monopoly-city.rules",
            "the shutdown hook": "test ! -e /usr/lib/systemd/system-shutdown/monopoly-city",
            "the udev rule": "test ! -e /etc/udev/rules.d/60-monopoly-city.rules",
            "the command": "test ! -e /usr/local/bin/monopoly-city",
            "the web service's runtime cap": f"test ! -e /run/systemd/system.control/{WEB}.service.d",
        }
        kept = {
            "/etc/monopoly-city/config.yaml": "test -f /etc/monopoly-city/config.yaml",
            "the phones' edition": f"sudo sh -c 'ls -R {WEB_STATE}/calculator' | grep -q ma-table",
        }
        left = [name for name, test in gone.items() if guest.ssh(test, check=False).returncode != 0]
        lost = [name for name, test in kept.items() if guest.ssh(test, check=False).returncode != 0]
        self.report.check(
            "uninstall",
            result.returncode == 0 and not left and not lost,
            f"sudo make uninstall-pi: left behind {left or 'nothing'}, lost {lost or 'nothing'}",
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make system-test", description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (disk, consoles, log)")
    parser.add_argument("--log", metavar="FILE", help="the build and guest log (default: in the run's folder)")
    parser.add_argument(
        "--prepare", action="store_true", help="only build or find the card, the wheelhouse and QEMU 10, then stop"
    )
    args = parser.parse_args(argv)
    missing = [
        tool
        for tool in ("qemu-system-aarch64", "mmdebstrap", "fdtput", "mke2fs", "mkfs.vfat", "mcopy", "sfdisk", "ssh")
        if shutil.which(tool) is None
    ]
    if missing:
        print(f"system-test: missing {', '.join(missing)} (.ci/run installs them)", file=sys.stderr)
        return 2
    if args.prepare:
        return prepare(Path(args.log) if args.log else images.cache_root() / "prepare.log")
    report = Report()
    images.cache_root().mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=images.cache_root()))
    log_path = Path(args.log) if args.log else folder / "system-test.log"
    with open(log_path, "a", encoding="utf-8") as log:
        print(f"system-test: log in {log_path}", flush=True)
        try:
            image, cached = images.build(REPO, log)
            report.ok(
                "image", f"{'cached' if cached else 'built'}: {image.card} ({image.card.stat().st_size >> 20} MiB)"
            )
            wheels = wheelhouse(REPO, log)
            report.ok("wheelhouse", f"{len(list(wheels.glob('*.whl')))} aarch64/cp311 wheels at the pinned versions")
            sources = source_repository(folder)
            (folder / "image").write_text(f"{image.card}\n{image.folder}\n", encoding="utf-8")  # systemtest.guest
            try:
                qemu10: qemu10s.Qemu10 | None = qemu10s.fetch(log)
                assert qemu10 is not None
                report.ok("QEMU 10", f"{qemu10.version}, unpacked from bookworm-backports: the Pi 3 B's I²C bus")
            except (BuildError, OSError, subprocess.CalledProcessError) as error:
                qemu10 = None
                report.fail("QEMU 10", f"{error}: the Pi 3 B boots on QEMU 7.2, without I²C")
            guest = Guest(image, folder, log, qemu10)
            guest.create_disk(BOX_NAME)
            run_checks(SystemTest(guest, report, wheels, sources, log))
        except (GuestError, BuildError, subprocess.CalledProcessError, OSError) as error:
            report.fail("system test", f"{error} (log: {log_path})")
        finally:
            if "guest" in locals():
                locals()["guest"].cut()
    minutes, seconds = divmod(int(time.monotonic() - report.started), 60)
    for name, detail in report.failures:  # again, last: a CI log is often read from its end
        print(f"system-test: FAIL {name}: {detail}", flush=True)
    verdict = "passed" if not report.failed else f"FAILED: {', '.join(report.failed)}"
    print(
        f"system-test: {report.passed} checks passed, {len(report.failed)} failed, {minutes} min {seconds:02d} s: "
        f"{verdict}",
        flush=True,
    )
    if report.failed or args.keep:
        print(f"system-test: the run's folder is kept: {folder} (consoles, disk, log)")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if report.failed else 0


def prepare(log_path: Path) -> int:
    """The card, the wheelhouse and QEMU 10 in their caches: a later run starts with its first boot."""
    started = time.monotonic()
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (closed by the with below)
    except OSError as error:
        print(f"system-test --prepare: cannot write the log {log_path}: {error.strerror}", file=sys.stderr)
        return 2
    with log:
        print(f"system-test --prepare: building what is not cached (a cold card: 10 to 15 min); log: {log_path}")
        try:
            image, cached = images.build(REPO, log)
            print(f"system-test --prepare: the card {'found' if cached else 'built'}: {image.card}", flush=True)
            wheels = wheelhouse(REPO, log)
            print(f"system-test --prepare: {len(list(wheels.glob('*.whl')))} wheels in {wheels}", flush=True)
            qemu10 = qemu10s.fetch(log)
            print(f"system-test --prepare: {qemu10.version}", flush=True)
        except (BuildError, subprocess.CalledProcessError, OSError) as error:
            print(f"system-test --prepare: {error} (log: {log_path})", file=sys.stderr)
            return 1
    minutes, seconds = divmod(int(time.monotonic() - started), 60)
    print(f"system-test --prepare: ready in {minutes} min {seconds:02d} s")
    return 0


def run_checks(test: SystemTest) -> None:
    """Five boots of one disk, as one evening and what follows it; a step that breaks is one failed line."""

    said: set[str] = set()

    def step(action: Callable[..., Any], *args: Any) -> Any:
        crash = test.guest.kernel_crash()
        if crash is not None:  # the guest hangs from there on: one line, not a failure for every check after it
            if crash not in said:
                said.add(crash)
                test.report.fail("guest kernel", f"{crash}: this boot's remaining checks are skipped")
            return None
        try:
            return action(*args)
        except (GuestError, OSError, http.client.HTTPException, ValueError) as error:
            test.report.fail(action.__name__.replace("_", " "), f"{type(error).__name__}: {error}")
            return None

    _run_checks(test, step)


def _run_checks(test: SystemTest, step: Callable[..., Any]) -> None:
    test.boot("the card's first boot, as a Raspberry Pi 3 B", machine="raspi3b")
    step(test.first_boot)
    step(test.on_a_pi)
    step(test.start_up, "start-up on a Pi 3 B")
    step(test.oled, "welcome", ["welcome", "welcome_phone"])
    step(test.auction_on_a_pi)
    step(test.oled, "the 5-second warning", ["warning"])
    test.guest.ssh("sudo systemctl poweroff", check=False, timeout=30)
    if not test.guest.wait_exit(180):
        test.guest.cut()
    step(test.oled, "safe to unplug", ["unplug"])
    test.boot("the same card in the virt machine (buttons on its PL061 lines)")
    if not test.install():
        return
    test.guest.cut()  # unplugged as soon as the install said it was done
    test.boot("unplugged right after the install")
    step(test.radios)  # their Wi-Fi helper's wait at boot runs beside the web service's start
    step(test.services)
    step(test.start_up)
    step(test.watch)
    step(test.settings_menu)
    step(test.box_wifi)
    step(test.power_on)
    step(test.build_and_cancel)
    step(test.auction)
    step(test.phone_edition)
    step(test.least_privilege)
    step(test.payments_answered)
    played = step(test.cut_in_game)
    test.boot("after the power cut")
    step(test.resumed, played, "resume")
    step(test.payments_kept)
    step(test.cut_during_save)
    test.boot("after the cut during a save")
    step(test.resumed, None, "readable game")
    step(test.watchdog)
    step(test.bad_config)
    step(test.broken_state)
    step(test.shutdown)
    if test.guest.process is not None and test.guest.process.poll() is None:
        test.guest.cut()
    test.boot("after the shutdown")
    step(test.after_shutdown)
    step(test.uninstall)
    test.guest.ssh("sudo systemctl poweroff", check=False, timeout=30)
    test.guest.wait_exit(120)


if __name__ == "__main__":
    sys.exit(main())
