"""The table's bank in a real browser (issue 22): a whole evening at phone size, as a banker runs it.

Playwright for Python driving Debian's Chromium at 390x844, with a unit running in real time (short
auctions) and the web service under uvicorn: on a City edition and on the classic board, purchases at the
printed price, a square put up for auction and the sale recorded from the box's countdown, buildings, rents
paid from the rent page in one tap, the GO salary, a tax, a mortgage and its lift, a mistaken payment undone,
and after every step the fortunes page equal to ``monopoly-city fortune`` run in-process on the same file.
Two pages at once: the older page's payment is refused (409) and a form sent again pays nothing.
Skipped with one line when there is no Chromium.

``make golden`` rewrites the bank's screenshots (360 px wide, French and English) under docs/images/phone/,
through :func:`test_phone_sized_screenshots_of_the_bank`.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from helpers import (  # noqa: E402
    PHONE,
    THREE_DISTRICTS,
    RunningUnit,
    create,
    screenshot,
    serving,
    shown_fortunes,
    without_revision,
)

from unit.calculator import position as positions  # noqa: E402
from unit.cli import main as monopoly_city  # noqa: E402

SHOTS = {"width": 360, "height": 780}  # the docs' screenshots: the narrowest phone the pages are made for
AUCTION = {"auction": {"seconds": 1.5, "warning_seconds": 0.5}}


pytestmark = pytest.mark.browser


@contextlib.contextmanager
def phone_page(chromium, lang: str, viewport: dict):
    context = chromium.new_context(**(PHONE | {"viewport": viewport}), locale=lang)
    try:
        yield context
    finally:
        context.close()


def cli_fortunes(path: Path) -> dict[str, int]:
    """``monopoly-city fortune GAME --json``, run in-process on the same file."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert monopoly_city(["fortune", str(path), "--json"]) == 0
    return {row["name"]: row["fortune"] for row in json.loads(out.getvalue())["players"]}


class Evening:
    """One banker's phone on one game, checking the fortunes against the command line after every step."""

    def __init__(self, page, base: str, path: Path, shots: Path | None):
        self.page, self.base, self.path, self.shots = page, base, path, shots
        self.name = path.name.removesuffix(".game.yaml")
        self.steps = 0

    def shot(self, name: str, selector: str | None = None) -> None:
        if self.shots is None:
            return
        if selector is not None:
            self.page.locator(selector).first.evaluate("element => element.scrollIntoView({block: 'start'})")
        screenshot(self.page, self.shots / f"{name}.png", *([selector] if selector else []))

    def game(self) -> positions.Game:
        return positions.load(self.path)

    def recorded(self, words: str | None = None) -> None:
        """The tap was taken: the page says what was recorded; the fortunes page agrees with the command line."""
        self.page.wait_for_selector("#done")
        if words is not None:
            assert words in self.page.text_content("#done"), self.page.text_content("#done")
        self.steps += 1
        self.page.goto(f"{self.base}/games/{self.name}/fortunes")
        assert shown_fortunes(self.page) == cli_fortunes(self.path)
        self.page.goto(f"{self.base}/games/{self.name}")

    def tap(self, selector: str, words: str | None = None) -> None:
        with self.page.expect_navigation():
            self.page.click(selector)
        self.recorded(words)

    def card(self, square: str, op: str, words: str | None = None) -> None:
        self.tap(f"article[data-square='{square}'] button[data-op='{op}']", words)

    def buy(self, player: int, square: str, words: str | None = None) -> None:
        self.page.select_option(f"#buy-{player}", square)
        self.tap(f"#buy-{player}-go", words)

    def rent(self, query: str, payer: int) -> None:
        """The rent page: the square found by part of its name, then one tap on who pays."""
        self.page.click("#tab-rent")
        self.page.fill("#q", query)
        self.page.click("#squares li:not([hidden]) a")
        self.page.wait_for_selector(f"#pay-{payer}")
        self.shot("bank-rent", "#rent")
        self.tap(f"#pay-{payer}")

    def transfer(self, player: int, to: str, amount: str) -> None:
        self.page.select_option(f"#transfer-{player}-to", to)
        self.page.fill(f"#transfer-{player}", amount)
        with self.page.expect_navigation():
            self.page.click(f"#transfer-{player}-go")

    def auction(self, unit, player: int, buyer: int, square: str, price: str) -> None:
        """The banker puts ``square`` up for auction, the box counts down, and the sale is recorded in one tap."""
        self.page.select_option(f"#buy-{player}", square)
        with self.page.expect_navigation():
            self.page.click(f"#buy-{player}-auction")
        history = len(self.game().history)
        unit.press("auction")
        self.page.wait_for_selector("#sale", timeout=10_000)  # shown without a reload when the countdown ends
        assert self.page.input_value("#sale-square") == square
        assert len(self.game().history) == history  # nothing recorded without a tap
        self.page.select_option("#sale-player", str(buyer))
        self.page.fill("#sale-price", price)
        self.shot("bank-sale", "#sale")
        self.tap("#sale-go")


