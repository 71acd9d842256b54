"""The box's own Wi-Fi (issue 29, item 4): on the unit's screen and menu, on the wire, and on the system's side.

« When no known network is joined within a short wait after boot (and from the settings menu at any
time), the box starts its own access point (WPA2, a name and a password of its own, kept across boots),
serves the phone pages there, and shows on its OLED a Wi-Fi QR code (the ``WIFI:T:WPA;S:…;P:…;;`` form
phones read with their camera), then the page's QR code as today. » The core on the virtual clock; the
root helper (unit/boxwifi.py) against a NetworkManager kept in a dictionary; the real NetworkManager and
radios in the system test (mac80211_hwsim, docs/dev/system-test.md).
"""

from __future__ import annotations

import json
import logging
import stat
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unit import boxwifi
from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.app.wifi import REQUEST_NAME, WifiRequests
from unit.backends.headless import Headless
from unit.backends.oled import render
from unit.boxwifi import PASSWORD_ALPHABET, PROFILE, BoxWifi, Status, WifiError, network_name
from unit.core import Pressed, Released, SystemRequested, Unit, views
from unit.core.events import SystemAction
from unit.core.menu import MenuItem
from unit.core.protocol import BAD_WIFI, QR_MODULES, ShowPhone, message_from, read_message
from unit.core.views import SAMPLE_ADDRESS, SAMPLE_WIFI, SAMPLE_WIFI_ADDRESS, Menu, Phone, PhonePage, Welcome
from unit.i18n import words

OFF = views.PhoneAddress(SAMPLE_ADDRESS.lines, SAMPLE_ADDRESS.qr, views.BoxWifi(False))
ON = SAMPLE_WIFI_ADDRESS


def fresh() -> Unit:
    unit = Unit(configuration.load(({}, "test")))
    unit.start(0.0)
    return unit


def press(unit: Unit, button: str, at: float) -> list:
    out = unit.handle(Pressed(button), at)
    return out + unit.handle(Released(button), at + 0.1)


def open_menu(unit: Unit, at: float) -> float:
    unit.handle(Pressed("auction"), at)
    hold = unit.config.menu.hold_seconds
    unit.advance(at + hold)
    unit.handle(Released("auction"), at + hold + 0.1)
    assert unit.state == "settings"
    return at + hold + 0.2


def to_item(unit: Unit, item: MenuItem, at: float) -> float:
    for _ in range(10):
        if isinstance(unit.view, Menu) and unit.view.item == item:
            return at
        press(unit, "auction", at)
        at += 0.5
    raise AssertionError(f"{item} is not in the menu: {unit.view}")


# --- the menu -------------------------------------------------------------------------------------


def menu_items(unit: Unit) -> list[MenuItem]:
    at = open_menu(unit, 1.0)
    seen = []
    for _ in range(len(MenuItem)):
        assert isinstance(unit.view, Menu)
        seen.append(unit.view.item)
        press(unit, "auction", at)
        at += 0.5
    return list(dict.fromkeys(seen))


def test_the_menu_offers_the_box_s_wifi_only_where_the_box_can_make_one():
    unit = fresh()
    assert MenuItem.WIFI not in menu_items(unit)  # a laptop, the emulator: no web service, no item
    unit = fresh()
    unit.set_phone(SAMPLE_ADDRESS, 0.5)
    assert MenuItem.WIFI not in menu_items(unit)  # a web service, but no radio of the box's own
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    items = menu_items(unit)
    assert items[-2:] == [MenuItem.WIFI, MenuItem.RESET]
    assert unit.view.count == len(MenuItem)


def test_from_the_menu_the_wifi_starts_and_its_qr_code_comes_on_the_screen_once_it_is_up():
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    at = to_item(unit, MenuItem.WIFI, open_menu(unit, 1.0))
    assert views.describe(unit.view, words("fr")) == "RÉGLAGES · Wi-Fi du boîtier : arrêté"
    out = press(unit, "build", at)
    assert SystemRequested(SystemAction.WIFI_ON) in out
    assert unit.view.value == "starting"  # « démarrage… » while NetworkManager brings it up
    assert unit.state == "settings"
    unit.set_phone(ON, at + 6.0)
    assert unit.state == "off"
    assert unit.view == Phone(ON, PhonePage.WIFI)
    assert views.describe(unit.view, words("fr")) == "WI-FI · QR Monopoly City"


