"""Run the web application under uvicorn: ``monopoly-city serve``."""

from __future__ import annotations

import errno
import gc
import logging
import socket
from typing import Any

import uvicorn

from unit import i18n
from unit.errors import ArgumentError, Text
from unit.notify import Notifier
from unit.web import WIFI_STATUS_PATH, guard
from unit.web.address import ANY_HOSTS
from unit.web.app import create_app
from unit.web.hub import UnitHub
from unit.yamlfile import escape

log = logging.getLogger(__name__)


def serve(
    host: str,
    port: int,
    state_dir: str | None,
    language: str,
    data_dir: str | None = None,
    by_default: bool = False,
    box: bool | None = None,
    wifi_status: str | None = WIFI_STATUS_PATH,
) -> None:
    """Serve until interrupted; says where, and whether the unit's socket is expected (``by_default``: in the folder
    ``run`` keeps without ``--state-dir``, which the line says). ``box``: whether this is a box's service, whose
    calculator is written from paired phones only (:func:`unit.web.app.create_app`); ``wifi_status``: the box's Wi-Fi
    helper's status file (:func:`unit.web.address.read_wifi_status`). A port in use or an address
    that is not this machine's is one line (:func:`listen`), exit status 2: systemd does not restart it for ever."""
    where = url(host, port)
    listener = listen(host, port, where)
    app = create_app(state_dir, language, data_dir, box, wifi_status)
    app.state.web.hub.listening = (host, port)  # the unit shows it on its phone screen
    names = guard.BoxNames()  # one source: the addresses said here are the ones the Host check lets in
    checked = guard.HostCheck(app, names, language)
    config = uvicorn.Config(**options(checked, host, port, guard.Shares(language=language)))
    server = Server(config, app.state.web.hub)
    words = i18n.words(language)  # said in the pages' own language, French by default
    print(words("web.serving", where=escape(", ".join(serving_urls(host, port, names)))), flush=True)
    if state_dir is None:
        print(words("web.serving_no_unit"), flush=True)
    else:  # where the unit's socket is looked for: a unit started with another --state-dir is not found
        print(words("web.serving_unit" if by_default else "web.serving_unit_given", dir=escape(state_dir)), flush=True)
    if not app.state.web.box:  # a laptop's: nobody can pair until a unit runs beside it
        print(words("web.serving_open"), flush=True)
    # The program as started (its modules, templates, editions) lives as long as the service: a full collection
    # need not look through it again. Without this, one every hundred payments or so took 20 ms of CPU (under
    # 10 % of a core, a payment's 100 ms; benchmarks/web_bank.py); now 3.
    gc.collect()
    gc.freeze()
    server.run(sockets=[listener])


class Server(uvicorn.Server):
    """uvicorn's server, which tells systemd when it answers and ends the live streams first when it stops.

    Ready: ``READY=1`` once it listens (``Type=notify``), when the box's service caps it to a tenth of one core
    (its ``ExecStartPost=``): its start-up alone runs at full speed, at low priority.
    Stopping: a live stream never ends by itself: uvicorn would wait ``timeout_graceful_shutdown`` for it, then
    cancel it and log a traceback (« Exception in ASGI application ») at every stop or shutdown of a box with a
    phone on its live page. Ended first, each stream is a finished response, and the service stops at once."""

    def __init__(self, config: uvicorn.Config, hub: UnitHub, notifier: Notifier | None = None) -> None:
        super().__init__(config)
        self.hub = hub
        self.notifier = notifier or Notifier()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.notifier.notify("READY=1")

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.hub.end_streams()
        await super().shutdown(sockets)


def url(host: str, port: int) -> str:
    """``http://HOST:PORT/`` (an IPv6 address in brackets, no port for 80)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}/" if port == 80 else f"http://{shown}:{port}/"


def serving_urls(host: str, port: int, names: guard.BoxNames) -> list[str]:
    """The addresses a phone can open for a service listening on ``host``: on every address (0.0.0.0, ::), the
    box's ``NAME.local``, its IP addresses and localhost (this machine), as ``names`` (the Host check's) knows
    them; else ``host`` itself."""
    if host not in ANY_HOSTS:
        return [url(host, port)]
    return [url(name, port) for name in names.openable()]


def listen(host: str, port: int, where: str) -> socket.socket:
    """The listening socket, bound here rather than by uvicorn (which logs the error and exits 1): a port in use
    is ``--port: cannot listen on http://0.0.0.0:8080/: Address already in use``, a name that does not resolve
    or is not this machine's the same with ``--host``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn's own bind_socket()
    try:
        return socket.create_server((host, port), family=family, backlog=2048)
    except OSError as error:
        argument = "port" if error.errno in (errno.EADDRINUSE, errno.EACCES) else "host"
        why = (error.strerror or str(error)).partition(" (while attempting")[0]  # the address is said already
        raise ArgumentError(argument, Text("cli.cannot_listen", address=where, why=why)) from None


def options(app: guard.App, host: str, port: int, shares: guard.Shares) -> dict[str, Any]:
    """uvicorn's settings for the phone companion (the tests serve with the same ones)."""
    return dict(
        app=app,
        http=guard.protocol(shares),  # deadlines for each request's head and body, fair shares per address
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,  # the client address is the real one (the pairing rate limit counts by it)
        limit_concurrency=shares.limits.connections + 64,  # a last bound: the shares keep connections under theirs
        timeout_keep_alive=5,  # an idle kept-alive connection; a slow request is guard's deadlines' business
        timeout_graceful_shutdown=3,  # a request still under way at a stop (the live streams end first: Server)
        h11_max_incomplete_event_size=16 * 1024,  # bounded request line and headers
        lifespan="on",
    )
