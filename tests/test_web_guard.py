"""The web service against a stranger on the table's network: deadlines, fair shares per address, the Host.

The audit's scenarios, on the real server (uvicorn with ``unit.web.server.options``, on a free loopback port)
and raw sockets: the stranger connects from other loopback addresses (127.0.0.2 and up, all of them this
machine on Linux), the phone from 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import uvicorn  # noqa: E402
from helpers import free_port, wait_for  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit import i18n  # noqa: E402
from unit.web import editions, guard, server  # noqa: E402
from unit.web import store as store_module  # noqa: E402
from unit.web.app import create_app  # noqa: E402
from unit.web.store import NotSaved, Quota, Store  # noqa: E402

FAST = guard.Limits(head_seconds=0.5, body_seconds=0.5)


@contextlib.contextmanager
def serving(
    limits: guard.Limits | None = None,
    names: guard.BoxNames | None = None,
    shares: guard.Shares | None = None,
    own_listener: bool = False,
) -> Iterator[int]:
    """``monopoly-city serve``'s application and settings (no unit), in a thread: yields the port. ``shares``:
    the test's own, to see what the server took in (else new ones, with ``limits``); ``own_listener``: on the
    listening socket serve binds itself (:func:`server.listen`), not one uvicorn makes."""
    shares = shares or guard.Shares(limits or guard.Limits())
    port = free_port()
    app = create_app(None)
    config = uvicorn.Config(**server.options(guard.HostCheck(app, names), "127.0.0.1", port, shares))
    running = uvicorn.Server(config)
    sockets = [server.listen("127.0.0.1", port, "test")] if own_listener else None
    thread = threading.Thread(target=running.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    wait_for(lambda: running.started, 10, "the web service to start")
    try:
        yield port
    finally:
        running.should_exit = True
        thread.join(10)


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)  # a guard against a hang, never a measure
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def get(port: int, path: str = "/", host: str | None = None, source: str = "127.0.0.1") -> tuple[int, bytes]:
    """A phone's request: the status and the whole answer."""
    with connect(port, source) as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nConnection: close\r\n\r\n".encode()
        )
        data = answer(sock)
    return int(data.split(b" ", 2)[1]), data


class Counting(guard.Shares):
    """The shares, counting the connections and the streams they were asked to take in: a test waits until
    the server has taken in all it sent."""

    connections = 0
    streams = 0

    def admit(self, conn: guard.Connection) -> bool:
        self.connections += 1
        return super().admit(conn)

    def stream(self, conn: guard.Connection) -> bool:
        self.streams += 1
        return super().stream(conn)


def stranger(n: int) -> str:
    """The n-th of the stranger's addresses (127.0.0.2 and up)."""
    return f"127.0.{(n + 2) // 250}.{(n + 2) % 250 or 250}"


class NoDelaySeen(guard.Shares):
    """The shares, noting whether each connection they take in sends without waiting (TCP_NODELAY)."""

    def __init__(self, limits: guard.Limits) -> None:
        super().__init__(limits)
        self.no_delay: list[int] = []

    def admit(self, conn: guard.Connection) -> bool:
        sock = conn.transport.get_extra_info("socket")  # type: ignore[attr-defined]
        self.no_delay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        return super().admit(conn)


def test_an_answer_on_serves_own_listener_is_sent_without_waiting_for_the_clients_ack() -> None:
    """serve binds its listener itself (one line for a port in use) and asyncio then leaves TCP_NODELAY off: a
    kept-alive answer's body waited for the client's delayed ACK, 40 ms a request (found by hostile.py --web's
    card check: 2 ms of CPU, 44 ms to the last byte)."""
    shares = NoDelaySeen(guard.Limits())
    with serving(shares=shares, own_listener=True) as port:
        assert get(port)[0] == 200
    assert shares.no_delay and all(shares.no_delay), shares.no_delay


# --- deadlines ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_300_connections_that_never_finish_a_request_line_leave_the_phone_its_page() -> None:
    with serving() as port:
        held = [connect(port, "127.0.0.2") for _ in range(300)]
        for sock in held:
            sock.sendall(b"GET / HT")  # and never more
        status, page = get(port)
        assert status == 200 and b"<html" in page
        for sock in held:
            sock.close()


