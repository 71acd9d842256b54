"""The unit's pages: the live view and its event stream, the remote and pairing, the settings, sharing.

Routes (docs/phone.en.md): ``/`` the live view, ``/remote`` the banker's
buttons and pairing, ``/settings``, ``/share`` with the QR code
(``/qr.svg``) and, while the box's own Wi-Fi is on, that network's
(``/wifi-qr.svg``), ``/events`` the live stream (server-sent events). Every
state-changing route is a POST that needs the session cookie, the session's
CSRF token and a same-origin request (:func:`unit.web.common.checked_form`);
pressing and settings also need a paired session.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import segno
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from unit import i18n
from unit.core import views
from unit.core.menu import MenuItem
from unit.errors import Text
from unit.web.address import WifiStatus, read_wifi_status, wifi_text
from unit.web.common import (
    SECURITY_HEADERS,
    Refused,
    RefusedPage,
    checked_form,
    client_key,
    language_of,
    page,
    paired,
    see_other,
    set_session,
    web_of,
)
from unit.web.screen import translate

BUTTON_NAMES = ("power", "auction", "build")
HEARTBEAT_SECONDS = 15.0
MAX_HOLD_SECONDS = 10.0  # longer than any long press (cancel 2 s, shutdown 3 s by default)
HOST_RE = re.compile(r"^[A-Za-z0-9.\-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$")
PAIR_MESSAGES = ("shown", "wrong", "slow", "nounit", "paired")


# --- the pages -------------------------------------------------------------------------------------


async def live(request: Request) -> Response:
    return page(request, "live", lines=snapshot_lines(request))


async def remote(request: Request) -> Response:
    message = request.query_params.get("m", "")
    return page(request, "remote", message=message if message in PAIR_MESSAGES else "", lines=snapshot_lines(request))


async def settings_page(request: Request) -> Response:
    message = request.query_params.get("m", "")
    words = i18n.words(language_of(request))
    options = web_of(request).hub.snapshot.get("options") or {}
    return page(
        request,
        "settings",
        message=message if message in ("saved", "failed") else "",
        labels={key: setting_label(key, words) for key in SETTING_ITEMS},
        choices={
            key: [(value, option_label(key, value, words)) for value in values] for key, values in options.items()
        },
    )


async def share(request: Request) -> Response:
    """The page's address as a QR code for the next phone; first, while the box's own Wi-Fi is on, that network's
    QR code, name and password (the phone must join it before the page's address leads anywhere).

    The password is shown to whoever opens this page: they reached the box already (on its Wi-Fi, or on a
    network it shares), and the box's screen shows it to the whole table too. It is a key to the table's game,
    not to anything else."""
    wifi = box_wifi(request)
    return page(request, "share", address=address(request, wifi), wifi=wifi)


async def qr(request: Request) -> Response:
    return svg_qr(address(request, box_wifi(request)))


async def wifi_qr(request: Request) -> Response:
    """The box's own Wi-Fi as a QR code a phone's camera joins (:func:`unit.web.address.wifi_text`); 404 when off."""
    wifi = box_wifi(request)
    if wifi is None:
        raise Refused(404, Text("web.refused.not_found"))
    return svg_qr(wifi_text(wifi.name, wifi.password))


def svg_qr(text: str) -> Response:
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="svg", scale=8, border=2, dark="#000", light="#fff")
    return Response(buffer.getvalue(), media_type="image/svg+xml", headers=SECURITY_HEADERS)


def box_wifi(request: Request) -> WifiStatus | None:
    """The box's own Wi-Fi while it is on, else None: its status file read at each request (a hundred bytes in
    /run, memory: no SD card read holds the loop)."""
    wifi = read_wifi_status(web_of(request).hub.wifi_status)
    return wifi if wifi is not None and wifi.on else None


#: The web app manifest's fields that are not words; ``display: browser``: over the box's plain http address, the
#: home screen's icon opens the page in the browser (a full-screen app needs https, which the box does not have).
MANIFEST = {
    "start_url": "/",
    "scope": "/",
    "display": "browser",
    "orientation": "any",
    "background_color": "#111111",
    "theme_color": "#111111",
    "icons": [
        {"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml"},
        {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png"},
    ],
}


async def manifest(request: Request) -> Response:
    """The web app manifest in the language the path names (``/manifest.en.webmanifest``): the pages link the one
    of their own language."""
    code = request.path_params["lang"]
    if code not in i18n.languages():
        raise Refused(404, Text("web.refused.not_found"))
    words = i18n.words(code)
    body = {"id": "/", "lang": code, "name": words("web.title"), "short_name": words("web.title")}
    body |= {"description": words("web.manifest_description")} | MANIFEST
    return Response(
        json.dumps(body, ensure_ascii=False, indent=1),
        media_type="application/manifest+json",
        headers=SECURITY_HEADERS | {"Cache-Control": "max-age=3600"},
    )


async def events(request: Request) -> Response:
    """The live stream: every record the unit sends, in the page's language; a heartbeat when it is quiet."""
    hub = web_of(request).hub
    words = i18n.words(language_of(request))
    subscriber = hub.subscribe()

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n"
            while True:
                try:
                    obj = await asyncio.wait_for(subscriber.queue.get(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    yield ": alive\n\n"
                    continue
                if obj is None:
                    return
                yield "data: " + json.dumps(with_lines(translate(obj, words), words), ensure_ascii=False) + "\n\n"
        finally:
            hub.unsubscribe(subscriber)

    headers = SECURITY_HEADERS | {"X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


# --- the remote, pairing, the settings ---------------------------------------------------------------


async def press(request: Request) -> Response:
    """A button pressed or released on the remote (a paired phone; a release always for the one it holds).

    ``action=tap`` is a short press whole: the press and its release go to the unit together, so no delay on the
    way (a slow network, a busy service) can stretch it into a long press, which switches the box off. The page
    sends it for a click without a finger's press and lift (a keyboard's Enter or Space).
    """
    web = web_of(request)
    session, fields = await checked_form(request)
    button, action = fields.get("button"), fields.get("action", "press")
    if button not in BUTTON_NAMES or action not in ("press", "release", "tap"):
        raise Refused(400, Text("web.refused.bad_press"))
    held = web.held.setdefault(str(session.get("id")), {})
    # A button this phone holds may always be let go (switching off unpairs it mid-press).
    if not (paired(request, session) or (action == "release" and button in held)):
        raise Refused(403, Text("web.refused.not_paired"))
    if action == "tap":  # (a finger already on it: the tap lets go of it too, below)
        sent = await web.hub.send({"press": button}, {"release": button})  # one write: the release right behind
    else:
        sent = await web.hub.send({action: button})
    if not sent:
        raise Refused(503, Text("web.refused.unit_not_running"))
    if action == "press":
        if button in held:
            held[button].cancel()
        # A phone that loses the network mid-press must not hold the button for ever.
        held[button] = asyncio.get_running_loop().call_later(MAX_HOLD_SECONDS, web.let_go, held, button)
    elif button in held:
        held.pop(button).cancel()
    if not held:
        web.held.pop(str(session.get("id")), None)
    return Response(status_code=204, headers=SECURITY_HEADERS)


async def pair_request(request: Request) -> Response:
    """The unit asked to show a pairing code: the asking session's own (security.PairingGuard's bounds)."""
    web = web_of(request)
    visitor, _fields = await checked_form(request)
    session = web.signer.pairing_session(str(visitor.get("id", "")))
    if web.pairing.request(client_key(request), session) is None:
        raise too_many()
    if not await web.hub.request_code(session):
        return see_other("/remote?m=nounit")
    return see_other("/remote?m=shown")


async def pair(request: Request) -> Response:
    """The code the unit shows, typed on the phone: checked against this session's code only; a paired
    session with a new id."""
    web = web_of(request)
    visitor, fields = await checked_form(request)
    session = web.signer.pairing_session(str(visitor.get("id", "")))
    if not web.pairing.try_code(client_key(request), session):
        raise too_many()
    code = fields.get("code", "").strip()
    if not (code.isdigit() and len(code) <= 12) or not await web.hub.check_code(code, session):
        return see_other("/remote?m=wrong")
    web.pairing.paired(session)
    response = see_other("/remote?m=paired")
    set_session(request, response, {"id": secrets.token_hex(12), "gen": web.hub.generation})  # a new id once paired
    return response


async def settings_post(request: Request) -> Response:
    """Settings changed on the page (a paired phone), sent to the unit, which checks and saves them."""
    web = web_of(request)
    session, fields = await checked_form(request)
    if not paired(request, session):
        raise Refused(403, Text("web.refused.not_paired"))
    known = web.hub.snapshot.get("settings") or {}
    changes: dict[str, Any] = {}
    for key, text in fields.items():
        if key not in known:
            raise Refused(400, Text("web.refused.unknown_setting", key=repr(key[:40])))
        changes[key] = setting_value(text)
    if not changes:
        return see_other("/settings")
    ok, _error = await web.hub.change_settings(changes)
    return see_other("/settings?m=saved" if ok else "/settings?m=failed")


def too_many() -> RefusedPage:
    """The remote page saying to wait, with status 429."""
    return RefusedPage(429, "remote", message="slow")


def setting_value(text: str) -> Any:
    """A form field as the unit expects it: empty is null (an untimed game), numbers are numbers."""
    text = text.strip()
    if text == "":
        return None
    try:
        number = float(text.replace(",", "."))
    except ValueError:
        return text[:40]  # the unit names the key and what it expected
    return int(number) if number.is_integer() else number


def address(request: Request, wifi: WifiStatus | None = None) -> str:
    """The address this page was reached at, to share with the next phone (a bad Host gives the default); while
    the box's own Wi-Fi is on (``wifi``), the box's address on it: the one the next phone has once it joined."""
    host = request.headers.get("host", "")
    if not HOST_RE.match(host):
        host = "monopoly-city.local"
    if wifi is not None:
        listening = web_of(request).hub.listening
        after = host.rpartition("]")[2]  # an IPv6 address's colons are inside its brackets
        port = listening[1] if listening is not None else int(after.rpartition(":")[2] if ":" in after else 80)
        return f"http://{wifi.address}/" if port == 80 else f"http://{wifi.address}:{port}/"
    return f"http://{host}/"


# --- the box's screen as its own lines --------------------------------------------------------------

Line = dict[str, Any]  # {"role": "head"|"title"|"big"|"line"|"hint"|"question"|"bar"|"icons", "text": ..., ...}


def box_lines(view: views.View, words: i18n.Words) -> list[Line]:
    """The lines the OLED draws for ``view`` (unit/backends/oled.py's Painter), top to bottom, as the pages
    lay them out: a header with its right-hand part, a title, the big value, lines, hints; the countdown's
    bar carries the seconds left and the total, from which the page drains it against its own clock."""
    w = words
    match view:
        case views.Off():
            return []
        case views.Ready(clock=clock, counts_down=counts_down, game_minutes=minutes):
            label = w("screen.left") if counts_down else w("screen.played")
            length = (
                f"{w('screen.game')} {views.duration(minutes * 60)}"
                if counts_down and minutes is not None
                else w("screen.untimed")
            )
            return [head(label, length), big(views.duration(clock))]
        case views.Countdown(seconds_left=left, total=total, warning=warning):
            return [
                head(w("screen.auction"), "!" if warning else ""),
                big(str(left)),
                {"role": "bar", "text": "", "left": left, "total": total},
            ]
        case views.Banner(kind=views.BannerKind.HOUR, value=hours):
            number, _, rest = views.banner_text(view, w).partition(" ")
            return [big(number), line(rest)] if hours else [big(views.banner_text(view, w))]
        case views.Banner(kind=views.BannerKind.RESUMED):
            first, _, second = views.banner_text(view, w).partition(" ")
            return [big(first), big(second)]
        case views.Banner():
            return [big(views.banner_text(view, w))]
        case views.Build(highlight=index, result=result):
            icons = [views.icon_name(icon, w) for icon in views.BUILD_ICONS]
            rows: list[Line] = [
                head(w("screen.build")),
                {"role": "icons", "text": " ".join(icons), "icons": icons, "lit": index},
            ]
            if result is not None:
                rows.append(line(views.build_allowance(result, w)))
            return rows
        case views.TimeUp():
            return [title(w("screen.time_up")), line(w("screen.count"))]
        case views.Shutdown():
            return [big(w("screen.shutdown"))]
        case views.Welcome(hold_seconds=hold, phone=phone):
            rows = [title(w("screen.welcome")), line(w("screen.welcome_play"))]
            rows.append(line(w("screen.welcome_settings", s=f"{hold:g}")))
            return rows + ([line(w("screen.welcome_phone"))] if phone else [])
        case views.Confirm():
            return [{"role": "question", "text": w("screen.confirm_off")}, hint(w("screen.confirm_hint"))]
        case views.Phone(address=address, page=page) if (
            address is not None
            and address.wifi is not None
            and address.wifi.on
            and page in (views.PhonePage.WIFI, views.PhonePage.WIFI_TEXT)
        ):
            wifi = address.wifi
            return [
                head(w("screen.wifi"), w("screen.phone_qr") if page == views.PhonePage.WIFI else ""),
                line(wifi.name),
                line(f"{w('screen.wifi_password')} {wifi.password}"),
                hint(w("screen.phone_more")),
            ]
        case views.Phone(address=address):
            found = list(address.lines[:2]) if address is not None else [w("screen.phone_none")]
            back = "screen.phone_next" if address is not None and address.qr else "screen.phone_back"
            return [head(w("screen.phone")), *(line(text) for text in found), hint(w(back))]
        case views.Pairing(code=code):
            shown = [big(views.spaced_code(code))] if code else []
            return [title(w("screen.pairing")), *shown, hint(w("screen.pairing_hint"))]
        case views.Menu(item=item, position=position, count=count):
            return [
                head(views.menu_label(item, w), f"{position}/{count}"),
                big(views.menu_value(view, w)),
                hint(w("screen.settings_next")),
                hint(w("screen.settings_change")),
            ]
        case views.Summary(page=summary_page):
            index = views.SUMMARY_PAGES.index(summary_page)
            caption, text = views.summary_lines(view, w)
            rows = [head(w("screen.summary"), f"{index + 1}/{len(views.SUMMARY_PAGES)}"), line(caption)]
            if summary_page == views.SummaryPage.AUCTIONS:
                return rows + [big(part) for part in text.split(" · ")]
            return rows + [big(text)]
    return []


def head(text: str, right: str = "") -> Line:
    return {"role": "head", "text": text, "right": right}


def title(text: str) -> Line:
    return {"role": "title", "text": text}


def big(text: str) -> Line:
    return {"role": "big", "text": text}


def line(text: str) -> Line:
    return {"role": "line", "text": text}


def hint(text: str) -> Line:
    return {"role": "hint", "text": text}


def lines_of(data: Any, words: i18n.Words) -> list[Line] | None:
    """The box's lines of a link's ``view`` data; None when it is not a view the pages know."""
    view = views.decode(data)
    return None if view is None else box_lines(view, words)


def with_lines(record: dict[str, Any], words: i18n.Words) -> dict[str, Any]:
    """A translated record with the screen's ``lines`` added beside its ``text`` (the stream is extended,
    never changed: a page that knows only ``text`` reads it as before)."""
    if record.get("kind") == "screen":
        found = lines_of(record.get("view"), words)
        if found is not None:
            return record | {"lines": found}
    elif record.get("kind") == "snapshot" and isinstance(record.get("screen"), dict):
        found = lines_of(record["screen"].get("view"), words)
        if found is not None:
            return record | {"screen": record["screen"] | {"lines": found}}
    return record


def snapshot_lines(request: Request) -> list[Line] | None:
    """The box's lines of the screen the unit shows now, for the page's first paint."""
    screen = web_of(request).hub.snapshot.get("screen")
    return lines_of(screen.get("view"), i18n.words(language_of(request))) if isinstance(screen, dict) else None


# --- the settings in the box's own words ------------------------------------------------------------

#: Each setting the phone may change and the menu item that changes it on the box.
SETTING_ITEMS: dict[str, MenuItem] = {
    "game.minutes": MenuItem.GAME,
    "auction.seconds": MenuItem.AUCTION,
    "language": MenuItem.LANGUAGE,
    "buzzer.volume": MenuItem.SOUND,
    "display.brightness": MenuItem.BRIGHTNESS,
}


def setting_label(key: str, words: i18n.Words) -> str:
    """A setting named as the box's menu names it (« Durée de partie », « Luminosité »)."""
    return views.menu_label(SETTING_ITEMS[key], words)


def option_label(key: str, value: Any, words: i18n.Words) -> str:
    """One value of a setting as the box's menu shows it (« 1 h 30 », « 50 s », « coupé », « forte »)."""
    item = SETTING_ITEMS.get(key)
    if item is None:
        return str(value)
    try:
        return views.menu_value(views.Menu(item, value, 1, 1), words)
    except (KeyError, ValueError, TypeError):
        return str(value)
