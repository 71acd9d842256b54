"""The live view as a person at the table uses it (issue 22, section 4), in Chromium at phone sizes.

The auction is a timer: the seconds fill the width, the bar drains with the phone's own clock from the
deadline the unit's records give (not one step per record), the screen turns red and the phone vibrates
at 5 s; the screen is kept on (Screen Wake Lock) behind a remembered switch; the remote's three buttons
fit a 360x640 screen; the pages have an icon and a manifest. Skipped with one line without Chromium.

``python tests/test_web_live.py icons`` draws the PNG icons from ``unit/web/static/icon.svg`` with the
same Chromium; ``python tests/test_web_live.py videos`` records the screen-on switch's videos.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from itertools import groupby
from pathlib import Path

import pytest
from helpers import THREE_DISTRICTS, RunningUnit, a_box, browser, buy, pair_page, serving, wait_for_unit

STATIC = Path(__file__).resolve().parent.parent / "unit" / "web" / "static"
SIZES = {
    "360x640": {"width": 360, "height": 640},
    "390x844": {"width": 390, "height": 844},
}
pytestmark = pytest.mark.browser
ICONS = {"icon-180.png": 180, "icon-192.png": 192, "icon-512.png": 512}
RED = "rgb(229, 57, 53)"  # --red in style.css
#: The phone's vibration and wake lock, recorded (headless Chromium has neither a motor nor a screen to keep on).
FAKES = """
window.mcVibrations = [];
navigator.vibrate = (pattern) => { window.mcVibrations.push(pattern); return true; };
window.mcWake = { requests: 0, releases: 0 };
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: {
  request: async (kind) => {
    window.mcWake.requests += 1;
    const lock = new EventTarget();
    lock.type = kind;
    lock.release = async () => { window.mcWake.releases += 1; lock.dispatchEvent(new Event("release")); };
    window.mcWake.last = lock;
    return lock;
  },
}});
"""


def new_phone(chromium, size: str, lang: str = "fr"):
    context = chromium.new_context(
        viewport=SIZES[size], device_scale_factor=1, is_mobile=True, has_touch=True, locale=lang
    )
    context.add_init_script(FAKES)
    return context


def box(page, selector: str) -> dict:
    """The element's box on the page, read in one evaluate: the countdown's records replace the screen's
    lines every second, and a locator's box of a line replaced in between is None."""
    return page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
        " return { x: r.x, y: r.y, width: r.width, height: r.height }; }",
        selector,
    )


#: The screen at one instant, in one evaluate: the records arrived, the digit shown, what is left of the bar (the
#: fill's width over its track's), the warning, the vibrations so far.
SCREEN_NOW = """(() => {
  const screen = document.getElementById("screen"), fill = screen.querySelector(".bar-fill");
  return {
    records: window.mcLog.length,
    digit: screen.querySelector(".l-big").textContent,
    bar: fill ? fill.getBoundingClientRect().width / fill.parentElement.clientWidth : null,
    warning: screen.dataset.warning === "1",
    vibrations: window.mcVibrations.length,
  };
})()"""


def bar_within_its_second(now: dict, total: int) -> bool:
    """The bar shows the seconds the box shows: the record that put ``d`` on the screen also set the bar's
    deadline ``d`` seconds after its arrival, so the bar is at most ``d`` and drains below ``d - 1`` only while
    the next record is late (half a second allowed). Read at one instant, so it holds on a machine of any speed.
    """
    digit = int(now["digit"])
    return digit - 1.5 < now["bar"] * total <= digit + 0.1


