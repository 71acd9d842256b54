"""Who may do what: the signed session cookie, the cross-site check, rate limits, bounded bodies.

Anyone on the network may watch; pressing and changing settings needs a
session cookie that says "paired" for the unit's current pairing generation
(a new game renews it, so every phone pairs again). The cookie is signed with
HMAC-SHA256 under a secret kept in the web service's own folder (:func:`secret_folder`;
in memory without one); the same secret derives each session's CSRF token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import os
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unit.core.protocol import CODE_SECONDS, CODE_TRIES

SECRET_FILE = "web-secret"
MAX_BODY = 4096  # bytes in one request body: a form of a few fields
MAX_COOKIE = 1024


def secret_folder(state_dir: str | Path | None) -> Path | None:
    """Where the signing secret is kept: the service's own state folder when systemd gives it one
    (``$STATE_DIRECTORY``: ``StateDirectory=monopoly-city-web``, since the unit's folder is not the web
    service's to read or write), else the state folder given (``make run``: one user for both), else none."""
    own = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if own:
        return Path(own)
    return Path(state_dir) if state_dir is not None else None


def load_secret(state_dir: str | Path | None) -> bytes:
    """The signing secret: read from :func:`secret_folder`, created there (mode 0600) on first start."""
    folder = secret_folder(state_dir)
    if folder is None:
        return secrets.token_bytes(32)
    path = folder / SECRET_FILE
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    data = secrets.token_bytes(32)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
    except OSError:
        pass  # a read-only folder: sessions last until the service restarts
    return data


class Signer:
    """Signs and checks small JSON values (the session cookie) and derives CSRF tokens."""

    def __init__(self, secret: bytes):
        self.secret = secret

    def _mac(self, purpose: str, payload: bytes) -> str:
        digest = hmac.new(self.secret, purpose.encode() + b"\0" + payload, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def sign(self, value: dict[str, Any]) -> str:
        payload = base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).decode().rstrip("=")
        return f"{payload}.{self._mac('session', payload.encode())}"

    def unsign(self, token: str | None) -> dict[str, Any] | None:
        if not token or len(token) > MAX_COOKIE or token.count(".") != 1:
            return None
        payload, mac = token.split(".")
        if not hmac.compare_digest(mac, self._mac("session", payload.encode())):
            return None
        try:
            value = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def csrf(self, session_id: str) -> str:
        return self._mac("csrf", session_id.encode())

    def pairing_session(self, session_id: str) -> str:
        """The name the unit knows a session by for its pairing code: derived, so the unit never holds a
        session's id (which, with the secret, makes its CSRF token)."""
        return self._mac("pairing", session_id.encode())[:22]


class RateLimit:
    """At most ``count`` events per ``seconds`` for each key and ``total`` for all keys together.

    Remembers at most ``keys`` keys (the oldest forgotten first): a flood of
    addresses cannot grow it without bound.
    """

    def __init__(
        self, count: int, seconds: float, total: int, *, keys: int = 1024, clock: Callable[[], float] = time.monotonic
    ):
        self.count, self.seconds, self.total, self.keys, self.clock = count, seconds, total, keys, clock
        self._by_key: OrderedDict[str, deque[float]] = OrderedDict()
        self._all: deque[float] = deque()

    def allow(self, key: str) -> bool:
        """Count one event for ``key`` if both bounds allow it."""
        if self.refuses(key):
            return False
        self.take(key)
        return True

    def refuses(self, key: str, *, in_all: bool = True) -> bool:
        """Whether one more event for ``key`` is over its bound (or, with ``in_all``, over the total)."""
        times = self._times(key)
        return len(times) >= self.count or (in_all and len(self._all) >= self.total)

    def take(self, key: str) -> None:
        """Count one event for ``key`` (and in the total), whatever the bounds say."""
        now = self.clock()
        self._times(key).append(now)
        self._all.append(now)

    def _times(self, key: str) -> deque[float]:
        """``key``'s events within the window, the total's forgotten up to it; ``key`` made the newest key."""
        horizon = self.clock() - self.seconds
        while self._all and self._all[0] <= horizon:
            self._all.popleft()
        times = self._by_key.pop(key, deque())
        while times and times[0] <= horizon:
            times.popleft()
        self._by_key[key] = times
        while len(self._by_key) > self.keys:
            self._by_key.popitem(last=False)
        return times


class Grant(StrEnum):
    """How a code request was let through (:meth:`PairingGuard.request`)."""

    BUDGET = "budget"  # within the minute's budget: CODE_TRIES tries that no one else's can refuse
    FRESH = "fresh"  # over the budget, the address's first in the hour: FRESH_TRIES such tries


class PairingGuard:
    """Who may ask for a pairing code and try one: the pairing belongs to whoever asked (docs/phone.en.md).

    Every bound is per address (the client's own IP) and per session, so a stranger spends only their own.
    The totals bound the guesses, and never reach the session that asked for a code:

    - a code asked within the minute's budget (REQUESTS_IN_ALL) gets CODE_TRIES tries that skip
      TRIES_IN_ALL (the unit voids the code after as many wrong ones);
    - over the budget, an address's first request in the hour is still let through (at most FRESH_IN_ALL
      an hour): its code gets FRESH_TRIES such tries, then shares TRIES_IN_ALL;
    - every other try comes out of TRIES_IN_ALL.

    So strangers get at most :meth:`guesses_a_minute` guesses a minute from any number of addresses, and
    TRIES_PER_ADDRESS from one.
    """

    REQUESTS_PER_ADDRESS = 3  # a minute
    REQUESTS_PER_SESSION = 3
    REQUESTS_IN_ALL = 3
    FRESH_SECONDS = 3600.0
    FRESH_IN_ALL = 30  # an hour
    FRESH_TRIES = 2
    TRIES_PER_ADDRESS = 5  # a minute
    TRIES_PER_SESSION = 5
    TRIES_IN_ALL = 10
    KEYS = 1024

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        minute = 60.0
        self.requests_by_address = RateLimit(self.REQUESTS_PER_ADDRESS, minute, self.REQUESTS_IN_ALL, clock=clock)
        self.requests_by_session = RateLimit(self.REQUESTS_PER_SESSION, minute, 1 << 30, clock=clock)
        self.fresh = RateLimit(1, self.FRESH_SECONDS, self.FRESH_IN_ALL, clock=clock)
        self.tries_by_address = RateLimit(self.TRIES_PER_ADDRESS, minute, self.TRIES_IN_ALL, clock=clock)
        self.tries_by_session = RateLimit(self.TRIES_PER_SESSION, minute, 1 << 30, clock=clock)
        self._askers: OrderedDict[str, tuple[float, int]] = OrderedDict()  # session -> (code's end, own tries)

    def request(self, address: str, session: str) -> Grant | None:
        """Count a code request from ``session`` at ``address``: how it is let through, or None (429)."""
        if self.requests_by_session.refuses(session) or self.requests_by_address.refuses(address, in_all=False):
            return None
        if not self.requests_by_address.refuses(address):
            grant, tries = Grant.BUDGET, CODE_TRIES
        elif not self.fresh.refuses(address):
            grant, tries = Grant.FRESH, self.FRESH_TRIES
            self.fresh.take(address)
        else:
            return None
        self.requests_by_session.take(session)
        self.requests_by_address.take(address)
        _remember(self._askers, session, (self.clock() + CODE_SECONDS, tries), self.KEYS)
        return grant

    def try_code(self, address: str, session: str) -> bool:
        """Count a try at a code from ``session`` at ``address``; False: over a bound (429)."""
        end, own = self._askers.get(session, (-math.inf, 0))
        mine = own > 0 and end > self.clock()
        if self.tries_by_session.refuses(session) or self.tries_by_address.refuses(address, in_all=not mine):
            return False
        self.tries_by_session.take(session)
        self.tries_by_address.take(address)
        if mine:
            self._askers[session] = (end, own - 1)
        return True

    def paired(self, session: str) -> None:
        """``session`` used its code: it asks no more (a paired phone gets a new session)."""
        self._askers.pop(session, None)

    @classmethod
    def guesses_a_minute(cls) -> float:
        """The most codes strangers can guess in a minute, from any number of addresses."""
        fresh = cls.FRESH_TRIES * cls.FRESH_IN_ALL * 60.0 / cls.FRESH_SECONDS
        return CODE_TRIES * cls.REQUESTS_IN_ALL + cls.TRIES_IN_ALL + fresh


def _remember(table: OrderedDict[str, tuple[float, int]], key: str, value: tuple[float, int], keys: int) -> None:
    """``table[key] = value`` as the newest entry, the oldest forgotten beyond ``keys``."""
    table.pop(key, None)
    table[key] = value
    while len(table) > keys:
        table.popitem(last=False)


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413 before the app sees it.

    ``larger`` gives a few paths a larger, still bounded, limit (an edition's upload); ``explain(scope,
    limit)``, if given, words the refusal (in the page's language).
    """

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_BODY,
        larger: dict[str, int] | None = None,
        explain: Callable[[Scope, int], str] | None = None,
    ):
        self.app = app
        self.limit = limit
        self.larger = larger or {}
        self.explain = explain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.larger.get(scope["path"], self.limit)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or len(length) > len(str(limit)) or int(length) > limit):
            return await _too_large(send, self._said(scope, limit))
        if scope["method"] in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                return await _too_large(send, self._said(scope, limit))
            if not message.get("more_body"):
                break
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)

    def _said(self, scope: Scope, limit: int) -> str | None:
        """The refusal's line, worded only for a body refused (every other request goes on without it)."""
        return self.explain(scope, limit) + "\n" if self.explain else None


async def _too_large(send: Send, text: str | None = None) -> None:
    kind = b"text/plain; charset=utf-8" if text else b"text/plain"
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", kind)]})
    await send({"type": "http.response.body", "body": (text or "request body too large\n").encode()})
