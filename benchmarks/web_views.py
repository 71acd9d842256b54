"""The game's views in Chromium, measured (issue 27, « Measured »): a tap to the updated view, and the bytes each
view sends.

The mid-evening City game of benchmarks/web_taps.py (the example edition, 4 players) is given a history of 2,000
entries (a long evening); the web application serves it on loopback (uvicorn in this process's thread) and
Playwright drives Debian's Chromium at 360x640. Two kinds of tap, each repeated:

- **a tap that records** (a transfer from the payer's view: the form posted, the 303, the view's fragment fetched
  and swapped in by the page's script);
- **a tap that shows a view** (a player's chip, a square of theirs: the fragment fetched and swapped in).

Each is timed by the page itself (static/table.js keeps ``mcLastSwap.ms``: from the tap's event to the new view in
place, the finder and keys set up again). The bytes: each view's whole page (a first visit) and its fragment (what
a tap fetches), as sent (no compression).

    python benchmarks/web_views.py [--taps N]

``measure()`` returns the figures (for ``make bench``). Goals: p99 <= 100 ms a tap, <= 30 KB a view.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from harness import percentile  # noqa: E402
from web_taps import VIEWPORT, evening  # noqa: E402

from unit.calculator import bank  # noqa: E402
from unit.calculator import position as positions  # noqa: E402

LONG = 2_000  # entries: a long evening


def long_history(folder: Path, name: str, entries: int) -> int:
    """Give the game a history of ``entries`` more payments (as the bank writes them); the file's size in bytes."""
    path = folder / f"{name}.game.yaml"
    game = positions.load(path)
    names = [p.name for p in game.players]
    for i in range(entries):
        game, _ = bank.apply(game, bank.Pay(names[i % 4], names[(i + 1) % 4], 1_000 * (1 + i % 50)))
    path.write_text(positions.dumps(game, "ville.edition.yaml"), encoding="utf-8")
    return path.stat().st_size


def views_of(folder: Path, name: str) -> dict[str, str]:
    """Each kind of view of the game, by a path of it."""
    game = positions.load(folder / f"{name}.game.yaml")
    held = game.players[0].holdings[0].name
    free = next(p for p in game.edition.districts if p not in game.owners())  # type: ignore[union-attr]
    base = f"/games/{name}"
    return {
        "the table": base,
        "a player": f"{base}/player/0",
        "the buy grid": f"{base}/player/1/buy",
        "a square held": f"{base}/square/{quote(held)}",
        "a square nobody holds": f"{base}/square/{quote(free)}",
        "a trade": f"{base}/trade/{quote(held)}",
        "the history (its last 30)": f"{base}/history",
    }


def swapped(page: Any) -> float:
    """The last swap's time, once it is in (ms)."""
    page.wait_for_selector("body:not([data-busy])", state="attached")
    return float(page.evaluate("window.mcLastSwap.ms"))


def measure(taps: int = 100) -> dict[str, Any]:
    from helpers import browser, serving_data

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        name = evening(folder)
        size = long_history(folder, name, LONG)
        entries = len(positions.load(folder / f"{name}.game.yaml").history)
        with serving_data(folder) as base, browser() as chromium:
            context = chromium.new_context(
                viewport=VIEWPORT, device_scale_factor=1, is_mobile=True, has_touch=True, locale="fr"
            )
            page = context.new_page()
            sizes = {}
            for what, path in views_of(folder, name).items():
                whole = page.request.get(base + path).body()
                fragment = page.request.get(base + path, headers={"X-Fragment": "1"}).body()
                sizes[what] = (len(whole), len(fragment))
            page.goto(f"{base}/games/{name}/player/0")
            recorded, shown = [], []
            for i in range(10 + taps):  # 10 to warm up: not counted
                page.evaluate("window.mcLastSwap = null")
                page.fill("#amount", "1k")
                page.click(f"#pay-to-{1 + i % 3}")
                ms = swapped(page)
                if i >= 10:
                    recorded.append(ms)
                page.evaluate("window.mcLastSwap = null")
                page.click(f"#chip-{(i + 1) % 4}")
                ms = swapped(page)
                page.click("#holdings a")
                ms2 = swapped(page)
                page.click("#chip-0")
                swapped(page)
                if i >= 10:
                    shown += [ms, ms2]
            context.close()
    return {
        "entries": entries,
        "file_bytes": size,
        "load": os.getloadavg(),
        "recorded": {"n": len(recorded), "p50": percentile(recorded, 50), "p99": percentile(recorded, 99)},
        "shown": {"n": len(shown), "p50": percentile(shown, 50), "p99": percentile(shown, 99)},
        "bytes": sizes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=100)
    f = measure(parser.parse_args().taps)
    print(f"a game of {f['entries']:,} entries ({f['file_bytes'] / 1000:.0f} KB), Chromium at 360x640, loopback;")
    print(f"load average {f['load'][0]:.1f} (2 CPUs shared)")
    for key, label in (("recorded", "a tap that records (a transfer)"), ("shown", "a tap that shows a view")):
        r = f[key]
        print(f"{label:40} {r['n']} taps: p50 {r['p50']:.1f} ms, p99 {r['p99']:.1f} ms")
    for what, (whole, fragment) in f["bytes"].items():
        print(f"{what:40} page {whole / 1000:.1f} KB, fragment {fragment / 1000:.1f} KB")


if __name__ == "__main__":
    main()