def test_from_the_menu_the_wifi_stops_and_the_menu_says_so():
    unit = fresh()
    unit.set_phone(ON, 0.5)
    at = to_item(unit, MenuItem.WIFI, open_menu(unit, 1.0))
    assert unit.view.value == "on"
    assert SystemRequested(SystemAction.WIFI_OFF) in press(unit, "build", at)
    assert unit.view.value == "stopping"
    unit.set_phone(OFF, at + 2.0)
    assert unit.state == "settings"
    assert unit.view.value == "off"


def test_a_wifi_that_did_not_come_in_the_menu_s_time_is_not_said_to_be_coming_next_time():
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    at = to_item(unit, MenuItem.WIFI, open_menu(unit, 1.0))
    press(unit, "build", at)
    unit.advance(at + unit.config.menu.leave_after_seconds + 1)
    assert unit.state == "off"
    at = to_item(unit, MenuItem.WIFI, open_menu(unit, at + 60))
    assert unit.view.value == "off"


def test_a_wifi_up_after_the_menu_closed_still_brings_its_qr_code_to_the_welcome_screen():
    """Asked in the menu, which closed 30 s after the press while NetworkManager was slow (seen in the system
    test beside three radios): the QR code comes when it is up, as long as nothing else happened meanwhile."""
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    at = to_item(unit, MenuItem.WIFI, open_menu(unit, 1.0))
    press(unit, "build", at)
    unit.advance(at + unit.config.menu.leave_after_seconds + 1)
    assert unit.state == "off" and not isinstance(unit.view, Phone)
    unit.set_phone(ON, at + 50.0)
    assert unit.state == "off"
    assert unit.view == Phone(ON, PhonePage.WIFI)


@pytest.mark.parametrize("later", ["a game started", "too late"])
def test_a_wifi_up_after_the_menu_closed_brings_no_qr_code_over_anything_else(later):
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    at = to_item(unit, MenuItem.WIFI, open_menu(unit, 1.0))
    press(unit, "build", at)
    unit.advance(at + unit.config.menu.leave_after_seconds + 1)
    up = at + 50.0
    if later == "a game started":
        press(unit, "power", at + 40.0)
        assert unit.state != "off"
    else:
        up = at + 181.0
        unit.advance(up)
    before = unit.view
    unit.set_phone(ON, up)
    assert not (isinstance(unit.view, Phone) and unit.view.page == PhonePage.WIFI), before


def test_the_wifi_item_coming_or_going_never_moves_the_next_press_onto_another_item():
    """The cursor is the item: a press meant for « Réglages d'usine » never turns the Wi-Fi on, nor the reverse."""
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    at = to_item(unit, MenuItem.RESET, open_menu(unit, 1.0))
    unit.set_phone(SAMPLE_ADDRESS, at)
    assert unit.view.item == MenuItem.RESET
    assert unit.view.position == unit.view.count == len(MenuItem) - 1
    unit.set_phone(OFF, at + 0.1)
    assert unit.view.item == MenuItem.RESET and unit.view.position == len(MenuItem)
    at = to_item(unit, MenuItem.WIFI, at + 0.2)
    unit.set_phone(None, at)  # the web service restarting: the item goes, the cursor to the one before it
    assert unit.view.item == MenuItem.BRIGHTNESS
    assert not any(isinstance(o, SystemRequested) for o in press(unit, "build", at + 0.5))


# --- the phone screen -----------------------------------------------------------------------------


