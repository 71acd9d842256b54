"""Who may do what: the signed session cookie, the cross-site check, rate limits, bounded bodies.

Anyone on the network may watch; pressing and changing settings needs a
session cookie that says "paired" for the unit's current pairing generation
(a new game renews it, so every phone pairs again). The cookie is signed with
HMAC-SHA256 under a secret kept in the state folder (or in memory without
one); the same secret derives each session's CSRF token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECRET_FILE = "web-secret"
MAX_BODY = 4096  # bytes in one request body: a form of a few fields
MAX_COOKIE = 1024


def load_secret(state_dir: str | Path | None) -> bytes:
    """The signing secret: read from the state folder, created there (mode 0600) on first start."""
    if state_dir is None:
        return secrets.token_bytes(32)
    path = Path(state_dir) / SECRET_FILE
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    data = secrets.token_bytes(32)
    try:
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
    except OSError:
        pass  # a read-only state folder: sessions last until the service restarts
    return data


class Signer:
    """Signs and checks small JSON values (the session cookie) and derives CSRF tokens."""

    def __init__(self, secret: bytes):
        self.secret = secret

    def _mac(self, purpose: str, payload: bytes) -> str:
        digest = hmac.new(self.secret, purpose.encode() + b"\0" + payload, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def sign(self, value: dict) -> str:
        payload = base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).decode().rstrip("=")
        return f"{payload}.{self._mac('session', payload.encode())}"

    def unsign(self, token: str | None) -> dict | None:
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


class RateLimit:
    """At most ``count`` events per ``seconds`` for each key and ``total`` for all keys together.

    Remembers at most ``keys`` keys (the oldest forgotten first): a flood of
    addresses cannot grow it without bound.
    """

    def __init__(self, count: int, seconds: float, total: int, *, keys: int = 1024, clock=time.monotonic):
        self.count, self.seconds, self.total, self.keys, self.clock = count, seconds, total, keys, clock
        self._by_key: OrderedDict[str, deque[float]] = OrderedDict()
        self._all: deque[float] = deque()

    def allow(self, key: str) -> bool:
        now = self.clock()
        horizon = now - self.seconds
        while self._all and self._all[0] <= horizon:
            self._all.popleft()
        times = self._by_key.pop(key, deque())
        while times and times[0] <= horizon:
            times.popleft()
        self._by_key[key] = times
        while len(self._by_key) > self.keys:
            self._by_key.popitem(last=False)
        if len(times) >= self.count or len(self._all) >= self.total:
            return False
        times.append(now)
        self._all.append(now)
        return True


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413 before the app sees it.

    ``larger`` gives a few paths a larger, still bounded, limit (an edition's upload); ``explain(scope,
    limit)``, if given, words the refusal on those paths.
    """

    def __init__(
        self,
        app: Any,
        limit: int = MAX_BODY,
        larger: dict[str, int] | None = None,
        explain: Callable[[dict, int], str] | None = None,
    ):
        self.app = app
        self.limit = limit
        self.larger = larger or {}
        self.explain = explain

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.larger.get(scope["path"], self.limit)
        text = self.explain(scope, limit) + "\n" if self.explain and scope["path"] in self.larger else None
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return await _too_large(send, text)
        if scope["method"] in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                return await _too_large(send, text)
            if not message.get("more_body"):
                break
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


async def _too_large(send, text: str | None = None) -> None:
    kind = b"text/plain; charset=utf-8" if text else b"text/plain"
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", kind)]})
    await send({"type": "http.response.body", "body": (text or "request body too large\n").encode()})
