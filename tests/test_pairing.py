"""Pairing belongs to the banker (issue 21, item 3): strangers on the table's network against the banker's code.

The banker asks for a code on the remote and types it; strangers, each from their own address and with
their own session, ask for codes and type wrong ones. Nothing they do may void the banker's code, hide it
from the unit's screen, or put the banker on 429; the guesses they get stay bounded (docs/phone.en.md,
"What a visitor can and cannot do"). Through the real web application (TestClient, each visitor's address
set by a test-only wrapper), through the hub, on the unit's link, and on PairingGuard's own clock.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import RunningUnit, caught_up, wait_for  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit.app.link import Link  # noqa: E402
from unit.core.protocol import CODE_SECONDS, CODE_TRIES  # noqa: E402
from unit.web.app import create_app  # noqa: E402
from unit.web.hub import UnitHub  # noqa: E402
from unit.web.security import Grant, PairingGuard  # noqa: E402

BANKER = "192.168.1.20"
ADDRESS = "x-test-address"  # read by the test's wrapper only: the service itself counts real addresses


def strangers(n: int) -> list[str]:
    return [f"192.168.1.{100 + k}" for k in range(n)]


def at_address(app):
    """The application, with each request's client address taken from the test's header (the way a real
    phone's address reaches it from uvicorn)."""

    async def wrapped(scope, receive, send):
        if scope["type"] == "http":
            address = dict(scope["headers"]).get(ADDRESS.encode())
            if address is not None:
                scope = dict(scope, client=(address.decode(), 40000))
        await app(scope, receive, send)

    return wrapped


class Visitor:
    """One phone: its own address and its own session (cookie and CSRF token), on the shared test client."""

    def __init__(self, client: TestClient, address: str):
        self.client, self.address = client, address
        client.cookies.clear()
        page = client.get("/remote", headers={ADDRESS: address})
        self.cookie = page.cookies.get("mc_session")
        self.csrf = re.search(r'data-csrf="([^"]+)"', page.text).group(1)

    def post(self, path: str, **fields: str) -> int:
        """The status of a form posted to ``path`` (a 303's own, not where it leads); the session kept."""
        self.client.cookies.clear()
        headers = {ADDRESS: self.address, "cookie": f"mc_session={self.cookie}"}
        response = self.client.post(path, data={"csrf": self.csrf, **fields}, headers=headers, follow_redirects=False)
        self.where = response.headers.get("location", "")
        self.cookie = response.cookies.get("mc_session") or self.cookie
        self.client.cookies.clear()
        return response.status_code

    def ask(self) -> int:
        return self.post("/pair/request")

    def type(self, code: str) -> int:
        return self.post("/pair", code=code)

    @property
    def paired(self) -> bool:
        return self.where.endswith("m=paired")


@pytest.fixture
def unit(tmp_path):
    with RunningUnit(tmp_path) as running:
        yield running


@pytest.fixture
def client(unit, tmp_path):
    app = create_app(tmp_path)
    with TestClient(at_address(app), base_url="http://box.local") as test_client:
        hub = app.state.web.hub
        wait_for(lambda: hub.connected and hub.generation is not None, what="the service to reach the unit")
        yield test_client


def wrong(right: str, n: int = 0) -> str:
    code = f"{n:06d}"
    return code if code != right else "999999"


def banker_asks(client, unit) -> tuple[Visitor, str]:
    banker = Visitor(client, BANKER)
    before = len(unit.codes)
    assert banker.ask() == 303 and banker.where.endswith("m=shown")
    wait_for(lambda: len(unit.codes) > before, what="the banker's code")
    return banker, unit.codes[-1]


# --- through the web application -------------------------------------------------------------------------


def test_strangers_wrong_codes_do_not_void_the_bankers_code(client, unit):
    banker, code = banker_asks(client, unit)
    for address in strangers(3):  # today: five wrong codes from anyone void the one code
        stranger = Visitor(client, address)
        for n in range(CODE_TRIES):
            assert stranger.type(wrong(code, n)) in (303, 429)  # wrong, or over the total of tries
    assert banker.type(code) == 303 and banker.paired


def test_strangers_wrong_codes_from_many_addresses_do_not_put_the_banker_on_429(client, unit):
    banker, code = banker_asks(client, unit)
    statuses = []
    for address in strangers(12):  # 48 wrong codes: over the total of tries (30 a minute before)
        stranger = Visitor(client, address)
        statuses += [stranger.type(wrong(code, n)) for n in range(4)]
    assert statuses.count(429) >= 48 - PairingGuard.TRIES_IN_ALL  # the strangers met the total ...
    assert banker.type(wrong(code)) == 303 and banker.where.endswith("m=wrong")  # ... the banker did not
    assert banker.type(code) == 303 and banker.paired


def test_strangers_asking_for_codes_do_not_lock_the_banker_out(client, unit):
    statuses = []
    for address in strangers(5):  # 15 requests: over the 10 a minute that put everyone on 429 before
        stranger = Visitor(client, address)
        statuses += [stranger.ask() for _ in range(3)]
    assert 429 in statuses  # strangers are bounded ...
    banker, code = banker_asks(client, unit)  # ... the banker is not
    assert unit.runtime.unit._code == code or wait_for(lambda: unit.runtime.unit._code == code)
    assert banker.type(code) == 303 and banker.paired


def test_a_visitor_can_only_use_the_code_its_own_session_asked_for(client, unit):
    _banker, code = banker_asks(client, unit)
    thief = Visitor(client, strangers(1)[0])  # saw the code over the banker's shoulder, other session
    assert thief.type(code) == 303 and thief.where.endswith("m=wrong")
    other = Visitor(client, BANKER)  # the same address, another session (another browser on the phone)
    assert other.type(code) == 303 and other.where.endswith("m=wrong")


def test_one_address_still_gets_only_a_few_guesses(client, unit):
    stranger = Visitor(client, strangers(1)[0])
    assert stranger.ask() == 303
    wait_for(lambda: bool(unit.codes))
    statuses = [stranger.type(wrong(unit.codes[-1], n)) for n in range(20)]
    assert statuses.count(303) == PairingGuard.TRIES_PER_ADDRESS and statuses.count(429) == 20 - statuses.count(303)
    other_session = Visitor(client, stranger.address)  # a new session does not reset the address's count
    assert other_session.type("123456") == 429


# --- through the hub and on the unit's link -----------------------------------------------------------------


def test_the_hub_asks_and_checks_codes_per_session(unit, tmp_path):
    async def scenario() -> list[bool]:
        hub = UnitHub(tmp_path)
        await hub.start()
        try:
            # The one wait, in a worker thread: the hub's event loop goes on meanwhile.
            await asyncio.to_thread(wait_for, lambda: hub.connected, 5, "the hub connected to the unit")
            assert await hub.request_code("banker")
            code = await asyncio.to_thread(unit.shown_code, unit.codes)
            assert await hub.request_code("stranger")  # the stranger's code now covers the banker's
            got = [await hub.check_code(wrong(code, n), "stranger") for n in range(CODE_TRIES)]
            got += [await hub.check_code(code, f"nobody{n}") for n in range(CODE_TRIES)]
            got.append(await hub.check_code(code, "banker"))
            return got
        finally:
            await hub.stop()

    assert asyncio.run(scenario()) == [False] * (2 * CODE_TRIES) + [True]


def test_a_stranger_voiding_its_own_code_leaves_the_bankers_on_the_screen(unit):
    link = unit.link
    link.new_code("stranger")
    banker = link.new_code("banker")  # the newest: on the screen
    wait_for(lambda: unit.runtime.unit._code == banker, what="the banker's code on the screen")
    for n in range(CODE_TRIES):
        assert not link.check_code(wrong(banker, n), "stranger")
    caught_up(unit.runtime)  # the loop has handled whatever the wrong tries asked of it
    assert unit.runtime.unit._code == banker
    assert link.check_code(banker, "banker")
    wait_for(lambda: unit.runtime.unit._code is None, what="the used code off the screen")


def test_a_client_without_sessions_keeps_the_one_code_of_before(tmp_path):
    """An older web service sends {"pair": "request"} and codes without a session: one code, as before."""
    now = [0.0]
    link = Link(tmp_path, "fr", clock=lambda: now[0])
    code = link.new_code()
    assert not link.check_code(wrong(code)) and link.check_code(code)
    banker = link.new_code("banker")
    assert not link.check_code(banker)  # the sessionless client cannot use a session's code


# --- the bounds, on a clock the test drives ---------------------------------------------------------------


class Adversary:
    """Strangers from ``addresses`` addresses, with a new session whenever one helps, asking for codes and
    typing guesses as fast as the guard lets them, on a virtual clock. Counts the guesses that reach a code
    (a try by a session that holds one: at most CODE_TRIES per code, as the unit voids it then)."""

    def __init__(self, addresses: int):
        self.now = 0.0
        self.guard = PairingGuard(clock=lambda: self.now)
        self.addresses = [f"10.0.{k // 250}.{k % 250}" for k in range(addresses)]
        self.codes: dict[str, tuple[float, int]] = {}  # session -> (its code's end, tries left)
        self.guesses = 0
        self.serial = 0

    def session(self) -> str:
        self.serial += 1
        return f"s{self.serial}"

    def second(self) -> None:
        for address in self.addresses:
            session = self.session()
            if self.guard.request(address, session) is not None:
                self.codes[session] = (self.now + CODE_SECONDS, CODE_TRIES)
        for session, (end, left) in list(self.codes.items()):
            address = self.addresses[hash(session) % len(self.addresses)]
            while left and end > self.now and self.guard.try_code(address, session):
                left -= 1
                self.guesses += 1
            self.codes[session] = (end, left)
        self.now += 1.0


@pytest.mark.parametrize(("addresses", "per_minute"), [(1, PairingGuard.TRIES_PER_ADDRESS), (300, None)])
def test_the_guesses_strangers_get_are_bounded(addresses, per_minute):
    adversary = Adversary(addresses)
    minutes = 20
    for _ in range(minutes * 60):
        adversary.second()
    bound = per_minute or PairingGuard.guesses_a_minute()
    assert PairingGuard.guesses_a_minute() <= 30  # 30 guesses a minute in all before
    assert adversary.guesses <= bound * minutes + CODE_TRIES * PairingGuard.REQUESTS_IN_ALL * 2


@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 60), st.sampled_from(["ask", "try"]), st.floats(0, 5)),
        max_size=400,
    )
)
def test_the_asker_of_a_code_within_the_budget_is_never_refused_for_others_sake(events):
    """Whatever strangers do (from 41 addresses, 61 sessions), the banker's tries at the code it asked for
    meet only its own bounds."""
    now = [0.0]
    guard = PairingGuard(clock=lambda: now[0])
    assert guard.request(BANKER, "banker") is Grant.BUDGET
    for address, session, what, pause in events:
        now[0] = min(now[0] + pause, CODE_SECONDS - 1)
        if what == "ask":
            guard.request(f"10.0.0.{address}", f"s{session}")
        else:
            guard.try_code(f"10.0.0.{address}", f"s{session}")
    assert all(guard.try_code(BANKER, "banker") for _ in range(PairingGuard.TRIES_PER_SESSION))
    assert not guard.try_code(BANKER, "banker")  # its own bound


