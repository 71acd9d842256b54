"""What the link and web tests share: a unit running in real time with its link, a socket client, a server.

(Named test_web_* to sit with the web tests; it holds no test itself.)
"""

from __future__ import annotations

import contextlib
import io
import json
import queue
import socket
import threading
import time
from pathlib import Path

from unit.app import config as configuration
from unit.app.link import Link
from unit.app.runtime import Runtime
from unit.app.scenario import Step
from unit.app.trace import TraceWriter
from unit.backends.headless import Headless
from unit.core import Pressed, Released, Unit
from unit.core.protocol import SOCKET_NAME


class StampedTrace(TraceWriter):
    """The ``--trace`` writer, keeping each record with the wall-clock time it was written."""

    def __init__(self, language: str):
        super().__init__(io.StringIO(), language)
        self.stamped: list[tuple[float, dict]] = []

    def write_record(self, obj: dict) -> None:
        self.stamped.append((time.time(), obj))
        super().write_record(obj)

    @property
    def records(self) -> list[dict]:
        return [obj for _, obj in self.stamped]


class RunningUnit:
    """A unit in real time on the headless backend, in a thread, with its link on ``state_dir``."""

    def __init__(self, state_dir: Path, config: dict | None = None, script: list[Step] | None = None, **link_args):
        self.config = configuration.load((config or {}, "test"))
        self.trace = StampedTrace(self.config.language)
        self.link = Link(state_dir, self.config.language, trace=self.trace, **link_args)
        self.runtime = Runtime(Unit(self.config), Headless(self.config.language), trace=self.link, script=script)
        self.link.attach(self.runtime)
        self.thread = threading.Thread(target=self.runtime.run, daemon=True)

    def __enter__(self) -> RunningUnit:
        assert self.link.start()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.runtime.stop()
        self.thread.join(5)
        self.link.close()

    def press(self, button: str) -> None:
        self.runtime.post(Pressed(button))
        self.runtime.post(Released(button))

    def shown_code(self, codes: list[str]) -> str:
        """The pairing code the unit shows (the link makes it on its own thread, just after the request)."""
        self.wait_for(lambda: bool(codes))
        return codes[-1]

    def wait_for(self, predicate, timeout: float = 5.0) -> None:
        end = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < end, "timed out"
            time.sleep(0.01)


class LinkClient:
    """A client of the unit's socket, reading records in a thread."""

    def __init__(self, state_dir: Path, *, read: bool = True):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(Path(state_dir) / SOCKET_NAME))
        self.records: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        if read:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while chunk := self.sock.recv(65536):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self.records.put(json.loads(line))
        self.records.put({"kind": "closed"})
        self.sock.close()

    def send(self, obj: dict) -> None:
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def next(self, kind: str | None = None, timeout: float = 5.0, **match) -> dict:
        """The next record (of ``kind``, with fields equal to ``match``), skipping others."""
        end = time.monotonic() + timeout
        while True:
            obj = self.records.get(timeout=max(0.01, end - time.monotonic()))
            self.seen.append(obj)
            if (kind is None or obj["kind"] == kind) and all(obj.get(k) == v for k, v in match.items()):
                return obj

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(state_dir: Path | None, language: str = "fr"):
    """The web application under uvicorn in a thread, on a free loopback port: yields its base URL."""
    import uvicorn

    from unit.web.app import create_app

    port = free_port()
    app = create_app(state_dir, language)
    app.state.web.hub.listening = ("127.0.0.1", port)  # as server.py does: the unit shows it
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < end, "the web service did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