@pytest.mark.parametrize("size", list(SIZES))
def test_the_auction_is_a_timer_that_fills_the_width_drains_and_turns_red_at_5_s(chromium, tmp_path, size):
    config = {"auction": {"seconds": 9, "warning_seconds": 5}}
    context = new_phone(chromium, size)
    try:
        with RunningUnit(tmp_path, config) as unit, serving(tmp_path) as base:
            page = context.new_page()
            page.goto(base + "/")
            wait_for_unit(page)
            unit.press("power")
            page.wait_for_selector("#screen[data-view='ready']")
            unit.press("auction")
            page.wait_for_selector("#screen[data-view='countdown'] .l-big:text-is('8')")
            width = SIZES[size]["width"]
            # The seconds are as wide as the phone: the box spans it, the two digits most of it, and the bar too.
            assert box(page, "#screen")["width"] >= 0.9 * width
            assert box(page, "#screen .l-bar")["width"] >= 0.85 * width
            digits = page.evaluate(
                "(() => { const r = document.createRange();"
                " r.selectNodeContents(document.querySelector('#screen .l-big'));"
                " return r.getBoundingClientRect(); })()"
            )
            assert digits["height"] >= 0.18 * SIZES[size]["height"] or digits["width"] >= 0.25 * width
            assert page.evaluate("getComputedStyle(document.getElementById('screen')).backgroundColor") != RED
            # Between two records the bar keeps draining: several frames in one record, each lower than the last;
            # and what is left is the time left, the second the box shows, whatever the records' count. Samples
            # until three fall in one record (a loaded machine may put a record between any two).
            samples = []
            while len(samples) < 12 and max(Counter(s["records"] for s in samples).values(), default=0) < 3:
                samples.append(page.evaluate(SCREEN_NOW))
                time.sleep(0.1)  # samples apart in time: the bar drains between records (the time is the input)
            runs = [[s["bar"] for s in run] for _, run in groupby(samples, key=lambda s: s["records"])]
            assert max(len(run) for run in runs) >= 3, samples
            assert all(a > b for run in runs for a, b in zip(run, run[1:])), samples
            assert all(bar_within_its_second(s, 9) for s in samples), samples
            # At 5 s: red, once a vibration; not before.
            assert all(s["vibrations"] == 0 and not s["warning"] for s in samples if int(s["digit"]) > 5), samples
            page.wait_for_selector("#screen[data-warning='1'] .l-big:text-is('5')", timeout=6000)
            assert page.evaluate("getComputedStyle(document.getElementById('screen')).backgroundColor") == RED
            assert page.evaluate("window.mcVibrations") == [[300, 120, 300]]
            now = page.evaluate(SCREEN_NOW)
            assert now["warning"] and int(now["digit"]) <= 5 and bar_within_its_second(now, 9), now
            page.wait_for_selector("#screen[data-view='banner']", timeout=7000)  # ADJUGÉ !
            assert page.evaluate("getComputedStyle(document.getElementById('screen')).backgroundColor") != RED
            assert page.evaluate("window.mcVibrations") == [[300, 120, 300]]
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_remote_shows_its_three_buttons_without_scrolling(chromium, tmp_path, size):
    codes: list[str] = []
    context = new_phone(chromium, size)
    try:
        with RunningUnit(tmp_path, on_code=codes.append) as unit, serving(tmp_path) as base:
            page = context.new_page()
            page.goto(base + "/remote")
            wait_for_unit(page)
            page.click("#request-code")
            page.wait_for_selector("#message.shown")
            page.fill("#code", unit.shown_code(codes))
            page.click("#pair")
            page.wait_for_selector("#message.paired")
            unit.press("power")
            for shown in ("ready", "countdown"):  # the game clock, then the auction's timer
                if shown == "countdown":
                    unit.press("auction")
                page.wait_for_selector(f"#screen[data-view='{shown}']")
                height = SIZES[size]["height"]
                for button in ("power", "auction", "build"):
                    found = box(page, f"[data-button='{button}']")
                    assert found["y"] >= 0 and found["y"] + found["height"] <= height, (shown, button, found)
                    assert found["height"] >= 48  # a thumb's target
                assert page.evaluate("window.scrollY") == 0
    finally:
        context.close()


