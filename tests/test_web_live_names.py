"""Names, not files (issue 22, section 2): an edition made and listed by its own name, a new colour group
that starts with an empty skyscraper price, the settings in the box's own words. No browser, no unit."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import card, csrf, full_card, version  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit import i18n  # noqa: E402
from unit.calculator import edition  # noqa: E402
from unit.core import menu, views  # noqa: E402
from unit.web import live  # noqa: E402
from unit.web.app import create_app  # noqa: E402
from unit.web.common import slug_of  # noqa: E402
from unit.web.store import NAME_RE  # noqa: E402


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(None, "fr", tmp_path / "data"), base_url="http://box.local") as test_client:
        test_client.data = tmp_path / "data"
        yield test_client


@given(st.text(max_size=80), st.sets(st.from_regex(NAME_RE, fullmatch=True), max_size=5))
def test_a_name_people_type_gives_a_file_name_that_is_one_and_is_free(title, taken):
    slug = slug_of(title, taken)
    assert slug == "" or (NAME_RE.match(slug) and slug not in taken)
    if any(c.isascii() and c.isalnum() for c in title):
        assert slug


def test_an_edition_is_made_and_listed_by_its_name_and_its_file_never_shown(client):
    token = csrf(client)
    first = client.post("/editions/new", data={"csrf": token, "title": "Ma Ville"})
    assert first.status_code == 200 and first.url.path == "/editions/ma-ville"
    again = client.post("/editions/new", data={"csrf": token, "title": "ma  ville"})
    assert again.url.path == "/editions/ma-ville-2"  # the same words again: another file, never a clash
    assert edition.load(str(client.data / "ma-ville.edition.yaml")).name == "Ma Ville"
    listing = client.get("/editions").text
    assert "Ma Ville" in listing and ".edition.yaml" not in listing and 'name="title"' in listing
    nothing = client.post("/editions/new", data={"csrf": token, "title": "!!!"})
    assert nothing.status_code == 400 and "lettre ou un chiffre" in nothing.text
    games = client.get("/games").text
    assert '<span class="board-title">Ma Ville</span>' in games and ">ma-ville.edition.yaml<" not in games


def sky_of(client, group: str, name: str = "ma-ville") -> int | None:
    return edition.load(str(client.data / f"{name}.edition.yaml")).groups[group].skyscraper_cost


def test_a_new_colour_group_starts_with_an_empty_skyscraper_price(client):
    token = csrf(client)
    client.post("/editions/new", data={"csrf": token, "title": "Ma Ville"})
    saved = client.post("/editions/ma-ville/card", data=card(token, version(client), **full_card("A", "rouge")))
    page = re.sub(r"\s+", " ", saved.text)  # the next card: the same group and its price, said to be carried
    assert 'name="carried_from" value="rouge"' in page and 'name="skyscraper_cost" value="5M"' in page
    carried = {"carried_from": "rouge"}
    # The next card put in a new group with that price untouched: the new group has none.
    client.post("/editions/ma-ville/card", data=card(token, version(client), **full_card("B", "bleu")) | carried)
    assert sky_of(client, "bleu") is None and sky_of(client, "rouge") == 5_000_000
    # In the same group: the group's price; typed for a new group: the price typed.
    client.post("/editions/ma-ville/card", data=card(token, version(client), **full_card("C", "rouge")) | carried)
    assert sky_of(client, "rouge") == 5_000_000
    typed = card(token, version(client), **full_card("D", "vert", sky="4M"))
    client.post("/editions/ma-ville/card", data=typed | carried)
    assert sky_of(client, "vert") == 4_000_000
    # The card form knows each group's price, for the script that makes the field follow the group.
    form = client.get("/editions/ma-ville/card").text
    assert '"rouge": "5M"' in form and '"bleu": ""' in form


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_settings_are_named_and_valued_in_the_box_s_own_words(language):
    words = i18n.words(language)
    for key, item in live.SETTING_ITEMS.items():
        assert live.setting_label(key, words) == words(f"screen.item_{item}")
    assert live.option_label("game.minutes", 90, words) == (
        "1 h 30" if language == "fr" else words("screen.value_hours", n=1) + " 30"
    )
    assert live.option_label("game.minutes", None, words) == words("screen.value_untimed")
    assert live.option_label("auction.seconds", 50, words) == words("screen.value_seconds", n=50)
    for volume in menu.VOLUMES:
        assert live.option_label("buzzer.volume", str(volume), words) == words(f"screen.volume_{volume}")
    for brightness in menu.BRIGHTNESSES:
        assert live.option_label("display.brightness", str(brightness), words) == words(
            f"screen.brightness_{brightness}"
        )
    if language == "fr":
        assert live.option_label("buzzer.volume", "off", words) == "coupé"
        assert live.option_label("display.brightness", "high", words) == "forte"


@pytest.mark.parametrize("name", sorted(views.SAMPLES))
def test_every_screen_is_laid_out_as_the_box_s_lines(name):
    view = views.SAMPLES[name]
    words = i18n.words("fr")
    lines = live.box_lines(view, words)
    if name == "off":
        assert lines == []
        return
    assert lines and all(
        line["role"] in ("head", "title", "big", "line", "hint", "question", "bar", "icons") for line in lines
    )
    shown = " ".join(line["text"] + " " + line.get("right", "") for line in lines)
    # Every word of the trace's line is on the page's lines (the trace joins them with « · »), but the
    # menu's « RÉGLAGES », which the OLED leaves out for its item and « 2/6 ».
    omitted = {"!", "…", ":", words("screen.settings")}
    for part in views.describe(view, words).replace(" · ", " ").split():
        if part not in omitted:
            assert part in shown, (name, part, shown)
