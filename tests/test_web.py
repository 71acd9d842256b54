"""The phone companion's web service (unit/web/): pages, pairing, the remote, settings, and who may do what.

A real unit runs in a thread with its link; the application talks to it over the
socket, as ``monopoly-city serve`` does. Browser tests are in test_web_browser.py.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

import httpx2 as httpx  # noqa: E402
import segno  # noqa: E402
from helpers import RunningUnit, caught_up, pair_client, serving, wait_for  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit.core import views  # noqa: E402
from unit.web import WIFI_STATUS_PATH as WIFI_STATUS  # noqa: E402
from unit.web.app import create_app  # noqa: E402
from unit.web.screen import translate  # noqa: E402
from unit.web.security import MAX_BODY, RateLimit, Signer  # noqa: E402


@pytest.fixture
def unit(tmp_path):
    with RunningUnit(tmp_path) as running:
        yield running


@pytest.fixture
def client(unit, tmp_path):
    app = create_app(tmp_path)
    with TestClient(app, base_url="http://box.local") as test_client:
        hub = app.state.web.hub
        wait_for(lambda: hub.connected and "settings" in hub.snapshot, 5, "the service to reach the unit")
        test_client.hub = hub
        yield test_client


def csrf_of(page: httpx.Response) -> str:
    return re.search(r'name="csrf" value="([^"]+)"|data-csrf="([^"]+)"', page.text).group(1) or ""


def token(client) -> str:
    page = client.get("/remote")
    return re.search(r'data-csrf="([^"]+)"', page.text).group(1)


def unit_caught_up(client, unit) -> None:
    """Return once the unit has handled everything the service sent it before: a wrong code for no phone goes
    the way a press goes (the service's one connection, read in order by the link), its answer is awaited,
    then the unit's loop is caught up. The barrier of a test showing that nothing reached the unit."""
    assert client.portal.call(client.hub.check_code, "000000", "the test's mark") is False
    caught_up(unit.runtime)


def wait_state(unit, state: str) -> None:
    wait_for(lambda: unit.runtime.unit.state == state)


# --- the pages ----------------------------------------------------------------------------------


def test_the_live_page_shows_the_unit_in_french_and_english(client, unit):
    unit.press("power")
    wait_for(lambda: isinstance(client.hub.current.screen.view, views.Ready), what="the ready screen on the service")
    page = client.get("/")
    assert page.status_code == 200 and "En direct" in page.text and "RESTE 1h00 · PARTIE 1h00" in page.text
    assert 'id="nounit" class="banner" hidden' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    english = client.get("/?lang=en")
    assert "Live" in english.text and "LEFT 1h00 · GAME 1h00" in english.text and ">Ready<" in english.text
    assert client.get("/").text.count("LEFT 1h00") == 2  # the language is remembered (screen and game clock)


def test_every_page_and_asset_is_served_locally():
    app = create_app(None)
    with TestClient(app) as test_client:
        for path in ("/", "/remote", "/settings", "/share"):
            page = test_client.get(path)
            assert page.status_code == 200, path
            for link in re.findall(r'(?:src|href)="([^"]+)"', page.text):
                assert link.startswith("/") or link.startswith("?"), f"{path} links to {link}"
                if link.startswith("/"):
                    assert test_client.get(link).status_code == 200, link


def test_without_a_unit_the_service_starts_and_says_so():
    app = create_app(None)
    with TestClient(app) as test_client:
        page = html.unescape(test_client.get("/").text)
        assert "Le boîtier n'est pas en marche" in page and 'class="banner" hidden' not in page
        assert "Le boîtier n'est pas en marche" in html.unescape(test_client.get("/settings").text)


def test_the_qr_code_holds_the_address_the_page_was_reached_at():
    with TestClient(create_app(None), base_url="http://monopoly.local:8080") as test_client:
        svg = test_client.get("/qr.svg")
        assert svg.headers["content-type"] == "image/svg+xml"
        expected = io.BytesIO()
        qr = segno.make("http://monopoly.local:8080/", error="m")
        qr.save(expected, kind="svg", scale=8, border=2, dark="#000", light="#fff")
        assert svg.content == expected.getvalue()
        assert "http://monopoly.local:8080/" in test_client.get("/share").text
        odd = test_client.get("/share", headers={"host": "<script>x</script>"})
        assert "http://monopoly-city.local/" in odd.text and "<script>x" not in odd.text


def test_translate_puts_the_screen_in_the_phone_language():
    view = {"name": "countdown", "seconds_left": 5, "total": 50, "warning": True}
    record = {"t": 1, "kind": "screen", "text": "ENCHÈRES 5 !", "view": view}
    from unit import i18n

    assert translate(record, i18n.words("en"))["text"] == "AUCTION 5 !"
    banner = {"kind": "screen", "text": "", "view": {"name": "banner", "kind": "hour", "value": 2}}
    assert translate(banner, i18n.words("en"))["text"] == "2 HOURS PLAYED"
    assert translate({"kind": "build", "result": "station"}, i18n.words("fr"))["allowance"] == "UNE GARE GRATUITE"
    assert translate({"kind": "screen", "text": "x", "view": {"name": "../etc"}}, i18n.words("en"))["text"] == "x"


@pytest.mark.parametrize("name", sorted(set(views.SAMPLES) - {"off"}))
def test_every_screen_the_link_sends_is_put_in_the_phone_s_language(name):
    """The link sends a view as data (the codec in unit/core/views.py): the page says it in its own language."""
    from unit import i18n

    view = views.SAMPLES[name]
    if isinstance(view, views.Pairing):
        view = views.Pairing("")  # the link never sends the code
    data = json.loads(json.dumps(views.encode(view)))
    record = {"kind": "screen", "text": views.describe(view, i18n.words("fr")), "view": data}
    assert translate(record, i18n.words("en"))["text"] == views.describe(view, i18n.words("en"))


# --- pairing and the remote -----------------------------------------------------------------------


def test_a_wrong_code_is_refused_and_the_right_one_gives_the_remote(client, unit):
    csrf = token(client)
    client.post("/pair/request", data={"csrf": csrf})
    wrong = "000000" if unit.shown_code(unit.codes) != "000000" else "999999"
    refused = client.post("/pair", data={"csrf": csrf, "code": wrong})
    assert refused.url.query == b"m=wrong" and "Code refusé" in refused.text
    assert 'data-button="auction"' not in refused.text
    assert client.post("/press", data={"csrf": csrf, "button": "power"}).status_code == 403
    pair_client(client, unit)
    remote = client.get("/remote")
    assert 'data-button="auction"' in remote.text
    csrf = token(client)
    for button in ("power", "auction"):
        assert client.post("/press", data={"csrf": csrf, "button": button, "action": "press"}).status_code == 204
        assert client.post("/press", data={"csrf": csrf, "button": button, "action": "release"}).status_code == 204
    wait_state(unit, "countdown")


def test_the_end_of_a_game_forgets_the_paired_phones(client, unit):
    pair_client(client, unit)
    paired_generation = client.hub.generation
    csrf = token(client)
    # The phone switches the unit on, then off (« ÉTEINDRE ? », then yes): that game is over.
    for state in ("ready", "ready", "off"):
        assert client.post("/press", data={"csrf": csrf, "button": "power"}).status_code == 204
        assert client.post("/press", data={"csrf": csrf, "button": "power", "action": "release"}).status_code == 204
        wait_state(unit, state)
    wait_for(lambda: client.hub.generation not in (None, paired_generation))  # the unit told the service
    assert client.post("/press", data={"csrf": csrf, "button": "auction"}).status_code == 403
    assert "Appairer ce téléphone" in client.get("/remote").text


def test_a_phone_gone_mid_press_does_not_hold_the_button_for_ever(client, unit, monkeypatch):
    from unit.web import live as web_app

    monkeypatch.setattr(web_app, "MAX_HOLD_SECONDS", 0.2)
    pair_client(client, unit)
    events = []
    real_post = unit.link.post
    unit.link.post = lambda event: (events.append(event), real_post(event))
    assert client.post("/press", data={"csrf": token(client), "button": "build"}).status_code == 204
    wait_for(lambda: len(events) == 2)  # pressed, then released by the service 0.2 s later
    assert [type(e).__name__ for e in events] == ["Pressed", "Released"]


def test_a_tap_reaches_the_unit_as_a_press_and_its_release_together(client, unit):
    """``action=tap`` (the page's keyboard click, the system test's presses): the release follows the press on the
    unit's socket with nothing between, so no delay on the way makes it a long press (one switched a Pi 3 B off
    under emulation: its release came over 3 s after its press)."""
    pair_client(client, unit)
    events = []
    real_post = unit.link.post
    unit.link.post = lambda event: (events.append(event), real_post(event))
    csrf = token(client)
    assert client.post("/press", data={"csrf": csrf, "button": "power", "action": "tap"}).status_code == 204
    wait_state(unit, "ready")
    assert client.post("/press", data={"csrf": csrf, "button": "power", "action": "tap"}).status_code == 204
    unit_caught_up(client, unit)
    assert unit.runtime.unit.state == "ready" and unit.runtime.unit._asking  # « ÉTEINDRE ? »: one press, not two
    assert [type(e).__name__ for e in events] == ["Pressed", "Released"] * 2
    assert not client.app.state.web.held  # no release left to send later
    # A finger on a button, then a tap of it: let go, and nothing held by the service any more.
    assert client.post("/press", data={"csrf": csrf, "button": "build"}).status_code == 204
    assert client.post("/press", data={"csrf": csrf, "button": "build", "action": "tap"}).status_code == 204
    unit_caught_up(client, unit)
    assert [type(e).__name__ for e in events[4:]] == ["Pressed", "Pressed", "Released"]
    assert not client.app.state.web.held
    refused = client.post("/press", data={"csrf": csrf, "button": "build", "action": "hold"})
    assert refused.status_code == 400 and "action=press|release|tap" in refused.text


def test_settings_changed_on_the_page_reach_the_unit(client, unit):
    pair_client(client, unit)
    page = client.get("/settings")
    assert '<select id="auction.seconds" name="auction.seconds"' in page.text and "disabled" not in page.text
    assert '<option value="90"' in page.text  # the device menu's values, and only those
    saved = client.post("/settings", data={"csrf": token(client), "auction.seconds": "30", "game.minutes": ""})
    assert saved.url.query == b"m=saved" and '<option value="30" selected>' in saved.text
    assert unit.runtime.unit.config.auction.seconds == 30 and unit.runtime.unit.config.game.minutes is None
    failed = client.post("/settings", data={"csrf": token(client), "auction.seconds": "-1"})
    assert failed.url.query == b"m=failed" and unit.runtime.unit.config.auction.seconds == 30


# --- who may do what ----------------------------------------------------------------------------------


def test_an_unpaired_client_cannot_press_or_change_anything_on_any_route(client, unit):
    before = (unit.runtime.unit.state, unit.runtime.unit.config, len(unit.trace.records))
    csrf = token(client)  # a session of its own, with its valid CSRF token: only pairing is missing
    app_routes = client.app.routes
    tried = []
    forms = [
        {"csrf": csrf, "button": "auction", "action": "press"},
        {"csrf": csrf, "button": "power"},
        {"csrf": csrf, "auction.seconds": "10", "game.minutes": "5"},
        {"csrf": csrf, "code": "123456"},
    ]
    for route in app_routes:
        path = route.path if isinstance(route, Route) else route.path + "/app.js"
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            for form in forms:
                response = client.request(method, path, data=form)
                tried.append((method, path, response.status_code))
                assert response.status_code in (200, 303, 400, 403, 404, 405, 429), (method, path, response.status_code)
                assert "mc_session" not in response.headers.get("set-cookie", "") or path == "/pair"
                assert "gen" not in (client.app.state.web.signer.unsign(client.cookies.get("mc_session")) or {})
    assert {path for _, path, _ in tried} >= {"/press", "/settings", "/pair", "/pair/request", "/", "/remote"}
    unit_caught_up(client, unit)  # what a press let through would have done, done
    assert (unit.runtime.unit.state, unit.runtime.unit.config) == before[:2]
    assert all(r["kind"] == "screen" for r in unit.trace.records[before[2] :])  # nothing happened
    assert any(isinstance(r, Mount) for r in app_routes)


def test_a_cross_site_form_post_is_refused_even_for_a_paired_phone(client, unit):
    pair_client(client, unit)
    csrf = token(client)
    evil = {"origin": "http://evil.example", "sec-fetch-site": "cross-site"}
    for headers in (evil, {"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}):
        for path, form in (("/press", {"button": "power"}), ("/settings", {"auction.seconds": "10"})):
            assert client.post(path, data=form | {"csrf": csrf}, headers=headers).status_code == 403
    # a same-site request without the session's token is refused too
    assert client.post("/press", data={"button": "power"}).status_code == 403
    assert client.post("/press", data={"button": "power", "csrf": "x" * 43}).status_code == 403
    assert client.post("/press", content=json.dumps({"button": "power", "csrf": csrf})).status_code == 415
    unit_caught_up(client, unit)  # what a press let through would have done, done
    assert unit.runtime.unit.state == "off" and unit.runtime.unit.config.auction.seconds == 50


def test_an_oversized_body_is_refused(client, unit):
    pair_client(client, unit)
    csrf = token(client)
    big = {"csrf": csrf, "button": "power", "pad": "x" * MAX_BODY}
    assert client.post("/press", data=big).status_code == 413

    def chunks():
        yield b"csrf=" + csrf.encode() + b"&button=power&pad="
        for _ in range(10):
            yield b"x" * 1000

    chunked = client.post("/press", content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"})
    assert chunked.status_code == 413
    assert client.post("/press", headers={"content-length": "99999999"}, content=b"").status_code == 413
    unit_caught_up(client, unit)  # what a press let through would have done, done
    assert unit.runtime.unit.state == "off"


@pytest.mark.slow
def test_a_thousand_wrong_pairing_codes_do_not_get_through(client, unit):
    csrf = token(client)
    client.post("/pair/request", data={"csrf": csrf})
    right = unit.shown_code(unit.codes)
    statuses = []
    for n in range(1000):
        code = f"{n:06d}"
        if code == right:
            code = "999999" if right != "999999" else "999998"
        spoofed = {"x-forwarded-for": f"10.0.0.{n % 250}"}  # ignored: the service counts real addresses
        response = client.post("/pair", data={"csrf": csrf, "code": code}, headers=spoofed)
        statuses.append(response.status_code)
        assert "gen" not in (client.app.state.web.signer.unsign(client.cookies.get("mc_session")) or {})
    assert statuses.count(200) <= 5 and statuses.count(429) >= 995  # rate-limited after five tries
    # and the unit voided this session's code after five mistakes: even the right one is refused now
    web = client.app.state.web
    visitor = web.signer.unsign(client.cookies.get("mc_session"))
    assert not unit.link.check_code(right, web.signer.pairing_session(visitor["id"]))


def test_the_rate_limit_counts_per_address_and_in_all():
    now = [0.0]
    limit = RateLimit(count=2, seconds=60, total=3, keys=2, clock=lambda: now[0])
    assert [limit.allow("a"), limit.allow("a"), limit.allow("a")] == [True, True, False]
    assert [limit.allow("b"), limit.allow("c")] == [True, False]  # the total
    now[0] = 61
    assert limit.allow("a") and limit.allow("b") and len(limit._by_key) <= 2


def test_the_session_cookie_cannot_be_forged():
    signer = Signer(b"k" * 32)
    token = signer.sign({"id": "x", "gen": "g"})
    assert signer.unsign(token) == {"id": "x", "gen": "g"}
    payload, mac = token.split(".")
    assert signer.unsign(payload + "." + mac[::-1]) is None
    assert Signer(b"j" * 32).unsign(token) is None
    assert signer.unsign("x" * 5000) is None and signer.unsign(None) is None and signer.unsign("a.b.c") is None


def test_nothing_a_client_sends_becomes_a_path(client):
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/../../etc/passwd"):
        response = client.get(path)
        assert response.status_code == 404 and "import" not in response.text, path
    assert client.get("/?lang=../../etc/passwd").status_code == 200


def test_an_address_that_leads_nowhere_is_a_page_for_a_browser_and_one_line_for_a_script(tmp_path):
    """A person's browser (it asks for text/html) gets a page of the site: its line as the title and heading, in
    the page's language, status 404, the way back to the list; ``curl``, a script and a form keep the one line."""
    client = TestClient(create_app(None, "fr", tmp_path / "data"), base_url="http://box.local")
    browser = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path, line, back in (
        ("/games/nope", "no such game", 'href="/games" id="back"'),
        ("/games/nope/player/0", "no such game", 'href="/games" id="back"'),
        ("/editions/nope", "not found", 'href="/editions" id="back"'),
        ("/nowhere", "not found", 'href="/" id="back"'),
    ):
        answer = client.get(f"{path}?lang=en", headers=browser)
        assert answer.status_code == 404 and answer.headers["content-type"].startswith("text/html"), path
        assert '<html lang="en">' in answer.text and f"<title>Monopoly City · {line}</title>" in answer.text, path
        assert f'<h1 id="missing">{line}</h1>' in answer.text and back in answer.text, path
        assert client.get(path).text == f"{line}\n", path  # curl, a script: the line
    token = re.search(r'data-csrf="([^"]+)"', client.get("/games").text).group(1)
    posted = client.post("/games/nope", headers=browser, data={"csrf": token, "action": "remove", "player": "0"})
    assert (posted.status_code, posted.text) == (404, "no such game\n")  # a form's answer: the line


# --- the live stream, over a real server ------------------------------------------------------------


def test_the_event_stream_starts_with_a_snapshot_and_follows_the_unit(unit, tmp_path):
    with serving(tmp_path) as base, httpx.Client(base_url=base, timeout=5) as http:
        wait_for(lambda: json.loads(_first_event(http))["unit"], 5, "the service to reach the unit")
        with http.stream("GET", "/events?lang=en") as stream:
            lines = stream.iter_lines()
            first = _next_data(lines)
            assert first["kind"] == "snapshot" and first["unit"] is True and "pairing" not in first
            unit.press("power")
            records = [_next_data(lines)]
            while records[-1]["kind"] != "screen":
                records.append(_next_data(lines))
        assert {"kind": "state", "state": "ready"} in [{k: r.get(k) for k in ("kind", "state")} for r in records]
        screen = next(r for r in records if r["kind"] == "screen")
        assert screen["text"] == "LEFT 1h00 · GAME 1h00" and screen["clock"] == screen["text"]


def _first_event(http) -> str:
    with http.stream("GET", "/events") as stream:
        return json.dumps(_next_data(stream.iter_lines()))


def _next_data(lines) -> dict:
    for line in lines:
        if line.startswith("data: "):
            return json.loads(line.removeprefix("data: "))
    raise AssertionError("the stream ended")


@pytest.mark.slow
def test_the_pages_follow_a_unit_that_restarts(tmp_path):
    with serving(tmp_path) as base, httpx.Client(base_url=base, timeout=10) as http:
        with http.stream("GET", "/events") as stream:
            lines = stream.iter_lines()
            assert _next_data(lines)["unit"] is False  # no unit yet: the page says so
            with RunningUnit(tmp_path):
                assert _next_data(lines)["unit"] is True  # the service connects by itself
            while (record := _next_data(lines))["kind"] == "screen":
                pass  # the welcome screen learnt the phone's address
            assert record == {"kind": "unit", "connected": False}
            with RunningUnit(tmp_path) as unit:
                assert _next_data(lines)["unit"] is True
                unit.press("power")
                while (record := _next_data(lines))["kind"] != "state":
                    assert record["kind"] == "screen"  # the welcome screen learnt the phone's address


# --- the command ---------------------------------------------------------------------------------------


def test_run_and_serve_as_two_processes(tmp_path):
    import subprocess
    import sys

    from helpers import free_port

    state = tmp_path / "state"
    scenario = tmp_path / "s.yaml"
    scenario.write_text("until: 20\nevents:\n  - {at: 0.2, press: power}\n", encoding="utf-8")
    port = free_port()
    run = ["run", "--backend", "headless", "--state-dir", str(state), "--script", str(scenario)]
    unit = subprocess.Popen([sys.executable, "-m", "unit", *run])
    serve = subprocess.Popen(
        [sys.executable, "-m", "unit", "serve", "--host", "127.0.0.1", "--port", str(port), "--state-dir", str(state)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert serve.stdout.readline() == f"monopoly-city : les pages du téléphone sont sur http://127.0.0.1:{port}/\n"
        wait_for(lambda: listening(port), 20, f"the service to listen on port {port}")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:

            def first_event() -> dict:
                with http.stream("GET", "/events") as stream:
                    return _next_data(stream.iter_lines())

            wait_for(lambda: first_event().get("state") == "ready", 20, "the service to show the unit switched on")
            assert "RESTE" in http.get("/").text
    finally:
        for process in (serve, unit):
            process.terminate()
            process.wait(10)
        serve.stdout.close()
    assert unit.returncode in (0, -15) and not (state / "unit.sock").exists()


def listening(port: int) -> bool:
    """Whether a connection to ``port`` on the loopback is accepted."""
    import socket

    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def test_serve_without_the_web_extra_says_what_to_install(monkeypatch, capsys):
    import sys

    from unit.cli import main

    monkeypatch.setitem(sys.modules, "unit.web.server", None)
    assert main(["serve"]) == 2
    assert "pip install -e '.[web]'" in capsys.readouterr().err


def test_a_page_that_falls_behind_loses_its_stream_and_the_others_miss_nothing():
    import asyncio

    from unit.web import hub as hubs

    async def scenario():
        hub = hubs.UnitHub(None)
        slow, quick = hub.subscribe(), hub.subscribe()
        got = [await quick.queue.get()]  # the snapshot
        for n in range(hubs.STREAM_QUEUE * 2):
            hub._receive(json.dumps({"t": n, "kind": "led", "mode": "on"}).encode())
            got.append(await quick.queue.get())
        assert slow.dropped and slow not in hub.subscribers and quick in hub.subscribers
        assert [r["t"] for r in got[1:]] == list(range(hubs.STREAM_QUEUE * 2))
        waiting = [slow.queue.get_nowait() for _ in range(slow.queue.qsize())]
        assert waiting[-1] is None  # its stream ends; the browser reconnects from a fresh snapshot

    asyncio.run(scenario())


def test_serve_without_state_dir_looks_where_run_keeps_the_unit_and_says_where(monkeypatch, tmp_path, capsys):
    # `make run` starts `monopoly-city run` (the emulator, or the terminal) without --state-dir: its state and
    # its socket go to the user's configuration folder. `serve` without --state-dir looks there too.
    import unit.web.server
    from unit.app import config as configuration
    from unit.app import launch
    from unit.cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(launch, "is_raspberry_pi", lambda: False)
    served = {}
    monkeypatch.setattr(unit.web.server, "serve", lambda *args, **kwargs: served.update(args=args, kwargs=kwargs))
    assert main(["serve"]) == 0
    host, port, state_dir, language, data_dir = served["args"]
    assert served["kwargs"] == {"by_default": True, "box": False, "wifi_status": WIFI_STATUS}  # a laptop: no box
    ran = launch.Launch(configuration.load(), launch.Request(backend="terminal")).state_dir
    assert state_dir == ran == str(tmp_path / "config" / "monopoly-city")
    assert data_dir == str(tmp_path / "data" / "monopoly-city")  # the calculator's files stay where they were
    assert main(["serve", "--state-dir", str(tmp_path / "s")]) == 0
    assert served["args"][2:5:2] == (str(tmp_path / "s"), str(tmp_path / "s" / "calculator"))
    assert served["kwargs"] == {"by_default": False, "box": True, "wifi_status": WIFI_STATUS}  # the box's service


@pytest.mark.parametrize(
    ("by_default", "second_line"),
    [
        (True, "monopoly-city: looking for the unit in {dir} (monopoly-city run's without --state-dir; another"),
        (False, "monopoly-city: looking for the unit in {dir}\n"),
    ],
)
def test_serve_says_run_s_folder_only_when_it_chose_it(monkeypatch, tmp_path, capsys, by_default, second_line):
    # « looking for the unit in DIR (monopoly-city run's without --state-dir...) » was said of a --state-dir given.
    import uvicorn

    from unit.web import server

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: [s.close() for s in sockets])
    server.serve("127.0.0.1", 0, str(tmp_path), "en", str(tmp_path / "calculator"), by_default=by_default)
    out = capsys.readouterr().out.splitlines(keepends=True)
    assert out[1].startswith(second_line.format(dir=tmp_path)), out


def test_the_body_limit_words_a_refusal_only_for_a_body_it_refuses():
    """The refusal's line is in the page's language (a Request, its cookies, the words): made for a refused
    body only, not for every request let through."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse

    from unit.web.security import BodyLimit

    worded = []

    def explain(scope, limit):
        worded.append(scope["path"])
        return f"over {limit}"

    async def echo(request):
        return PlainTextResponse(str(len(await request.body())))

    app = BodyLimit(Starlette(routes=[Route("/", echo, methods=["GET", "POST"])]), limit=10, explain=explain)
    with TestClient(app) as plain:
        assert plain.get("/").text == "0" and plain.post("/", content=b"x" * 10).text == "10"
        assert worded == []
        refused = plain.post("/", content=b"x" * 11)
        assert refused.status_code == 413 and refused.text == "over 10\n" and worded == ["/"]
