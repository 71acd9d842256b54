"""The table's bank in a real browser (issues 22 and 27): a whole evening on a 360x640 phone, as a banker runs it.

Playwright for Python driving Debian's Chromium at 360x640, with a unit running in real time (short auctions) and
the web service under uvicorn, the phone paired: on a City edition and on the classic board, every transaction
tapped on the game's views (unit/web/table.py) from the view the one before left the banker on — purchases at the
printed price from the buy grid, a square put up for auction and the sale bought by the second player from the
box's countdown, buildings, rents found by three letters and paid in one tap, the GO salary, a tax, a mortgage and
its lift, « 500 » asked back (M 500 or M 500k), a negative amount refused with the command line's sentence, a trade
undone, a mistaken payment undone from its line, several entries undone after the question, a file edited by hand
met by undo (named, recorded as an entry, undone), a correction made without paying undone, a payment larger than
the cash refused with what was typed kept — and after every step the phone's fortunes page equal to
``monopoly-city fortune`` run in-process on the same file. Two pages at once: the older page's tap is refused (409)
and shows the game as it is. Skipped with one line when there is no Chromium.

``make golden`` rewrites the views' screenshots (360x640, French and English) under docs/images/phone/, through
:func:`test_phone_sized_screenshots_of_the_views`: each is taken after the view is checked.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from helpers import (  # noqa: E402
    SMALL_PHONE,
    THREE_DISTRICTS,
    RunningUnit,
    answered,
    create,
    screenshot,
    serving,
    wait_for_unit,
    without_revision,
)

from unit.calculator import position as positions  # noqa: E402
from unit.cli import main as monopoly_city  # noqa: E402

AUCTION = {"auction": {"seconds": 1.5, "warning_seconds": 0.5}}
pytestmark = pytest.mark.browser


def cli_fortunes(path: Path) -> dict[str, int]:
    """``monopoly-city fortune GAME --json``, run in-process on the same file."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert monopoly_city(["fortune", str(path), "--json"]) == 0
    return {row["name"]: row["fortune"] for row in json.loads(out.getvalue())["players"]}


class Banker:
    """The banker's phone on one game: taps on the views, and after every entry the phone's fortunes page (fetched
    by the same browser, the view left as it is) equal to the command line's."""

    def __init__(self, page, base: str, path: Path, shots: Path | None):
        self.page, self.base, self.path, self.shots = page, base, path, shots
        self.name = path.name.removesuffix(".game.yaml")
        self.steps = 0

    def shot(self, name: str, *shown: str) -> None:
        if self.shots is not None:
            self.page.evaluate("window.scrollTo(0, 0)")
            screenshot(self.page, self.shots / f"{name}.png", *shown)

    def game(self) -> positions.Game:
        return positions.load(self.path)

    def entries(self) -> int:
        return len(self.game().history)

    def fortunes(self) -> dict[str, int]:
        text = self.page.request.get(f"{self.base}/games/{self.name}/fortunes").text()
        return {name: int(value) for name, value in re.findall(r'data-player="([^"]+)" data-fortune="(\d+)"', text)}

    def tap(self, selector: str) -> None:
        """One tap; the view the answer shows is in."""
        self.page.click(selector)
        answered(self.page)

    def recorded(self, words: str | None = None) -> None:
        """The last tap was taken: the view says what was recorded, with its undo; the fortunes agree."""
        n = self.entries()
        self.page.wait_for_selector(f"#done[data-n='{n}']")
        if words is not None:
            assert words in self.page.text_content("#done"), self.page.text_content("#done")
        self.steps += 1
        assert self.fortunes() == cli_fortunes(self.path)

    def find(self, letters: str) -> None:
        """A square by its letters, from any view: the finder, then the square's view."""
        self.page.click("#find")
        self.page.fill("#find", letters)
        self.tap("#found a")

    def buy(self, player: int, square: str, words: str | None = None) -> None:
        self.tap(f"#chip-{player}")
        self.tap("#to-buy")
        self.tap(f"#buy-grid button[value='{square}']")
        self.recorded(words)

    def build(self, square: str, op: str, times: int = 1) -> None:
        """From the owner's view or the square's: the square, then the tap (each further one: one tap)."""
        if not self.page.is_visible(f"#op-{op}"):
            self.tap(f"#holdings a[href$='/{quote(square)}']")
        for _ in range(times):
            self.tap(f"#op-{op}")
            self.recorded()

    def pay(self, payer: int, to: str, amount: str) -> None:
        """Money from ``payer`` (``to``: a player's place, ``bank``; ``from-bank``): the chip, the amount, the tap."""
        self.tap(f"#chip-{payer}")
        self.page.click("#amount")
        self.page.fill("#amount", amount)
        self.tap(f"#pay-{to}" if to == "from-bank" else f"#pay-to-{to}")

    def auction(self, unit, square: str, letters: str, buyer: int, price: str, said: str) -> None:
        """The square found, « To auction » (the view says what next), the box's countdown, the sale offered on the
        view: the price, then the buyer (never preset)."""
        self.find(letters)
        self.tap("#to-auction")
        assert said in self.page.text_content("#auction-note")
        self.shot("table-auction", "#auction-note")
        history = self.entries()
        unit.press("auction")
        self.page.wait_for_selector("#sale", timeout=15_000)  # shown without a reload when the countdown ends
        assert self.entries() == history  # nothing recorded without a tap
        assert self.page.query_selector("#sale input[name='player']:checked, #sale option[selected]") is None
        self.page.click("#sale-price")
        self.page.fill("#sale-price", price)
        self.shot("table-sale", "#sale", "#sale-to-1")
        self.tap(f"#sale-to-{buyer}")
        self.recorded()