@pytest.mark.slow
def test_600_slow_connections_from_many_addresses_leave_the_phone_its_page() -> None:
    """More than every place (512): the phone takes one back from a stranger's oldest unfinished request."""
    shares = Counting()
    with serving(shares=shares) as port:
        held = [connect(port, stranger(n)) for n in range(600)]
        for sock in held:
            sock.sendall(b"GET / HT")
        wait_for(lambda: shares.connections == 600, 10, "the server to take them all in before the phone comes")
        for _ in range(3):  # a phone loading the page three times: one place taken back each time
            status, _page = get(port)
            assert status == 200
        for sock in held:
            sock.close()


def test_a_request_head_that_does_not_come_in_time_is_answered_408_and_closed() -> None:
    with serving(FAST) as port, connect(port) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the blank line never comes
        assert answer(sock).startswith(b"HTTP/1.1 408 ")


def test_a_connection_that_sends_nothing_is_closed_at_the_head_deadline() -> None:
    with serving(FAST) as port, connect(port) as sock:
        assert answer(sock) == b""  # closed, not held


def test_a_kept_alive_connection_gets_the_head_deadline_again_for_its_next_request() -> None:
    with serving(FAST) as port, connect(port) as sock:
        sock.sendall(f"GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        sock.sendall(b"GET / HTTP/1.1\r\n")  # a second request that stalls
        rest = answer(sock)
        assert b"HTTP/1.1 408 " in rest


def test_a_body_that_does_not_come_in_time_is_answered_408_and_closed() -> None:
    with serving(FAST) as port, connect(port) as sock:
        head = f"POST /pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100\r\n"
        sock.sendall((head + "Content-Type: application/x-www-form-urlencoded\r\n\r\ncode=1").encode())
        assert answer(sock).startswith(b"HTTP/1.1 408 ")


def test_a_slow_but_steady_phone_is_served() -> None:
    """The deadline is for the whole head, not between bytes: a head in three pieces within it is served."""
    with serving() as port, connect(port) as sock:
        for piece in (b"GET / HTTP/1.1\r\n", f"Host: 127.0.0.1:{port}\r\n".encode(), b"Connection: close\r\n\r\n"):
            sock.sendall(piece)
            time.sleep(0.1)  # a slow phone: the pace is the input
        assert answer(sock).startswith(b"HTTP/1.1 200 ")


# --- fair shares ---------------------------------------------------------------------------------------


def test_one_address_holds_at_most_its_share_of_connections() -> None:
    limits = guard.Limits()
    with serving(limits) as port:
        held = [connect(port, "127.0.0.2") for _ in range(limits.per_address)]
        for sock in held:
            sock.sendall(b"GET / HT")
        with connect(port, "127.0.0.2") as extra:
            assert answer(extra).startswith(b"HTTP/1.1 503 ")
        for sock in held:
            sock.close()


def test_event_streams_are_limited_per_address_and_a_phone_still_gets_its_own() -> None:
    limits = guard.Limits()
    with serving(limits) as port:
        streams = []
        for _ in range(limits.streams_per_address):
            sock = connect(port, "127.0.0.2")
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")
            streams.append(sock)
        status, text = get(port, "/events", source="127.0.0.2")
        line = "trop de vues en direct depuis cette adresse : fermez un onglet\n"  # the service's language
        assert status == 429 and text.decode().endswith("\r\n\r\n" + line)
        with connect(port) as phone:
            phone.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert phone.recv(4096).startswith(b"HTTP/1.1 200 ")
        for sock in streams:
            sock.close()


@pytest.mark.slow
def test_200_streams_from_many_addresses_leave_the_phone_a_stream() -> None:
    shares = Counting()
    with serving(shares=shares) as port:
        streams = []
        for n in range(200):
            sock = connect(port, stranger(n))
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            streams.append(sock)
        wait_for(lambda: shares.streams == 200, 10, "the server to take in every stream before the phone's")
        with connect(port) as phone:
            phone.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert phone.recv(4096).startswith(b"HTTP/1.1 200 ")  # at most `streams` in all
        for sock in streams:
            sock.close()


@dataclass(eq=False)
class Fake:
    """A connection as the shares see it."""

    key: str
    opened: float
    doing: int = guard.IDLE
    closed: bool = False

    def rank(self) -> int:
        return self.doing

    def close(self) -> None:
        self.closed = True


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.sampled_from([guard.IDLE, guard.ANSWERED])), max_size=120))
def test_no_address_holds_more_than_its_share_and_a_newcomer_always_gets_in(arrivals) -> None:
    limits = guard.Limits(per_address=5, connections=12)
    shares = guard.Shares(limits)
    for t, (who, doing) in enumerate(arrivals):
        conn = Fake(f"10.0.0.{who}", float(t), doing)
        before = [c for held in shares.held.values() for c in held]
        mine = len(shares.held.get(conn.key, []))
        admitted = shares.admit(conn)
        assert all(len(v) <= limits.per_address for v in shares.held.values())
        assert shares.total(shares.held) <= limits.connections
        most = max((len(v) for v in shares.held.values() if v is not shares.held.get(conn.key)), default=0)
        if mine == 0 and (most >= 2 or any(c.doing == guard.IDLE for c in before)):
            assert admitted  # an address holding nothing gets in while another holds more, or one idles
        for held in shares.held.values():
            assert not any(c.closed for c in held)


