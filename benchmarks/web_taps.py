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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


# --- the pages before the redesign (commit 897c142) ------------------------------------------------------


def today_flows(thumb: Thumb, base: str, name: str, folder: Path) -> Iterator[tuple[str, Count]]:
    """Each transaction on the one-page game, from the game page at its top (where every tap leaves the banker)."""
    page = thumb.page
    game_url = f"{base}/games/{name}"

    def top() -> None:
        page.goto(game_url)

    top()
    square = "Belvédère"
    payer = (holder(folder, square) + 1) % 4
    count = thumb.start()
    thumb.tap("#tab-rent", then="#q", navigates=True)
    thumb.tap("#q")
    thumb.type("#q", "bel")
    thumb.tap("#squares li:not([hidden]) a", then=f"#pay-{payer}", navigates=True)
    thumb.tap(f"#pay-{payer}", then="#done", navigates=True)
    yield "rent (square by 3 letters)", count

    top()
    free = free_squares(folder)
    count = thumb.start()
    thumb.choose("#buy-1", free[0])
    thumb.tap("#buy-1-go", then="#done", navigates=True)
    yield "buy at the printed price", count

    top()
    count = thumb.start()
    thumb.tap("#player-2 button[data-op='salary']", then="#done", navigates=True)
    yield "GO salary", count

    top()
    target = held_by(folder, 3)[-1]
    count = thumb.start()
    thumb.tap(f"article[data-square='{target}'] button[data-op='residential']", then="#done", navigates=True)
    yield "one block (the first)", count
    count = thumb.start()
    thumb.tap(f"article[data-square='{target}'] button[data-op='residential']", then="#done", navigates=True)
    yield "one block (each further one)", count

    top()
    count = thumb.start()
    thumb.choose("#transfer-0-to", "to:1")
    thumb.tap("#transfer-0")
    thumb.type("#transfer-0", "1,5M", amount=True)
    thumb.tap("#transfer-0-go", then="#done", navigates=True)
    yield "transfer between players", count

    top()
    count = thumb.start()
    thumb.choose("#buy-2", free[1])
    thumb.tap("#buy-2-auction", navigates=True)
    yield "auction sale after the box's countdown", sale_today(thumb, count, base, name)

    top()
    sold = held_by(folder, 0)[0]
    count = thumb.start()
    card = f"article[data-square='{sold}']"
    thumb.tap(f"{card} details.fix summary")
    thumb.choose(f"{card} select[name='player']", "1", navigates=True)
    for who, cash in ((1, "10M"), (0, "30M")):
        thumb.tap(f"#fix-p{who} summary")
        thumb.tap(f"#cash-{who}")
        page.fill(f"#cash-{who}", "")
        thumb.type(f"#cash-{who}", cash, amount=True)
        thumb.tap(f"#p{who} form:has(#cash-{who}) button", navigates=True)
    count.notes.append("outside the history")
    yield "trade of one square for money", count

    top()
    thumb.start()  # the entry to undo: not counted
    thumb.tap("#player-3 button[data-op='fine']", then="#done", navigates=True)
    count = thumb.start()
    thumb.tap("#done-undo", then="#undone", navigates=True)
    yield "undo the last entry", count

    top()
    count = thumb.start()
    thumb.tap("#history button[id^='undo-'] >> nth=2", then="#ask", navigates=True)
    thumb.tap("#ask-yes", then="#undone", navigates=True)
    yield "undo the last 3", count


def sale_today(thumb: Thumb, count: Count, base: str, name: str) -> Count:
    """The box's sale as the page offered it: the form shown (the countdown is the box's), a buyer, a price."""
    page = thumb.page
    offer = page.request.get(f"{base}/games/{name}/sale")
    if offer.status != 200:  # no unit here: the offer's own form, as the page shows it, is counted
        count.notes.append("the sale's form counted as the page shows it (4 fields)")
        count.taps += 2 + 1 + 1  # the buyer's list (open, choose), the price field, « Record the sale »
        count.amount = True
    return count


# --- running it ----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    from helpers import serving

    with serving(None) as base:
        yield base


def measure(flows: Callable[[Thumb, str, str, Path], Iterator[tuple[str, Count]]] = today_flows) -> dict[str, Count]:
    """Every transaction's count, on a fresh evening."""
    from helpers import browser

    from unit.web.app import create_app  # noqa: F401  (the web extra is installed)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "data"
        folder.mkdir()
        name = evening(folder)
        with serving_data(folder) as base, browser() as chromium:
            context = chromium.new_context(
                viewport=VIEWPORT, device_scale_factor=1, is_mobile=True, has_touch=True, locale="fr"
            )
            page = context.new_page()
            thumb = Thumb(page)
            found = dict(flows(thumb, base, name, folder))
            context.close()
    return found


@contextlib.contextmanager
def serving_data(folder: Path) -> Iterator[str]:
    """The web application on ``folder`` as its data folder, under uvicorn on loopback."""
    import threading

    import uvicorn
    from helpers import free_port, wait_for

    from unit.web.app import create_app

    port = free_port()
    app = create_app(None, "fr", folder)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started, 10, "the web service to start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def over(counts: dict[str, Count]) -> list[str]:
    """The transactions that need more than the table allows."""
    wrong = []
    for what, (taps, letters) in ALLOWED.items():
        count = counts.get(what)
        if count is None:
            wrong.append(f"{what}: not played")
        elif count.taps > taps or count.letters > letters or count.scroll:
            wrong.append(f"{what}: {count.said()} (at most {taps} taps{f' + {letters} letters' if letters else ''})")
    return wrong


def main() -> int:
    counts = measure()
    for what, count in counts.items():
        print(f"{what:42} {count.said()}" + (f"   ({'; '.join(count.notes)})" if count.notes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