def pair(page, base: str, unit) -> None:
    """The phone pairs with the unit, on the remote, as a person does."""
    page.goto(base + "/remote")
    wait_for_unit(page)
    page.click("#request-code")
    page.fill("#code", unit.shown_code())
    with page.expect_navigation():
        page.click("#pair")
    page.wait_for_selector("[data-button='auction']")


def city_evening(chromium, state_dir: Path, shots: Path | None = None, lang: str = "fr") -> None:
    fr = lang == "fr"
    data = state_dir / "calculator"
    data.mkdir(parents=True, exist_ok=True)
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with RunningUnit(state_dir, AUCTION) as unit, serving(state_dir, lang) as base:
        context = chromium.new_context(**SMALL_PHONE, locale=lang)
        try:
            page = context.new_page()
            pair(page, base, unit)
            unit.press("power")
            create(page, base, "soiree", "trois.edition.yaml", "Alice, Bruno, Chloé")
            bank = Banker(page, base, data / "soiree.game.yaml", shots)
            bank.shot("table-home", "#chip-0", "#find", "#to-history")
            bank.buy(0, "Les Halles", f"Alice → {'banque' if fr else 'bank'} · M 1M")
            bank.shot("table-player", "#pay-form", "#holdings", "#done")
            bank.buy(0, "Quai Nord")
            bank.tap("#chip-1")
            bank.tap("#to-buy")
            bank.shot("table-buy", "#buy-grid")
            said = "Port Sud aux enchères : appuyez sur ENCHÈRES sur le boîtier" if fr else "press AUCTION on the box"
            bank.auction(unit, "Port Sud", "por", 1, "2,4M" if fr else "2.4M", said)
            assert bank.game().players[1].cash == 20_000_000 - 2_400_000  # the second player bought it
            bank.tap("#chip-0")
            bank.build("Les Halles", "residential", 3)
            bank.build("Quai Nord", "industrial")
            stale = context.new_page()  # a second page, left on a view as it is now
            stale.goto(f"{base}/games/soiree/player/2")
            bank.find("hal")
            bank.shot("table-square", "#payers", "#square-taps")
            bank.tap("#pay-1")
            bank.recorded()
            game = bank.game()
            assert game.history[-1].what == "rent" and game.history[-1].payment.payer == "Bruno"
            # The second page, older now: its tap is refused and it shows the game as it is.
            paid = bank.path.read_bytes()
            stale.click("#op-salary")
            answered(stale)
            assert ("a changé" if fr else "changed") in stale.text_content("#error")
            assert without_revision(bank.path.read_bytes()) == without_revision(paid)
            stale.close()
            bank.tap("#chip-1")
            bank.tap("#op-salary")
            bank.recorded()
            bank.tap("#chip-0")
            bank.tap("#op-tax")  # the industry tax: Alice has an industrial block
            bank.recorded()
            bank.build("Quai Nord", "mortgage")
            bank.build("Quai Nord", "lift")
            # « 500 » in a City game: asked back, M 500 or M 500k; the answer tapped is what is recorded.
            before = bank.path.read_bytes()
            bank.pay(2, "0", "500")
            question = page.text_content("#slip")
            assert ("M 500 ou M 500k ?" if fr else "M 500 or M 500k?") in question and without_revision(
                bank.path.read_bytes()
            ) == without_revision(before)
            bank.shot("table-slip", "#slip")
            bank.tap("#slip-2")
            bank.recorded("M 500k")
            bank.tap("#done-undo")  # the mistaken payment, undone from the line that says it was recorded
            assert without_revision(bank.path.read_bytes()) == without_revision(before)
            assert bank.fortunes() == cli_fortunes(bank.path)
            # A negative amount: the command line's sentence, what was typed kept.
            bank.pay(2, "0", "-5M")
            assert ("sans signe moins" if fr else "without a minus sign") in page.text_content("#error")
            assert page.input_value("#amount") == "-5M" and without_revision(
                bank.path.read_bytes()
            ) == without_revision(before)
            # A trade of one square for money: one entry, undone.
            bank.tap("#chip-0")
            bank.tap("#holdings a[href$='/Quai%20Nord']")
            bank.tap("#to-trade")
            bank.page.click("#price")
            bank.page.fill("#price", "3M")
            bank.shot("table-trade", "#price", "#trade-to-2")
            bank.tap("#trade-to-2")
            bank.recorded()
            game = bank.game()
            assert game.history[-1].what == "trade" and "Quai Nord" in [h.name for h in game.players[2].holdings]
            bank.tap("#done-undo")
            assert without_revision(bank.path.read_bytes()) == without_revision(
                before
            ) and bank.fortunes() == cli_fortunes(bank.path)
            # The history, newest first; taking several back asks first.
            bank.tap("#to-history")
            bank.shot("table-history", "#history")
            last = bank.entries()
            bank.tap(f"#undo-{last - 2}")
            page.wait_for_selector("#ask")
            bank.shot("table-ask", "#ask", "#ask-yes")
            bank.tap("#ask-no")
            assert without_revision(bank.path.read_bytes()) == without_revision(before)
            # A payment larger than the cash: the rule's sentence and what the player can do, the amount kept.
            bank.pay(1, "0", "40M")
            said = page.text_content("#error")
            assert ("hypothéquer Port Sud" if fr else "mortgage Port Sud") in said, said
            assert page.input_value("#amount") == "40M" and without_revision(
                bank.path.read_bytes()
            ) == without_revision(before)
            bank.shot("table-refused", "#error", "#amount")
            # A file changed by hand since (a text editor): undo says so, and nothing is undone.
            text = bank.path.read_text(encoding="utf-8")
            hand = re.sub(r"\{name: Quai Nord([^}]*)\}", r"{name: Quai Nord\1, mortgaged: true}", text, count=1)
            assert hand != text
            bank.path.write_text(hand, encoding="utf-8")  # Quai Nord mortgaged again, by hand
            bank.tap("#to-history")
            bank.tap(f"#undo-{last}")
            assert ("à la main" if fr else "by hand") in page.text_content("#error")
            assert "Quai Nord" in page.text_content("#error")  # the player and the square the hand changed
            bank.shot("table-hand", "#slip", "#slip-1")
            bank.tap("#slip-1")  # the hand's change recorded as an entry: the fortunes agree again
            bank.recorded()
            bank.tap("#done-undo")  # and undone: Quai Nord as the history says
            page.wait_for_selector("#undone")
            assert bank.fortunes() == cli_fortunes(bank.path)
            assert not bank.game().players[0].holdings[-1].mortgaged
            # A correction made without paying is an entry too: its line, and its undo.
            before = bank.path.read_bytes()
            bank.tap("#chip-2")
            page.locator("#fix-player").evaluate("details => { details.open = true; }")
            page.fill("#fix-cash", "25M")
            bank.tap("#fix-player form:has(#fix-cash) button")
            bank.recorded()
            assert bank.game().players[2].cash == 25_000_000
            bank.tap("#done-undo")
            assert without_revision(bank.path.read_bytes()) == without_revision(before)
            assert bank.steps >= 16
        finally:
            context.close()