def test_an_addresss_first_request_in_the_hour_passes_whatever_the_budget():
    now = [0.0]
    guard = PairingGuard(clock=lambda: now[0])
    grants = [guard.request("10.0.0.1", f"s{n}") for n in range(4)]
    assert grants == [Grant.BUDGET] * 3 + [None]  # the address's own bound
    assert guard.request("10.0.0.2", "t") is Grant.FRESH  # the budget is spent; a new address still asks
    assert guard.request("10.0.0.2", "u") is None
    # a fresh code's own tries: FRESH_TRIES, whatever the others did; then the total
    for n in range(PairingGuard.TRIES_IN_ALL):
        guard.try_code(f"10.0.1.{n}", f"x{n}")
    assert [guard.try_code("10.0.0.2", "t") for _ in range(3)] == [True] * PairingGuard.FRESH_TRIES + [False]
    now[0] = 61.0
    assert guard.request("10.0.0.2", "u") is Grant.BUDGET
    assert guard.request("10.0.0.3", "v") is Grant.BUDGET
    assert guard.request("10.0.0.4", "w") is Grant.BUDGET
    assert guard.request("10.0.0.2", "x") is None  # spent, and not fresh: asked within the hour
    assert guard.request("10.0.0.1", "y") is Grant.FRESH  # its three were within the budget


