"""The bank's transactions counted as a thumb does them (issue 27, « One screen per action »): taps, letters and
scroll, in Chromium at 360x640, from the view the banker is on.

A City evening's position (the example edition, docs/examples/city-example.yaml: 22 districts; 4 players holding
most of the board) is written to a data folder and served by the web application under uvicorn on loopback;
Playwright drives Debian's Chromium as a phone. Each transaction is played by :class:`Thumb`, which counts:

- a **tap** for each touch of a control (a field touched to type in it counts one; a native list counts two: it
  opens, then a choice);
- the **letters** typed (a search's letters; an amount is counted apart as « + amount »);
- the **scroll**: before a tap, a control outside the screen is scrolled to; the CSS px scrolled are added up.

The table of the issue is the contract: :data:`ALLOWED` (taps, letters at most; no scroll before any tap). The
script exits with status 1 when a transaction needs more (``make bench`` fails); counting is not timing.

    python benchmarks/web_taps.py            # the figures, and the check against the table

``measure()`` returns the figures (for ``make bench``). :data:`TODAY` holds the same script's figures on the pages
before the redesign (commit 897c142, the one-page game with its cards), measured by its « today » flows, which
that commit's version of this file plays.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from unit.calculator import bank  # noqa: E402
from unit.calculator import position as positions  # noqa: E402

VIEWPORT = {"width": 360, "height": 640}
EDITION = ROOT / "docs" / "examples" / "city-example.yaml"
PLAYERS = ("Alice", "Bruno", "Chloé", "Dan")


@dataclass
class Count:
    """One transaction as a thumb did it."""

    taps: int = 0
    letters: int = 0
    amount: bool = False  # an amount typed (counted apart, as the table does)
    scroll: int = 0  # CSS px scrolled to reach a control before tapping it
    notes: list[str] = field(default_factory=list)

    def said(self) -> str:
        parts = [f"{self.taps} tap{'s' if self.taps != 1 else ''}"]
        if self.letters:
            parts.append(f"{self.letters} letters")
        if self.amount:
            parts.append("amount")
        if self.scroll:
            parts.append(f"scroll {self.scroll:,} px")
        return " + ".join(parts)


#: Whether a control's middle is the control itself (not a bar fixed over it): what a thumb would touch there.
UNCOVERED = """(el) => { const r = el.getBoundingClientRect();
  const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); return !!at && el.contains(at); }"""


class Thumb:
    """A banker's thumb on one page: every tap, letter and scroll counted into :attr:`count`."""

    def __init__(self, page: Any):
        self.page = page
        self.count = Count()

    def start(self) -> Count:
        self.count = Count()
        return self.count

    def _reach(self, selector: str) -> Any:
        """The control, scrolled to if it is not wholly on the screen (the scroll counted)."""
        found = self.page.locator(selector).first
        found.wait_for(state="visible")
        box = found.bounding_box()
        height = self.page.viewport_size["height"]
        if box is None or box["y"] < 0 or box["y"] + box["height"] > height:
            before = self.page.evaluate("window.scrollY")
            found.scroll_into_view_if_needed()
            after = self.page.evaluate("window.scrollY")
            self.count.scroll += abs(after - before)
            self.count.notes.append(f"scrolled to {selector}")
        elif not found.evaluate(UNCOVERED):  # on the screen but under a bar fixed to its edge: scrolled to, too
            before = self.page.evaluate("window.scrollY")
            self.page.evaluate("(px) => window.scrollBy(0, px)", box["height"] * 2)
            self.count.scroll += abs(self.page.evaluate("window.scrollY") - before) or 1
            self.count.notes.append(f"{selector} under a fixed bar")
        return found

    def tap(self, selector: str, then: str | None = None, navigates: bool = False) -> None:
        """One tap; ``then``: what shows once the tap is answered; ``navigates``: the tap loads a new page."""
        found = self._reach(selector)
        self.count.taps += 1
        if navigates:
            with self.page.expect_navigation():
                found.click()
        else:
            found.click()
        if then:
            self.page.wait_for_selector(then, state="attached")

    def type(self, selector: str, text: str, amount: bool = False) -> None:
        """Letters typed into a field already touched (:meth:`tap` counts the touch)."""
        self.page.locator(selector).first.press_sequentially(text)
        if amount:
            self.count.amount = True
        else:
            self.count.letters += len(text)

    def choose(self, selector: str, value: str, navigates: bool = False) -> None:
        """A native list: one tap opens it, one chooses."""
        found = self._reach(selector)
        self.count.taps += 2
        if navigates:
            with self.page.expect_navigation():
                found.select_option(value)
        else:
            found.select_option(value)


# --- the evening's position --------------------------------------------------------------------------------


