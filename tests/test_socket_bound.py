"""The unit's socket under a crowd (issue 21, item 6): a bound on clients, out of file descriptors, out of threads,
and a thousand connecting clients beside an auction.

The web service needs one or two clients; anything beyond :data:`linkserver.MAX_CLIENTS` is told so and hung up
at once. The accept thread must outlive every failure of accept() and of a thread's start, and the auction's
end must not wait for any of it.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading

import pytest
from helpers import ROOT, LinkClient, RunningUnit, WakeUpNoise, judged_tries, wait_for

from unit.app import linkserver
from unit.app.link import Link
from unit.core.protocol import SOCKET_NAME


def refused(path) -> bytes:
    """What a client gets before its connection ends (it sends nothing)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(path))
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
        return got


def test_a_client_beyond_the_bound_is_refused_at_once_and_a_freed_place_is_taken_again(tmp_path, caplog):
    link = Link(tmp_path, "fr")
    assert link.start()
    try:
        clients = [LinkClient(tmp_path) for _ in range(linkserver.MAX_CLIENTS)]
        assert all(c.next()["kind"] == "snapshot" for c in clients)
        for _ in range(3):
            answer = refused(link.path)  # one line saying why, then the end: no snapshot, no thread
            assert json.loads(answer) == {
                "kind": "error",
                "error": f"too many clients (at most {linkserver.MAX_CLIENTS})",
            }
        assert link.server.clients == linkserver.MAX_CLIENTS and link.server.refused == 3
        assert sum("newcomers are refused" in r.message for r in caplog.records) == 1  # said once
        clients[0].close()
        wait_for(lambda: link.server.clients == linkserver.MAX_CLIENTS - 1, what="the first client gone")
        assert LinkClient(tmp_path).next()["kind"] == "snapshot"
    finally:
        link.close()


def test_a_client_whose_threads_cannot_start_is_refused_and_the_next_is_served(tmp_path, monkeypatch, caplog):
    failing = {"link-write", "link-read"}
    real = threading.Thread

    class Limited(real):
        """A thread that cannot start when its name says so (the tasks' limit reached)."""

        def start(self):
            if any(self.name.startswith(f"{prefix}-") for prefix in failing):
                raise RuntimeError("can't start new thread")
            super().start()

    link = Link(tmp_path, "fr")
    assert link.start()
    monkeypatch.setattr(linkserver.threading, "Thread", Limited)
    try:
        assert b'"snapshot"' not in refused(link.path)  # not even a writer: hung up
        failing = {"link-read"}  # a writer, but no reader: hung up, its writer ends
        refused(link.path)
        wait_for(lambda: link.server.clients == 0, what="the half-started client dropped")
        assert link.server.refused == 2 and sum("can't start new thread" in r.message for r in caplog.records) == 1
        failing = set()
        client = LinkClient(tmp_path)  # the accept thread lives on
        assert client.next()["kind"] == "snapshot"
        client.send({"pair": "request"})
        assert client.next("pairing")["code_pending"] is True
    finally:
        monkeypatch.undo()
        link.close()


OUT_OF_FILES = textwrap.dedent(
    """
    import gc, json, logging, os, resource, sys
    from unit.app import linkserver
    from unit.app.link import Link

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    link = Link(sys.argv[1], "fr")
    assert link.start()
    spare = []

    def take_every_descriptor():
        try:
            while True:
                spare.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass

    take_every_descriptor()
    gc.collect()  # whatever the collector would close later, closed now and taken
    gc.disable()
    take_every_descriptor()
    print("full", flush=True)
    sys.stdin.readline()
    for fd in spare[:8]:
        os.close(fd)
    print("freed", flush=True)
    sys.stdin.readline()
    print(json.dumps({"pauses": link.server.accept_pauses, "clients": link.server.clients}), flush=True)
    """
)


