"""A refusal keeps the banker's place (issue 27 item 2), in a real browser: the address stays the view.

A refusal or a question is answered in place, by the view the tap came from; the page's script (static/table.js)
swaps it in without changing the address, so a reload shows that view again and Back never lands on the tap's own
address (``/games/NAME/bank``, which answers no GET: 405). Playwright driving Debian's Chromium at 360x640, on a
laptop's service (no box: the calculator written without pairing). Skipped with one line when there is no Chromium.
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from helpers import SMALL_PHONE, THREE_DISTRICTS, answered, create, phone, serving_data  # noqa: E402

pytestmark = pytest.mark.browser


def test_a_refusal_or_a_question_keeps_the_view_s_address_for_a_reload_and_back(chromium, tmp_path):
    data = tmp_path / "calculator"
    data.mkdir()
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with serving_data(data) as base, phone(chromium, "fr", SMALL_PHONE) as page:
        create(page, base, "soiree", "trois.edition.yaml", "Alice, Bruno, Chloé")
        player = f"{base}/games/soiree/player/2"
        page.click("#chip-2")
        answered(page)
        assert page.url == player
        for typed, said in (("500", "#slip"), ("-5", "#error")):  # asked back (« M 500 ou M 500k ? »); refused
            page.fill("#amount", typed)
            page.click("#pay-to-1")
            answered(page)
            page.wait_for_selector(said)
            assert page.url == player, (typed, page.url)  # the view the banker was on, not /games/soiree/bank
            answer = page.reload()
            assert answer is not None and answer.status == 200, (typed, answer and answer.status)
            page.wait_for_selector("#amount")  # the player's view again
            assert page.url == player
        page.click("#chip-0")  # another view, then Back: the player's view, not the tap's address
        answered(page)
        page.go_back()  # the address at once, the view once the script's fetch is in: waited for
        page.wait_for_function("() => document.querySelector('h1')?.textContent.startsWith('Chloé')")
        assert page.url == player and page.is_visible("#pay-form")
        assert "405" not in page.title() and "non permise" not in page.text_content("body")
