"""The box's own Wi-Fi on the phone companion's side (issue 29, item 4): the helper's status file read, the Wi-Fi
QR code's text, the card the unit is told (and told again within a poll of the file changing), the share page.

The helper itself (unit/boxwifi.py, as root) writes the file; here it is written as it writes it: a temporary
file renamed over the last one. The browser's view of the share page is in test_web_wifi_browser.py.
"""

from __future__ import annotations

import asyncio
import html
import io
import json
import logging
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

import segno  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit.core.protocol import QR_MODULES, SOCKET_NAME, ShowPhone, message_from  # noqa: E402
from unit.web import WIFI_STATUS_PATH  # noqa: E402
from unit.web import hub as hubs  # noqa: E402
from unit.web.address import (  # noqa: E402
    WIFI_QR_READABLE,
    WIFI_SPECIAL,
    WifiStatus,
    phone_card,
    qr_rows,
    read_wifi_status,
    wifi_rows,
    wifi_text,
)
from unit.web.app import create_app  # noqa: E402

ON = {"available": True, "on": True, "name": "Monopoly City", "password": "k7m2x9p4qa", "address": "10.42.0.1"}
OFF = {"available": True, "on": False}
BOX_WIFI = WifiStatus(on=True, name="Monopoly City", password="k7m2x9p4qa", address="10.42.0.1")


