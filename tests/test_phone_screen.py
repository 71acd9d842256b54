"""The phone companion on the unit's own screen: the pairing code, and the address with its QR code.

Issue 13: « the unit shows a short code on the OLED on request »; « the box shows its address as text and
as a QR code on the OLED on demand (from the welcome screen or the menu) ». On the virtual clock, then
through the socket of a unit running in real time, then from the web service itself.
"""

from __future__ import annotations

import json

import pytest
from helpers import LinkClient, RunningUnit, wait_for

from unit.app import config as configuration
from unit.app import pairing
from unit.backends.oled import render
from unit.core import Pressed, Released, Switched, Unit, views
from unit.core.views import SAMPLE_ADDRESS, Pairing, Phone, PhonePage, Welcome
from unit.i18n import words

CODE = "042917"


def fresh(**overrides) -> Unit:
    unit = Unit(configuration.load((overrides, "test")))
    unit.start(0.0)
    return unit


def press(unit: Unit, button: str, at: float) -> None:
    unit.handle(Pressed(button), at)
    unit.handle(Released(button), at + 0.1)


def run_to(unit: Unit, at: float) -> None:
    while (due := unit.next_deadline()) is not None and due <= at:
        unit.advance(due)
    unit.advance(at)


# --- the pairing code -----------------------------------------------------------------------------


def test_the_code_covers_the_welcome_screen_for_its_time_exactly():
    unit = fresh()
    unit.show_code(CODE, 120.0, 10.0)
    assert unit.view == Pairing(CODE)
    run_to(unit, 129.999)
    assert unit.view == Pairing(CODE)
    run_to(unit, 130.0)
    assert isinstance(unit.view, Welcome)


def test_the_code_waits_under_an_auction_and_comes_back_with_the_clock():
    unit = fresh(auction={"seconds": 20})
    press(unit, "power", 1.0)
    press(unit, "auction", 5.0)
    unit.show_code(CODE, 120.0, 10.0)
    assert isinstance(unit.view, views.Countdown)  # the auction is never covered
    run_to(unit, 25.0)  # sold at 25 s: the banner, then the clock again
    assert isinstance(unit.view, views.Banner)
    run_to(unit, 28.0)
    assert unit.view == Pairing(CODE)


def test_any_press_takes_the_code_away_and_does_what_it_always_does():
    unit = fresh()
    press(unit, "power", 1.0)
    unit.show_code(CODE, 120.0, 2.0)
    assert unit.view == Pairing(CODE)
    unit.handle(Pressed("auction"), 3.0)
    assert unit.state == "countdown" and isinstance(unit.view, views.Countdown)
    run_to(unit, 60.0)
    assert isinstance(unit.view, views.Ready)  # gone for good, not back after the auction


def test_a_used_code_leaves_the_screen_at_once():
    unit = fresh()
    unit.show_code(CODE, 120.0, 1.0)
    unit.hide_code(5.0)
    assert isinstance(unit.view, Welcome) and unit.next_deadline() != 121.0


def test_the_question_before_switching_off_stays_above_the_code():
    unit = fresh()
    press(unit, "power", 1.0)
    press(unit, "power", 2.0)  # « ÉTEINDRE ? »
    unit.show_code(CODE, 120.0, 3.0)
    assert isinstance(unit.view, views.Confirm)


def test_a_switch_turned_off_takes_the_code_away():
    """With a latching switch, switching off is no press: the code must go all the same (found in review)."""
    unit = fresh(power={"control": "switch"})
    unit.handle(Switched(True), 1.0)
    unit.show_code(CODE, 120.0, 2.0)
    assert unit.view == Pairing(CODE)
    unit.handle(Switched(False), 3.0)
    assert isinstance(unit.view, Welcome)
    run_to(unit, 3600.0)
    assert isinstance(unit.view, Welcome)


def test_a_code_shown_as_the_game_runs_out_keeps_its_time():
    unit = fresh(power={"control": "switch"}, game={"minutes": 60})
    unit.handle(Switched(True), 0.0)
    unit.show_code(CODE, 120.0, 3590.0)
    run_to(unit, 3601.0)
    assert unit.state == "time_up" and not isinstance(unit.view, Pairing)
    unit.handle(Switched(False), 3700.0)
    run_to(unit, 7200.0)
    assert isinstance(unit.view, Welcome)


# --- the address and its QR code ------------------------------------------------------------------