def test_with_the_wifi_on_construction_shows_its_qr_code_then_the_page_s_then_both_as_text():
    unit = fresh()
    unit.set_phone(ON, 0.5)
    pages = []
    for i in range(5):
        press(unit, "build", 1.0 + i)
        pages.append(unit.view.page if isinstance(unit.view, Phone) else unit.view)
    assert pages == [PhonePage.WIFI, PhonePage.QR, PhonePage.WIFI_TEXT, PhonePage.TEXT, Welcome(phone=True)]


def test_the_wifi_going_off_takes_its_pages_away():
    unit = fresh()
    unit.set_phone(ON, 0.5)
    press(unit, "build", 1.0)
    unit.set_phone(OFF, 2.0)
    assert unit.view == Phone(OFF, PhonePage.TEXT)


def test_the_wifi_qr_code_on_the_oled_is_the_web_service_s_module_for_module():
    """2 pixels a module: a 29-module code (version 3, the largest the web service sends) in the 64-pixel square."""
    image = render(Phone(ON, PhonePage.WIFI), "fr")
    rows = SAMPLE_WIFI.qr
    n = len(rows)
    offset = (64 - 2 * n) // 2
    assert n == 29 and offset == 3  # a quiet zone of 1.5 modules, lit: the screen's black is not one
    for r in range(n):
        for c in range(n):
            lit = image.getpixel((offset + 2 * c, offset + 2 * r)) != 0
            assert lit == (rows[r][c] == "0"), (r, c)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_wifi_s_name_and_password_are_readable_as_text(language):
    said = views.describe(Phone(ON, PhonePage.WIFI_TEXT), words(language))
    assert said.endswith(f"Monopoly City · {words(language)('screen.wifi_password')} k7m2x9p4qa")


# --- on the wire ------------------------------------------------------------------------------------

square = st.integers(1, QR_MODULES).flatmap(
    lambda n: st.lists(st.text("01", min_size=n, max_size=n), min_size=n, max_size=n).map(tuple)
)
wifis = st.just(views.BoxWifi(False)) | st.builds(
    views.BoxWifi,
    st.just(True),
    st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1, max_size=32).filter(
        str.isprintable
    ),
    st.text(st.characters(codec="utf-8", categories=("L", "N", "P")), min_size=8, max_size=63),
    st.just(()) | square,
)


@given(wifis)
@settings(max_examples=200)
def test_any_box_wifi_comes_back_from_the_line_as_it_went(wifi):
    message = ShowPhone(("monopoly-city.local:8080",), (), wifi)
    assert read_message(message.line()) == message
    assert views.decode(views.encode(Phone(views.PhoneAddress(message.lines, (), wifi)))) == Phone(
        views.PhoneAddress(message.lines, (), wifi)
    )


@pytest.mark.parametrize(
    "wifi",
    [
        {"on": "yes"},
        {"on": True},
        {"on": True, "name": "", "password": "k7m2x9p4qa"},
        {"on": True, "name": "x" * 33, "password": "k7m2x9p4qa"},
        {"on": True, "name": "Monopoly City", "password": "short"},
        {"on": True, "name": "Monopoly City", "password": "k7m2x9p4qa", "qr": ["01"]},
        ["on"],
    ],
)
def test_a_bad_wifi_is_refused_whole(wifi):
    assert message_from({"phone": {"lines": ["a:80"], "wifi": wifi}}) == BAD_WIFI


# --- the menu's request, written for the system -------------------------------------------------------


def test_the_menu_s_request_is_written_where_the_path_unit_looks(tmp_path):
    unit = fresh()
    unit.set_phone(OFF, 0.5)
    runtime = Runtime(unit, Headless("fr"), clock=lambda: 10.0, wifi=WifiRequests(tmp_path))
    runtime.apply(10.0, [SystemRequested(SystemAction.WIFI_ON)])
    assert (tmp_path / REQUEST_NAME).read_bytes() == b"on\n"
    runtime.apply(11.0, [SystemRequested(SystemAction.WIFI_OFF)])
    assert (tmp_path / REQUEST_NAME).read_bytes() == b"off\n"
    assert not runtime.stopped  # not a shutdown