def pair(page, base: str, unit, codes: list[str]) -> None:
    """The phone pairs with the unit (the remote's own test does it with its buttons)."""
    page.goto(base + "/remote")
    csrf = page.get_attribute("body", "data-csrf")
    page.request.post(base + "/pair/request", form={"csrf": csrf})
    answer = page.request.post(base + "/pair", form={"csrf": csrf, "code": unit.shown_code(codes)})
    assert answer.url.endswith("m=paired"), answer.url


def city_evening(chromium, state_dir: Path, shots: Path | None = None, lang: str = "fr", viewport=None) -> None:
    data = state_dir / "calculator"
    data.mkdir(parents=True, exist_ok=True)
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    codes: list[str] = []
    with (
        RunningUnit(state_dir, AUCTION, on_code=codes.append) as unit,
        serving(state_dir, lang) as base,
        phone_page(chromium, lang, viewport or PHONE["viewport"]) as context,
    ):
        page = context.new_page()
        pair(page, base, unit, codes)
        unit.press("power")
        create(page, base, "soiree", "trois.edition.yaml", "Alice, Bruno, Chloé")
        evening = Evening(page, base, data / "soiree.game.yaml", shots)
        evening.buy(0, "Les Halles", f"Alice → {'banque' if lang == 'fr' else 'bank'} · M 1M")
        evening.buy(0, "Quai Nord")
        evening.auction(unit, 1, 1, "Port Sud", "2,4M" if lang == "fr" else "2.4M")
        assert evening.game().players[1].cash == 20_000_000 - 2_400_000
        for _ in range(3):
            evening.card("Les Halles", "residential")
        evening.card("Quai Nord", "industrial")
        evening.shot("bank-game", "article[data-square='Quai Nord']")
        stale = context.new_page()  # a second page, left on the game as it is now
        stale.goto(f"{base}/games/soiree")
        twice = context.new_page()  # the rent page with the same form: sent again, as a double tap would
        twice.goto(f"{base}/games/soiree/rent?square=Les+Halles")
        evening.rent("hal", 1)
        game = evening.game()
        assert game.history[-1].what == "rent" and game.history[-1].payment.payer == "Bruno"
        # The second page, older now: its payment is refused and shows the game as it is.
        paid = evening.path.read_bytes()
        with stale.expect_navigation():
            stale.click("#player-2 button[data-op='salary']")
        assert ("a changé" if lang == "fr" else "changed") in stale.text_content("#error")
        assert evening.path.read_bytes() == paid
        # The same rent form sent again: refused, the rent page as it is now; nothing paid twice.
        with twice.expect_navigation():
            twice.click("#pay-1")
        assert twice.query_selector("#error") is not None and twice.query_selector("#pay-1") is not None
        assert evening.path.read_bytes() == paid
        evening.tap("#player-1 button[data-op='salary']")
        evening.tap("#player-0 button[data-op='tax']")  # the industry tax: Alice has an industrial block
        evening.card("Quai Nord", "mortgage")
        evening.card("Quai Nord", "lift")
        # A mistaken payment, undone from the line that says it was recorded.
        before = evening.path.read_bytes()
        evening.transfer(2, "to:0", "5M")
        evening.recorded()
        page.goto(f"{base}/games/soiree?done={len(evening.game().history)}")
        evening.shot("bank-done")
        with page.expect_navigation():
            page.click("#done-undo")
        assert without_revision(evening.path.read_bytes()) == without_revision(before)  # a version never repeats
        before = evening.path.read_bytes()
        page.goto(f"{base}/games/soiree/fortunes")
        assert shown_fortunes(page) == cli_fortunes(evening.path)
        # The history, newest first; taking several back asks first.
        page.goto(f"{base}/games/soiree")
        evening.shot("bank-history", "#history h2")
        with page.expect_navigation():
            page.click("#history li:nth-child(3) button")
        page.wait_for_selector("#ask")
        evening.shot("bank-ask")
        with page.expect_navigation():
            page.click("#ask-no")
        assert evening.path.read_bytes() == before
        # A payment larger than the cash: the rule's sentence and what the player can do.
        evening.transfer(1, "to:0", "40M")
        said = page.text_content("#error")
        assert ("hypothéquer Port Sud" if lang == "fr" else "mortgage Port Sud") in said, said
        evening.shot("bank-refused")
        assert evening.path.read_bytes() == before and evening.steps >= 13


