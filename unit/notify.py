"""systemd's notify protocol (``Type=notify``): READY=1, WATCHDOG=1, STOPPING=1.

A few lines of our own rather than a dependency: systemd-python needs
libsystemd-dev and a compiler on every machine, and sdnotify swallows every
error. This logs a failure once and carries on: the unit must keep time even
if systemd cannot hear it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


class Notifier:
    """Talks to ``$NOTIFY_SOCKET``; does nothing when not started by systemd."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        env: Mapping[str, str] = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET") or None
        if address and address.startswith("@"):
            address = "\0" + address[1:]  # an abstract socket
        self.address: str | None = address
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID")
        mine = pid is None or pid == str(os.getpid())
        #: Ping at half the watchdog timeout, as sd_watchdog_enabled(3) advises.
        self.watchdog_interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 and mine else None
        self._failed = False

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, message: str) -> None:
        if self.address is None:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode())
        except OSError as error:
            if not self._failed:
                log.warning("cannot notify systemd at %s: %s", self.address.lstrip("\0"), error)
                self._failed = True