def test_the_screen_is_kept_on_while_visible_behind_a_remembered_switch(chromium, tmp_path):
    context = new_phone(chromium, "360x640")
    try:
        with serving(None) as base:
            page = context.new_page()
            page.goto(base + "/")
            page.wait_for_selector("body[data-wake='on']", state="attached")
            assert page.is_checked("#wake") and page.evaluate("window.mcWake.requests") == 1
            # The browser lets the lock go when the page is hidden; back in view, the page asks again.
            page.evaluate("window.mcWake.last.release()")
            page.wait_for_selector("body[data-wake='off']", state="attached")
            page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
            page.wait_for_selector("body[data-wake='on']", state="attached")
            assert page.evaluate("window.mcWake.requests") == 2
            # Switched off: released, and remembered on the next page.
            page.uncheck("#wake")
            page.wait_for_selector("body[data-wake='off']", state="attached")
            assert page.evaluate("localStorage.getItem('mc-wake')") == "0"
            page.goto(base + "/remote")
            page.wait_for_selector("#wake", state="attached")
            assert not page.is_checked("#wake") and page.evaluate("window.mcWake.requests") == 0
            page.check("#wake")
            page.wait_for_selector("body[data-wake='on']", state="attached")
            assert page.evaluate("localStorage.getItem('mc-wake')") == "1"
    finally:
        context.close()


def test_without_a_wake_lock_the_switch_plays_a_muted_looping_video(chromium):
    """At the box's plain http address the browser has no Screen Wake Lock: the switch's tap starts a muted,
    inline, looping video served by the box (a phone keeps its screen on while one plays), and a switch left on
    starts it at the page's first tap; the page never asks for what a person cannot do (« open it in https »)."""
    context = chromium.new_context(viewport=SIZES["360x640"], locale="fr", has_touch=True, is_mobile=True)
    context.add_init_script("delete Navigator.prototype.wakeLock;")  # as on an http:// address
    try:
        with serving(None) as base:
            page = context.new_page()
            served = []
            page.on("response", lambda r: served.append(r.url) if "nosleep" in r.url else None)
            page.goto(base + "/")
            page.wait_for_selector("body[data-wake='tap']", state="attached")  # left on: waits for a tap
            assert page.is_enabled("#wake") and page.is_checked("#wake") and not page.is_visible("#wake-note")
            page.uncheck("#wake")
            page.wait_for_selector("body[data-wake='off']", state="attached")
            page.check("#wake")  # the switch's tap
            page.wait_for_selector("body[data-wake='video']", state="attached")
            video = page.evaluate(
                "({paused: mcVideo.paused, muted: mcVideo.muted, loop: mcVideo.loop, inline: mcVideo.playsInline,"
                " src: mcVideo.currentSrc})"
            )
            assert video == {"paused": False, "muted": True, "loop": True, "inline": True, "src": video["src"]}
            assert video["src"].startswith(base + "/static/nosleep.") and all(u.startswith(base) for u in served)
            page.uncheck("#wake")
            page.wait_for_selector("body[data-wake='off']", state="attached")
            assert page.evaluate("mcVideo.paused")
            # Left on: the next page starts it at its first tap, anywhere.
            page.check("#wake")
            page.goto(base + "/remote")
            page.wait_for_selector("body[data-wake='tap']", state="attached")
            page.tap("#screen")
            page.wait_for_selector("body[data-wake='video']", state="attached")
            text = page.text_content("#wake-note")
            assert "https" not in text and "veille" in text  # what a person can do, if the phone refuses
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_manifest_speaks_the_pages_language_and_promises_no_full_screen_app(chromium, lang):
    """The page links the manifest of its own language; over the box's plain http address Chromium makes no app of
    it (``not-from-secure-origin``), so it asks for none: the home screen's icon opens the page in the browser."""
    context = new_phone(chromium, "390x844", lang)
    try:
        with serving(None, lang) as base:
            page = context.new_page()
            page.goto(base + "/")
            href = page.get_attribute("link[rel='manifest']", "href")
            assert href == f"/manifest.{lang}.webmanifest"
            response = page.request.get(base + href)
            assert response.ok and response.headers["content-type"].startswith("application/manifest+json")
            manifest = json.loads(response.text())
            assert manifest["display"] == "browser" and manifest["start_url"] == "/" and manifest["lang"] == lang
            assert manifest["name"] == "Monopoly City" and manifest["theme_color"].startswith("#")
            said = manifest["description"]
            assert ("téléphone" in said) == (lang == "fr") and ("phone" in said)
            for icon in manifest["icons"]:
                got = page.request.get(base + icon["src"])
                assert got.ok and got.headers["content-type"] == icon["type"], icon
                if icon["type"] == "image/png":
                    data = got.body()
                    side = int.from_bytes(data[16:20], "big")
                    assert data[:8] == b"\x89PNG\r\n\x1a\n" and icon["sizes"] == f"{side}x{side}"
            assert {"192x192", "512x512"} <= {icon["sizes"] for icon in manifest["icons"]}
            # Chromium's own reading of it: no error.
            cdp = context.new_cdp_session(page)
            read = cdp.send("Page.getAppManifest")
            assert read["errors"] == [] and json.loads(read["data"])["lang"] == lang
            assert page.request.get(base + page.get_attribute("link[rel='apple-touch-icon']", "href")).ok
            assert page.request.get(base + "/manifest.xx.webmanifest").status == 404
    finally:
        context.close()