def test_the_largest_holder_loses_an_idle_connection_before_a_busy_one() -> None:
    shares = guard.Shares(guard.Limits(per_address=8, connections=4))
    busy = [Fake("10.0.0.1", t, guard.ANSWERED) for t in range(2)]
    idle = Fake("10.0.0.1", 5.0)
    for conn in [*busy, idle, Fake("10.0.0.2", 6.0)]:
        assert shares.admit(conn)
    assert shares.admit(Fake("10.0.0.3", 7.0))
    assert idle.closed and not any(c.closed for c in busy)


def test_an_ipv6_device_counts_once_whatever_address_of_its_64_it_uses() -> None:
    assert guard.address_key("2001:db8::1") == guard.address_key("2001:db8::ffff:1234") == "2001:db8::/64"
    assert guard.address_key("::ffff:192.168.1.5") == "192.168.1.5"
    assert guard.address_key("fe80::1%wlan0") == "fe80::/64"


# --- the Host -------------------------------------------------------------------------------------------


class Box:
    """The box's host name and addresses, as the test says they are now."""

    def __init__(self) -> None:
        self.hostname, self.addresses, self.now = "monopoly", ["192.168.1.20"], 0.0

    def names(self) -> guard.BoxNames:
        return guard.BoxNames(lambda: self.hostname, lambda: self.addresses, lambda: self.now)


def test_a_rebound_host_gets_one_line_and_no_page_cookie_or_token() -> None:
    with serving() as port:
        status, data = get(port, "/remote", host=f"attacker.example:{port}")
        assert status == 421
        head, _, body = data.partition(b"\r\n\r\n")
        assert b"set-cookie" not in head.lower() and b"csrf" not in body.lower()
        assert body.count(b"\n") == 1
        assert get(port, "/remote", host=f"127.0.0.1:{port}")[0] == 200
        assert get(port, "/remote", host=f"localhost:{port}")[0] == 200
        assert get(port, "/", host=f"[::1]:{port}")[0] == 200
        assert get(port, "/", host="localhost:1")[0] == 421  # the right name, another port
        assert get(port, "/", host="localhost")[0] == 421  # port 80 is not this one


def test_only_the_box_names_and_addresses_are_served() -> None:
    box = Box()
    app = guard.HostCheck(create_app(None), box.names())
    for host, status in [
        ("monopoly.local:8080", 200),
        ("MONOPOLY.local.:8080", 200),
        ("monopoly:8080", 200),
        ("monopoly-2.local:8080", 200),  # avahi's name when another machine holds monopoly.local
        ("192.168.1.20:8080", 200),
        ("127.0.0.1:8080", 200),
        ("monopoly.local.attacker.example:8080", 421),
        ("192.168.1.21:8080", 421),
        ("monopoly.local:8081", 421),
        ("evil.example:8080", 421),
        ("monopoly.local:8080:8080", 421),
    ]:
        client = TestClient(app, base_url="http://monopoly.local:8080")
        assert client.get("/", headers={"host": host}).status_code == status, host