def test_a_request_that_cannot_be_written_is_said_once_and_the_unit_goes_on(tmp_path, caplog):
    (tmp_path / "file").write_text("")
    requests = WifiRequests(tmp_path / "file")  # a folder that is a file
    with caplog.at_level(logging.WARNING):
        assert not requests.ask(SystemAction.WIFI_ON)
        assert not requests.ask(SystemAction.WIFI_ON)
    assert len([r for r in caplog.records if "could not be written" in r.getMessage()]) == 1


# --- the system's side: unit/boxwifi.py against a NetworkManager in a dictionary ----------------------


class FakeNetworkManager:
    """nmcli's answers for a box with ``wlan0`` (or none), a joined network or not, and the hotspot's profile."""

    def __init__(self, *, radio: bool = True, joined: bool = False, refuse_up: bool = False):
        self.radio, self.joined, self.refuse_up = radio, joined, refuse_up
        self.profile: dict[str, str] | None = None
        self.active = False
        self.calls: list[list[str]] = []

    def __call__(self, args: Sequence[str]) -> str:
        args = list(args)
        self.calls.append(args)
        match args:
            case ["-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device"]:
                state = (
                    "connected:Home\\:Wi-Fi"
                    if self.joined
                    else f"connected:{PROFILE}"
                    if self.active
                    else "disconnected:"
                )
                wifi = f"wlan0:wifi:{state}\np2p-dev-wlan0:wifi-p2p:disconnected:\n" if self.radio else ""
                return "eth0:ethernet:unavailable:\n" + wifi + "lo:loopback:connected (externally):lo\n"
            case ["-t", "-f", "NAME", "connection", "show", "--active"]:
                return f"{PROFILE}\n" if self.active else ""
            case ["-t", "-f", "NAME", "connection", "show"]:
                return f"{PROFILE}\nHome\n" if self.profile is not None else "Home\n"
            case ["-s", "-g", "802-11-wireless-security.psk", "connection", "show", name]:
                if self.profile is None or name != PROFILE:
                    raise WifiError("no such connection profile")
                return self.profile["wifi-sec.psk"] + "\n"
            case ["connection", "add", "type", "wifi", "ifname", "*", "con-name", name, *settings]:
                assert name == PROFILE and self.profile is None
                self.profile = dict(zip(settings[::2], settings[1::2], strict=True))
                return ""
            case ["connection", "modify", name, *settings]:
                assert name == PROFILE and self.profile is not None
                self.profile |= dict(zip(settings[::2], settings[1::2], strict=True))
                return ""
            case ["--wait", "30", "connection", "up", name, "ifname", "wlan0"]:
                if self.refuse_up:
                    raise WifiError("Error: Connection activation failed: 802.1X supplicant took too long")
                self.active = True
                return ""
            case ["connection", "down", name]:
                self.active = False
                return ""
            case ["-g", "IP4.ADDRESS", "device", "show", "wlan0"]:
                return "10.42.0.1/24\n" if self.active else "\n"
        raise AssertionError(f"an nmcli call the fake does not know: {args}")


def box(nm: FakeNetworkManager, tmp_path, hostname: str = "monopoly-city") -> BoxWifi:
    return BoxWifi(nm, tmp_path / "run" / "status.json", lambda: hostname)


def status_file(tmp_path) -> dict:
    return json.loads((tmp_path / "run" / "status.json").read_text())


class VirtualTime:
    def __init__(self):
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_at_boot_without_a_known_network_the_box_makes_its_own_after_the_wait(tmp_path):
    nm, time = FakeNetworkManager(), VirtualTime()
    status = box(nm, tmp_path).boot(60, clock=lambda: time.now, sleep=time.sleep)
    assert time.now == 60  # the whole wait, in 3-second looks
    assert status == Status(True, True, "Monopoly City", nm.profile["wifi-sec.psk"], "10.42.0.1")
    assert status_file(tmp_path) == {
        "available": True, "on": True, "name": "Monopoly City", "password": status.password, "address": "10.42.0.1"
    }  # fmt: skip
    assert stat.S_IMODE((tmp_path / "run" / "status.json").stat().st_mode) == 0o644  # the web service reads it
    assert nm.profile["802-11-wireless.mode"] == "ap" and nm.profile["ipv4.method"] == "shared"
    assert nm.profile["wifi-sec.key-mgmt"] == "wpa-psk" and nm.profile["wifi-sec.proto"] == "rsn"
    assert nm.profile["connection.autoconnect"] == "no"  # at home, the home network comes first


