"""What every page of the phone companion shares: the application's state, a page, a session, a checked form,
and the refusals with the one handler that renders them.

The composition root (:func:`unit.web.app.create_app`) puts one :class:`Web` on ``app.state.web``; the
endpoints, plain functions at module level in :mod:`unit.web.live`, :mod:`unit.web.game` and
:mod:`unit.web.editions`, find it with :func:`web_of`. A request that cannot be answered raises
:class:`Refused` (one plain line, as the service has always said it) or :class:`RefusedPage` (a page with
its status); :func:`refused` renders both, and Starlette's own 404 and 405, the same way; an address that leads
nowhere (404), opened in a browser, is a page of the site (:func:`missing`).
"""

from __future__ import annotations

import asyncio
import functools
import re
import secrets
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response

from unit import i18n
from unit.errors import Text, UserError, said
from unit.fields import name_key
from unit.web import WIFI_STATUS_PATH
from unit.web.caches import EditionCache, GameCache, PartCache, TitleCache
from unit.web.hub import UnitHub
from unit.web.screen import translate
from unit.web.security import PairingGuard, Signer, load_secret
from unit.web.store import Store, default_root

HERE = Path(__file__).resolve().parent
COOKIE = "mc_session"
LANG_COOKIE = "mc_lang"
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; media-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
#: How Starlette's own refusals (no such route, another method) have always been worded here.
ROUTING_WORDS = {404: "web.refused.not_found", 405: "web.refused.method_not_allowed"}
#: Where the page of an address that leads nowhere (404) leads back to, by the address's beginning, and its words.
WAYS_BACK = (("/games", "web.calc.games_title"), ("/editions", "web.edition.title"), ("/", "web.nav_live"))

Session = dict[str, Any]  # the signed cookie's value: ``id`` and, once paired, ``gen``
Form = dict[str, str]  # a form's fields, the first value of each
Held = dict[str, asyncio.TimerHandle]  # a phone's buttons down: the release each will get if it goes away


class Web:
    """The application's state: the hub, the calculator's files and what the pages keep of them, the signer, the
    rate limits, the templates."""

    def __init__(
        self,
        state_dir: str | Path | None,
        language: str = "fr",
        data_dir: str | Path | None = None,
        box: bool | None = None,
        wifi_status: str | Path | None = WIFI_STATUS_PATH,
    ):
        self.hub = UnitHub(state_dir, wifi_status)  # wifi_status: the box's Wi-Fi helper's file (None: no Wi-Fi)
        #: Whether this service is a box's (``serve --state-dir``, or on a Raspberry Pi): its calculator's files are
        #: written from a paired phone only, even while the unit is away (:func:`may_write`). Without one (a
        #: laptop, no unit running beside it) they are open to every phone, as nobody could pair.
        self.box = state_dir is not None if box is None else box
        #: The calculator's editions and games (``serve --data``); beside the state when none is given.
        self.store = Store(data_dir if data_dir is not None else default_root(state_dir))
        self.editions = EditionCache()  # the editions as read, while their files are unchanged
        self.games = GameCache(self.editions)  # the games as read, by their files' versions
        self.titles = TitleCache()  # the games' titles, for the list
        self.parts = PartCache()  # the history's lines in words, by their entries
        self.signer = Signer(load_secret(state_dir))
        self.language = language if language in i18n.languages() else i18n.REFERENCE
        self.pairing = PairingGuard()  # who may ask for a pairing code and try one
        self.held: dict[str, Held] = {}  # session id -> its buttons down
        #: Each game's last undo on a page: the version it wrote and what it took back and moved, said by the page
        #: it redirects to (:func:`unit.web.bank_page.undone_said`) while the file is still that version.
        self.undone: dict[str, tuple[str, tuple[Text, ...]]] = {}
        self.templates = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]), auto_reload=False
        )

    def let_go(self, held: Held, button: str) -> None:
        """Release a button held longer than any long press needs (the phone went away)."""
        held.pop(button, None)
        asyncio.get_running_loop().create_task(self.hub.send({"release": button}))


def web_of(request: Request) -> Web:
    """The application's :class:`Web`, as the composition root placed it."""
    web: Web = request.app.state.web
    return web


# --- refusals: raised by the endpoints, rendered by one handler ------------------------------------


class Refused(HTTPException):
    """A request refused with one plain line (``web.refused.not_paired``...), said in the page's language."""

    def __init__(self, status: int, text: str | Text):
        super().__init__(status, text if isinstance(text, str) else text.key)
        self.text = text


class RefusedPage(HTTPException):
    """A request refused with a page (``name``, rendered with ``values``) and its status: the remote saying to
    wait (429), a game file that does not read (422)."""

    def __init__(self, status: int, name: str, **values: Any):
        super().__init__(status, name)
        self.name = name
        self.values = values