@pytest.mark.slow
def test_out_of_file_descriptors_the_unit_waits_then_accepts_again(tmp_path):
    with subprocess.Popen(
        [sys.executable, "-c", OUT_OF_FILES, str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as unit:
        assert unit.stdout.readline() == "full\n"
        path = str(tmp_path / SOCKET_NAME)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as first, socket.socket(socket.AF_UNIX) as client:
            # A blocked accept() holds the descriptor it will return (Linux reserves it first): the first
            # client may take that one; the next one meets EMFILE.
            first.connect(path)
            client.connect(path)  # in the backlog: accept() fails with EMFILE
            client.settimeout(1.5)
            with pytest.raises(TimeoutError):
                client.recv(65536)  # the time it waits is the input: nothing comes while no file is free
            unit.stdin.write("free\n")
            unit.stdin.flush()
            assert unit.stdout.readline() == "freed\n"
            client.settimeout(5)
            assert json.loads(client.recv(65536).split(b"\n")[0])["kind"] == "snapshot"
            unit.stdin.write("report\n")
            unit.stdin.flush()
            report = json.loads(unit.stdout.readline())
        unit.stdin.close()
        errors = unit.stderr.read()
    assert report["clients"] == 2 and errors.count("Too many open files") == 1, errors  # said once
    # waits on a deadline: a few tries in the 1.5 s (a spin would be hundreds of thousands)
    assert 1 <= report["pauses"] <= 1.5 / linkserver.ACCEPT_PAUSE + 3
    assert "Traceback" not in errors


sys.path.insert(0, str(ROOT / "benchmarks"))
from hostile import CROWD  # noqa: E402  (the crowd of make soak's socket attack: one script for both)

SECONDS = 1.5
TOLERANCE = 0.005  # the auction end's contract (docs/reliability.md): within 5 ms
LOOSE = 0.1  # every auction, crowd or not: twenty times the contract (1,000 clients made it 1.9 s)


@pytest.mark.slow
@pytest.mark.latency
def test_a_thousand_connecting_clients_do_not_make_the_auction_end_late(tmp_path):
    """Up to three auctions, each while a crowd connects to the unit's socket (a thousand at a time, from
    another process): every end within 100 ms of its deadline, one within 5 ms, on the trace's own clock, both
    beyond what the machine did to the unit meanwhile (helpers.WakeUpNoise, helpers.judged_tries)."""
    with RunningUnit(tmp_path, {"auction": {"seconds": SECONDS, "warning_seconds": 0.5}}) as unit:
        unit.press("power")
        wait_for(lambda: unit.runtime.unit.state == "ready")

        def attempt() -> tuple[bool, bool, object]:
            wait_for(lambda: unit.runtime.unit.state == "ready")
            with (
                WakeUpNoise() as noise,
                subprocess.Popen(
                    [sys.executable, "-c", CROWD, str(tmp_path / SOCKET_NAME), str(SECONDS + 1.0)],
                    stdout=subprocess.PIPE,
                    text=True,
                ) as crowd,
            ):
                # The crowd is at the door before the auction starts: the unit has turned some of it away.
                turned_away = unit.link.server.refused
                wait_for(lambda t=turned_away: unit.link.server.refused > t, 10, "the crowd at the unit's socket")
                before = len(unit.trace.records)
                unit.press("auction")
                wait_for(lambda b=before: any(r.get("name") == "sold" for r in unit.trace.records[b:]), SECONDS + 5)
                attempts, _failed = map(int, crowd.communicate(timeout=30)[0].split())
            records = unit.trace.records[before:]
            start = next(r["t"] for r in records if r["kind"] == "state" and r["state"] == "countdown")
            sold = next(r["t"] for r in records if r.get("name") == "sold")
            late = sold - (start + SECONDS)
            beyond = late - noise.excuse(unit.runtime.start + start + SECONDS, late)  # the trace counts from there
            assert unit.link.server.clients <= linkserver.MAX_CLIENTS
            assert late >= -0.001 and beyond < LOOSE, (late, beyond)  # t is in ms
            seen = {"crowd": attempts, "late (ms)": round(late * 1e3), "beyond (ms)": round(beyond * 1e3)}
            # A busy machine slows the crowd too: fewer than a thousand at the door is not the attack to judge.
            return attempts >= 1000, beyond < TOLERANCE, seen

        judged_tries(attempt, "the auction's end within 5 ms of its deadline beyond the machine")