def test_at_boot_with_a_known_network_joined_the_box_makes_none(tmp_path):
    nm, time = FakeNetworkManager(), VirtualTime()
    nm.joined = True
    status = box(nm, tmp_path).boot(60, clock=lambda: time.now, sleep=time.sleep)
    assert status == Status(available=True)
    assert time.now == 0 and nm.profile is None


def test_a_network_joined_during_the_wait_ends_it(tmp_path):
    nm, time = FakeNetworkManager(), VirtualTime()

    def sleep(seconds):
        time.sleep(seconds)
        nm.joined = time.now >= 14

    assert box(nm, tmp_path).boot(60, clock=lambda: time.now, sleep=sleep) == Status(available=True)
    assert time.now == 15  # the first look after it (every 3 s)


def test_the_password_is_kept_across_boots_and_the_name_follows_the_box_s(tmp_path):
    nm, time = FakeNetworkManager(), VirtualTime()
    first = box(nm, tmp_path).boot(0, clock=lambda: time.now, sleep=time.sleep)
    nm.active = False  # the next boot
    second = box(nm, tmp_path, hostname="salon").boot(0, clock=lambda: time.now, sleep=time.sleep)
    assert second.password == first.password
    assert len(first.password) == 10 and set(first.password) <= set(PASSWORD_ALPHABET)
    assert (first.name, second.name) == ("Monopoly City", "Monopoly salon")


def test_stopped_the_hotspot_leaves_the_radio_to_the_known_networks(tmp_path):
    nm = FakeNetworkManager()
    wifi = box(nm, tmp_path)
    wifi.start()
    assert wifi.stop() == Status(available=True)
    assert ["connection", "down", PROFILE] in nm.calls and not nm.active
    assert status_file(tmp_path)["on"] is False


def test_without_a_radio_nothing_is_offered(tmp_path):
    nm, time = FakeNetworkManager(radio=False), VirtualTime()
    assert box(nm, tmp_path).boot(60, clock=lambda: time.now, sleep=time.sleep) == Status(available=False)
    assert status_file(tmp_path) == {"available": False, "on": False, "name": "", "password": "", "address": ""}


def test_a_refusal_from_networkmanager_is_one_line_and_the_status_says_off(tmp_path, caplog):
    nm = FakeNetworkManager(refuse_up=True)
    with caplog.at_level(logging.ERROR):
        assert box(nm, tmp_path).start() == Status(available=True)
    assert [r.getMessage() for r in caplog.records] == [
        "the box's own Wi-Fi could not start: Error: Connection activation failed: 802.1X supplicant took too long"
    ]


@pytest.mark.parametrize(("asked", "on"), [("on\n", True), ("off\n", False), ("ON", True), ("maybe", False)])
def test_the_menu_s_request_is_done_and_anything_else_changes_nothing(tmp_path, asked, on):
    nm = FakeNetworkManager()
    request = tmp_path / "box-wifi"
    request.write_text(asked)
    assert box(nm, tmp_path).request(request).on is on


def test_a_missing_request_file_changes_nothing(tmp_path):
    assert box(FakeNetworkManager(), tmp_path).request(tmp_path / "absent") == Status(available=True)


@given(st.text(st.characters(codec="ascii", categories=("L", "N", "Pd")), max_size=70))
def test_any_box_name_gives_a_network_name_short_enough_for_the_oled_s_qr_code(hostname):
    import segno

    name = network_name(hostname)
    assert 0 < len(name) <= boxwifi.NAME_CHARS
    code = segno.make(f"WIFI:T:WPA;S:{name};P:{'x' * boxwifi.PASSWORD_LENGTH};;", error="l", micro=False)
    assert len(code.matrix) <= 29  # 2 pixels a module on the 64-pixel screen


