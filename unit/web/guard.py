"""What keeps one stranger on the table's Wi-Fi from spoiling the page for everyone: deadlines, fair shares, the Host.

Three guards, all in front of the application (``unit/web/server.py`` puts them there):

- **Deadlines.** A request's head (its request line and headers) must arrive within
  :attr:`Limits.head_seconds` of the connection opening, or of its first byte on a kept-alive connection; its
  body within :attr:`Limits.body_seconds` of the head. A connection that misses one is answered 408 (when it
  sent part of a request) and closed.
- **Fair shares.** At most :attr:`Limits.per_address` connections and :attr:`Limits.streams_per_address` live
  streams (``/events``) from one address (an IPv6 address counts by its /64: one device has many); at most
  :attr:`Limits.connections` and :attr:`Limits.streams` in all. When everything is taken, the newcomer takes a
  place from the address holding the most, if that is more than the newcomer holds (an idle or unfinished
  request first, a stream last): a phone that holds nothing always gets its page, whoever holds hundreds.
- **The Host.** Only a request naming the box by one of its own names or addresses, with the port it came in
  on, is served (:class:`HostCheck`); anything else (a foreign name re-pointed at the box: DNS rebinding) is
  refused with one line before any page, cookie or token.

Why hand-written: uvicorn (0.54, its h11 protocol) has ``limit_concurrency``, one cap for everyone (256 idle
sockets from one stranger and every phone gets 503), and ``timeout_keep_alive``, armed only after a response (a
connection that never finishes its request line is held for ever); it has no deadline for a request's head or
body and nothing per address. So :func:`protocol` subclasses its h11 protocol, the documented extension point
(``uvicorn.Config(http=...)`` takes a protocol class), and keeps uvicorn's parsing and flow control as they are.
Starlette's ``TrustedHostMiddleware`` takes a fixed list and ignores the port; the box's addresses come from
DHCP and change, so :class:`BoxNames` reads them when a Host is not among those it knows.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import time
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import h11
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from unit import i18n
from unit.web.address import local_addresses

App = ASGIApp


@dataclass(frozen=True)
class Limits:
    """The web service's bounds (the figures behind them: docs/reliability.md)."""

    #: Seconds for a request's head, from the connection (or its first byte on a kept-alive one).
    head_seconds: float = 5.0
    #: Seconds for a request's body once its head is in: a 256 KiB edition at 50 KiB/s takes 5 s.
    body_seconds: float = 10.0
    #: Connections from one address: a browser opens at most 6 to a server, a few tabs each hold a stream.
    per_address: int = 16
    #: Connections in all: 300 slow ones from as many addresses fit, and wait for their deadline rather than
    #: each taking a place back from another (uvicorn's own ``limit_concurrency`` stays above it, a last bound).
    #: 512 descriptors and a few MB: the service's LimitNOFILE (1024) and MemoryMax (160M) hold them.
    connections: int = 512
    #: Live streams from one address: a phone with the live view, the remote and the settings open.
    streams_per_address: int = 4
    #: Live streams in all: every phone at a table, many times over.
    streams: int = 128
    #: The paths whose answer is a live stream.
    stream_paths: tuple[str, ...] = ("/events",)