def classic_evening(chromium, state_dir: Path) -> None:
    data = state_dir / "calculator"
    with RunningUnit(state_dir, AUCTION) as unit, serving(state_dir) as base:
        context = chromium.new_context(**SMALL_PHONE, locale="fr")
        try:
            page = context.new_page()
            pair(page, base, unit)
            unit.press("power")
            create(page, base, "classique", "classic-fr", "Bob, Léa")
            bank = Banker(page, base, data / "classique.game.yaml", None)
            bank.buy(0, "Rue de la Paix", "Bob → banque · 400 · achat de Rue de la Paix")
            bank.auction(
                unit, "Avenue des Champs-Élysées", "champs", 1, "300", "Avenue des Champs-Élysées aux enchères"
            )
            assert bank.game().players[1].cash == 1500 - 300  # Léa, the second player
            bank.buy(1, "Gare de Lyon")
            bank.pay(0, "from-bank", "1000")  # a Chance card
            bank.recorded()
            trade_before = bank.path.read_bytes()
            bank.tap("#chip-1")
            bank.tap("#holdings a[href$='/Avenue%20des%20Champs-%C3%89lys%C3%A9es']")
            bank.tap("#to-trade")
            page.fill("#price", "350")
            bank.tap("#trade-to-0")
            bank.recorded()
            assert bank.game().history[-1].what == "trade"
            for _ in range(2):
                bank.find("paix")
                bank.tap("#op-house")
                bank.recorded()
                bank.find("champs")
                bank.tap("#op-house")
                bank.recorded()
            bank.find("paix")
            bank.tap("#pay-1")
            bank.recorded()
            assert bank.game().history[-1].payment.amount == 600  # Rue de la Paix, 2 houses: « 600 »
            bank.tap("#chip-1")
            bank.tap("#op-salary")
            bank.recorded()
            bank.tap("#op-tax-Taxe-de-luxe")
            bank.recorded()
            bank.find("lyon")
            bank.tap("#op-mortgage")
            bank.recorded()
            bank.tap("#op-lift")
            bank.recorded()
            bank.find("paix")
            bank.tap("#op-sell_one")
            bank.recorded()
            before = bank.path.read_bytes()
            bank.pay(1, "0", "50")
            bank.recorded()
            bank.tap("#done-undo")
            assert without_revision(bank.path.read_bytes()) == without_revision(before)
            assert bank.fortunes() == cli_fortunes(bank.path)
            assert without_revision(bank.path.read_bytes()) != without_revision(trade_before)
        finally:
            context.close()


def test_a_city_evening_at_the_bank_in_the_browser(chromium, tmp_path):
    city_evening(chromium, tmp_path / "state")


def test_a_classic_evening_at_the_bank_in_the_browser(chromium, tmp_path):
    classic_evening(chromium, tmp_path / "state")


VIEWS = ["home", "player", "buy", "auction", "sale", "square", "slip", "trade", "history", "ask", "refused", "hand"]


def test_phone_sized_screenshots_of_the_views(chromium, tmp_path, phone_images):
    """The game's views at 360x640, in French and English, each checked before its picture is taken."""
    for lang in ("fr", "en"):
        out = phone_images / lang
        out.mkdir(parents=True, exist_ok=True)
        city_evening(chromium, tmp_path / lang, out, lang)
        assert all((out / f"table-{name}.png").is_file() for name in VIEWS)