def test_the_helper_is_standard_library_only():
    """It runs with the system's python3 after make uninstall-pi removed the venv (as boxsetup.py)."""
    import ast
    import sys
    from pathlib import Path

    tree = ast.parse(Path(boxwifi.__file__).read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)


# --- the whole way, in real time: the menu, the request file, the helper's status, the web service, the screen -


def test_the_menu_s_wifi_reaches_the_system_and_its_qr_code_comes_back_to_the_screen(tmp_path):
    """The unit and the web service as on the card; the root helper's part played by the test (the system test
    runs the real one): the request file written, the status file replaced, the QR code on the screen."""
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
    from helpers import RunningUnit, serving, wait_for

    status = tmp_path / "run" / "status.json"
    off = BoxWifi(lambda args: "", status)  # writes the status files the helper writes
    off.write(Status(available=True))
    with RunningUnit(tmp_path) as unit, serving(tmp_path, wifi_status=status):  # on loopback: its address alone
        wait_for(lambda: unit.runtime.unit.phone is not None and unit.runtime.unit.phone.wifi == views.BoxWifi(False))
        unit.runtime.post(Pressed("auction"))  # held into the settings menu
        wait_for(lambda: unit.runtime.unit.state == "settings", 10)
        unit.runtime.post(Released("auction"))
        for _ in range(len(MenuItem)):
            if isinstance(unit.runtime.unit.view, Menu) and unit.runtime.unit.view.item == MenuItem.WIFI:
                break
            shown = unit.runtime.unit.view
            unit.press("auction")
            wait_for(lambda shown=shown: unit.runtime.unit.view != shown)
        unit.press("build")
        request = tmp_path / REQUEST_NAME
        wait_for(lambda: request.exists() and request.read_text() == "on\n")
        off.write(Status(True, True, "Monopoly City", "k7m2x9p4qa", "10.42.0.1"))
        wait_for(lambda: isinstance(unit.runtime.unit.view, Phone), 10)  # within a poll of the status file
        view = unit.runtime.unit.view
        assert view.page == PhonePage.WIFI and view.address.wifi.qr
        assert view.address.wifi.name == "Monopoly City" and view.address.wifi.password == "k7m2x9p4qa"


def test_a_request_that_is_not_a_plain_file_is_ignored_without_blocking(tmp_path):
    """The file is the unprivileged unit's; root reads it: no link followed (/etc/shadow), no FIFO waited on."""
    import os

    secret = tmp_path / "shadow"
    secret.write_text("on\n")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "fifo")
    nm = FakeNetworkManager()
    for name in ("link", "fifo"):
        assert box(nm, tmp_path).request(tmp_path / name) == Status(available=True)
    assert nm.profile is None


def test_at_boot_a_wifi_the_menu_started_during_the_wait_is_said_on_not_taken_for_a_known_network(tmp_path):
    nm, time = FakeNetworkManager(), VirtualTime()
    wifi = box(nm, tmp_path)

    def sleep(seconds):
        time.sleep(seconds)
        if time.now == 9:
            wifi.start()  # the menu, meanwhile

    status = wifi.boot(60, clock=lambda: time.now, sleep=sleep)
    assert status.on and time.now == 9


def test_a_radio_that_comes_during_the_wait_is_used(tmp_path):
    nm, time = FakeNetworkManager(radio=False), VirtualTime()

    def sleep(seconds):
        time.sleep(seconds)
        nm.radio = time.now >= 20  # brcmfmac's firmware loaded late

    assert box(nm, tmp_path).boot(60, clock=lambda: time.now, sleep=sleep).on


def test_the_cli_s_default_status_file_is_the_one_the_helper_writes():
    from unit import cli
    from unit.core import protocol

    assert cli.WIFI_STATUS_PATH == protocol.WIFI_STATUS_PATH == str(boxwifi.STATUS)