def test_construction_on_the_welcome_screen_shows_the_address_then_the_qr_code_then_back():
    unit = fresh()
    assert unit.view == Welcome(phone=False)
    unit.set_phone(SAMPLE_ADDRESS, 1.0)
    assert unit.view == Welcome(phone=True)  # « CONSTR. : téléphone » appears
    press(unit, "build", 2.0)
    assert unit.view == Phone(SAMPLE_ADDRESS)
    press(unit, "build", 3.0)
    assert unit.view == Phone(SAMPLE_ADDRESS, PhonePage.QR)
    press(unit, "build", 4.0)
    assert unit.view == Welcome(phone=True)
    assert unit.state == "off"


def test_the_address_goes_back_to_the_welcome_screen_when_left_alone():
    unit = fresh()
    unit.set_phone(SAMPLE_ADDRESS, 0.0)
    press(unit, "build", 1.0)
    leave = unit.config.menu.leave_after_seconds
    run_to(unit, 1.0 + leave - 0.01)
    assert isinstance(unit.view, Phone)
    run_to(unit, 1.0 + leave)
    assert isinstance(unit.view, Welcome)


def test_without_a_web_service_the_screen_says_so_and_on_off_still_starts_a_game():
    unit = fresh()
    press(unit, "build", 1.0)
    assert unit.view == Phone(None)
    assert views.describe(unit.view, words("fr")) == "TÉLÉPHONE · pas de service web"
    press(unit, "power", 2.0)
    assert unit.state == "ready"


def test_the_web_service_going_away_updates_the_screen_shown():
    unit = fresh()
    unit.set_phone(SAMPLE_ADDRESS, 0.0)
    press(unit, "build", 1.0)
    press(unit, "build", 2.0)
    unit.set_phone(None, 3.0)
    assert unit.view == Phone(None)


def test_the_qr_code_on_the_oled_is_the_web_service_s_module_for_module():
    """Every module of the QR code is a 2x2 block of the frame, dark on a lit square with a quiet zone."""
    image = render(Phone(SAMPLE_ADDRESS, PhonePage.QR), "fr")
    rows = SAMPLE_ADDRESS.qr
    n = len(rows)
    scale, offset = 2, (64 - 2 * n) // 2
    assert offset >= 4  # a quiet zone of two modules at least, lit
    for r in range(n):
        for c in range(n):
            for dy in range(scale):
                for dx in range(scale):
                    lit = image.getpixel((offset + c * scale + dx, offset + r * scale + dy)) != 0
                    assert lit == (rows[r][c] == "0"), (r, c)
    assert all(image.getpixel((x, y)) != 0 for x in range(offset) for y in range(64))


def test_the_box_s_addresses_are_found_without_netlink(monkeypatch):
    """The web service's systemd unit allows AF_UNIX, AF_INET and AF_INET6 only; glibc's if_nameindex() needs
    netlink (EAFNOSUPPORT there): the addresses come from an ioctl on an AF_INET socket instead."""
    import errno
    import socket

    pytest.importorskip("segno", reason="the web extra is not installed (pip install -e '.[web]')")
    from unit.web import address

    def refused():
        raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")

    monkeypatch.setattr(socket, "if_nameindex", refused)
    found = address.local_addresses()
    assert all(len(ip.split(".")) == 4 and not ip.startswith("127.") for ip in found)
    with open("/proc/net/route", encoding="ascii") as routes:  # an interface with a route has an address
        if any(line.split()[0] != "lo" for line in list(routes)[1:]):
            assert found


def test_the_sample_qr_code_is_what_the_web_service_draws():
    pytest.importorskip("segno", reason="the web extra is not installed (pip install -e '.[web]')")
    from unit.web.address import phone_card, qr_rows

    assert tuple(qr_rows("http://192.168.1.23:8080/")) == SAMPLE_ADDRESS.qr
    card = phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=["192.168.1.23", "10.0.0.5", "10.0.0.6"])
    assert card["lines"] == ["monopoly.local:8080", "192.168.1.23:8080", "10.0.0.5:8080"]
    assert tuple(card["qr"]) == SAMPLE_ADDRESS.qr
    assert phone_card("0.0.0.0", 80, hostname="box", addresses=[])["lines"] == ["box.local"]
    assert phone_card("::1", 8080)["lines"] == ["[::1]:8080"]


# --- through the unit's socket --------------------------------------------------------------------