def test_fresh_requests_are_bounded_in_all():
    now = [0.0]
    guard = PairingGuard(clock=lambda: now[0])
    grants = [guard.request(f"10.0.{n // 250}.{n % 250}", f"s{n}") for n in range(100)]
    assert grants.count(Grant.BUDGET) == PairingGuard.REQUESTS_IN_ALL
    assert grants.count(Grant.FRESH) == PairingGuard.FRESH_IN_ALL and grants.count(None) == 100 - 3 - 30


def test_a_full_disk_is_said_once_and_leaves_no_temporary_file(tmp_path, monkeypatch, caplog):
    """The pairings cannot be saved (a full disk): one warning for the run, however many renewals, and nothing
    left in the state folder; the next save that succeeds writes the file."""
    import errno
    import os

    from unit import files
    from unit.app.pairing import PAIRING_FILE, Pairing

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", full)
    with caplog.at_level("WARNING", logger="unit.app.pairing"):
        pairing = Pairing(tmp_path)
        pairing.renew()
        pairing.renew()
    lines = [r.getMessage() for r in caplog.records if "cannot save the pairings" in r.getMessage()]
    assert lines == [f"web link: cannot save the pairings in {tmp_path / PAIRING_FILE}: No space left on device"]
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    generation = pairing.renew()
    assert Pairing(tmp_path).generation == generation
