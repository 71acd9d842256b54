"""The web service's end of the unit's socket (unit/app/link.py), and the fan-out to every page.

One connection to the unit, kept open and reopened when the unit restarts;
every record it sends goes to each page's event stream through a bounded
queue: a page that falls behind loses its stream (the browser reconnects and
gets a fresh snapshot), it never slows the others or the unit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from pathlib import Path
from typing import Any

from unit.web.address import phone_card

log = logging.getLogger(__name__)

SOCKET_NAME = "unit.sock"  # the same name as unit.app.link.SOCKET_NAME (the web side imports no unit side)
STREAM_QUEUE = 256  # records waiting for one page
MAX_LINE = 1 << 20  # one record from the unit
RECONNECT_SECONDS = 1.0
ANSWER_SECONDS = 3.0  # the unit answers a pairing or settings request within this
ANNOUNCE_SECONDS = 30.0  # how often the addresses are looked at again (a DHCP lease may change them)
#: What pages may see: the pairing code, pairing answers and errors stay between the unit and the service.
PUBLIC_KINDS = {"snapshot", "state", "led", "sound", "screen", "build", "system", "resume", "settings", "unit"}


class Subscriber:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict | None] = asyncio.Queue(STREAM_QUEUE)
        self.dropped = False

    def offer(self, obj: dict | None) -> None:
        try:
            self.queue.put_nowait(obj)
        except asyncio.QueueFull:
            self.dropped = True  # the stream ends; the browser reconnects and starts from a snapshot
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)


class UnitHub:
    """The unit as the pages see it: a snapshot, a stream of records, a way to send it messages."""

    def __init__(self, state_dir: str | Path | None):
        self.path = Path(state_dir) / SOCKET_NAME if state_dir else None
        self.snapshot: dict[str, Any] = {"kind": "snapshot", "unit": False}
        self.generation: str | None = None  # the unit's pairing generation (a new game renews it)
        self.subscribers: set[Subscriber] = set()
        self._writer: asyncio.StreamWriter | None = None
        self._answers: dict[str, asyncio.Future] = {}
        self._settings_lock = asyncio.Lock()
        self._settings_answer: asyncio.Future | None = None
        self._task: asyncio.Task | None = None
        #: (host, port) the service listens on: the unit shows it on its phone screen (None: not told)
        self.listening: tuple[str, int] | None = None
        self._announced: dict | None = None
        self._announce_now = asyncio.Event()
        self._announcer: asyncio.Task | None = None

    @property
    def connected(self) -> bool:
        return self._writer is not None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())
        self._announcer = asyncio.create_task(self._announce())

    async def stop(self) -> None:
        for task in (self._task, self._announcer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for subscriber in list(self.subscribers):
            subscriber.offer(None)

    def subscribe(self) -> Subscriber:
        subscriber = Subscriber()
        subscriber.offer(dict(self.snapshot))
        self.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    def _broadcast(self, obj: dict) -> None:
        for subscriber in list(self.subscribers):
            subscriber.offer(obj)
            if subscriber.dropped:
                self.subscribers.discard(subscriber)

    # --- the connection ------------------------------------------------------------------------------

    async def _run(self) -> None:
        while self.path is not None:
            try:
                reader, writer = await asyncio.open_unix_connection(str(self.path), limit=MAX_LINE)
            except OSError:
                await asyncio.sleep(RECONNECT_SECONDS)
                continue
            self._writer = writer
            self._announced = None
            self._announce_now.set()
            try:
                while line := await reader.readline():
                    self._receive(line)
            except (OSError, ValueError):
                pass
            finally:
                self._writer = None
                writer.close()
                self.generation = None
                self.snapshot = {"kind": "snapshot", "unit": False}
                self._broadcast({"kind": "unit", "connected": False})
                for future in self._answers.values():
                    future.cancel()
            await asyncio.sleep(RECONNECT_SECONDS)

    def _receive(self, line: bytes) -> None:
        try:
            obj = json.loads(line)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        kind = obj.get("kind")
        if kind == "snapshot":
            self.generation = obj.pop("pairing", None)
            obj.pop("code_pending", None)
            self.snapshot = obj | {"unit": True}
            self._broadcast(dict(self.snapshot))
            return
        if kind == "pairing":
            self.generation = obj.get("generation")
            return
        if kind == "paired":
            future = self._answers.pop(str(obj.get("id")), None)
            if future is not None and not future.done():
                future.set_result(obj)
            return
        if kind == "error" and obj.get("about") == "phone":  # the address for the OLED, not a settings answer
            log.warning("the unit refused the address to show: %s", obj.get("error"))
            return
        if kind in ("settings", "error") and self._settings_answer is not None and not self._settings_answer.done():
            self._settings_answer.set_result(obj)
        self._fold(obj)
        if kind in PUBLIC_KINDS:
            self._broadcast(obj)

    def _fold(self, obj: dict) -> None:
        """A record folded into a new snapshot: pages rendered on worker threads read the old one whole."""
        kind, snap = obj.get("kind"), dict(self.snapshot)
        if "t" in obj:
            snap["t"] = obj["t"]
        if kind == "state":
            snap["state"] = obj["state"]
        elif kind == "led":
            snap["led"] = {k: v for k, v in obj.items() if k in ("mode", "hz")}
        elif kind == "screen":
            snap["screen"] = {"text": obj.get("text", ""), "view": obj.get("view")}
            if (obj.get("view") or {}).get("name") == "ready":
                snap["clock"] = obj["view"]
        elif kind == "build":
            snap["build"] = obj.get("result")
        elif kind == "settings":
            snap["settings"] = obj.get("settings")
        self.snapshot = snap

    async def send(self, obj: dict) -> bool:
        """Send one message to the unit; False when no unit is there."""
        writer = self._writer
        if writer is None:
            return False
        writer.write((json.dumps(obj, ensure_ascii=False) + "\n").encode())
        try:
            await asyncio.wait_for(writer.drain(), ANSWER_SECONDS)
        except (OSError, TimeoutError):
            return False
        return True

    async def _announce(self) -> None:
        """Tell the unit where the phones find this service: on connect, and again when it changes."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._announce_now.wait(), ANNOUNCE_SECONDS)
            self._announce_now.clear()
            if self.listening is None or self._writer is None:
                continue
            try:
                card = phone_card(*self.listening)
            except Exception:  # an address that cannot be put in a QR code must not end the service
                log.exception("the phone's address for the unit")
                continue
            if card != self._announced and await self.send({"phone": card}):
                self._announced = card

    # --- requests that wait for the unit's answer -----------------------------------------------------

    async def check_code(self, code: str) -> bool:
        """Ask the unit whether ``code`` is the pairing code it shows."""
        ident = secrets.token_hex(8)
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._answers[ident] = future
        try:
            if not await self.send({"pair": {"code": code, "id": ident}}):
                return False
            answer = await asyncio.wait_for(future, ANSWER_SECONDS)
        except (TimeoutError, asyncio.CancelledError):
            return False
        finally:
            self._answers.pop(ident, None)
        if answer.get("ok"):
            self.generation = answer.get("generation", self.generation)
        return bool(answer.get("ok"))

    async def change_settings(self, changes: dict) -> tuple[bool, str]:
        """Send settings; (True, "") once the unit applied them, (False, its error line) otherwise."""
        async with self._settings_lock:
            self._settings_answer = asyncio.get_running_loop().create_future()
            try:
                if not await self.send({"settings": changes}):
                    return False, "no unit"
                answer = await asyncio.wait_for(self._settings_answer, ANSWER_SECONDS)
            except TimeoutError:
                return False, "no answer from the unit"
            finally:
                self._settings_answer = None
        if answer.get("kind") == "error":
            return False, str(answer.get("error", ""))
        return True, ""