def refused(request: Request, exc: Exception) -> Response:
    """The one exception handler: a :class:`RefusedPage` as its page, any other HTTPException as one line; but an
    address that leads nowhere (404), opened in a browser, is a page of the site (:func:`missing`)."""
    assert isinstance(exc, HTTPException)  # registered for HTTPException only
    if isinstance(exc, RefusedPage):
        return page(request, exc.name, exc.status_code, **exc.values)
    words = words_of(request)
    key = ROUTING_WORDS.get(exc.status_code)
    text = said(exc.text, words) if isinstance(exc, Refused) else words(key) if key else exc.detail
    browsing = request.method in ("GET", "HEAD") and "text/html" in request.headers.get("accept", "")
    if exc.status_code == 404 and browsing:
        return missing(request, text)
    return PlainTextResponse(
        text + "\n", status_code=exc.status_code, headers=SECURITY_HEADERS | dict(exc.headers or {})
    )


def missing(request: Request, line: str) -> Response:
    """The page of an address that leads nowhere, for a person in a browser (it asks for ``text/html``): its line
    (« partie introuvable »), in the page's language, with its title, status 404, and the way back to the list it
    was under (:data:`WAYS_BACK`). A script or ``curl`` (no ``text/html``) keeps the one plain line; so does a
    view a tap asks for (static/table.js), whose script then opens the address as a page, this one."""
    path = request.url.path
    back, word = next((b, w) for b, w in WAYS_BACK if path == b or path.startswith(b.rstrip("/") + "/"))
    return page(request, "missing", 404, line=line, back=back, back_word=word)


def not_saved(request: Request, exc: Exception) -> Response:
    """The answer to :class:`unit.web.store.NotSaved` (the quota, the free-space margin, a full or read-only
    disk): the one line, in the page's language, with status 507; JSON for the pages' scripts."""
    line = exc.say(words_of(request)) if isinstance(exc, UserError) else str(exc)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"ok": False, "error": line, "errors": {"_": line}}, 507, headers=SECURITY_HEADERS)
    return PlainTextResponse(line + "\n", status_code=507, headers=SECURITY_HEADERS)


# --- sessions and pages ----------------------------------------------------------------------------


def session(request: Request) -> Session | None:
    """The visitor's signed session, None without a valid cookie."""
    return web_of(request).signer.unsign(request.cookies.get(COOKIE))


def paired(request: Request, visitor: Session | None) -> bool:
    """Whether ``visitor`` paired with the unit's current pairing generation (a new game renews it)."""
    generation = web_of(request).hub.generation
    return visitor is not None and generation is not None and visitor.get("gen") == generation


def pairing_needed(request: Request) -> bool:
    """Whether writing needs a paired phone here: on a box's service (:attr:`Web.box`), or while a unit is
    connected (``serve`` on a laptop beside ``make run``). Without a unit to pair with, nobody could pair: the
    calculator stays open, and its pages say so."""
    web = web_of(request)
    return web.box or web.hub.connected


def may_write(request: Request, visitor: Session | None) -> bool:
    """Whether ``visitor`` may write through the calculator's pages (issue 28, item 4): a paired phone, or any
    phone where there is no unit to pair with (:func:`pairing_needed`). Reading stays open to every phone."""
    return not pairing_needed(request) or paired(request, visitor)


def pair_first(request: Request) -> str:
    """The line a phone that may not write is told, on the page it wrote from: how to pair (the code the box
    shows), or that the box is away, so nobody can pair now."""
    key = "web.calc.pair_first" if web_of(request).hub.connected else "web.calc.box_away"
    return words_of(request)(key)


def set_session(request: Request, response: Response, visitor: Session) -> None:
    cookie = web_of(request).signer.sign(visitor)
    response.set_cookie(COOKIE, cookie, max_age=30 * 86400, httponly=True, samesite="strict")


def language_of(request: Request) -> str:
    """The page's language: ``?lang=``, then the cookie, then the service's own."""
    web = web_of(request)
    wanted = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE) or web.language
    return wanted if wanted in i18n.languages() else web.language


def words_of(request: Request) -> i18n.Words:
    return i18n.words(language_of(request))


