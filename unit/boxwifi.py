"""The box's own Wi-Fi: an access point of its own where no known network is there (the SD card, as root).

At a holiday house the box's home Wi-Fi is not there, and no phone could reach it. So,
at every boot, when NetworkManager has joined no network within a short wait
(:data:`WAIT_SECONDS`), this starts an access point with NetworkManager's hotspot
(WPA2, shared mode: the box hands out addresses, 10.42.0.x): its name is the box's
(« Monopoly City », or « Monopoly NAME » after ``name = NAME`` in monopoly-city.txt),
its password made once on this box and kept in NetworkManager's profile across boots.
The settings menu's « Wi-Fi du boîtier » starts or stops it at any time (the unit
writes ``on``/``off`` to ``/var/lib/monopoly-city/box-wifi``; a systemd path unit runs
``boxwifi.py request``). Stopped, or at the next boot at home, NetworkManager joins the
home network again: the hotspot's profile never connects by itself.

What came of it is written to :data:`STATUS` (``{"available", "on", "name",
"password", "address"}``, 0644): the web service reads it and tells the unit, which
shows the Wi-Fi's QR code on its OLED, and the share page shows it too.

Standard library only, run by the system's python3 (``/usr/local/lib/monopoly-city``):
like boxsetup.py, it keeps working after ``make uninstall-pi``. Nothing here stops the
box: a missing radio, a NetworkManager that refuses, a bad request file each give one
line in the journal, and the status says « not available » or « off ».
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import logging
import os
import secrets
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger("monopoly-city-wifi")

STATUS = Path("/run/monopoly-city-wifi/status.json")
REQUEST = Path("/var/lib/monopoly-city/box-wifi")  # the unit's state folder: unit/app/wifi.py writes it
PROFILE = "monopoly-city-hotspot"  # NetworkManager's connection profile (its name, not the network's)
#: How long NetworkManager has, after it started, to join a known network before the box makes its own.
#: A Pi 3 joins a home Wi-Fi in about 10-20 s after NetworkManager starts.
WAIT_SECONDS = 60.0
POLL_SECONDS = 3.0  # one nmcli call a look: cheap on a Pi, not nothing on a Pi Zero
#: The password: 10 characters of 32 (50 bits), none that reads as another on a small screen (no l 1 o 0).
PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
PASSWORD_LENGTH = 10
DEFAULT_NAME = "Monopoly City"
DEFAULT_HOSTNAME = "monopoly-city"  # the card's (sdcard/build.py): its network is then « Monopoly City »
#: The network's name at most: with a 10-character password the Wi-Fi QR code stays a 29x29 code (version 3),
#: which the OLED draws at 2 pixels a module; a phone's camera reads that.
NAME_CHARS = 24
SHARED_ADDRESS = "10.42.0.1"  # NetworkManager's shared mode's own address, when it could not be read back
REQUEST_BYTES = 16  # « on » or « off »: the file is the unprivileged unit's, read with care by root
NMCLI_SECONDS = 45.0  # nmcli's own wait for an activation is 30 s (--wait 30), then a margin


@dataclass(frozen=True)
class Status:
    """What the web service reads: whether the box can make its own Wi-Fi, whether it is up, and how to join it."""

    available: bool
    on: bool = False
    name: str = ""
    password: str = ""
    address: str = ""


class WifiError(Exception):
    """NetworkManager refused or is not there: the message says what, for the journal."""


#: Runs one nmcli command, returns its standard output (raises WifiError on failure). Tests give their own.
Runner = Callable[[Sequence[str]], str]


def nmcli(args: Sequence[str]) -> str:
    """nmcli's terse output of ``args``; a WifiError with its message when it fails."""
    try:
        done = subprocess.run(["nmcli", *args], capture_output=True, text=True, timeout=NMCLI_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise WifiError(f"nmcli {' '.join(args[:3])}: {error}") from error
    if done.returncode != 0:
        raise WifiError(f"nmcli {' '.join(args[:3])}: {(done.stderr or done.stdout).strip()[:300]}")
    return done.stdout


def network_name(hostname: str) -> str:
    """« Monopoly City » for the card's own name, else « Monopoly NAME », short enough for the OLED's QR code."""
    name = hostname.split(".")[0].strip()
    if not name or name == DEFAULT_HOSTNAME:
        return DEFAULT_NAME
    return f"Monopoly {name}"[:NAME_CHARS].strip()


def new_password() -> str:
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


@dataclass(frozen=True)
class Device:
    """One line of ``nmcli -t -f DEVICE,TYPE,STATE,CONNECTION device``."""

    name: str
    kind: str
    state: str
    connection: str

    @property
    def joined(self) -> bool:
        """A network joined through it, by NetworkManager, not the box's own: a phone there reaches the box."""
        return self.state == "connected" and self.kind not in ("loopback", "wifi-p2p") and self.connection != PROFILE


def devices(run: Runner) -> list[Device]:
    found = []
    for line in run(["-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device"]).splitlines():
        fields = [field.replace("\\:", ":") for field in _split(line)]
        if len(fields) == 4:
            found.append(Device(*fields))
    return found


def _split(line: str) -> list[str]:
    """nmcli's terse fields: colons inside a value are escaped with a backslash."""
    fields: list[str] = []
    field, escaped = "", False
    for char in line:
        if escaped:
            field, escaped = field + char, False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields, field = [*fields, field], ""
        else:
            field += char
    return [*fields, field]


def wifi_device(found: list[Device]) -> str | None:
    """The first Wi-Fi interface NetworkManager manages (wlan0 on a Pi), or None (a Pi without Wi-Fi)."""
    return next((d.name for d in found if d.kind == "wifi" and d.state != "unmanaged"), None)


def hotspot_settings(name: str, password: str) -> list[str]:
    """The hotspot's profile, as nmcli's arguments: WPA2 (RSN, CCMP), NetworkManager's shared mode (it hands
    out 10.42.0.x by DHCP and answers DNS with dnsmasq), never joined by itself (the home network comes first)."""
    return [
        "connection.autoconnect", "no",
        "802-11-wireless.ssid", name,
        "802-11-wireless.mode", "ap",
        "802-11-wireless.band", "bg",
        "ipv4.method", "shared",
        "ipv6.method", "ignore",
        "wifi-sec.key-mgmt", "wpa-psk",
        "wifi-sec.proto", "rsn",
        "wifi-sec.pairwise", "ccmp",
        "wifi-sec.group", "ccmp",
        "wifi-sec.psk", password,
    ]  # fmt: skip


class BoxWifi:
    """The box's own access point, through NetworkManager (``run``: nmcli; ``status``: where the status goes)."""

    def __init__(self, run: Runner = nmcli, status: Path = STATUS, hostname: Callable[[], str] = socket.gethostname):
        self.run = run
        self.status_path = status
        self.hostname = hostname

    # --- what the box does -------------------------------------------------------------------------

    def boot(self, wait: float = WAIT_SECONDS, clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep) -> Status:  # fmt: skip
        """At boot: wait up to ``wait`` seconds for a known network; none joined, start the box's own.

        The radio is looked for during the wait too (its firmware may load after NetworkManager started);
        the menu may start the box's own Wi-Fi meanwhile, which is not a known network joined.
        """
        end = clock() + wait
        device: str | None = None
        while True:
            with self.lock():
                found = self._devices()
                if any(d.connection == PROFILE for d in found):
                    return self.refresh()
                if device is None and (device := wifi_device(found)) is not None:
                    self.write(Status(available=True))  # the menu's item, while we wait
                if any(d.joined for d in found):
                    log.info("a known network is joined: the box's own Wi-Fi is not needed")
                    return self.write(Status(available=device is not None))
            if clock() >= end:
                break
            sleep(min(POLL_SECONDS, max(0.0, end - clock())))
        if device is None:
            log.info("no Wi-Fi radio: the box cannot make its own Wi-Fi")
            return self.write(Status(available=False))
        log.info("no known network joined in %g s: the box starts its own Wi-Fi", wait)
        with self.lock():
            return self.start(device)

    def start(self, device: str | None = None) -> Status:
        """Start the box's own access point (making its profile the first time); the status says how to join."""
        device = device or self._device()
        if device is None:
            return self.write(Status(available=False))
        try:
            name, password = self._profile()
            self.run(["--wait", "30", "connection", "up", PROFILE, "ifname", device])
        except WifiError as error:
            log.error("the box's own Wi-Fi could not start: %s", error)
            return self.write(Status(available=True))
        address = self._address(device)
        log.info("the box's own Wi-Fi is up: « %s », at %s", name, address)
        return self.write(Status(True, True, name, password, address))

    def stop(self) -> Status:
        """Stop it: NetworkManager joins a known network again by itself (the home Wi-Fi, back at home)."""
        try:
            if PROFILE in self._active():
                self.run(["connection", "down", PROFILE])
                log.info("the box's own Wi-Fi is stopped: NetworkManager joins a known network again")
        except WifiError as error:
            log.error("the box's own Wi-Fi could not be stopped: %s", error)
        return self.refresh()  # what is so, not what was asked

    def request(self, path: Path = REQUEST) -> Status:
        """The settings menu asked (``on`` or ``off`` in ``path``); asked again meanwhile, done again.

        systemd's path unit does not watch while this runs: a second choice made during a start (about
        30 s) would be lost, so the file is looked at again after each.
        """
        status = Status(available=False)
        for _ in range(5):
            asked, seen = read_request(path)
            with self.lock():
                if asked == "on":
                    status = self.start()
                elif asked == "off":
                    status = self.stop()
                else:
                    log.error("%s: expected on or off: nothing changed", path)
                    status = self.refresh()
            if read_request(path)[1] == seen:
                break
        return status

    def refresh(self) -> Status:
        """The status as NetworkManager has it now (a maker's `status`, after a request not understood)."""
        device = self._device()
        if device is None:
            return self.write(Status(available=False))
        try:
            if PROFILE in self._active():
                name, password = self._profile()
                return self.write(Status(True, True, name, password, self._address(device)))
        except WifiError as error:
            log.error("the box's own Wi-Fi: %s", error)
        return self.write(Status(available=True))

    # --- NetworkManager -----------------------------------------------------------------------------

    def _devices(self) -> list[Device]:
        try:
            return devices(self.run)
        except WifiError as error:
            log.warning("NetworkManager's devices: %s", error)
            return []

    def _device(self) -> str | None:
        return wifi_device(self._devices())

    def _active(self) -> list[str]:
        return self.run(["-t", "-f", "NAME", "connection", "show", "--active"]).splitlines()

    def _profile(self) -> tuple[str, str]:
        """The hotspot's name and password: its profile made the first time (a new password), its name brought
        up to date with the box's (monopoly-city.txt may have renamed it), its password kept."""
        name = network_name(self.hostname())
        try:
            password = self.run(["-s", "-g", "802-11-wireless-security.psk", "connection", "show", PROFILE]).strip()
        except WifiError:
            password = ""
        if len(password) < 8:
            password = new_password()
            if self._exists():  # a profile without its password (edited by hand): made again
                self.run(["connection", "delete", PROFILE])
            self.run(["connection", "add", "type", "wifi", "ifname", "*", "con-name", PROFILE,
                      *hotspot_settings(name, password)])  # fmt: skip
            log.info("the box's own Wi-Fi profile is made: « %s »", name)
        else:
            self.run(["connection", "modify", PROFILE, *hotspot_settings(name, password)])
        return name, password

    def _exists(self) -> bool:
        return PROFILE in self.run(["-t", "-f", "NAME", "connection", "show"]).splitlines()

    def _address(self, device: str) -> str:
        """The box's IPv4 address on its own network (10.42.0.1 in NetworkManager's shared mode)."""
        try:
            found = self.run(["-g", "IP4.ADDRESS", "device", "show", device]).split("|")[0].strip()
        except WifiError:
            found = ""
        return found.split("/")[0] or SHARED_ADDRESS

    # --- the status file ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """One command at a time (the boot's wait and a menu's request may meet): the last status is the truth."""
        path = self.status_path.parent / ".lock"
        try:
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as error:
            log.warning("no lock %s (%s): going on without", path, error)
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def write(self, status: Status) -> Status:
        """Replace the status file at once (the web service never reads half of one); 0644: see the module."""
        path = self.status_path
        try:
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".status.", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                os.fchmod(file.fileno(), 0o644)
                json.dump(asdict(status), file, ensure_ascii=False)
            os.replace(temporary, path)
        except OSError as error:
            log.error("the status %s cannot be written: %s", path, error)
        return status


def read_request(path: Path) -> tuple[str, tuple[int, int, int] | None]:
    """The menu's request and the file's identity (inode, size, time), read as root from the unit's folder:
    a regular file only (no link, no FIFO that would block), a few bytes; anything else is no request."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        log.error("the menu's request %s cannot be read: %s", path, error)
        return "", None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            log.error("the menu's request %s is not a plain file: ignored", path)
            return "", None
        data = os.read(fd, REQUEST_BYTES)
    except OSError as error:
        log.error("the menu's request %s cannot be read: %s", path, error)
        return "", None
    finally:
        os.close(fd)
    return data.decode("ascii", "replace").strip().lower(), (info.st_ino, info.st_size, info.st_mtime_ns)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="boxwifi.py",
        description="The Monopoly City box's own Wi-Fi (an access point), through NetworkManager. As root.",
    )
    parser.add_argument(
        "command",
        choices=("boot", "start", "stop", "request", "status"),
        help="boot: wait for a known network, else start; start, stop: now; request: do what the settings menu "
        f"asked ({REQUEST}); status: write and print what is so now",
    )
    parser.add_argument("--wait", type=float, default=WAIT_SECONDS, help="boot: seconds to wait (default %(default)g)")
    parser.add_argument("--status", type=Path, default=STATUS, help="the status file (default %(default)s)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    box = BoxWifi(status=args.status)
    match args.command:
        case "boot":
            status = box.boot(args.wait)
        case "request":
            status = box.request()
        case command:
            with box.lock():
                status = {"start": box.start, "stop": box.stop}.get(command, box.refresh)()
    shown = asdict(status) | ({"password": "…"} if status.password and not sys.stdout.isatty() else {})
    print(json.dumps(shown, ensure_ascii=False))  # the journal keeps no password; a maker at a terminal sees it
    return 0


if __name__ == "__main__":
    sys.exit(main())
