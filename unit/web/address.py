"""Where the phones find the service: the box's addresses as text and as a QR code, for its OLED.

The web service tells the unit (over its socket, ``{"phone": ...}``) and the unit
shows it on demand (CONSTRUCTION on the welcome screen): the ``.local`` name
for phones that resolve it, the IPv4 address for those that do not, and a QR
code of the latter. The QR code is drawn here, with segno, so the unit itself
needs no QR library.

The box's own Wi-Fi (issue 29): where the box found no network, a root helper
(unit/boxwifi.py) starts an access point of its own and says so in a small JSON
file (:data:`WIFI_STATUS_PATH`); :func:`read_wifi_status` reads it, and the card
then leads with the box's address on that network and carries the network's
name, password and QR code (:func:`wifi_text`), for the phones to join it first.
"""

from __future__ import annotations

import array
import fcntl
import ipaddress
import json
import logging
import os
import socket
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import segno

log = logging.getLogger(__name__)

SIOCGIFCONF = 0x8912  # Linux: every interface's IPv4 address, over the AF_INET socket the service may open
#: struct ifreq: a 16-byte name, then a union whose largest member is struct ifmap (40 bytes on 64-bit, 32 on 32-bit)
IFREQ_SIZE = 16 + max(16, struct.calcsize("LLHBBB0L"))
MAX_INTERFACES = 64
ANY_HOSTS = ("", "0.0.0.0", "::")


def local_addresses() -> list[str]:
    """The IPv4 addresses of this machine's interfaces, loopback left out (Linux; [] elsewhere).

    Not ``socket.if_nameindex()``: glibc asks netlink for it, and the service's
    systemd unit allows only AF_UNIX, AF_INET and AF_INET6 sockets.
    """
    buffer = array.array("B", bytes(IFREQ_SIZE * MAX_INTERFACES))
    pointer, _ = buffer.buffer_info()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            answer = fcntl.ioctl(probe.fileno(), SIOCGIFCONF, struct.pack("iL", len(buffer), pointer))
    except OSError:
        return []
    used = struct.unpack("iL", answer)[0]
    data = buffer.tobytes()[:used]
    found: list[str] = []
    for start in range(0, used, IFREQ_SIZE):
        ip = socket.inet_ntoa(data[start + 20 : start + 24])  # the name, then a sockaddr_in: family, port, address
        if not ip.startswith("127.") and ip not in found:
            found.append(ip)
    return found


def phone_card(
    host: str,
    port: int,
    hostname: str | None = None,
    addresses: list[str] | None = None,
    wifi: WifiStatus | None = None,
) -> dict[str, Any]:
    """``{"lines": [...], "qr": [...]}``: what the OLED shows for a service listening on ``host:port``.

    ``wifi``: the box's own Wi-Fi (:func:`read_wifi_status`; None: there is none, and the card is as it always
    was). When its access point is up, a service listening on every address is reached at ``wifi.address`` by
    the phones that joined it: that address comes first among the lines' and is the QR code's; and the card
    gets ``"wifi": {"on": true, "name": ..., "password": ..., "qr": [...]}``, the network's QR code for the
    phones' cameras (:func:`wifi_text`; empty when larger than a camera reads on the OLED,
    :data:`WIFI_QR_READABLE`: the unit then shows the name and the password as text). A Wi-Fi that is there
    but off is ``"wifi": {"on": false}``.
    """
    suffix = "" if port == 80 else f":{port}"
    if host in ANY_HOSTS:
        name = (hostname if hostname is not None else socket.gethostname()).split(".")[0]
        ips = local_addresses() if addresses is None else addresses
        if wifi is not None and wifi.on:
            ips = [wifi.address, *(ip for ip in ips if ip != wifi.address)]
        lines = ([f"{name}.local{suffix}"] if name else []) + [f"{ip}{suffix}" for ip in ips[:2]]
        target = f"http://{ips[0]}{suffix}/" if ips else f"http://{name}.local{suffix}/"
    else:
        shown = f"[{host}]" if ":" in host else host
        lines = [f"{shown}{suffix}"]
        target = f"http://{shown}{suffix}/"
    card: dict[str, Any] = {"lines": [line[:48] for line in lines[:3]], "qr": qr_rows(target)}
    if wifi is not None and wifi.on:
        card["wifi"] = {"on": True, "name": wifi.name, "password": wifi.password, "qr": wifi_rows(wifi)}
    elif wifi is not None:
        card["wifi"] = {"on": False}
    return card


def qr_rows(text: str) -> list[str]:
    """The QR code of ``text`` as rows of "0"/"1" (dark) modules, as small as it can be (error level L)."""
    code = segno.make(text, error="l", boost_error=False, micro=False)
    return ["".join("1" if module else "0" for module in row) for row in code.matrix]


# --- the box's own Wi-Fi ----------------------------------------------------------------------------------

