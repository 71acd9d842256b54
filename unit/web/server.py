"""Run the web application under uvicorn: ``monopoly-city serve``."""

from __future__ import annotations

import logging

import uvicorn

from unit import i18n
from unit.web.app import create_app

log = logging.getLogger(__name__)


def serve(host: str, port: int, state_dir: str | None, language: str, data_dir: str | None = None) -> None:
    """Serve until interrupted; says where, and whether the unit's socket is expected."""
    app = create_app(state_dir, language, data_dir)
    app.state.web.hub.listening = (host, port)  # the unit shows it on its phone screen
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,  # the client address is the real one (the pairing rate limit counts by it)
        limit_concurrency=256,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3,  # the live streams never end by themselves
        h11_max_incomplete_event_size=16 * 1024,  # bounded request line and headers
        lifespan="on",
    )
    server = uvicorn.Server(config)
    where = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    words = i18n.words(language)  # said in the pages' own language, French by default
    print(words("web.serving", where=where), flush=True)
    if state_dir is None:
        print(words("web.serving_no_unit"), flush=True)
    server.run()