def evening(folder: Path) -> str:
    """A City game in ``folder`` as at mid-evening: 4 players, 18 of the 22 districts held, some built. Its name."""
    shutil.copy(EDITION, folder / "ville.edition.yaml")
    data = {"title": "Soirée", "edition": "ville.edition.yaml", "players": []}
    for name in PLAYERS:
        data["players"].append({"name": name, "cash": "20M", "districts": []})
    game = positions.parse(data, "soiree.game.yaml", folder, "fr")
    names = [d for group in game.edition.groups.values() for d in group.districts]
    for n, district in enumerate(names[:18]):
        game, _ = bank.apply(game, bank.Buy(PLAYERS[n % 4], district))
    for district in names[:18:3]:
        game, _ = bank.apply(game, bank.Build(district, residential=1))
    (folder / "soiree.game.yaml").write_text(positions.dumps(game, "ville.edition.yaml"), encoding="utf-8")
    return "soiree"


def free_squares(folder: Path) -> list[str]:
    game = positions.load(folder / "soiree.game.yaml")
    held = set(game.owners())
    return [d for group in game.edition.groups.values() for d in group.districts if d not in held]


def holder(folder: Path, square: str) -> int:
    game = positions.load(folder / "soiree.game.yaml")
    return next(i for i, p in enumerate(game.players) for h in p.holdings if h.district == square)


def held_by(folder: Path, player: int) -> list[str]:
    return [h.district for h in positions.load(folder / "soiree.game.yaml").players[player].holdings]


#: The issue's table: (taps, letters) at most for each transaction; no scroll before any tap.
ALLOWED: dict[str, tuple[int, int]] = {
    "rent (square by 3 letters)": (3, 3),
    "buy at the printed price": (3, 0),
    "GO salary": (2, 0),
    "one block (the first)": (2, 0),
    "one block (each further one)": (1, 0),
    "transfer between players": (3, 0),
    "auction sale after the box's countdown": (3, 0),
    "trade of one square for money": (5, 0),
    "undo the last entry": (1, 0),
    "undo the last 3": (3, 0),
}

#: The transactions whose amount is typed besides the taps (« 3 taps + amount » in the issue's table).
WITH_AMOUNT = {"transfer between players", "auction sale after the box's countdown", "trade of one square for money"}


def allowed_said(what: str) -> str:
    """The table's « at most » for ``what``, as :meth:`Count.said` says a count."""
    taps, letters = ALLOWED[what]
    said = f"{taps} tap{'s' if taps != 1 else ''}" + (f" + {letters} letters" if letters else "")
    return said + (" + amount" if what in WITH_AMOUNT else "")


#: The same script's figures on the pages before the redesign (commit 897c142; the « today » flows of that
#: commit's version of this file).
TODAY: dict[str, str] = {
    "rent (square by 3 letters)": "4 taps + 3 letters",
    "buy at the printed price": "3 taps + scroll 3,315 px",
    "GO salary": "1 tap + scroll 6,555 px",
    "one block (the first)": "1 tap + scroll 11,055 px",
    "one block (each further one)": "1 tap",
    "transfer between players": "4 taps + amount",
    "auction sale after the box's countdown": "7 taps + amount + scroll 6,802 px",
    "trade of one square for money": "9 taps + 2 amounts + scroll 5,861 px, outside the history",
    "undo the last entry": "1 tap",
    "undo the last 3": "2 taps + scroll 11,887 px",
}


# --- the views (unit/web/table.py) --------------------------------------------------------------------------


