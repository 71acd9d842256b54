"""The unit's screen in the phone's language: the link's ``view`` data decoded back to the core's views.

The link (:mod:`unit.app.link`) sends each screen as its view's data (the codec beside the views,
:func:`unit.core.views.encode` / :func:`unit.core.views.decode`); :func:`translate` puts a record into the
words of the page that shows it.
"""

from __future__ import annotations

from typing import Any

from unit import i18n
from unit.core import views
from unit.core.views import Ready


def translate(obj: dict[str, Any], words: i18n.Words) -> dict[str, Any]:
    """A record as a page in ``words``' language shows it: screen words, the game clock, the build.

    The view comes as data (the codec beside the views, unit/core/views.py); one this service cannot read
    keeps the unit's own words.
    """
    out = dict(obj)
    screen = obj.get("screen") if obj.get("kind") == "snapshot" else obj if obj.get("kind") == "screen" else None
    if isinstance(screen, dict):
        view = views.decode(screen.get("view"))
        if view is not None:
            try:
                text = views.describe(view, words)
            except (KeyError, IndexError, TypeError):
                text = screen.get("text", "")
            if obj.get("kind") == "snapshot":
                out["screen"] = {"text": text, "view": screen.get("view")}
            else:
                out["text"] = text
            if isinstance(view, Ready) and obj.get("kind") == "screen":
                out["clock"] = text
    clock = views.decode(obj.get("clock")) if obj.get("kind") == "snapshot" else None
    if isinstance(clock, Ready):
        out["clock"] = views.describe(clock, words)
    result = {"build": obj.get("result"), "snapshot": obj.get("build")}.get(str(obj.get("kind")))
    if result in (1, 2, 3, "station"):
        out["allowance"] = views.build_allowance(result, words)
    return out