def address_key(host: str) -> str:
    """Whose share a connection counts in: an IPv4 address, or an IPv6 address's /64 (one device has many)."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


#: What a connection is doing, from what is closed first to what is closed last when a place is taken back.
IDLE, SENDING, STREAMING, ANSWERED = range(4)


class Connection(typing.Protocol):
    """What the shares need of a connection: its address, what it is doing, a way to close it."""

    key: str
    opened: float

    def rank(self) -> int:
        """:data:`IDLE` (between requests, or its head still coming), :data:`SENDING` (its body coming),
        :data:`STREAMING` (a live stream) or :data:`ANSWERED` (its answer being made)."""
        ...

    def close(self) -> None: ...


@dataclass
class Shares:
    """Who holds which connections and streams, and the fair-share rule when the service is full.

    When every place is taken, a newcomer takes one back from the address holding the most, if that is more
    than the newcomer would; when everyone holds as many, from whoever holds at least as many, if it is
    doing the least (waiting for its head or its body, idle between requests; the oldest first). A stream
    is taken back from the oldest among the largest holders: its page opens it again a second later.
    """

    limits: Limits = field(default_factory=Limits)
    held: dict[str, list[Connection]] = field(default_factory=dict)
    streaming: dict[str, list[Connection]] = field(default_factory=dict)
    #: How many connections and streams were refused, and taken back for a newcomer.
    refused: int = 0
    evicted: int = 0
    #: The service's language (serve --lang): a refusal before any request is read is said in it.
    language: str = i18n.REFERENCE

    def total(self, table: dict[str, list[Connection]]) -> int:
        return sum(len(held) for held in table.values())

    def admit(self, conn: Connection) -> bool:
        """Take ``conn`` in, or say no (its address holds its share, or all is taken and no one holds more)."""
        mine = self.held.get(conn.key, [])
        if len(mine) >= self.limits.per_address:
            self.refused += 1
            return False
        if self.total(self.held) >= self.limits.connections and not self._take_back(self.held, len(mine), SENDING):
            self.refused += 1
            return False
        self.held.setdefault(conn.key, []).append(conn)
        return True

    def leave(self, conn: Connection) -> None:
        for table in (self.held, self.streaming):
            _remove(table, conn)

    def stream(self, conn: Connection) -> bool:
        """``conn`` starts a live stream; False when its address holds its share (or all is taken)."""
        mine = self.streaming.get(conn.key, [])
        if len(mine) >= self.limits.streams_per_address:
            self.refused += 1
            return False
        full = self.total(self.streaming) >= self.limits.streams
        if full and not self._take_back(self.streaming, len(mine), STREAMING):
            self.refused += 1
            return False
        self.streaming.setdefault(conn.key, []).append(conn)
        return True

    def stream_ended(self, conn: Connection) -> None:
        _remove(self.streaming, conn)

    def _take_back(self, table: dict[str, list[Connection]], holding: int, at_most: int) -> bool:
        """Close one connection for a newcomer whose address holds ``holding`` in ``table`` (see the class)."""
        if not table:
            return False
        most = max(len(held) for held in table.values())
        if most > holding + 1:  # someone holds more than the newcomer would: one of theirs, whatever it does
            candidates = [c for held in table.values() if len(held) == most for c in held]
        else:  # everyone holds as many: only what does least, from those holding at least as many
            candidates = [c for held in table.values() if len(held) > holding for c in held if c.rank() <= at_most]
        if not candidates:
            return False
        victim = min(candidates, key=lambda c: (c.rank(), c.opened))
        self.leave(victim)
        victim.close()
        self.evicted += 1
        return True


def _remove(table: dict[str, list[Connection]], conn: Connection) -> None:
    held = table.get(conn.key)
    if held is not None and conn in held:
        held.remove(conn)
        if not held:
            del table[conn.key]


def _refusal(status: int, reason: str, text: str) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, written before (or instead of) h11's."""
    body = (text + "\n").encode()
    head = f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\n"
    return (head + "connection: close\r\n\r\n").encode() + body


