"""The unit's Unix socket for the phone companion: lines in, lines out, and nobody waited for.

This module knows sockets and threads, not what the lines say (that is
:mod:`unit.core.protocol`, read by :mod:`unit.app.link`). Each client has a
bounded queue of lines to send, a writer thread and a reader thread; a line
for every client is queued without waiting, and a client whose queue is full
is dropped: the runtime's loop never waits for a phone.

The clients are few (the web service holds one or two): beyond
:data:`MAX_CLIENTS` a newcomer is told so in one line and hung up at once, so a
thousand connections cost the unit a thousand accepts, not two thousand
threads. The accept thread never ends while the socket is open: out of file
descriptors (EMFILE, ENFILE), or failing in any way that could come back at
once, it says so once and tries again after :data:`ACCEPT_PAUSE`; a client
whose threads cannot start is hung up.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import queue
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from unit.core.events import Button
from unit.core.protocol import ErrorRecord

log = logging.getLogger(__name__)

QUEUE_SIZE = 512  # lines waiting for one client; a client this far behind is dropped
MAX_LINE = 4096  # bytes in one line from a client
SEND_TIMEOUT = 5.0  # seconds a client may take to accept one write
BACKLOG = 16
MAX_CLIENTS = 8  # the web service needs one or two; the rest are refused at once
ACCEPT_PAUSE = 0.5  # seconds before accepting again once the process or the system ran out of files
#: accept() failing for one client only (gone before it was accepted): the next is tried at once
GONE = frozenset({errno.ECONNABORTED, errno.EPROTO, errno.EINTR})


class Handler(Protocol):
    """What the server tells about its clients (the link)."""

    def greeting(self) -> bytes:
        """The first line a new client gets (the snapshot); made under the server's lock."""

    def receive(self, client: Client, line: bytes) -> None:
        """One line from ``client`` (on its reader thread)."""

    def gone(self, client: Client) -> None:
        """``client`` hung up or was dropped (once)."""


