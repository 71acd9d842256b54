"""The phone companion's web application (Starlette): pages, the live event stream, the remote.

Routes (docs/phone.en.md): ``/`` the live view, ``/remote`` the banker's
buttons and pairing, ``/settings``, ``/share`` with the QR code
(``/qr.svg``), ``/events`` the live stream (server-sent events),
``/static/...`` the page's own files. Every state-changing route is a POST
that needs the session cookie, the session's CSRF token and a same-origin
request; pressing and settings also need a paired session.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import segno
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from unit import i18n
from unit.web.hub import UnitHub
from unit.web.screen import translate
from unit.web.security import BodyLimit, RateLimit, Signer, load_secret
from unit.web.store import Store, default_root

HERE = Path(__file__).resolve().parent
COOKIE = "mc_session"
LANG_COOKIE = "mc_lang"
BUTTON_NAMES = ("power", "auction", "build")
HEARTBEAT_SECONDS = 15.0
MAX_HOLD_SECONDS = 10.0  # longer than any long press (cancel 2 s, shutdown 3 s by default)
HOST_RE = re.compile(r"^[A-Za-z0-9.\-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; media-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


# --- the application ------------------------------------------------------------------------------


class Web:
    """The application's state: the hub, the signer, the rate limits, the templates."""

    def __init__(self, state_dir: str | Path | None, language: str = "fr", data_dir: str | Path | None = None):
        self.hub = UnitHub(state_dir)
        #: The calculator's editions and games (``serve --data``); beside the state when none is given.
        self.store = Store(data_dir if data_dir is not None else default_root(state_dir))
        self.signer = Signer(load_secret(state_dir))
        self.language = language if language in i18n.languages() else i18n.REFERENCE
        self.pair_tries = RateLimit(count=5, seconds=60.0, total=30)
        self.code_requests = RateLimit(count=3, seconds=60.0, total=10)
        self.held: dict[str, dict[str, asyncio.TimerHandle]] = {}  # session id -> its buttons down
        self.templates = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]), auto_reload=False
        )

    def let_go(self, held: dict, button: str) -> None:
        """Release a button held longer than any long press needs (the phone went away)."""
        held.pop(button, None)
        asyncio.get_running_loop().create_task(self.hub.send({"release": button}))

    # --- sessions ---------------------------------------------------------------------------------

    def session(self, request: Request) -> dict | None:
        return self.signer.unsign(request.cookies.get(COOKIE))

    def paired(self, session: dict | None) -> bool:
        generation = self.hub.generation
        return bool(session) and generation is not None and session.get("gen") == generation  # type: ignore[union-attr]

    def lang(self, request: Request) -> str:
        wanted = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE) or self.language
        return wanted if wanted in i18n.languages() else self.language

    def page(self, request: Request, name: str, **values: Any) -> HTMLResponse:
        """Render a page; give the visitor a session (an id and its CSRF token) if it has none."""
        session = self.session(request)
        fresh = session is None
        if session is None:
            session = {"id": secrets.token_hex(12)}
        lang = self.lang(request)
        words = i18n.words(lang)
        snapshot = translate(self.hub.snapshot, words)
        context = {
            "w": words,
            "lang": lang,
            "other": [code for code in i18n.languages() if code != lang],
            "paired": self.paired(session),
            "csrf": self.signer.csrf(session["id"]),
            "snap": snapshot,
            "unit": self.hub.connected,
            "page_name": name,
            "client_words": {
                k.removeprefix("web."): v for k, v in words.entries.items() if k.startswith(("web.js.", "web.state."))
            },
        } | values
        body = self.templates.get_template(f"{name}.html").render(**context)
        response = HTMLResponse(body, headers=SECURITY_HEADERS)
        if fresh:
            self.set_session(response, session)
        if request.query_params.get("lang") == lang:
            response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="strict")
        return response

    def set_session(self, response: Response, session: dict) -> None:
        response.set_cookie(COOKIE, self.signer.sign(session), max_age=30 * 86400, httponly=True, samesite="strict")

    async def checked_form(self, request: Request) -> tuple[dict | None, dict[str, str], Response | None]:
        """A same-origin POST with the session's CSRF token: (session, fields, None) or a refusal."""
        if not same_origin(request):
            return None, {}, refuse(403, "cross-site request refused")
        session = self.session(request)
        if session is None:
            return None, {}, refuse(403, "no session: load a page first")
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return None, {}, refuse(415, "expected a form")
        body = await request.body()  # bounded by BodyLimit
        try:
            parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20, strict_parsing=False)
        except (UnicodeDecodeError, ValueError):
            return None, {}, refuse(400, "malformed form")
        fields = {key: values[0] for key, values in parsed.items()}
        token = fields.pop("csrf", "") or request.headers.get("x-csrf-token", "")
        if not secrets.compare_digest(token.encode(), self.signer.csrf(str(session.get("id", ""))).encode()):
            return None, {}, refuse(403, "missing or wrong CSRF token")
        return session, fields, None


def form_route(web: Web, act: Callable[[Request, dict[str, str]], Response]) -> Callable:
    """An endpoint for a checked form (:meth:`Web.checked_form`) whose work, ``act(request, fields)``, reads and
    writes files: it runs on a worker thread, so a slow SD card never holds the event loop (the live
    streams, the remote's presses). Starlette runs a plain ``def`` endpoint there the same way."""

    async def endpoint(request: Request) -> Response:
        _session, fields, refusal = await web.checked_form(request)
        if refusal is not None:
            return refusal
        return await run_in_threadpool(act, request, fields)

    return endpoint