def protocol(shares: Shares) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the deadlines and the shares of ``shares`` (give it to ``Config(http=...)``)."""

    class GuardedProtocol(H11Protocol):
        """One connection: uvicorn's h11 protocol, with a deadline for each request's head and body."""

        key = "?"
        opened = 0.0
        deadline: asyncio.TimerHandle | None = None
        waiting: str | None = None  # "head" or "body": what the deadline is for
        streaming = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            no_delay(transport)
            super().connection_made(transport)
            self.key = address_key(self.client[0]) if self.client else "?"
            self.opened = time.monotonic()
            self.app = self.guarded  # the streams' share, per request (uvicorn calls self.app)
            if not shares.admit(self):
                self.refuse(503, "Service Unavailable", said("web.refused.too_many_connections", shares.language))
                return
            self.wait_for("head", shares.limits.head_seconds)

        def connection_lost(self, exc: Exception | None) -> None:
            self.stop_waiting()
            shares.leave(self)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE and self.deadline is None:  # a new request on a kept-alive one
                self.wait_for("head", shares.limits.head_seconds)
            super().data_received(data)
            self.follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # arms keep-alive's idle timeout; may start a pipelined request
            self.stop_waiting()
            if self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]:
                self.wait_for("head", shares.limits.head_seconds)
            else:
                self.follow()

        def follow(self) -> None:
            """The deadline that applies now: the head's until it is in, then the body's until it is."""
            state = self.conn.their_state
            if state is h11.IDLE or self.transport.is_closing():
                return
            if state is h11.SEND_BODY:
                if self.waiting != "body":
                    self.wait_for("body", shares.limits.body_seconds)
            elif self.waiting is not None:
                self.stop_waiting()

        def wait_for(self, what: str, seconds: float) -> None:
            self.stop_waiting()
            self.waiting = what
            self.deadline = self.loop.call_later(seconds, self.too_slow)

        def stop_waiting(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            self.deadline, self.waiting = None, None

        def too_slow(self) -> None:
            """A deadline missed: 408 when part of a request came (an idle new connection is just closed)."""
            self.deadline = None
            if self.transport.is_closing():
                return
            if self.waiting == "body":  # the answer may have begun (an application that did not wait for it)
                started = self.cycle is not None and not self.cycle.response_started
            else:  # between requests (their state IDLE): no answer under way; 408 if part of a head came
                started = bool(self.conn.trailing_data[0])
            if started:
                self.transport.write(_refusal(408, "Request Timeout", said("web.refused.too_slow", shares.language)))
            self.transport.close()

        def refuse(self, status: int, reason: str, text: str) -> None:
            self.transport.write(_refusal(status, reason, text))
            self.transport.close()

        def rank(self) -> int:
            state = self.conn.their_state
            if state is h11.IDLE or self.transport.is_closing():
                return IDLE
            if state is h11.SEND_BODY:
                return SENDING
            return STREAMING if self.streaming else ANSWERED

        def close(self) -> None:
            if not self.transport.is_closing():
                self.transport.close()

        async def guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
            """The application, with the live streams counted per address."""
            app = self.config.loaded_app
            if scope["type"] != "http" or scope["path"] not in shares.limits.stream_paths:
                await app(scope, receive, send)
                return
            if not shares.stream(self):
                await _answer(send, 429, said("web.refused.too_many_streams", language_of(scope, shares.language)))
                return
            self.streaming = True
            try:
                await app(scope, receive, send)
            finally:
                self.streaming = False
                shares.stream_ended(self)

    return GuardedProtocol


def language_of(scope: Scope, default: str) -> str:
    """A request's language as its page's (``?lang=``, then the page's cookie), else ``default`` (the service's)."""
    from unit.web.common import LANG_COOKIE  # the pages' own cookie (common imports the pages' whole machinery)

    request = HTTPConnection(scope)
    wanted = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE) or default
    return wanted if wanted in i18n.languages() else default


def said(key: str, language: str) -> str:
    """The refusal ``key`` (``web.refused.*``) in ``language``."""
    return i18n.words(language)(key)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on a connection: a response's body, written after its head, goes at once. asyncio sets it only
    on sockets made with ``IPPROTO_TCP``; ``serve`` binds its own listener (``socket.create_server``, protocol 0,
    to say a port in use in one line) and without this every answer on a kept-alive connection waited for the
    client's delayed ACK (40 ms on Linux: the largest edition's card check, 2 ms of CPU, took 44 ms)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass  # already closed by the client: nothing to send


async def _answer(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send(
        {"type": "http.response.start", "status": status, "headers": [*headers, (b"cache-control", b"no-store")]}
    )
    await send({"type": "http.response.body", "body": body})


# --- the Host --------------------------------------------------------------------------------------

HOST = re.compile(r"^(?:\[(?P<v6>[0-9a-fA-F:.]{2,45})\]|(?P<name>[A-Za-z0-9.\-]{1,253}))(?::(?P<port>\d{1,5}))?$")
LOOPBACK_NAMES = ("localhost", "localhost.localdomain")


class BoxNames:
    """The names and addresses this box answers to: its host name, ``NAME.local``, its IP addresses, localhost.

    The addresses come from DHCP and may change while the service runs: the address a connection came in on
    always counts (it is the box's, whatever DHCP did), and the interfaces' addresses and the host name are
    read again when a Host is not among those known, at most once every :attr:`refresh_seconds`.
    """

    refresh_seconds = 2.0

    def __init__(
        self,
        hostname: Callable[[], str] = socket.gethostname,
        addresses: Callable[[], Iterable[str]] = local_addresses,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._hostname, self._addresses, self._clock = hostname, addresses, clock
        self._read_at: float | None = None
        self.names: frozenset[str] = frozenset()
        self.ips: frozenset[str] = frozenset()

    def read(self) -> None:
        full = self._hostname().strip().rstrip(".").lower()
        short = full.split(".")[0]
        self.names = frozenset(n for n in (full, short, f"{short}.local") if n and n != ".local")
        self.ips = frozenset(str(ipaddress.ip_address(ip)) for ip in self._addresses())
        self._read_at = self._clock()

    def openable(self) -> list[str]:
        """The names a phone can open, read now, each one :meth:`knows`: ``NAME.local`` (mDNS), the IP addresses,
        then ``localhost`` (this machine only)."""
        self.read()
        local = sorted(n for n in self.names if n.endswith(".local"))
        ips = sorted(self.ips, key=lambda ip: (ipaddress.ip_address(ip).version, ipaddress.ip_address(ip)))
        return [*local, *ips, LOOPBACK_NAMES[0]]

    def knows(self, name: str, local_ip: str | None) -> bool:
        """Whether ``name`` (a Host without its port) is this box, reached at ``local_ip``."""
        name = name.rstrip(".").lower()
        try:
            ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(name)
        except ValueError:
            ip = None
        if ip is not None:
            if ip.is_loopback or (local_ip is not None and _same_ip(ip, local_ip)):
                return True
        elif name in LOOPBACK_NAMES:
            return True
        if self._known(name, ip):
            return True
        if self._read_at is None or self._clock() - self._read_at >= self.refresh_seconds:
            self.read()
            return self._known(name, ip)
        return False

    def _known(self, name: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        if ip is not None:
            return str(ip) in self.ips
        if name in self.names:
            return True
        # avahi renames the box NAME-2.local when another machine holds NAME.local: still this box
        return any(re.fullmatch(re.escape(n.removesuffix(".local")) + r"-\d{1,3}\.local", name) for n in self.names)


def _same_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, local_ip: str) -> bool:
    try:
        local = ipaddress.ip_address(local_ip.split("%")[0])
    except ValueError:
        return False
    if isinstance(local, ipaddress.IPv6Address) and local.ipv4_mapped is not None:
        local = local.ipv4_mapped
    return ip == local


class HostCheck:
    """ASGI middleware: a request whose Host is not this box (name and port) is refused with 421, one line.

    Browsers send the name they resolved in Host: a foreign site whose name was re-pointed at the box (DNS
    rebinding) sends its own, and gets nothing, not a page, a cookie or a CSRF token.
    """

    def __init__(self, app: App, names: BoxNames | None = None, language: str = i18n.REFERENCE):
        self.app = app
        self.names = names if names is not None else BoxNames()
        self.language = language  # the service's: the line's language when the request names none

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allowed(scope):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _answer(send, 421, said("web.refused.wrong_host", language_of(scope, self.language)))

    def allowed(self, scope: Scope) -> bool:
        hosts = [value for key, value in scope.get("headers") or () if key == b"host"]
        if len(hosts) != 1:
            return False
        match = HOST.match(hosts[0].decode("latin-1"))
        if match is None:
            return False
        server = scope.get("server") or (None, None)
        local_ip, local_port = server[0], server[1]
        port = int(match["port"]) if match["port"] else 80
        if local_port is not None and port != local_port:
            return False
        return self.names.knows(match["v6"] or match["name"], local_ip)
