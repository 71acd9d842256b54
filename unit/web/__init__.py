"""The phone companion: ``monopoly-city serve``, a web service beside the unit (docs/phone.en.md).

A separate process: it talks to the unit's process over the Unix socket of
:mod:`unit.app.link` and imports no part of the unit's side but the pure core's
views (to put the unit's screen in each phone's language).
"""

from unit.core.protocol import WIFI_STATUS_PATH

__all__ = ["WIFI_STATUS_PATH"]