def test_a_code_asked_for_over_the_socket_is_on_the_screen_and_never_sent_to_the_clients(tmp_path):
    with RunningUnit(tmp_path) as unit:
        codes: list[str] = []
        unit.link.on_code = codes.append
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.send({"pair": "request"})
        code = unit.shown_code(codes)
        wait_for(lambda: unit.runtime.unit.view == Pairing(code))
        shown = client.next("screen", text="CODE TÉLÉPHONE")
        assert shown["view"] == {"name": "pairing", "code": ""}
        assert f"CODE TÉLÉPHONE {views.spaced_code(code)}" in [r.get("text") for r in unit.trace.records]  # --trace
        client.send({"pair": {"code": code, "id": "a"}})
        assert client.next("paired")["ok"] is True
        wait_for(lambda: isinstance(unit.runtime.unit.view, Welcome))  # used: off the screen
        spaced = views.spaced_code(code)
        assert all(code not in json.dumps(r) and spaced not in json.dumps(r) for r in client.seen)


def test_five_wrong_codes_take_it_off_the_screen(tmp_path):
    with RunningUnit(tmp_path) as unit:
        codes: list[str] = []
        unit.link.on_code = codes.append
        client = LinkClient(tmp_path)
        client.send({"pair": "request"})
        code = unit.shown_code(codes)
        wait_for(lambda: unit.runtime.unit.view == Pairing(code))
        wrong = "000000" if code != "000000" else "111111"
        for n in range(pairing.CODE_TRIES):
            client.send({"pair": {"code": wrong, "id": str(n)}})
            client.next("paired")
        wait_for(lambda: isinstance(unit.runtime.unit.view, Welcome))


def test_the_address_from_the_web_service_reaches_the_screen_and_leaves_with_it(tmp_path):
    card = {"lines": ["monopoly.local:8080", "192.168.1.23:8080"], "qr": list(SAMPLE_ADDRESS.qr)}
    with RunningUnit(tmp_path) as unit:
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.send({"phone": card})
        wait_for(lambda: unit.runtime.unit.phone == SAMPLE_ADDRESS)
        assert unit.runtime.unit.view == Welcome(phone=True)
        client.close()
        wait_for(lambda: unit.runtime.unit.phone is None)
        assert unit.runtime.unit.view == Welcome(phone=False)


@pytest.mark.parametrize(
    "value",
    [
        None,
        "monopoly.local",
        {"lines": []},
        {"lines": ["a" * 49]},
        {"lines": ["a", "b", "c", "d"]},
        {"lines": ["\x1b[2J"]},
        {"lines": ["ok"], "qr": ["101", "01"]},
        {"lines": ["ok"], "qr": ["12", "01"]},
        {"lines": ["ok"], "qr": ["1" * 42] * 42},
    ],
)
def test_a_bad_address_is_answered_and_changes_nothing(tmp_path, value):
    with RunningUnit(tmp_path) as unit:
        client = LinkClient(tmp_path)
        client.send({"phone": value})
        answer = client.next("error")
        assert "phone:" in answer["error"] and answer["about"] == "phone"
        assert unit.runtime.unit.phone is None


def test_the_web_service_tells_the_unit_where_the_phones_find_it(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
    from helpers import serving

    with RunningUnit(tmp_path) as unit, serving(tmp_path) as base:
        wait_for(lambda: unit.runtime.unit.phone is not None)
        address = unit.runtime.unit.phone
        assert address is not None and address.lines == (base.removeprefix("http://"),)
        assert address.qr and len(address.qr) == len(address.qr[0])


def test_a_host_name_too_long_for_the_screen_leaves_the_address_alone():
    long_name = views.PhoneAddress(("monopoly-city-unit.local:8080", "192.168.1.23:8080"), SAMPLE_ADDRESS.qr)
    assert render(Phone(long_name), "fr") == render(
        Phone(views.PhoneAddress(("192.168.1.23:8080",), SAMPLE_ADDRESS.qr)), "fr"
    )


def test_the_unit_refusing_an_address_is_logged_and_answers_no_settings_change(caplog):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
    import asyncio

    from unit.web.hub import UnitHub

    async def scenario() -> bool:
        hub = UnitHub(None)
        hub._settings_answer = asyncio.get_running_loop().create_future()
        hub._receive(b'{"kind": "error", "error": "phone: expected lines", "about": "phone"}\n')
        return hub._settings_answer.done()

    assert asyncio.run(scenario()) is False
    assert "refused the address" in caplog.text
