"""Every page passes axe-core and every control takes a thumb (issue 27 item 6), in Chromium at 360x640.

axe-core (the ``axe-playwright-python`` package's own axe.min.js: nothing is fetched) finds no violation of any
impact, and every control a page shows is at least 44 CSS px wide and high (:func:`helpers.assert_accessible`), on
every page of the phone companion in both languages: the live view, the remote (paired and not), the settings,
sharing, the games, each view of a game at the table (the table, a square found, a player, the buy grid, a square
held and one nobody holds, a trade, the history, a question before undoing, an amount asked back, a refusal, the
box's sale), the rent, the fortunes (and the table's view), the check, a classic game's dice, a City card asked
and the bank's tap after it, the editions, an edition and its card form. Each of them twice beside a running
unit: as a phone not paired (the calculator's pages then say how to pair, ``#pair-first``) and as a paired one;
on a laptop with no unit (the calculator's pages say anyone may write, ``#calc-open``); and the page of an
address that leads nowhere (404). Skipped with one line without Chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("axe_playwright_python", reason="the dev extra is not installed")

from helpers import (  # noqa: E402
    SMALL_PHONE,
    THREE_DISTRICTS,
    RunningUnit,
    assert_accessible,
    serving_data,
    wait_for_unit,
)

pytestmark = pytest.mark.browser
AUCTION = {"auction": {"seconds": 1.2, "warning_seconds": 0.4}}
HALLES = "Les%20Halles"


def set_up(data: Path) -> None:
    """A City game (Alice holds Les Halles, built; Bruno Quai Nord), a classic one with a utility held, an edition."""
    from unit.calculator import bank
    from unit.calculator import position as positions

    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    city = positions.parse(
        {
            "title": "Soirée du vendredi",
            "edition": "trois.edition.yaml",
            "players": [{"name": n, "cash": "20M", "districts": []} for n in ("Alice", "Bruno", "Chloé")],
        },
        "soiree.game.yaml",
        data,
        "fr",
    )
    for action in (
        bank.Buy("Alice", "Les Halles"),
        bank.Buy("Bruno", "Quai Nord"),
        bank.Build("Les Halles", residential=2),
        bank.PayRent("Bruno", "Les Halles"),
    ):
        city, _ = bank.apply(city, action)
    (data / "soiree.game.yaml").write_text(positions.dumps(city, "trois.edition.yaml"), encoding="utf-8")
    classic = positions.parse(
        {"edition": "classic-fr", "players": [{"name": n, "cash": 1500, "properties": []} for n in ("Bob", "Léa")]},
        "classique.game.yaml",
        data,
        "fr",
    )
    classic, _ = bank.apply(classic, bank.Buy("Bob", "Compagnie de distribution des eaux"))
    (data / "classique.game.yaml").write_text(positions.dumps(classic, "classic-fr"), encoding="utf-8")


#: Every page a GET shows, and what it must show (a selector) before it is checked.
PAGES = [
    ("/", "#screen"),
    ("/settings", "h1"),
    ("/share", ".qr"),
    ("/games", "#create"),
    ("/games/soiree", "#find"),
    ("/games/soiree?q=hal", "#found-list"),
    ("/games/soiree/player/0", "#pay-form"),
    ("/games/soiree/player/1/buy", "#buy-grid"),
    (f"/games/soiree/square/{HALLES}", "#payers"),
    ("/games/soiree/square/Port%20Sud", "#to-auction"),
    (f"/games/soiree/trade/{HALLES}", "#trade-form"),
    ("/games/soiree/history", "#history"),
    ("/games/soiree/rent", "#squares"),
    ("/games/soiree/rent?square=Les+Halles", "#rent"),
    ("/games/soiree/fortunes", "#ranking"),
    ("/games/soiree/fortunes?big=1", "#ranking"),
    ("/games/soiree/check", "h1"),
    ("/games/classique/square/Compagnie%20de%20distribution%20des%20eaux", "#dice"),
    ("/games/classique/player/0", "#pay-form"),
    ("/games/soiree/card?for=buy&player=1", "#card-save"),
    ("/games/soiree/card?for=buy&district=Port%20Sud&player=2", "#card-do"),
    ("/editions", "h1"),
    ("/editions/trois", "h1"),
    ("/editions/trois/card", "form"),
]


#: The calculator's pages on a laptop's service with no unit beside it (``serve`` alone): each says anyone may write.
LAPTOP = [
    (path, shown)
    for path, shown in PAGES
    if path.startswith(("/editions", "/games/soiree/card"))
    or path.split("?")[0] in ("/games", "/games/soiree/rent", "/games/soiree/fortunes", "/games/soiree/check")
]
#: Addresses that lead nowhere, and where their page leads back to.
MISSING = [
    ("/games/nope", "/games"),
    ("/games/nope/rent", "/games"),
    ("/games/soiree/player/9", "/games"),
    ("/editions/nope", "/editions"),
    ("/nowhere", "/"),
]


def checked_pages(page, base: str, lang: str, pages: list[tuple[str, str]], banner: str | None, who: str) -> None:
    """Each of ``pages`` shown, in ``lang``, accessible; the calculator's pages with ``banner`` (None: a paired
    phone's, without the line saying how to pair)."""
    for path, shown in pages:
        answer = page.goto(base + path)
        assert answer is not None and answer.status == 200, path
        page.wait_for_selector(shown)
        assert page.get_attribute("html", "lang") == lang
        if path.startswith(("/games", "/editions")):
            assert page.is_visible(banner) if banner else page.locator("#pair-first").count() == 0, f"{path} ({who})"
        assert_accessible(page, f"{path} ({who})")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_page_passes_axe_core_and_every_control_takes_a_thumb(chromium, tmp_path, lang):
    state, data = tmp_path / "state", tmp_path / "data"
    state.mkdir()
    data.mkdir()
    set_up(data)
    with RunningUnit(state, AUCTION) as unit, serving_data(data, state) as base:
        context = chromium.new_context(**SMALL_PHONE, locale=lang)
        try:
            page = context.new_page()
            page.goto(f"{base}/remote?lang={lang}")  # the language remembered (a cookie) for every page
            wait_for_unit(page)
            assert_accessible(page, "/remote (not paired)")
            checked_pages(page, base, lang, PAGES, "#pair-first", "not paired")
            page.goto(f"{base}/remote")
            wait_for_unit(page)
            page.click("#request-code")
            page.fill("#code", unit.shown_code())
            with page.expect_navigation():
                page.click("#pair")
            page.wait_for_selector("[data-button='auction']")
            assert_accessible(page, "/remote (paired)")
            unit.press("power")
            checked_pages(page, base, lang, PAGES, None, "paired")
            checked_in_use(page, base, unit)
        finally:
            context.close()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_laptop_s_open_calculator_and_the_pages_of_nowhere_pass_axe_core_too(chromium, tmp_path, lang):
    """``serve`` on a laptop, no unit beside it: the calculator's pages say anyone may write; and an address that
    leads nowhere (a game, an edition, a player, a path) is a page of the site, in its language, status 404,
    with its way back."""
    data = tmp_path / "data"
    data.mkdir()
    set_up(data)
    with serving_data(data) as base:
        context = chromium.new_context(**SMALL_PHONE, locale=lang)
        try:
            page = context.new_page()
            page.goto(f"{base}/games?lang={lang}")
            checked_pages(page, base, lang, LAPTOP, "#calc-open", "laptop")
            for path, back in MISSING:
                answer = page.goto(base + path)
                assert answer is not None and answer.status == 404, path
                assert page.get_attribute("html", "lang") == lang and page.title(), path
                assert page.get_attribute("#back", "href") == back, path
                assert_accessible(page, f"{path} (404)")
        finally:
            context.close()


