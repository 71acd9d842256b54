"""The phone companion tells systemd it is ready (``Type=notify``) once it answers, and not before: the box's
service caps it to a tenth of one core at that moment (its ``ExecStartPost=``), its start-up alone uncapped."""

from __future__ import annotations

import http.client
import socket
import threading

import uvicorn
from helpers import free_port, wait_for

from unit.notify import Notifier
from unit.web import guard, server
from unit.web.app import create_app


def test_ready_is_said_once_the_page_answers(data, tmp_path):
    systemd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    systemd.bind(str(tmp_path / "notify"))
    systemd.settimeout(30)
    app = create_app(None, "fr", str(data))
    port = free_port()
    config = uvicorn.Config(**server.options(app, "127.0.0.1", port, guard.Shares(language="fr")))
    web = server.Server(config, app.state.web.hub, Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify")}))
    thread = threading.Thread(target=web.run, daemon=True)
    try:
        thread.start()
        assert systemd.recv(64) == b"READY=1"
        phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        phone.request("GET", "/remote", headers={"Host": f"127.0.0.1:{port}"})
        assert phone.getresponse().status == 200  # at once: it was listening when it said so
        phone.close()
    finally:
        web.should_exit = True
        thread.join(10)
        systemd.close()
    assert not thread.is_alive()


def test_outside_systemd_nothing_is_said_and_it_serves(data, monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    app = create_app(None, "fr", str(data))
    port = free_port()
    config = uvicorn.Config(**server.options(app, "127.0.0.1", port, guard.Shares(language="fr")))
    web = server.Server(config, app.state.web.hub)
    thread = threading.Thread(target=web.run, daemon=True)
    try:
        thread.start()
        wait_for(lambda: web.started, 10, "the web service to start")
        assert not web.notifier.enabled
    finally:
        web.should_exit = True
        thread.join(10)