def classic_evening(chromium, state_dir: Path) -> None:
    codes: list[str] = []
    data = state_dir / "calculator"
    with (
        RunningUnit(state_dir, AUCTION, on_code=codes.append) as unit,
        serving(state_dir) as base,
        phone_page(chromium, "fr", PHONE["viewport"]) as context,
    ):
        page = context.new_page()
        pair(page, base, unit, codes)
        unit.press("power")
        create(page, base, "classique", "classic-fr", "Bob, Léa")
        evening = Evening(page, base, data / "classique.game.yaml", None)
        evening.buy(0, "Rue de la Paix", "Bob → banque · 400 · achat de Rue de la Paix")
        evening.auction(unit, 1, 0, "Avenue des Champs-Élysées", "300")
        evening.buy(1, "Gare de Lyon")
        evening.transfer(0, "from:bank", "1000")  # a Chance card
        evening.recorded()
        for square in ("Rue de la Paix", "Avenue des Champs-Élysées") * 2:
            evening.card(square, "house")
        evening.rent("paix", 1)
        assert evening.game().history[-1].payment.amount == 600  # Rue de la Paix, 2 houses: « 600 »
        evening.tap("#player-1 button[data-op='salary']")
        evening.tap("#player-1 button[data-op='tax:Taxe de luxe']")
        evening.card("Gare de Lyon", "mortgage", "Gare de Lyon")
        evening.card("Gare de Lyon", "lift")
        evening.card("Rue de la Paix", "sell_one")
        before = evening.path.read_bytes()
        evening.transfer(1, "to:0", "50")
        evening.recorded()
        page.goto(f"{base}/games/classique?done={len(evening.game().history)}")
        with page.expect_navigation():
            page.click("#done-undo")
        assert without_revision(evening.path.read_bytes()) == without_revision(before)  # a version never repeats
        page.goto(f"{base}/games/classique/fortunes")
        assert shown_fortunes(page) == cli_fortunes(evening.path)


def test_a_city_evening_at_the_bank_in_the_browser(chromium, tmp_path):
    city_evening(chromium, tmp_path / "state")


def test_a_classic_evening_at_the_bank_in_the_browser(chromium, tmp_path):
    classic_evening(chromium, tmp_path / "state")


def test_phone_sized_screenshots_of_the_bank(chromium, tmp_path, phone_images):
    """The bank's pages at 360 px, in French and English, each checked before its picture is taken."""
    for lang in ("fr", "en"):
        out = phone_images / lang
        out.mkdir(parents=True, exist_ok=True)
        city_evening(chromium, tmp_path / lang, out, lang, SHOTS)
    assert len(list(phone_images.glob("*/bank-*.png"))) >= 2 * 7
