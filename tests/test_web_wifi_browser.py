"""The share page while the box's own Wi-Fi is on (issue 29, item 4), in Chromium on the smallest phone (360x640).

The Wi-Fi step comes first, its QR code and the network's name and password readable and each selected whole by
one tap; then the page's own QR code, for the address the phone has once it joined. axe-core finds nothing, every
control takes a thumb, nothing is wider than the phone. The picture is saved in the test's folder.
"""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("axe_playwright_python", reason="the dev extra is not installed")

from helpers import SMALL_PHONE, assert_accessible, phone, screenshot, serving  # noqa: E402

pytestmark = pytest.mark.browser

ON = {"available": True, "on": True, "name": "Monopoly City", "password": "k7m2x9p4qa", "address": "10.42.0.1"}
WORDS = {
    "fr": ("1. Rejoindre le Wi-Fi du boîtier", "2. Ouvrir la page", "Mot de passe"),
    "en": ("1. Join the box's Wi-Fi", "2. Open the page", "Password"),
}


def dark_share(path, box: dict) -> float:
    """The share of dark pixels inside ``box`` (CSS pixels, device scale 1) of the picture at ``path``."""
    from PIL import Image

    with Image.open(path) as image:
        area = image.convert("L").crop((box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]))
        histogram = area.histogram()
    return sum(histogram[:128]) / sum(histogram)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_share_page_joins_the_box_s_wifi_first_on_a_small_phone(chromium, tmp_path, lang):
    status = tmp_path / "wifi" / "status.json"
    status.parent.mkdir()
    status.with_suffix(".new").write_text(json.dumps(ON), encoding="utf-8")
    os.replace(status.with_suffix(".new"), status)  # as the helper writes it
    with serving(None, lang, wifi_status=status) as base, phone(chromium, lang, SMALL_PHONE) as page:
        port = base.rpartition(":")[2]
        page.goto(f"{base}/share?lang={lang}")
        page.wait_for_load_state("load")
        for image in ("#wifi-qr", "#page-step img.qr"):
            assert page.evaluate(f"document.querySelector('{image}').naturalWidth") > 0, image  # loaded
        wifi_title, page_title, password = WORDS[lang]
        assert page.text_content("#wifi-title") == wifi_title and page.text_content("#page-title") == page_title
        assert password in page.text_content("#wifi-step dl")
        assert page.text_content("#wifi-name") == "Monopoly City"
        assert page.text_content("#wifi-password") == "k7m2x9p4qa"
        assert page.text_content(".address code") == f"http://10.42.0.1:{port}/"  # once joined, not 127.0.0.1
        first, second = (page.locator(s).bounding_box() for s in ("#wifi-qr", "#page-step img.qr"))
        assert first["y"] + first["height"] <= second["y"]  # the Wi-Fi first
        assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["viewport"]["width"]
        password_size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#wifi-password')).fontSize)")
        assert password_size >= 20  # large enough to read across the table
        page.click("#wifi-password")  # one tap selects the password whole, ready to copy
        assert page.evaluate("window.getSelection().toString()") == "k7m2x9p4qa"
        page.evaluate("window.getSelection().removeAllRanges(); window.scrollTo(0, 0)")
        assert_accessible(page, f"/share with the box's Wi-Fi on ({lang})")
        shot = screenshot(page, tmp_path / f"share-wifi-{lang}.png", "#wifi-title", "#wifi-qr")
        # the Wi-Fi's QR code is a QR code: about as many dark modules as light ones, not a blank square
        assert 0.3 < dark_share(shot, page.locator("#wifi-qr").bounding_box()) < 0.7
        screenshot(page, tmp_path / f"share-wifi-{lang}-whole.png", "#wifi-qr", ".address", full_page=True)