class Client:
    """One connection: a bounded queue of lines to send, a writer thread and a reader thread."""

    def __init__(self, server: SocketServer, conn: socket.socket, number: int):
        self.server = server
        self.conn = conn
        self.number = number
        self.lines: queue.Queue[bytes | None] = queue.Queue(QUEUE_SIZE)
        self.held: set[Button] = set()  # buttons this client pressed and did not release
        self.closed = False

    def offer(self, line: bytes) -> bool:
        """Queue a line without waiting; False when the client is too far behind (then it is dropped)."""
        try:
            self.lines.put_nowait(line)
            return True
        except queue.Full:
            return False

    def send(self, line: bytes) -> None:
        """Queue a line for this client only (an answer); a client too far behind is hung up."""
        if not self.offer(line):
            self.close()

    def close(self) -> None:
        """Hang up now (a client too far behind): a write in progress fails at once."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self.conn.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(queue.Full):
            self.lines.put_nowait(None)

    def end(self) -> None:
        """Hang up once what is queued is sent (the last answer to a client that misbehaved)."""
        try:
            self.lines.put_nowait(None)
        except queue.Full:
            self.close()

    def write_loop(self) -> None:
        try:
            while (line := self.lines.get()) is not None:
                self.conn.sendall(line)
        except OSError:
            pass  # gone, hung up, or too slow to take one write in SEND_TIMEOUT
        finally:
            self.closed = True
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_RDWR)
            self.conn.close()
            self.server.drop(self)

    def read_loop(self) -> None:
        buffer = b""
        try:
            while not self.closed:
                chunk = self.conn.recv(4096)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        self.server.handler.receive(self, line)
                if len(buffer) > MAX_LINE:
                    self.send(ErrorRecord(f"message longer than {MAX_LINE} bytes").line())
                    break
        except OSError:
            pass
        finally:
            self.server.drop(self)
            self.end()


class SocketServer:
    """Listens on ``path`` (this user and its group: the web service's user is in the unit's group, and reaches
    nothing else of the state folder), greets each client, and queues lines for all of them."""

    def __init__(self, path: Path, handler: Handler):
        self.path = path
        self.handler = handler
        self.dropped = 0  # clients dropped for falling behind (a figure for the benchmark)
        self._lock = threading.Lock()  # the clients, and the order of greetings and lines
        self._clients: list[Client] = []
        self._count = 0
        self._server: socket.socket | None = None
        self._closing = threading.Event()  # set by close(): ends a pause of the accept thread at once
        self.refused = 0  # clients hung up at once: over MAX_CLIENTS, or their threads could not start
        self.accept_pauses = 0  # pauses for want of file descriptors (a figure for the tests)
        self._said: set[str] = set()  # the troubles already logged, until they end (one line each)

    def start(self) -> bool:
        """Listen on the socket; False, with a warning, when it cannot."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()  # left by a unit that was killed
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as error:
            log.warning("web link: no socket: %s (the phones will not see the unit)", error)
            return False
        try:
            old = os.umask(0o117)  # srw-rw----: the unit's group may connect (systemd/monopoly-city-web.service)
            try:
                server.bind(str(self.path))
            finally:
                os.umask(old)
            server.listen(BACKLOG)
        except OSError as error:
            server.close()
            log.warning("web link: cannot listen on %s: %s (the phones will not see the unit)", self.path, error)
            return False
        self._server = server
        threading.Thread(target=self._accept_loop, name="link-accept", daemon=True).start()
        return True

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def close(self) -> None:
        self._closing.set()
        server, self._server = self._server, None
        if server is not None:
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)
            server.close()
            with contextlib.suppress(OSError):
                self.path.unlink()
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            client.close()

    def broadcast(self, line: bytes, update: Callable[[], None] | None = None) -> None:
        """Queue ``line`` for every client; drop those too far behind.

        ``update`` runs first under the lock that greetings are made under: a
        change it makes to the greeting (the snapshot) reaches a new client
        either in its greeting or as this line, never both and never neither.
        """
        late = []
        with self._lock:
            if update is not None:
                update()
            for client in self._clients:
                if not client.offer(line):
                    late.append(client)
        for client in late:
            log.warning("web link: client %d too slow, dropped", client.number)
            self.dropped += 1
            client.close()

    def drop(self, client: Client) -> None:
        """Forget a client (its threads call this as they end); the handler hears of it once."""
        with self._lock:
            if client not in self._clients:
                return
            self._clients.remove(client)
        self.handler.gone(client)

    def _accept_loop(self) -> None:
        """Accept clients until the socket is closed, whatever accept() says meanwhile."""
        while (server := self._server) is not None:
            try:
                conn, _ = server.accept()
            except OSError as error:
                if self._server is None:
                    return  # closed
                if error.errno in GONE:
                    continue  # that client only: the next one is served at once
                # Out of files (EMFILE, ENFILE) or anything else that could come back at once: never a spin.
                self.accept_pauses += 1
                self._say_once("accept", "web link: %s: new clients wait (again in %.1f s)", error, ACCEPT_PAUSE)
                self._closing.wait(ACCEPT_PAUSE)
                continue
            self._said.discard("accept")
            self._admit(conn)

    def _admit(self, conn: socket.socket) -> None:
        """Greet a new client and start its threads; refuse it at once if there are enough already or its
        threads cannot start."""
        with self._lock:
            full = len(self._clients) >= MAX_CLIENTS
        if full:
            self._say_once("full", "web link: %d clients already: newcomers are refused", MAX_CLIENTS)
            self._refuse(conn, TOO_MANY)
            return
        self._said.discard("full")
        try:
            conn.settimeout(None)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(SEND_TIMEOUT))
        except OSError as error:  # a client gone at once: the next one is served all the same
            log.warning("web link: a client could not be set up (%s)", error)
            conn.close()
            return
        with self._lock:
            self._count += 1
            client = Client(self, conn, self._count)
            client.offer(self.handler.greeting())
            self._clients.append(client)
        try:
            writer = threading.Thread(target=client.write_loop, name=f"link-write-{client.number}", daemon=True)
            writer.start()
        except RuntimeError as error:  # "can't start new thread": the tasks' limit
            self._say_once("threads", "web link: %s: client %d refused", error, client.number)
            self.drop(client)
            self._refuse(conn, NO_THREAD)
            return
        try:
            threading.Thread(target=client.read_loop, name=f"link-read-{client.number}", daemon=True).start()
        except RuntimeError as error:
            self._say_once("threads", "web link: %s: client %d refused", error, client.number)
            self.refused += 1
            client.close()  # its writer ends, closes the socket and drops it
            return
        self._said.discard("threads")

    def _refuse(self, conn: socket.socket, line: bytes) -> None:
        """Say why in one line if it goes without waiting, and hang up."""
        self.refused += 1
        with contextlib.suppress(OSError):
            conn.send(line, socket.MSG_DONTWAIT)
        conn.close()

    def _say_once(self, trouble: str, message: str, *args: object) -> None:
        """Log a trouble once, until it ends (then once more if it comes back)."""
        if trouble not in self._said:
            self._said.add(trouble)
            log.warning(message, *args)


TOO_MANY = ErrorRecord(f"too many clients (at most {MAX_CLIENTS})").line()
NO_THREAD = ErrorRecord("the unit cannot serve another client now").line()


def _timeval(seconds: float) -> bytes:
    import struct

    return struct.pack("ll", int(seconds), int((seconds % 1) * 1e6))