# unit.web.WIFI_STATUS_PATH: the helper's file, replaced whole at every change (a temporary file
# renamed): {"available": true, "on": true, "name": ..., "password": ..., "address": "10.42.0.1"}.
WIFI_NAME_CHARS = 32  # an SSID
WIFI_PASSWORD_CHARS = (8, 63)  # a WPA2 passphrase
WIFI_STATUS_BYTES = 4096  # the file is a hundred bytes: anything larger is not it
#: The largest QR code the OLED draws at 2 pixels a module on its 64 rows, quiet zone included (version 3): a
#: larger one is drawn at 1 pixel a module, which few phones read.
WIFI_QR_READABLE = 29
WIFI_SPECIAL = '\\;,:"'  # escaped with a backslash in a Wi-Fi QR code's fields (ZXing's convention, Android's)


@dataclass(frozen=True)
class WifiStatus:
    """The box's own Wi-Fi, as its helper says it: ``on`` whether its access point is up; then its name (SSID),
    its WPA2 password and the box's IPv4 address on it (NetworkManager's shared mode: 10.42.0.1); empty when off."""

    on: bool
    name: str = ""
    password: str = ""
    address: str = ""


def wifi_text(name: str, password: str) -> str:
    """The text of the QR code a phone's camera joins a WPA network with: ``WIFI:T:WPA;S:<name>;P:<password>;;``,
    ``\\ ; , : "`` escaped by a backslash in the name and the password."""
    return f"WIFI:T:WPA;S:{_wifi_escaped(name)};P:{_wifi_escaped(password)};;"


def _wifi_escaped(text: str) -> str:
    return "".join("\\" + char if char in WIFI_SPECIAL else char for char in text)


def wifi_rows(wifi: WifiStatus) -> list[str]:
    """The network's QR code for the OLED (:func:`qr_rows`), or [] when it is larger than a camera reads there
    (:data:`WIFI_QR_READABLE`: beyond it the OLED draws 1 pixel a module; the unit shows the text instead)."""
    rows = qr_rows(wifi_text(wifi.name, wifi.password))
    return rows if len(rows) <= WIFI_QR_READABLE else []


def wifi_signature(path: str | Path | None) -> tuple[int, int, int] | None:
    """What tells a new status file from the last one without reading it: its inode, size and modification time
    (a file replaced by a rename has a new inode); None when there is none."""
    if path is None:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


#: The last problem said about each status file (a path -> its line, None: read well): each is said once, not at
#: every look (the hub looks every 2 s, the share page at every request).
_said: dict[str, str | None] = {}


def read_wifi_status(path: str | Path | None) -> WifiStatus | None:
    """The box's own Wi-Fi as the helper's status file at ``path`` says it; None where there is none to show: the
    file says ``"available": false`` (no Wi-Fi radio, not the SD card) or is missing (a laptop, the emulator), or
    it cannot be read, is not JSON or not of its shape. Never raises; a problem is logged once, not at every look
    (a missing file only at the info level: it is how a laptop is)."""
    if path is None:
        return None
    status, problem, quiet = _read_wifi_status(Path(path))
    key = str(path)
    if problem != _said.get(key):
        _said[key] = problem
        if problem is not None:
            log.log(logging.INFO if quiet else logging.WARNING, "the box's Wi-Fi is not shown: %s", problem)
    return status


def _read_wifi_status(path: Path) -> tuple[WifiStatus | None, str | None, bool]:
    """(the status, the problem, whether the problem is only a missing file)."""
    try:
        with path.open("rb") as file:
            data = file.read(WIFI_STATUS_BYTES + 1)
    except FileNotFoundError:
        return None, f"no status file {path}", True
    except OSError as error:
        return None, f"{path}: {error.strerror or error}", False
    if len(data) > WIFI_STATUS_BYTES:
        return None, f"{path}: larger than {WIFI_STATUS_BYTES} bytes", False
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None, f"{path}: not JSON", False
    if not isinstance(value, dict) or not isinstance(value.get("available"), bool):
        return None, f"{path}: expected an object with available (true or false)", False
    if not value["available"]:
        return None, None, False
    on = value.get("on")
    if not isinstance(on, bool):
        return None, f"{path}: expected on (true or false)", False
    if not on:
        return WifiStatus(on=False), None, False
    name, password, address = value.get("name"), value.get("password"), value.get("address")
    if not (isinstance(name, str) and 0 < len(name) <= WIFI_NAME_CHARS and name.isprintable()):
        return None, f"{path}: expected a name of 1 to {WIFI_NAME_CHARS} characters", False
    low, high = WIFI_PASSWORD_CHARS
    if not (isinstance(password, str) and low <= len(password) <= high and password.isprintable()):
        return None, f"{path}: expected a password of {low} to {high} characters", False
    try:
        ip = ipaddress.IPv4Address(address) if isinstance(address, str) else None
    except ValueError:
        ip = None
    if ip is None:
        return None, f"{path}: expected an IPv4 address", False
    return WifiStatus(on=True, name=name, password=password, address=str(ip)), None, False
