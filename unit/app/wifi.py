"""The settings menu's « Wi-Fi du boîtier » on its way to the system: one small file in the state folder.

The unit runs without privileges (and without a network of its own), so it does not
start the access point itself: it writes ``on`` or ``off`` to ``box-wifi`` in its state
folder, which a systemd path unit watches (``monopoly-city-wifi-request.path`` on the
SD card), and the root helper :mod:`unit.boxwifi` does it. What came of it returns
the usual way: the web service reads the helper's status and tells the unit
(``{"phone": {..., "wifi": ...}}``), which shows it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from unit.core.events import SystemAction
from unit.files import write_atomically

log = logging.getLogger(__name__)

REQUEST_NAME = "box-wifi"  # in the state folder; the path unit names it too (systemd/monopoly-city-wifi-request.path)
ACTIONS = {SystemAction.WIFI_ON: b"on\n", SystemAction.WIFI_OFF: b"off\n"}


class WifiRequests:
    """Writes the menu's request where the system's helper looks (``folder/box-wifi``)."""

    def __init__(self, folder: str | Path):
        self.path = Path(folder) / REQUEST_NAME
        self._failed = False

    def ask(self, action: SystemAction) -> bool:
        """Write the request; False (and one warning, not one per try) when the folder refuses it."""
        try:
            write_atomically(self.path, ACTIONS[action])
        except OSError as error:
            if not self._failed:
                log.warning("the box's Wi-Fi was asked %s, but %s could not be written: %s", action, self.path, error)
            self._failed = True
            return False
        self._failed = False
        log.info("the box's Wi-Fi asked: %s", action)
        return True
