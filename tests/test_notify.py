"""systemd's notify protocol: READY once the hardware is open, WATCHDOG from the main loop."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from unit.app import config as configuration
from unit.app.notify import Notifier
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.core import Unit


@pytest.fixture
def notify_socket(tmp_path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify.sock")
    server.bind(path)
    server.settimeout(2)
    yield server, path
    server.close()


def receive_all(server, seconds):
    got = []
    end = time.monotonic() + seconds
    server.settimeout(0.05)
    while time.monotonic() < end:
        try:
            got.append((time.monotonic(), server.recv(256).decode()))
        except TimeoutError:
            pass
    return got


def test_ready_after_the_hardware_opens_then_watchdog_pings(notify_socket):
    server, path = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    assert notifier.watchdog_interval == 0.1
    config = configuration.load()
    runtime = Runtime(Unit(config), Gpio(config, pin_factory("mock")), notifier=notifier, until=0.55)
    runtime.run()
    messages = [m for _, m in receive_all(server, 0.2)]
    assert messages[0] == "READY=1"
    assert 5 <= messages.count("WATCHDOG=1") <= 7  # every 0.1 s for 0.55 s, from the loop
    assert messages[-1] == "STOPPING=1"


@pytest.mark.slow
def test_a_hung_loop_stops_the_pings(notify_socket):
    server, path = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})
    config = configuration.load()
    runtime = Runtime(Unit(config), Gpio(config, pin_factory("mock")), notifier=notifier)
    runtime.open()
    hang = threading.Event()

    def loop():
        for _ in range(5):
            runtime.step()
        hang.wait(5)  # the loop is stuck: nobody pings any more

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    time.sleep(0.35)
    before = [m for _, m in receive_all(server, 0.05)]  # what the loop sent while it ran
    pings = [t for t, m in receive_all(server, 0.5) if m == "WATCHDOG=1"]
    hang.set()
    thread.join(2)
    runtime.backend.close()
    assert before[0] == "READY=1" and "WATCHDOG=1" in before
    assert pings == []


def test_abstract_socket_and_no_socket():
    assert Notifier({}).enabled is False
    Notifier({}).notify("READY=1")  # a no-op, no error
    assert Notifier({"NOTIFY_SOCKET": "@some/name"}).address == "\0some/name"
    assert Notifier({"WATCHDOG_USEC": "30000000"}).watchdog_interval == 15.0


def test_an_unreachable_socket_is_logged_once(tmp_path, caplog):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "missing.sock")})
    notifier.notify("READY=1")
    notifier.notify("WATCHDOG=1")
    assert caplog.text.count("cannot notify systemd") == 1
