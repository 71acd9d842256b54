"""The web service's end of the unit's socket (unit/app/link.py), and the fan-out to every page.

One connection to the unit, kept open and reopened when the unit restarts;
every record it sends goes to each page's event stream through a bounded
queue: a page that falls behind loses its stream (the browser reconnects and
gets a fresh snapshot), it never slows the others or the unit.

It also tells the unit where the phones find the service (:func:`unit.web.address.phone_card`), the box's own
Wi-Fi included: its status file is looked at every :data:`WIFI_POLL_SECONDS`, and a change is told at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
from pathlib import Path
from typing import Any

from unit.core.protocol import (
    SOCKET_NAME,
    BadLine,
    ChangeSettings,
    CheckCode,
    ErrorRecord,
    Kind,
    Message,
    PairedRecord,
    PairingRecord,
    RequestCode,
    SettingsRecord,
    ShowPhone,
    Snapshot,
    UnitRecord,
    fold,
    message_from,
    read_record,
)
from unit.web import WIFI_STATUS_PATH
from unit.web.address import phone_card, read_wifi_status, wifi_signature

log = logging.getLogger(__name__)

STREAM_QUEUE = 256  # records waiting for one page
MAX_LINE = 1 << 20  # one record from the unit
RECONNECT_SECONDS = 1.0
ANSWER_SECONDS = 3.0  # the unit answers a pairing or settings request within this
ANNOUNCE_SECONDS = 30.0  # how often the addresses are looked at again (a DHCP lease may change them)
WIFI_POLL_SECONDS = 2.0  # how often the box's Wi-Fi status file is looked at (an os.stat): its QR on the OLED soon
#: What pages may see: the pairing code, pairing answers and errors stay between the unit and the service.
PUBLIC_KINDS = frozenset(
    {Kind.SNAPSHOT, Kind.STATE, Kind.LED, Kind.SOUND, Kind.SCREEN, Kind.BUILD, Kind.SYSTEM, Kind.RESUME}
    | {Kind.SETTINGS, Kind.UNIT}
)
NO_UNIT = Snapshot(unit=False)

#: A record as a page gets it (JSON data; None ends the page's stream).
PageRecord = dict[str, Any] | None


class Subscriber:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[PageRecord] = asyncio.Queue(STREAM_QUEUE)
        self.dropped = False

    def offer(self, obj: PageRecord) -> None:
        try:
            self.queue.put_nowait(obj)
        except asyncio.QueueFull:
            self.dropped = True  # the stream ends; the browser reconnects and starts from a snapshot
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)


class UnitHub:
    """The unit as the pages see it: a snapshot, a stream of records, a way to send it messages."""

    def __init__(self, state_dir: str | Path | None, wifi_status: str | Path | None = WIFI_STATUS_PATH):
        self.path = Path(state_dir) / SOCKET_NAME if state_dir else None
        #: The box's Wi-Fi helper's status file (unit/web/address.py, read_wifi_status); None: no Wi-Fi to show.
        self.wifi_status = Path(wifi_status) if wifi_status is not None else None
        #: The unit as it stands (protocol.fold); replaced whole, so pages rendered on worker threads read one.
        self.current: Snapshot = NO_UNIT
        self.generation: str | None = None  # the unit's pairing generation (a new game renews it)
        self.subscribers: set[Subscriber] = set()
        self._writer: asyncio.StreamWriter | None = None
        self._answers: dict[str, asyncio.Future[PairedRecord]] = {}
        self._settings_lock = asyncio.Lock()
        self._settings_answer: asyncio.Future[SettingsRecord | ErrorRecord] | None = None
        self._task: asyncio.Task[None] | None = None
        #: (host, port) the service listens on: the unit shows it on its phone screen (None: not told)
        self.listening: tuple[str, int] | None = None
        self._announced: ShowPhone | None = None  # the card the unit was last told
        self._announce_now = asyncio.Event()
        self._announcer: asyncio.Task[None] | None = None
        self._wifi_watcher: asyncio.Task[None] | None = None

    @property
    def connected(self) -> bool:
        return self._writer is not None

    @property
    def snapshot(self) -> dict[str, Any]:
        """The snapshot as the pages get it (JSON data)."""
        return self.current.data()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())
        self._announcer = asyncio.create_task(self._announce())
        self._wifi_watcher = asyncio.create_task(self._watch_wifi())

    async def stop(self) -> None:
        for task in (self._task, self._announcer, self._wifi_watcher):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self.end_streams()

    def end_streams(self) -> None:
        """Every page's live stream ends, as a finished response (its page reconnects when it can)."""
        for subscriber in list(self.subscribers):
            subscriber.offer(None)

    def subscribe(self) -> Subscriber:
        subscriber = Subscriber()
        subscriber.offer(self.snapshot)
        self.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    def _broadcast(self, obj: dict[str, Any]) -> None:
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
                self.current = NO_UNIT
                self._broadcast(UnitRecord(connected=False).data())
                for future in self._answers.values():
                    future.cancel()
            await asyncio.sleep(RECONNECT_SECONDS)

    def _receive(self, line: bytes) -> None:
        try:
            obj = json.loads(line)
        except ValueError:
            return
        record = read_record(obj)
        match record:
            case None:
                return  # a kind this side does not know, or a malformed record
            case Snapshot():
                self.generation = record.pairing
                self.current = dataclasses.replace(record, unit=True, pairing=None, code_pending=None)
                self._broadcast(self.snapshot)
                return
            case PairingRecord(generation=generation):
                self.generation = generation
                return
            case PairedRecord(id=ident):
                future = self._answers.pop(ident, None)
                if future is not None and not future.done():
                    future.set_result(record)
                return
            case ErrorRecord(about="phone"):  # the address for the OLED, not a settings answer
                log.warning("the unit refused the address to show: %s", record.error)
                return
            case SettingsRecord() | ErrorRecord():
                if self._settings_answer is not None and not self._settings_answer.done():
                    self._settings_answer.set_result(record)
        self.current = fold(self.current, record)
        if record.KIND in PUBLIC_KINDS:
            self._broadcast(obj)

    async def send(self, *messages: Message | dict[str, Any]) -> bool:
        """Send messages to the unit; False when no unit is there (or one is not a message the unit takes: then
        none is sent). Several are written together, then awaited once: a tap's press and release go back to back.

        A message may also be given as its JSON data (``{"press": "auction"}``): it is read as the unit
        reads it, so nothing the unit would refuse is sent.
        """
        lines = []
        for message in messages:
            if isinstance(message, dict):
                read = message_from(message)
                if isinstance(read, BadLine):
                    log.warning("not sent to the unit: %s", read.error)
                    return False
                message = read
            lines.append(message.line())
        writer = self._writer
        if writer is None:
            return False
        writer.write(b"".join(lines))
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
                card = phone_card(*self.listening, wifi=read_wifi_status(self.wifi_status))
            except Exception:  # an address that cannot be put in a QR code must not end the service
                log.exception("the phone's address for the unit")
                continue
            checked = message_from({"phone": card})
            if not isinstance(checked, ShowPhone):
                log.warning("the address cannot be shown on the unit: %s", getattr(checked, "error", checked))
                continue
            if checked != self._announced and await self.send(checked):
                self._announced = checked

    async def _watch_wifi(self) -> None:
        """Look at the box's Wi-Fi status file every :data:`WIFI_POLL_SECONDS` (its inode, size and time, not its
        text) and tell the unit at once when it changed: the network's QR code is on the OLED within seconds of
        the access point coming up, not at the next :data:`ANNOUNCE_SECONDS`."""
        seen = wifi_signature(self.wifi_status)
        while self.wifi_status is not None:
            await asyncio.sleep(WIFI_POLL_SECONDS)
            now = wifi_signature(self.wifi_status)
            if now != seen:
                seen = now
                self._announce_now.set()

    # --- requests that wait for the unit's answer -----------------------------------------------------

    async def request_code(self, session: str | None = None) -> bool:
        """Ask the unit to show a pairing code for ``session`` (the asking phone's name for the unit:
        :meth:`unit.web.security.Signer.pairing_session`); False when no unit is there."""
        return await self.send(RequestCode(session))

    async def check_code(self, code: str, session: str | None = None) -> bool:
        """Ask the unit whether ``code`` is the pairing code it shows for ``session``."""
        ident = secrets.token_hex(8)
        future: asyncio.Future[PairedRecord] = asyncio.get_running_loop().create_future()
        self._answers[ident] = future
        try:
            if not await self.send(CheckCode(code, ident, session)):
                return False
            answer = await asyncio.wait_for(future, ANSWER_SECONDS)
        except (TimeoutError, asyncio.CancelledError):
            return False
        finally:
            self._answers.pop(ident, None)
        if answer.ok:
            self.generation = answer.generation or self.generation
        return answer.ok

    async def change_settings(self, changes: dict[str, Any]) -> tuple[bool, str]:
        """Send settings; (True, "") once the unit applied them, (False, its error line) otherwise."""
        async with self._settings_lock:
            self._settings_answer = asyncio.get_running_loop().create_future()
            try:
                if not await self.send(ChangeSettings(changes)):
                    return False, "no unit"
                answer = await asyncio.wait_for(self._settings_answer, ANSWER_SECONDS)
            except TimeoutError:
                return False, "no answer from the unit"
            finally:
                self._settings_answer = None
        if isinstance(answer, ErrorRecord):
            return False, answer.error
        return True, ""