def draw_icons(chromium) -> list[Path]:
    """The PNG icons, drawn by Chromium from icon.svg (the one drawing)."""
    svg = (STATIC / "icon.svg").read_text(encoding="utf-8")
    made = []
    for name, side in ICONS.items():
        context = chromium.new_context(viewport={"width": side, "height": side}, device_scale_factor=1)
        page = context.new_page()
        page.set_content(
            f"<html><body style='margin:0;background:transparent'>"
            f"<div style='width:{side}px;height:{side}px'>{svg.replace('<svg ', f'<svg width={side} height={side} ')}"
            f"</div></body></html>"
        )
        page.screenshot(path=STATIC / name, omit_background=True)
        context.close()
        made.append(STATIC / name)
    return made


#: The screen-on switch's video where a browser has no Screen Wake Lock (an http:// address): a muted, inline,
#: looping video keeps a phone's screen on while it plays (NoSleep's technique). Two formats: WebM for Chromium
#: and Firefox, MP4 (H.264) for Safari on iPhone; each is a black 2-second, 64x64 picture (a few KB).
VIDEOS = {"nosleep.webm": "video/webm;codecs=vp8", "nosleep.mp4": "video/mp4;codecs=avc1"}
RECORD = """async (type) => {
  const canvas = document.createElement("canvas");
  canvas.width = 64; canvas.height = 64;
  const pen = canvas.getContext("2d");
  const stream = canvas.captureStream(10);
  const recorder = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: 20000 });
  const parts = [];
  recorder.ondataavailable = (event) => parts.push(event.data);
  const stopped = new Promise((done) => { recorder.onstop = done; });
  recorder.start();
  for (let frame = 0; frame < 20; frame++) {
    pen.fillStyle = frame % 2 ? "#000" : "#010101";  // a change each frame, so that every frame is recorded
    pen.fillRect(0, 0, 64, 64);
    await new Promise((next) => setTimeout(next, 100));
  }
  recorder.stop();
  await stopped;
  return Array.from(new Uint8Array(await new Blob(parts).arrayBuffer()));
}"""


def draw_videos(chromium) -> list[Path]:
    """The screen-on switch's videos (:data:`VIDEOS`), recorded by Chromium from a canvas (no outside tool)."""
    made = []
    page = chromium.new_page()
    page.goto("about:blank")
    for name, kind in VIDEOS.items():
        (STATIC / name).write_bytes(bytes(page.evaluate(RECORD, kind)))
        made.append(STATIC / name)
    page.close()
    return made


if __name__ == "__main__":
    if sys.argv[1:] == ["icons"]:
        with browser() as launched:
            for path in draw_icons(launched):
                print(path)
    elif sys.argv[1:] == ["videos"]:
        with browser() as launched:
            for path in draw_videos(launched):
                print(path, path.stat().st_size, "bytes")


# --- French throughout, whole amounts, names not files (issue 22, section 2) -------------------------

#: English that leaked onto the French pages, and file names people should never see.
LEAKS = re.compile(
    r"SQUARE:|PLAYER:|dark_blue|light_blue|sewage_plant|power_station|water_tower|wind_farm|--card|"
    r"\.edition\.yaml|\.game\.yaml|\b(the|not found|serving|pairing|Sold|Auction|Ready)\b|\b[a-z]+_[a-z]+\b"
)


