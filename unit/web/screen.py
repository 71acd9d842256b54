"""The unit's screen in the phone's language: the link's ``view`` records decoded back to the core's views.

The link (:mod:`unit.app.link`) sends each screen as its view's fields; :func:`translate` puts a record
into the words of the page that shows it. Kept as one block, apart from the pages, so that a typed
protocol module can replace it whole.
"""

from __future__ import annotations

from typing import Any

from unit import i18n
from unit.core import views
from unit.core.menu import MenuItem
from unit.core.views import (
    Banner,
    BannerKind,
    Build,
    Confirm,
    Countdown,
    Menu,
    Off,
    Pairing,
    Phone,
    PhoneAddress,
    PhonePage,
    Ready,
    Shutdown,
    Summary,
    SummaryPage,
    TimeUp,
    Welcome,
)

VIEW_TYPES: dict[str, type] = {
    "off": Off,
    "ready": Ready,
    "countdown": Countdown,
    "banner": Banner,
    "build": Build,
    "timeup": TimeUp,
    "shutdown": Shutdown,
    "welcome": Welcome,
    "confirm": Confirm,
    "menu": Menu,
    "summary": Summary,
    "phone": Phone,
    "pairing": Pairing,  # as the link sends it: without the code
}


# --- the unit's screen in the phone's language ----------------------------------------------------


def view_from(data: Any) -> views.View | None:
    """The core's view back from the link's ``view`` data; None for anything unexpected."""
    if not isinstance(data, dict) or data.get("name") not in VIEW_TYPES:
        return None
    name, fields = data["name"], {k: v for k, v in data.items() if k != "name"}
    try:  # the values JSON cannot carry as they are: enums, tuples, the phone's address
        if name == "banner":
            fields["kind"] = BannerKind(fields["kind"])
        elif name == "menu":
            fields["item"] = MenuItem(fields["item"])
        elif name == "summary":
            fields["page"], fields["builds"] = SummaryPage(fields["page"]), tuple(fields.get("builds", ()))
        elif name == "phone":
            address = fields.get("address")
            if address is not None:
                fields["address"] = PhoneAddress(tuple(address["lines"]), tuple(address.get("qr", ())))
            fields["page"] = PhonePage(fields.get("page", "text"))
        return VIEW_TYPES[name](**fields)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def translate(obj: dict, words: i18n.Words) -> dict:
    """A record as a page in ``words``' language shows it: screen words, the game clock, the build."""
    out = dict(obj)
    screen = obj.get("screen") if obj.get("kind") == "snapshot" else obj if obj.get("kind") == "screen" else None
    if isinstance(screen, dict):
        view = view_from(screen.get("view"))
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
    clock = view_from(obj.get("clock")) if obj.get("kind") == "snapshot" else None
    if isinstance(clock, Ready):
        out["clock"] = views.describe(clock, words)
    result = {"build": obj.get("result"), "snapshot": obj.get("build")}.get(str(obj.get("kind")))
    if result in (1, 2, 3, "station"):
        out["allowance"] = views.build_allowance(result, words)
    return out
