"""The phone companion: ``monopoly-city serve``, a web service beside the unit (docs/phone.en.md).

A separate process: it talks to the unit's process over the Unix socket of
:mod:`unit.app.link` and imports no part of the unit's side but the pure core's
views (to put the unit's screen in each phone's language).
"""

#: Where the box's Wi-Fi helper (unit/boxwifi.py, as root) writes whether its own access point is up, replaced whole
#: at every change (:func:`unit.web.address.read_wifi_status`); here, free of the web extra's libraries, for the
#: CLI's ``serve --wifi-status`` default and its help.
WIFI_STATUS_PATH = "/run/monopoly-city-wifi/status.json"