def french_evening(page, base: str, data: Path) -> list[str]:
    """A City game and a classic one started from the pages, as a person would; the pages a banker opens."""

    data.mkdir(parents=True, exist_ok=True)
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    for title, edition, players in (
        ("Soirée du vendredi", "trois.edition.yaml", "Alice, Bruno, Chloé"),
        ("Classique", "classic-fr", "Denis, Élodie"),
    ):
        page.goto(base + "/games")
        page.fill("#new-name", title)
        page.check(f"#new-edition input[value='{edition}']")
        page.fill("#new-players", players)
        page.click("#create")
        page.wait_for_selector("h1")
    page.goto(base + "/games/soiree-du-vendredi")
    for player, square in ((0, "Les Halles"), (1, "Quai Nord"), (2, "Port Sud")):
        buy(page, player, square)
    page.goto(base + "/games/classique")
    buy(page, 0, "Boulevard de Belleville")
    return [
        "/",
        "/remote",
        "/settings",
        "/share",
        "/games",
        "/games/soiree-du-vendredi",
        "/games/soiree-du-vendredi/player/0",
        "/games/soiree-du-vendredi/player/1/buy",
        "/games/soiree-du-vendredi/square/Les%20Halles",
        "/games/soiree-du-vendredi/trade/Les%20Halles",
        "/games/soiree-du-vendredi/history",
        "/games/soiree-du-vendredi/rent?square=Les+Halles",
        "/games/soiree-du-vendredi/fortunes",
        "/games/soiree-du-vendredi/fortunes?big=1",
        "/games/soiree-du-vendredi/check",
        "/games/classique",
        "/games/classique/player/0",
        "/games/classique/square/Boulevard%20de%20Belleville",
        "/games/classique/fortunes",
        "/games/classique/fortunes?big=1",
        "/editions",
        "/editions/trois",
        "/editions/trois/card",
        "/editions/europe-1991",
    ]


def test_no_english_word_and_no_file_name_on_a_french_page(chromium, tmp_path):
    context = new_phone(chromium, "360x640")
    try:
        with a_box(tmp_path) as (base, unit):
            page = context.new_page()
            pair_page(page, base, unit)  # the box's service: a paired phone starts the games
            found = {}
            for path in french_evening(page, base, tmp_path / "calculator"):
                page.goto(base + path)
                text = page.inner_text("body")
                hints = " ".join(e.get_attribute("placeholder") or "" for e in page.query_selector_all("[placeholder]"))
                options = " ".join(e.text_content() or "" for e in page.query_selector_all("option"))
                leaks = {m.group(0) for m in LEAKS.finditer(" ".join((text, hints, options)))}
                if leaks:
                    found[path] = sorted(leaks)
            assert found == {}
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_every_amount_is_whole_on_a_phone_upright(chromium, tmp_path, size):
    context = new_phone(chromium, size)
    try:
        with a_box(tmp_path) as (base, unit):
            page = context.new_page()
            pair_page(page, base, unit)
            french_evening(page, base, tmp_path / "calculator")
            for path in (
                "/games",
                "/editions",
                "/games/soiree-du-vendredi",
                "/games/soiree-du-vendredi/player/2",
                "/games/soiree-du-vendredi/square/Les%20Halles",
                "/games/soiree-du-vendredi/fortunes",
                "/games/soiree-du-vendredi/fortunes?big=1",
                "/games/classique/fortunes",
                "/games/classique/fortunes?big=1",
            ):
                page.goto(base + path)
                clipped = page.evaluate(
                    "[...document.querySelectorAll('td, th, .player-chip b, .who b, .total, .winner-line, .value,"
                    " h1:not(.visually-hidden), h2')]"
                    ".filter(e => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right >"
                    " document.documentElement.clientWidth + 1).map(e => e.textContent.trim())"
                )
                assert clipped == [], (path, clipped)
                assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"], path
                # A name breaks between its words, never inside one (« Chl-oé »).
                broken = page.evaluate(
                    "[...document.querySelectorAll('.ranking td:nth-child(2)')].filter(e => {"
                    " const r = document.createRange(); r.selectNodeContents(e);"
                    " return r.getClientRects().length > e.textContent.trim().split(/\\s+/).length; })"
                    ".map(e => e.textContent)"
                )
                assert broken == [], (path, broken)
    finally:
        context.close()
