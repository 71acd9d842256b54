"""Where the phones find the service: the box's addresses as text and as a QR code, for its OLED.

The web service tells the unit (over its socket, ``{"phone": ...}``) and the unit
shows it on demand (CONSTRUCTION on the welcome screen): the ``.local`` name
for phones that resolve it, the IPv4 address for those that do not, and a QR
code of the latter. The QR code is drawn here, with segno, so the unit itself
needs no QR library.
"""

from __future__ import annotations

import array
import fcntl
import socket
import struct

import segno

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
    host: str, port: int, hostname: str | None = None, addresses: list[str] | None = None
) -> dict[str, list[str]]:
    """``{"lines": [...], "qr": [...]}``: what the OLED shows for a service listening on ``host:port``."""
    suffix = "" if port == 80 else f":{port}"
    if host in ANY_HOSTS:
        name = (hostname if hostname is not None else socket.gethostname()).split(".")[0]
        ips = local_addresses() if addresses is None else addresses
        lines = ([f"{name}.local{suffix}"] if name else []) + [f"{ip}{suffix}" for ip in ips[:2]]
        target = f"http://{ips[0]}{suffix}/" if ips else f"http://{name}.local{suffix}/"
    else:
        shown = f"[{host}]" if ":" in host else host
        lines = [f"{shown}{suffix}"]
        target = f"http://{shown}{suffix}/"
    return {"lines": [line[:48] for line in lines[:3]], "qr": qr_rows(target)}


def qr_rows(text: str) -> list[str]:
    """The QR code of ``text`` as rows of "0"/"1" (dark) modules, as small as it can be (error level L)."""
    code = segno.make(text, error="l", boost_error=False, micro=False)
    return ["".join("1" if module else "0" for module in row) for row in code.matrix]