def same_origin(request: Request) -> bool:
    """False for a request a browser marks as coming from another site (Origin, Sec-Fetch-Site)."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host", "")


def refuse(status: int, text: str) -> PlainTextResponse:
    return PlainTextResponse(text + "\n", status_code=status, headers=SECURITY_HEADERS)


def client_key(request: Request) -> str:
    return request.client.host if request.client else "?"


def create_app(state_dir: str | Path | None, language: str = "fr", data_dir: str | Path | None = None) -> Starlette:
    from unit.web import editions, game  # their pages use this module's Web: imported once it is defined

    web = Web(state_dir, language, data_dir)

    async def live(request: Request) -> Response:
        return web.page(request, "live")

    async def remote(request: Request) -> Response:
        message = request.query_params.get("m", "")
        return web.page(request, "remote", message=message if message in PAIR_MESSAGES else "")

    async def settings_page(request: Request) -> Response:
        message = request.query_params.get("m", "")
        return web.page(request, "settings", message=message if message in ("saved", "failed") else "")

    async def share(request: Request) -> Response:
        return web.page(request, "share", address=address(request))

    async def qr(request: Request) -> Response:
        buffer = io.BytesIO()
        segno.make(address(request), error="m").save(buffer, kind="svg", scale=8, border=2, dark="#000", light="#fff")
        return Response(buffer.getvalue(), media_type="image/svg+xml", headers=SECURITY_HEADERS)

    async def events(request: Request) -> Response:
        words = i18n.words(web.lang(request))
        subscriber = web.hub.subscribe()

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
                    yield "data: " + json.dumps(translate(obj, words), ensure_ascii=False) + "\n\n"
            finally:
                web.hub.unsubscribe(subscriber)

        headers = SECURITY_HEADERS | {"X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def press(request: Request) -> Response:
        session, fields, refusal = await web.checked_form(request)
        if refusal is not None or session is None:
            return refusal or refuse(403, "no session")
        button, action = fields.get("button"), fields.get("action", "press")
        if button not in BUTTON_NAMES or action not in ("press", "release"):
            return refuse(400, "expected button=power|auction|build and action=press|release")
        held = web.held.setdefault(str(session.get("id")), {})
        # A button this phone holds may always be let go (switching off unpairs it mid-press).
        if not (web.paired(session) or (action == "release" and button in held)):
            return refuse(403, "not paired")
        if not await web.hub.send({action: button}):
            return refuse(503, "the unit is not running")
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
        _session, _fields, refusal = await web.checked_form(request)
        if refusal is not None:
            return refusal
        if not web.code_requests.allow(client_key(request)):
            return too_many(web, request)
        if not await web.hub.send({"pair": "request"}):
            return see_other("/remote?m=nounit")
        return see_other("/remote?m=shown")

    async def pair(request: Request) -> Response:
        session, fields, refusal = await web.checked_form(request)
        if refusal is not None:
            return refusal
        if not web.pair_tries.allow(client_key(request)):
            return too_many(web, request)
        code = fields.get("code", "").strip()
        if not (code.isdigit() and len(code) <= 12) or not await web.hub.check_code(code):
            return see_other("/remote?m=wrong")
        response = see_other("/remote?m=paired")
        web.set_session(response, {"id": secrets.token_hex(12), "gen": web.hub.generation})  # a new id once paired
        return response

    async def settings_post(request: Request) -> Response:
        session, fields, refusal = await web.checked_form(request)
        if refusal is not None:
            return refusal
        if not web.paired(session):
            return refuse(403, "not paired")
        known = web.hub.snapshot.get("settings") or {}
        changes: dict[str, Any] = {}
        for key, text in fields.items():
            if key not in known:
                return refuse(400, f"unknown setting {key[:40]!r}")
            changes[key] = setting_value(text)
        if not changes:
            return see_other("/settings")
        ok, _error = await web.hub.change_settings(changes)
        return see_other("/settings?m=saved" if ok else "/settings?m=failed")

    async def not_found(request: Request, exc: Exception) -> Response:
        return refuse(404, "not found")

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return refuse(405, "method not allowed")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        await web.hub.start()
        try:
            yield
        finally:
            await web.hub.stop()

    app = Starlette(
        routes=[
            Route("/", live, name="live"),
            Route("/remote", remote),
            Route("/settings", settings_page, methods=["GET"]),
            Route("/settings", settings_post, methods=["POST"]),
            Route("/share", share),
            Route("/qr.svg", qr),
            Route("/events", events),
            Route("/press", press, methods=["POST"]),
            Route("/pair/request", pair_request, methods=["POST"]),
            Route("/pair", pair, methods=["POST"]),
            *game.routes(web, web.store),
            *editions.routes(web, web.store),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={404: not_found, 405: not_allowed},
        lifespan=lifespan,
    )
    app.state.web = web
    app.add_middleware(BodyLimit, larger={editions.UPLOAD_PATH: editions.MAX_UPLOAD}, explain=editions.too_large(web))
    return app


PAIR_MESSAGES = ("shown", "wrong", "slow", "nounit", "paired")


def see_other(path: str) -> Response:
    return RedirectResponse(path, status_code=303, headers=SECURITY_HEADERS)


def too_many(web: Web, request: Request) -> Response:
    """The remote page saying to wait, with status 429."""
    response = web.page(request, "remote", message="slow")
    response.status_code = 429
    return response


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


def address(request: Request) -> str:
    """The address this page was reached at, to share with the next phone (a bad Host gives the default)."""
    host = request.headers.get("host", "")
    if not HOST_RE.match(host):
        host = "monopoly-city.local"
    return f"http://{host}/"