def checked_in_use(page, base: str, unit) -> None:
    """The views as taps leave them: an entry recorded with its undo, a question before undoing, an amount asked
    back, a refusal beside its control, the box's sale offered, the auction's next step."""
    page.goto(f"{base}/games/soiree/player/1")
    page.click("#op-salary")
    page.wait_for_selector("#done")
    assert_accessible(page, "an entry recorded")
    page.click("#to-history")
    page.wait_for_selector("#undo-3")
    page.click("#undo-3")
    page.wait_for_selector("#ask")
    assert_accessible(page, "the question before undoing")
    page.click("#ask-no")
    page.wait_for_selector("#ask", state="detached")
    page.click("#chip-0")
    page.wait_for_selector("#amount")
    page.fill("#amount", "500")
    page.click("#pay-to-1")
    page.wait_for_selector("#slip")
    assert_accessible(page, "an amount asked back")
    page.click("#chip-0")
    page.wait_for_selector("#slip", state="detached")
    page.fill("#amount", "900M")
    page.click("#pay-to-1")
    page.wait_for_selector("#error[data-field='amount']")
    assert_accessible(page, "a refusal beside its control")
    page.goto(f"{base}/games/soiree/square/Port%20Sud")
    page.click("#to-auction")
    page.wait_for_selector("#auction-note")
    assert_accessible(page, "the auction's next step")
    unit.press("auction")
    page.wait_for_selector("#sale", timeout=15_000)
    assert_accessible(page, "the box's sale offered")