def test_a_new_address_from_dhcp_is_served_once_read_and_the_old_one_refused() -> None:
    box = Box()
    names = box.names()
    assert names.knows("192.168.1.20", None)
    box.addresses = ["10.0.0.7"]
    assert not names.knows("10.0.0.7", None)  # read less than refresh_seconds ago
    box.now += names.refresh_seconds
    assert names.knows("10.0.0.7", None) and not names.knows("192.168.1.20", None)
    assert names.knows("10.0.0.9", "10.0.0.9")  # the address the connection came in on is always the box's


def test_a_refusal_is_one_line_in_the_pages_language() -> None:
    client = TestClient(guard.HostCheck(create_app(None), Box().names()), base_url="http://monopoly.local:8080")
    french = "ce boîtier ne répond qu'à ses propres noms et adresses (celle affichée sur son écran)\n"
    english = "this box answers only to its own names and addresses (the one on its screen)\n"
    assert client.get("/", headers={"host": "evil.example:8080"}).text == french  # the service's language
    assert client.get("/?lang=en", headers={"host": "evil.example:8080"}).text == english
    client.get("/")  # a session
    csrf = client.get("/remote").text.split('name="csrf" value="')[1].split('"')[0]
    forged = client.post("/press", data={"button": "power", "csrf": csrf}, headers={"origin": "http://evil.example"})
    assert (forged.status_code, forged.text) == (
        403,
        "requête refusée : elle ne vient pas de cette page (un autre site)\n",
    )
    assert client.post("/press", data={"button": "power"}).text == "jeton CSRF absent ou faux : rechargez la page\n"
    assert client.get("/games/nowhere").text == "partie introuvable\n"
    assert client.get("/nowhere").text == "introuvable\n"
    client.get("/?lang=en")  # the page's language chosen: its cookie
    forged = client.post("/press", data={"button": "power", "csrf": csrf}, headers={"origin": "http://evil.example"})
    assert forged.text == "cross-site request refused\n"
    assert client.get("/", headers={"host": "evil.example:8080"}).text == english
    assert client.get("/games/nowhere").text == "no such game\n"


@pytest.mark.parametrize("host", ["a" * 300, "", "monopoly.local:99999x", "[::1", "monopoly local"])
def test_malformed_hosts_are_refused(host: str) -> None:
    client = TestClient(guard.HostCheck(create_app(None), Box().names()), base_url="http://monopoly.local:8080")
    assert client.get("/", headers={"host": host}).status_code == 421


# --- the quota ------------------------------------------------------------------------------------------

CITY = "game: city\nname: x\nhazards: {prison: 4}\ngroups: []\n"


def test_the_folder_holds_at_most_its_count_of_files_and_an_existing_one_can_still_change(tmp_path) -> None:
    store = Store(tmp_path / "data", Quota(files=3))
    for n in range(3):
        store.write("edition", f"e{n}", CITY, None)
    with pytest.raises(NotSaved) as refused:
        store.write("edition", "e3", CITY, None)
    line = refused.value.say(i18n.words("en"))
    assert line == (
        "e3.edition.yaml: not saved: the calculator's folder already holds 3 files (at most 3); "
        "delete one with the command line"
    )
    assert not (tmp_path / "data" / "e3.edition.yaml").exists()
    store.write("edition", "e0", CITY + "# changed\n", store.version("edition", "e0"))


def test_the_folder_holds_at_most_its_size(tmp_path) -> None:
    store = Store(tmp_path / "data", Quota(size=2_000_000))
    for n in range(2):
        store.write("edition", f"big{n}", CITY + "#" * 900_000 + "\n", None)
    with pytest.raises(NotSaved, match="holds 2 MB .at most 2 MB."):
        store.write("edition", "more", CITY + "#" * 300_000 + "\n", None)
    store.write("edition", "big0", CITY, store.version("edition", "big0"))  # smaller: room again
    store.write("edition", "more", CITY + "#" * 300_000 + "\n", None)


