"""The phone companion stopping (``systemctl stop``, a shutdown) with a phone on its live page: the stream ends as a
finished response, and nothing is logged as an error. Seen in the system test's journal before: uvicorn waited 3 s
for the stream, cancelled it and logged « Exception in ASGI application » with a traceback at every shutdown."""

from __future__ import annotations

import http.client
import logging
import threading

import uvicorn
from helpers import free_port, wait_for

from unit.web import guard, server
from unit.web.app import create_app


def test_a_stop_ends_the_live_streams_first_and_logs_no_error(data):
    app = create_app(None, "fr", str(data))
    port = free_port()
    config = uvicorn.Config(**server.options(app, "127.0.0.1", port, guard.Shares(language="fr")))
    web = server.Server(config, app.state.web.hub)
    said: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = said.append  # type: ignore[method-assign]
    uvicorn_log = logging.getLogger("uvicorn.error")
    uvicorn_log.addHandler(handler)
    thread = threading.Thread(target=web.run, daemon=True)
    phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        thread.start()
        wait_for(lambda: web.started, 10, "the web service to start")
        phone.request("GET", "/events", headers={"Host": f"127.0.0.1:{port}"})
        stream = phone.getresponse()
        assert stream.status == 200
        first = [stream.readline() for _ in range(4)]
        assert b"retry: 1000\n" in first and any(line.startswith(b"data: ") for line in first)  # the snapshot

        web.should_exit = True  # what uvicorn does on SIGTERM
        try:
            rest = stream.read()  # to the end of the chunked body: a stream cut off has no last chunk
        except (http.client.HTTPException, ValueError, OSError) as cut:
            raise AssertionError(f"the live stream was cut off, not ended: {cut!r}") from cut
        assert b"data: " not in rest or rest.endswith(b"\n\n")
        thread.join(10)
        assert not thread.is_alive(), "the service did not stop"
    finally:
        phone.close()
        web.should_exit = True
        thread.join(10)
        uvicorn_log.removeHandler(handler)
    assert [record.getMessage() for record in said] == []  # no « Cancel 1 running task(s) », no traceback