def write_status(path: Path, value: object) -> None:
    """As the helper writes it: the whole file beside, then renamed over the last one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    os.replace(temporary, path)


def fields(payload: str) -> dict[str, str]:
    """A Wi-Fi QR code's text read as a phone reads it (ZXing): ``WIFI:``, then ``KEY:value;`` fields up to ``;;``,
    a backslash taking the next character as it is."""
    assert payload.startswith("WIFI:") and payload.endswith(";;")
    found: dict[str, str] = {}
    key, value, escaped, in_value = "", "", False, False
    for char in payload[len("WIFI:") : -1]:
        if escaped:
            value, escaped = value + char, False
        elif char == "\\":
            escaped = True
        elif char == ";":
            assert key not in found
            found[key] = value
            key, value, in_value = "", "", False
        elif char == ":" and not in_value:
            in_value = True
        elif in_value:
            value += char
        else:
            key += char
    assert not escaped and key == value == ""
    return found


# --- the Wi-Fi QR code's text -------------------------------------------------------------------------------


@given(st.text(), st.text())
def test_a_phone_reads_back_any_name_and_password_from_the_wifi_text(name, password):
    assert fields(wifi_text(name, password)) == {"T": "WPA", "S": name, "P": password}


def test_the_wifi_text_is_the_one_phones_cameras_know():
    assert wifi_text("Monopoly City", "k7m2x9p4qa") == "WIFI:T:WPA;S:Monopoly City;P:k7m2x9p4qa;;"
    assert wifi_text('a;b,c:d"e\\f', "x") == 'WIFI:T:WPA;S:a\\;b\\,c\\:d\\"e\\\\f;P:x;;'
    assert set(WIFI_SPECIAL) == set('\\;,:"')


# --- the helper's status file ---------------------------------------------------------------------------------


def test_the_status_file_says_whether_the_box_s_wifi_is_on_and_what_it_is(tmp_path):
    path = tmp_path / "status.json"
    write_status(path, ON)
    assert read_wifi_status(path) == BOX_WIFI
    write_status(path, OFF | {"name": "Monopoly City", "password": "k7m2x9p4qa", "address": "10.42.0.1"})
    assert read_wifi_status(path) == WifiStatus(on=False)  # off: its name and password are not shown
    write_status(path, OFF)
    assert read_wifi_status(path) == WifiStatus(on=False)
    write_status(path, ON | {"available": False})
    assert read_wifi_status(path) is None  # no radio, not the card: nothing said of Wi-Fi anywhere
    write_status(path, ON | {"since": "boot", "channel": 6})
    assert read_wifi_status(path) == BOX_WIFI  # a key the helper adds later changes nothing
    assert read_wifi_status(tmp_path / "missing.json") is None
    assert read_wifi_status(None) is None
    assert WIFI_STATUS_PATH == "/run/monopoly-city-wifi/status.json"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        "null",
        '"on"',
        "{}",
        '{"available": "yes", "on": true}',
        '{"available": 1, "on": true}',
        '{"available": true}',
        '{"available": true, "on": "yes"}',
        json.dumps(ON | {"name": ""}),
        json.dumps(ON | {"name": "x" * 33}),
        json.dumps(ON | {"name": "a\nb"}),
        json.dumps(ON | {"name": 42}),
        json.dumps({k: v for k, v in ON.items() if k != "name"}),
        json.dumps(ON | {"password": "x" * 7}),
        json.dumps(ON | {"password": "x" * 64}),
        json.dumps(ON | {"password": None}),
        json.dumps(ON | {"address": "10.42.0"}),
        json.dumps(ON | {"address": "fe80::1"}),
        json.dumps(ON | {"address": "box.local"}),
        json.dumps({k: v for k, v in ON.items() if k != "address"}),
        "[" * 100_000,
        " " * 5000 + json.dumps(ON),
    ],
)
def test_a_status_file_not_of_its_shape_is_no_wifi_said_once(tmp_path, caplog, text):
    path = tmp_path / "status.json"
    write_status(path, text)
    with caplog.at_level(logging.INFO, logger="unit.web.address"):
        assert [read_wifi_status(path) for _ in range(3)] == [None, None, None]
    assert [r.levelname for r in caplog.records] == ["WARNING"]  # once, not at every look
    assert str(path) in caplog.records[0].getMessage()


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), st.lists, max_leaves=8))
def test_no_json_value_makes_the_reading_raise(value):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "status.json"
        for data in (value, {"available": True, "on": True, "name": value, "password": value, "address": value}):
            write_status(path, data)
            found = read_wifi_status(path)
            assert found is None or isinstance(found, WifiStatus)


def test_each_new_problem_is_said_once_and_a_missing_file_only_as_information(tmp_path, caplog):
    path = tmp_path / "wifi" / "status.json"
    with caplog.at_level(logging.INFO, logger="unit.web.address"):
        for _ in range(3):
            assert read_wifi_status(path) is None  # a laptop, the emulator: no file
        path.parent.mkdir()
        path.mkdir()  # not readable as a file
        assert read_wifi_status(path) is None and read_wifi_status(path) is None
        path.rmdir()
        write_status(path, "not json")
        assert read_wifi_status(path) is None and read_wifi_status(path) is None
        write_status(path, ON)
        assert read_wifi_status(path) == BOX_WIFI
        write_status(path, "not json")
        assert read_wifi_status(path) is None  # the same problem again, after a good file: said again
    levels = [r.levelname for r in caplog.records]
    assert levels == ["INFO", "WARNING", "WARNING", "WARNING"], [r.getMessage() for r in caplog.records]


# --- the card the unit is told ---------------------------------------------------------------------------------

HOME = ["192.168.1.23", "10.0.0.5"]


def test_without_the_box_s_wifi_the_card_is_as_it_always_was():
    card = phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=HOME)
    assert card == {
        "lines": ["monopoly.local:8080", "192.168.1.23:8080", "10.0.0.5:8080"],
        "qr": qr_rows("http://192.168.1.23:8080/"),
    }
    assert phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=HOME, wifi=None) == card


def test_with_the_box_s_wifi_on_the_card_leads_with_its_address_and_carries_the_network():
    card = phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=[*HOME, "10.42.0.1"], wifi=BOX_WIFI)
    assert card["lines"] == ["monopoly.local:8080", "10.42.0.1:8080", "192.168.1.23:8080"]  # not twice
    assert card["qr"] == qr_rows("http://10.42.0.1:8080/")
    assert card["wifi"] == {
        "on": True,
        "name": "Monopoly City",
        "password": "k7m2x9p4qa",
        "qr": qr_rows("WIFI:T:WPA;S:Monopoly City;P:k7m2x9p4qa;;"),
    }
    alone = phone_card("0.0.0.0", 80, hostname="monopoly", addresses=[], wifi=BOX_WIFI)
    assert alone["lines"] == ["monopoly.local", "10.42.0.1"] and alone["qr"] == qr_rows("http://10.42.0.1/")
    # A service listening on one address only is reached there alone: the network is still given.
    one = phone_card("192.168.1.23", 8080, wifi=BOX_WIFI)
    assert one["lines"] == ["192.168.1.23:8080"] and one["wifi"]["on"] is True


def test_with_the_box_s_wifi_off_the_card_says_so_and_nothing_else_changes():
    before = phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=HOME)
    assert phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=HOME, wifi=WifiStatus(on=False)) == before | {
        "wifi": {"on": False}
    }


@pytest.mark.parametrize("wifi", [None, WifiStatus(on=False), BOX_WIFI])
def test_the_unit_takes_the_card_s_lines_and_qr_as_before(wifi):
    card = phone_card("0.0.0.0", 8080, hostname="monopoly", addresses=HOME, wifi=wifi)
    shown = message_from({"phone": card})
    assert isinstance(shown, ShowPhone) and shown.lines == tuple(card["lines"]) and shown.qr == tuple(card["qr"])


def modules(name: str, password: str) -> int:
    return len(qr_rows(wifi_text(name, password)))


def test_the_box_s_network_is_a_qr_code_the_oled_draws_at_2_pixels_a_module():
    """The OLED's 64 rows take 29 modules and their quiet zone at 2 px a module (version 3): the box's own name
    and a 10-character password fit, and so does any name of up to 25 plain characters. A 32-character name
    needs version 4 (33 modules: the OLED would draw it at 1 px a module, too fine for most cameras): no QR code
    then, the unit shows the name and the password as text."""
    assert 64 // (WIFI_QR_READABLE + 2) == 2 and 64 // (WIFI_QR_READABLE + 4 + 2) == 1
    assert modules("Monopoly City", "k7m2x9p4qa") == 29
    assert modules("M" * 25, "k7m2x9p4qa") <= WIFI_QR_READABLE
    assert modules("m" * 32, "k7m2x9p4qa") == 33 <= QR_MODULES
    assert wifi_rows(WifiStatus(True, "m" * 32, "k7m2x9p4qa", "10.42.0.1")) == []


#: What a status file's name and password may hold (read_wifi_status: printable text).
PRINTABLE = st.characters(exclude_categories=("C", "Z"), include_characters=" ")


@given(
    st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters=WIFI_SPECIAL), max_size=25),
    st.text(
        st.characters(min_codepoint=32, max_codepoint=126, exclude_characters=WIFI_SPECIAL), min_size=10, max_size=10
    ),
)
def test_any_plain_name_of_25_characters_and_a_10_character_password_fit_version_3(name, password):
    assert modules(name, password) <= WIFI_QR_READABLE


@given(
    st.text(PRINTABLE, min_size=1, max_size=32),
    st.text(PRINTABLE, min_size=8, max_size=63),
)
def test_a_network_too_large_for_the_oled_is_no_qr_code_not_a_failure(name, password):
    rows = wifi_rows(WifiStatus(True, name, password, "10.42.0.1"))
    assert rows == (qr_rows(wifi_text(name, password)) if modules(name, password) <= WIFI_QR_READABLE else [])


def test_the_largest_network_is_no_qr_code_on_the_oled():
    assert modules("x" * 32, "y" * 63) == QR_MODULES  # 113 characters: version 6, the largest the unit takes
    assert wifi_rows(WifiStatus(True, ";" * 32, '"' * 63, "10.42.0.1")) == []  # 208 characters: version 9
    card = phone_card(
        "0.0.0.0", 8080, hostname="monopoly", addresses=[], wifi=WifiStatus(True, ";" * 32, "y" * 63, "10.42.0.1")
    )
    assert card["wifi"]["qr"] == [] and card["wifi"]["name"] == ";" * 32  # the unit shows them as text


# --- the hub tells the unit within a poll ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_change_of_the_status_file_is_told_to_the_unit_within_a_poll(tmp_path):
    """A fake unit on the socket records what the service sends: the card at once, the Wi-Fi's within one poll of
    the file changing (not at the next 30 s look), and nothing when a file is rewritten with the same words."""
    status = tmp_path / "wifi" / "status.json"

    async def scenario() -> None:
        told: asyncio.Queue[dict] = asyncio.Queue()
        gone = asyncio.Event()

        async def unit(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while line := await reader.readline():
                    await told.put(json.loads(line))
            finally:
                writer.close()
                gone.set()

        server = await asyncio.start_unix_server(unit, path=str(tmp_path / SOCKET_NAME))
        hub = hubs.UnitHub(tmp_path, status)
        hub.listening = ("0.0.0.0", 8080)
        loop = asyncio.get_running_loop()
        await hub.start()
        try:
            first = (await asyncio.wait_for(told.get(), 5))["phone"]
            assert "wifi" not in first  # no file: the card as it always was
            within = hubs.WIFI_POLL_SECONDS + 1.0  # a poll, and a loaded machine's slack
            for value, expected in (
                (ON, {"on": True, "name": "Monopoly City", "password": "k7m2x9p4qa", "qr": wifi_rows(BOX_WIFI)}),
                (OFF, {"on": False}),
                (ON | {"password": "another-one"}, {"on": True, "name": "Monopoly City", "password": "another-one"}),
            ):
                write_status(status, value)
                written = loop.time()
                card = (await asyncio.wait_for(told.get(), within))["phone"]
                assert loop.time() - written <= within
                assert {k: v for k, v in card["wifi"].items() if k in expected} == expected
                on = value["on"]
                assert ("10.42.0.1:8080" in card["lines"]) is on
                assert (card["qr"] == qr_rows("http://10.42.0.1:8080/")) is on
                assert card == phone_card("0.0.0.0", 8080, wifi=read_wifi_status(status))
            write_status(status, ON | {"password": "another-one"})  # a new file, the same words
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(told.get(), within)
            status.unlink()  # the helper gone: no Wi-Fi said
            assert "wifi" not in (await asyncio.wait_for(told.get(), within))["phone"]
        finally:
            await hub.stop()
            await asyncio.wait_for(gone.wait(), 5)  # the service's end closed: the unit's too
            server.close()
            await server.wait_closed()

    asyncio.run(scenario())


# --- the share page -----------------------------------------------------------------------------------------------


@pytest.fixture
def status(tmp_path) -> Path:
    return tmp_path / "status.json"


@pytest.fixture
def share(status):
    with TestClient(create_app(None, wifi_status=status), base_url="http://monopoly.local:8080") as client:
        yield client


def svg_of(text: str) -> bytes:
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=8, border=2, dark="#000", light="#fff")
    return out.getvalue()


def main_of(page) -> str:
    """The page's own part (the header has the session's token), its spaces as one."""
    return " ".join(re.search(r"<main.*</main>", page.text, re.S).group(0).split())


def test_without_the_box_s_wifi_the_share_page_is_as_it_was(share, status):
    missing = share.get("/share")
    write_status(status, OFF)
    off = share.get("/share")
    write_status(status, ON | {"available": False})
    unavailable = share.get("/share")
    assert main_of(missing) == main_of(off) == main_of(unavailable)
    assert main_of(off) == (  # the page before the box had a Wi-Fi of its own
        '<main id="main"> <h1>Partager la page</h1> <p class="hint">Montrez ce code aux autres joueurs :'
        " l&#39;appareil photo de leur téléphone ouvre la même page.</p>"
        ' <img class="qr" src="/qr.svg" alt="http://monopoly.local:8080/" width="296" height="296">'
        ' <p class="address"><code>http://monopoly.local:8080/</code></p> </main>'
    )
    assert "Wi-Fi" not in off.text and "wifi" not in off.text
    assert share.get("/qr.svg").content == svg_of("http://monopoly.local:8080/")
    assert share.get("/wifi-qr.svg").status_code == 404


def test_with_the_box_s_wifi_on_the_share_page_joins_it_first(share, status):
    write_status(status, ON)
    page = share.get("/share")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    text = html.unescape(page.text)
    steps = [text.index(s) for s in ("1. Rejoindre le Wi-Fi du boîtier", 'src="/wifi-qr.svg"', "2. Ouvrir la page")]
    assert steps == sorted(steps) and text.index('src="/qr.svg"') > steps[-1]
    assert '<code id="wifi-name">Monopoly City</code>' in text and '<code id="wifi-password">k7m2x9p4qa</code>' in text
    assert '<p class="address"><code>http://10.42.0.1:8080/</code></p>' in text  # where the phone will reach it
    assert share.get("/wifi-qr.svg").content == svg_of("WIFI:T:WPA;S:Monopoly City;P:k7m2x9p4qa;;")
    assert share.get("/wifi-qr.svg").headers["content-type"] == "image/svg+xml"
    assert share.get("/qr.svg").content == svg_of("http://10.42.0.1:8080/")
    english = html.unescape(share.get("/share?lang=en").text)
    assert "1. Join the box's Wi-Fi" in english and "2. Open the page" in english and "Password" in english
    share.app.state.web.hub.listening = ("0.0.0.0", 80)  # the port the service listens on, not the visitor's
    assert share.get("/qr.svg").content == svg_of("http://10.42.0.1/")
    write_status(status, OFF)
    assert share.get("/wifi-qr.svg").status_code == 404 and "wifi" not in share.get("/share").text


def test_the_network_s_name_and_password_are_text_on_the_page_never_markup(share, status):
    write_status(status, ON | {"name": "<b>Box</b> & co", "password": '"><script>x</script>'})
    text = share.get("/share").text
    assert "<b>Box" not in text and "<script>x" not in text
    assert "&lt;b&gt;Box&lt;/b&gt; &amp; co" in text
    assert share.get("/wifi-qr.svg").content == svg_of(wifi_text("<b>Box</b> & co", '"><script>x</script>'))


def test_serve_reads_the_status_file_it_is_given(monkeypatch, tmp_path):
    from unit import cli
    from unit.web import server

    seen: dict = {}
    monkeypatch.setattr(server, "serve", lambda *args, **kwargs: seen.update(kwargs))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert cli.main(["serve", "--data", str(tmp_path / "data")]) == 0
    assert seen["wifi_status"] == WIFI_STATUS_PATH
    assert cli.main(["serve", "--data", str(tmp_path / "data"), "--wifi-status", str(tmp_path / "w.json")]) == 0
    assert seen["wifi_status"] == str(tmp_path / "w.json")