def test_nothing_is_written_below_the_free_space_margin(tmp_path) -> None:
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    store = Store(tmp_path / "data", Quota(margin=free + 10**9))  # the unit's saves need more than is free
    with pytest.raises(NotSaved, match="MB stay free for the unit's own saves"):
        store.write("game", "partie", "edition: classic-fr\nplayers: []\n", None)
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


@pytest.fixture
def editor(tmp_path) -> Iterator[TestClient]:
    with TestClient(create_app(None, "en", tmp_path / "data"), base_url="http://box.local") as client:
        token = re.search(r'data-csrf="([^"]+)"', client.get("/editions").text).group(1)
        assert client.post("/editions/new", data={"csrf": token, "name": "ville"}).status_code == 200
        client.headers["x-test-csrf"] = token
        yield client


def save_card(client: TestClient, accept: str = "text/html") -> Any:
    page = client.get("/editions/ville/card").text
    version = re.search(r'name="version" value="([^"]*)"', page).group(1)
    form = {"csrf": client.headers["x-test-csrf"], "version": version, "n": ""}
    form |= {key: "" for key in editions.CARD_FIELDS} | {"name": "Rue", "group": "rouge", "price": "2M"}
    return client.post("/editions/ville/card", data=form, headers={"accept": accept}, follow_redirects=False)


@pytest.mark.parametrize("accept", ["text/html", "application/json"])
def test_an_edition_saved_on_a_read_only_disk_gets_one_line_not_500(editor, monkeypatch, accept) -> None:
    def read_only(path, data) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(store_module, "write_atomically", read_only)
    answer = save_card(editor, accept)
    assert answer.status_code == 507
    line = answer.json()["errors"]["_"] if accept == "application/json" else answer.text
    assert line.strip() == "ville.edition.yaml: cannot write it: Read-only file system (the file is as it was)"


def test_an_edition_saved_below_the_margin_gets_one_line_not_500(editor) -> None:
    web = editor.app.state.web
    web.store.quota = Quota(margin=10**18)
    answer = save_card(editor)
    assert answer.status_code == 507 and answer.text.count("\n") == 1
    assert "stay free for the unit's own saves" in answer.text


def test_a_flood_of_uploads_stops_at_the_quota(editor) -> None:
    editor.app.state.web.store.quota = Quota(files=10)
    token = editor.headers["x-test-csrf"]
    body = (CITY + "#" * 200_000 + "\n").encode()
    kept = 0
    for n in range(20):
        answer = editor.post(
            f"/editions/upload?name=flood{n}",
            content=body,
            headers={"x-csrf-token": token, "accept": "application/json"},
        )
        kept += answer.status_code == 200
        if answer.status_code != 200:
            assert "already holds 10 files" in answer.json()["error"]
    assert kept == 9  # the edition made by the fixture is the tenth


# --- where serve says the pages are: what the Host check accepts -----------------------------------------


def test_serve_names_the_addresses_a_phone_can_open_and_each_is_accepted() -> None:
    from unit.web.server import serving_urls

    box = Box()
    box.hostname, box.addresses = "monopoly.home.example", ["192.168.1.20", "10.0.0.7"]
    names = box.names()
    urls = serving_urls("0.0.0.0", 8080, names)
    assert urls == [
        "http://monopoly.local:8080/",
        "http://10.0.0.7:8080/",
        "http://192.168.1.20:8080/",
        "http://localhost:8080/",
    ]
    assert serving_urls("::", 80, names)[0] == "http://monopoly.local/"
    assert serving_urls("127.0.0.1", 8080, names) == ["http://127.0.0.1:8080/"]
    assert serving_urls("::1", 8080, names) == ["http://[::1]:8080/"]
    app = guard.HostCheck(create_app(None), names)
    for url in urls:
        host = url.removeprefix("http://").rstrip("/")
        client = TestClient(app, base_url="http://monopoly.local:8080")
        assert client.get("/", headers={"host": host}).status_code == 200, host