def page(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """Render a page; give the visitor a session (an id and its CSRF token) if it has none."""
    web = web_of(request)
    visitor = session(request)
    fresh = visitor is None
    if visitor is None:
        visitor = {"id": secrets.token_hex(12)}
    language = language_of(request)
    words = i18n.words(language)
    snapshot = translate(web.hub.snapshot, words)
    context = {
        "w": words,
        "lang": language,
        "other": [code for code in i18n.languages() if code != language],
        "paired": paired(request, visitor),
        "pairing_needed": pairing_needed(request),
        "may_write": may_write(request, visitor),
        "csrf": web.signer.csrf(visitor["id"]),
        "snap": snapshot,
        "unit": web.hub.connected,
        "page_name": name,
        "client_words": client_words(words),
    } | values
    body = web.templates.get_template(f"{name}.html").render(**context)
    response = HTMLResponse(body, status_code=status, headers=SECURITY_HEADERS)
    if fresh:
        set_session(request, response, visitor)
    if request.query_params.get("lang") == language:
        response.set_cookie(LANG_COOKIE, language, max_age=365 * 86400, samesite="strict")
    return response


@functools.cache
def client_words(words: i18n.Words) -> dict[str, str]:
    """The words the pages' scripts say (``web.js.*``, ``web.state.*``), without their ``web.`` prefix: picked
    once for each language from its thousands of words, and shared by every page (read only)."""
    return {k.removeprefix("web."): v for k, v in words.entries.items() if k.startswith(("web.js.", "web.state."))}


def see_other(path: str) -> Response:
    return RedirectResponse(path, status_code=303, headers=SECURITY_HEADERS)


# --- who may post ------------------------------------------------------------------------------------


def same_origin(request: Request) -> bool:
    """False for a request a browser marks as coming from another site (Origin, Sec-Fetch-Site)."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host", "")


def client_key(request: Request) -> str:
    """Who the rate limits count: the client's address."""
    return request.client.host if request.client else "?"


def poster(request: Request) -> Session:
    """The session of a same-origin request; :class:`Refused` for a cross-site one or a visitor without one."""
    if not same_origin(request):
        raise Refused(403, Text("web.refused.cross_site"))
    visitor = session(request)
    if visitor is None:
        raise Refused(403, Text("web.refused.no_session"))
    return visitor


def check_token(request: Request, visitor: Session, token: str) -> None:
    """:class:`Refused` unless ``token`` is the session's CSRF token."""
    expected = web_of(request).signer.csrf(str(visitor.get("id", "")))
    if not secrets.compare_digest(token.encode(), expected.encode()):
        raise Refused(403, Text("web.refused.csrf"))


async def checked_form(request: Request) -> tuple[Session, Form]:
    """A same-origin POST form with the session's CSRF token: (session, fields); :class:`Refused` otherwise."""
    visitor = poster(request)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/x-www-form-urlencoded":
        raise Refused(415, Text("web.refused.expected_form"))
    body = await request.body()  # bounded by BodyLimit
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, Text("web.refused.malformed_form")) from None
    fields = {key: values[0] for key, values in parsed.items()}
    check_token(request, visitor, fields.pop("csrf", "") or request.headers.get("x-csrf-token", ""))
    return visitor, fields


FormAct = Callable[[Request, Form], Response]
Unpaired = Callable[[Request, Form, str], Response]


def paired_form_endpoint(act: FormAct, unpaired: Unpaired) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint for a checked form (:func:`checked_form`) that writes the calculator's files: the form's work,
    ``act(request, fields)``, for a phone that may write (:func:`may_write`); for any other,
    ``unpaired(request, fields, line)``, the page the form came from saying how to pair (:func:`pair_first`),
    with what was typed. The one place this is checked: the route table (unit/web/app.py) wraps every writing
    form in it (issue 28, item 4).

    Either runs on a worker thread, since both read and write files: a slow SD card never holds the event loop
    (the live streams, the remote's presses). Starlette runs a plain ``def`` endpoint there the same way."""

    @functools.wraps(act)
    async def endpoint(request: Request) -> Response:
        visitor, fields = await checked_form(request)
        if not may_write(request, visitor):
            return await run_in_threadpool(unpaired, request, fields, pair_first(request))
        return await run_in_threadpool(act, request, fields)

    return endpoint


def paired_endpoint(
    endpoint: Callable[[Request], Awaitable[Response]], unpaired: Callable[[Request, str], Response]
) -> Callable[[Request], Awaitable[Response]]:
    """:func:`paired_form_endpoint` for a POST that is not a form (an edition file uploaded as the body): from
    a phone that may not write, ``unpaired(request, line)`` answers, before the body is read."""

    @functools.wraps(endpoint)
    async def guarded(request: Request) -> Response:
        if not may_write(request, poster(request)):
            return unpaired(request, pair_first(request))
        return await endpoint(request)

    return guarded


# --- numbers people send ------------------------------------------------------------------------------


def whole(text: str | None, below: int) -> int | None:
    """A whole number from a query or a form, ``0 <= n < below`` (a player's place, a count, a sale's number);
    None for anything else. ASCII digits only (``'²'.isdigit()`` is true, ``int('²')`` fails), and never more of
    them than ``below`` has: ``int()`` never sees a 5,000-digit text (past 4,300 Python refuses with a
    ValueError, which would be a 500)."""
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > len(str(below)):
        return None
    n = int(text)
    return n if n < below else None


# --- names people type, files the service keeps ------------------------------------------------------

SLUG_CHARS = 40  # as unit.web.store.NAME_RE allows


def slug_of(title: str, taken: Collection[str]) -> str:
    """The file name the service keeps for a name a person typed (« Ma Ville » -> ``ma-ville``), never one
    in ``taken`` (``ma-ville-2``...); empty when the name has no letter or digit to make one of. People
    never see it: the pages show the name, the slug stays in the addresses and the files."""
    plain = re.sub(r"[^a-z0-9]+", "-", name_key(title).encode("ascii", "ignore").decode()).strip("-")
    plain = plain[:SLUG_CHARS].rstrip("-")
    if not plain:
        return ""
    slug, n = plain, 2
    while slug in taken:
        suffix = f"-{n}"
        slug, n = plain[: SLUG_CHARS - len(suffix)].rstrip("-") + suffix, n + 1
    return slug
