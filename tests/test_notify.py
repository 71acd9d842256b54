"""systemd's notify protocol: READY once the hardware is open, WATCHDOG from the main loop."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.core import Unit
from unit.notify import Notifier


@pytest.fixture
def notify_socket(tmp_path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify.sock")
    server.bind(path)
    server.settimeout(2)
    yield server, path
    server.close()


def drain(server) -> list[str]:
    """The datagrams already on the socket, in order (the sender's send() has queued them: nothing to wait for)."""
    got = []
    server.setblocking(False)
    with contextlib.suppress(BlockingIOError):
        while True:
            got.append(server.recv(256).decode())
    return got


class VirtualGpio(Gpio):
    """The gpio backend on mock pins whose wait for the next deadline is a jump of the virtual clock ``now``:
    the loop runs a whole run at once, at the exact times it would wake."""

    def __init__(self, config, now: list[float]):
        super().__init__(config, pin_factory("mock"))
        self.now = now

    def wait(self, timeout):
        assert timeout is not None, "the loop would wait forever: no deadline"
        self.now[0] += timeout


def test_ready_after_the_hardware_opens_then_watchdog_pings_from_the_loop_at_half_the_timeout(notify_socket):
    """READY=1 once the hardware is open, WATCHDOG=1 at once and then every half of WATCHDOG_USEC (0.1 s), from
    the loop, STOPPING=1 at the end: on a virtual clock, each message at its exact time, and all on the socket."""
    server, path = notify_socket
    now = [0.0]
    sent: list[tuple[float, str]] = []

    class Stamped(Notifier):
        def notify(self, message):
            sent.append((now[0], message))
            super().notify(message)

    notifier = Stamped({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    assert notifier.watchdog_interval == 0.1
    config = configuration.load()
    runtime = Runtime(Unit(config), VirtualGpio(config, now), notifier=notifier, until=0.55, clock=lambda: now[0])
    runtime.run()
    pings = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]  # not at 0.6: the run ends at 0.55
    expected = [(0.0, "READY=1")] + [(t, "WATCHDOG=1") for t in pings] + [(0.55, "STOPPING=1")]
    assert [m for _, m in sent] == [m for _, m in expected]
    assert [t for t, _ in sent] == pytest.approx([t for t, _ in expected], abs=1e-9)
    assert drain(server) == [m for _, m in expected]  # every one reached the socket, in order


@pytest.mark.slow
def test_a_hung_loop_stops_the_pings(notify_socket):
    server, path = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})  # a ping every 0.05 s
    config = configuration.load()
    runtime = Runtime(Unit(config), Gpio(config, pin_factory("mock")), notifier=notifier)
    runtime.open()
    hung, release = threading.Event(), threading.Event()

    def loop():
        for _ in range(5):
            runtime.step()
        hung.set()
        release.wait(5)  # the loop is stuck: nobody pings any more

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        assert hung.wait(5), "the loop never ran its five steps"
        before = drain(server)  # what the loop sent while it ran
        server.settimeout(0.5)  # ten ping intervals: an absence takes a while to see
        with pytest.raises(TimeoutError):
            print("after the hang:", server.recv(256))
    finally:
        release.set()
        thread.join(2)
        runtime.backend.close()
    assert before[0] == "READY=1" and "WATCHDOG=1" in before


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