def flows(thumb: Thumb, base: str, name: str, folder: Path, unit: Any) -> Iterator[tuple[str, Count]]:
    """Each transaction from the view the one before left the banker on (the evening goes on from view to view)."""
    page = thumb.page
    page.goto(f"{base}/games/{name}")
    page.wait_for_selector("#find")

    square = "Belvédère"
    payer = (holder(folder, square) + 1) % 4
    count = thumb.start()
    thumb.tap("#find")
    thumb.type("#find", "bel")
    thumb.tap("#found a", then=f"#pay-{payer}")
    thumb.tap(f"#pay-{payer}", then="#done")
    yield "rent (square by 3 letters)", count

    free = free_squares(folder)
    count = thumb.start()
    thumb.tap("#chip-1", then="#to-buy")
    thumb.tap("#to-buy", then="#buy-grid")
    thumb.tap(f"#buy-grid button[value='{free[0]}']", then="#done")
    yield "buy at the printed price", count

    count = thumb.start()
    thumb.tap("#chip-2", then="#op-salary")
    thumb.tap("#op-salary", then="#done")
    yield "GO salary", count

    target = held_by(folder, 2)[-1]
    count = thumb.start()
    thumb.tap(f"#holdings a[href$='/{quote(target)}']", then="#op-residential")
    thumb.tap("#op-residential", then="#done")
    yield "one block (the first)", count
    count = thumb.start()
    done = int(page.get_attribute("#done", "data-n") or 0)
    thumb.tap("#op-residential", then=f"#done[data-n='{done + 1}']")
    yield "one block (each further one)", count

    count = thumb.start()
    thumb.tap("#chip-0", then="#amount")
    thumb.tap("#amount")
    thumb.type("#amount", "1,5M", amount=True)
    thumb.tap("#pay-to-1", then="#done")
    yield "transfer between players", count

    # The banker looked the square up where the pawn stands (not counted: a rent or a buy starts the same way).
    page.goto(f"{base}/games/{name}/square/{quote(free[1])}")
    count = thumb.start()
    thumb.tap("#to-auction", then="#auction-note")
    unit.press("auction")  # the box's countdown; its end offers the sale on the open view
    page.wait_for_selector("#sale", timeout=20_000)
    thumb.tap("#sale-price")
    thumb.type("#sale-price", "2,4M", amount=True)
    thumb.tap("#sale-to-1", then="#done")
    yield "auction sale after the box's countdown", count

    sold = held_by(folder, 0)[0]
    count = thumb.start()
    thumb.tap("#chip-0", then="#holdings")
    thumb.tap(f"#holdings a[href$='/{quote(sold)}']", then="#to-trade")
    thumb.tap("#to-trade", then="#price")
    thumb.tap("#price")
    thumb.type("#price", "3M", amount=True)
    thumb.tap("#trade-to-1", then="#done")
    yield "trade of one square for money", count

    count = thumb.start()
    thumb.tap("#done-undo", then="#undone")
    yield "undo the last entry", count

    count = thumb.start()
    entries = len(positions.load(folder / f"{name}.game.yaml").history)
    thumb.tap("#to-history", then="#history")
    thumb.tap(f"#undo-{entries - 2}", then="#ask")
    thumb.tap("#ask-yes", then="#undone")
    yield "undo the last 3", count


# --- running it ----------------------------------------------------------------------------------------------


def measure(chromium: Any = None) -> dict[str, Count]:
    """Every transaction's count, on a fresh evening, with a unit running (short auctions) and the phone paired
    (``chromium``: a browser already launched, or None to launch one)."""
    from helpers import browser

    with contextlib.ExitStack() as stack:
        if chromium is None:
            chromium = stack.enter_context(browser())
        return played(chromium)


def played(chromium: Any) -> dict[str, Count]:
    from helpers import RunningUnit, serving_data

    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        folder = Path(tmp) / "data"
        state.mkdir()
        folder.mkdir()
        name = evening(folder)
        with (
            RunningUnit(state, AUCTION) as unit,
            serving_data(folder, state) as base,
        ):
            context = chromium.new_context(
                viewport=VIEWPORT, device_scale_factor=1, is_mobile=True, has_touch=True, locale="fr"
            )
            page = context.new_page()
            pair(page, base, unit)
            found = dict(flows(Thumb(page), base, name, folder, unit))
            context.close()
    return found


#: The box's auction, short: the sale is offered within seconds.
AUCTION = {"auction": {"seconds": 1.5, "warning_seconds": 0.5}}


def pair(page: Any, base: str, unit: Any) -> None:
    """The banker's phone paired with the box (the sale is offered to a paired phone only)."""
    from helpers import wait_for_unit

    page.goto(f"{base}/remote")
    wait_for_unit(page)
    page.click("#request-code")
    page.fill("#code", unit.shown_code())
    with page.expect_navigation():
        page.click("#pair")
    page.wait_for_selector("[data-button='auction']")
    unit.press("power")  # the game on: the box's auctions run


def over(counts: dict[str, Count]) -> list[str]:
    """The transactions that need more than the table allows."""
    wrong = []
    for what, (taps, letters) in ALLOWED.items():
        count = counts.get(what)
        if count is None:
            wrong.append(f"{what}: not played")
        elif count.taps > taps or count.letters > letters or count.scroll:
            wrong.append(f"{what}: {count.said()} (at most {allowed_said(what)}; {'; '.join(count.notes)})")
    return wrong


def table(counts: dict[str, Count]) -> list[tuple[str, str, str, str]]:
    """The issue's table: each transaction, today's count, the count now, what is allowed."""
    rows = []
    for what in ALLOWED:
        now = counts[what].said() if what in counts else "not played"
        rows.append((what, TODAY.get(what, ""), now, allowed_said(what)))
    return rows


def main() -> int:
    counts = measure()
    print(f"{'transaction':42} {'before (one page)':40} {'now':28} at most")
    for what, today, now, allowed in table(counts):
        print(f"{what:42} {today:40} {now:28} {allowed}")
    wrong = over(counts)
    for line in wrong:
        print("over the table:", line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
