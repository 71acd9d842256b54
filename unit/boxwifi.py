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
import json
import logging
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger("monopoly-city-wifi")

STATUS = Path("/run/monopoly-city-wifi/status.json")
REQUEST = Path("/var/lib/monopoly-city/box-wifi")  # the unit's state folder: unit/app/wifi.py writes it
PROFILE = "monopoly-city-hotspot"  # NetworkManager's connection profile (its name, not the network's)
#: How long NetworkManager has, after it started, to join a known network before the box makes its own.
#: A Pi 3 joins a home Wi-Fi in about 10-20 s after NetworkManager starts.
WAIT_SECONDS = 60.0
POLL_SECONDS = 2.0
#: The password: 10 characters of 32 (50 bits), none that reads as another on a small screen (no l 1 o 0).
PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
PASSWORD_LENGTH = 10
DEFAULT_NAME = "Monopoly City"
DEFAULT_HOSTNAME = "monopoly-city"  # the card's (sdcard/build.py): its network is then « Monopoly City »
#: The network's name at most: with a 10-character password the Wi-Fi QR code stays a 29x29 code (version 3),
#: which the OLED draws at 2 pixels a module; a phone's camera reads that.
NAME_CHARS = 24
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


def joined(state: str) -> bool:
    """NetworkManager's general state (``nmcli -t -f STATE general``) says a network is joined: a phone on it
    reaches the box (« connected (local only) » too: a Wi-Fi without the internet still serves the table)."""
    return state.strip().startswith("connected")


def wifi_device(run: Runner) -> str | None:
    """The first Wi-Fi interface NetworkManager manages (wlan0 on a Pi), or None (a Pi without Wi-Fi)."""
    for line in run(["-t", "-f", "DEVICE,TYPE,STATE", "device"]).splitlines():
        device, _, rest = line.partition(":")
        kind, _, state = rest.partition(":")
        if kind == "wifi" and state != "unmanaged":
            return device.replace("\\:", ":")
    return None


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
        """At boot: wait up to ``wait`` seconds for a known network; none joined, start the box's own."""
        device = self._device()
        if device is None:
            return self.write(Status(available=False))
        self.write(Status(available=True))  # the menu's item, while we wait
        end = clock() + wait
        while True:
            if joined(self._state()):
                log.info("a known network is joined: the box's own Wi-Fi is not needed")
                return self.write(Status(available=True))
            if clock() >= end:
                break
            sleep(min(POLL_SECONDS, max(0.0, end - clock())))
        log.info("no known network joined in %g s: the box starts its own Wi-Fi", wait)
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
        log.info("the box's own Wi-Fi is up: « %s », at %s", name, address or "?")
        return self.write(Status(True, True, name, password, address))

    def stop(self) -> Status:
        """Stop it: NetworkManager joins a known network again by itself (the home Wi-Fi, back at home)."""
        device = self._device()
        try:
            if PROFILE in self._active():
                self.run(["connection", "down", PROFILE])
                log.info("the box's own Wi-Fi is stopped: NetworkManager joins a known network again")
        except WifiError as error:
            log.error("the box's own Wi-Fi could not be stopped: %s", error)
        return self.write(Status(available=device is not None))

    def request(self, path: Path = REQUEST) -> Status:
        """The settings menu asked (``on`` or ``off`` in ``path``)."""
        try:
            asked = path.read_text(encoding="ascii", errors="replace").strip().lower()
        except OSError as error:
            log.error("the menu's request %s cannot be read: %s", path, error)
            return self.refresh()
        if asked == "on":
            return self.start()
        if asked == "off":
            return self.stop()
        log.error("%s: expected on or off, not %r: nothing changed", path, asked[:20])
        return self.refresh()

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

    def _device(self) -> str | None:
        try:
            return wifi_device(self.run)
        except WifiError as error:
            log.error("no Wi-Fi to offer: %s", error)
            return None

    def _state(self) -> str:
        try:
            return self.run(["-t", "-f", "STATE", "general"])
        except WifiError as error:
            log.warning("NetworkManager's state: %s", error)
            return ""

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
            return ""
        return found.split("/")[0]

    # --- the status file ------------------------------------------------------------------------------

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
        case "start":
            status = box.start()
        case "stop":
            status = box.stop()
        case "request":
            status = box.request()
        case _:
            status = box.refresh()
    print(json.dumps(asdict(status), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
