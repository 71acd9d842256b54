"""The Editions pages' bounds, measured in the process alone (no HTTP): the sizes behind the upload limit
(``unit.web.editions.MAX_UPLOAD``) and the time of a card's check in a 22-card City edition.

Prints the size of every shipped edition file, the size of the largest plausible City edition (22 cards,
40-letter names, every amount written with 7 digits), and the p50 and p99 of checking a right card and a
card with 14 wrong fields (the loader reads the file once per mistake) with the page's own functions.
Over HTTP, with the service as its own process, see benchmarks/web_editions.py.

    python benchmarks/web_edition_sizes.py [--runs N]
"""

from __future__ import annotations

import argparse
import time
from importlib import resources

from unit.calculator import edition
from unit.calculator.edition import CityEdition
from unit.calculator.edition_file import document, empty, render
from unit.web.editions import CARD_AMOUNTS, MAX_UPLOAD, RENT_FIELDS, card_builder, card_form, card_values, checked

GROUPS = (2, 3, 3, 3, 3, 3, 3, 2)  # 22 districts in 8 groups
AMOUNT = 1_234_567  # the longest way an amount is written


def largest_edition() -> CityEdition:
    """22 cards with 40-letter names, every amount 7 digits: the largest City edition a table would type."""
    data = document(empty("Monopoly City (" + "x" * 40 + ")"))
    district = {"price": AMOUNT, "residential_cost": AMOUNT, "industrial_cost": AMOUNT, "rents": [AMOUNT] * 9}
    data["groups"] = [
        {
            "name": f"{'g' * 40}{g}",
            "skyscraper_cost": AMOUNT,
            "districts": [{"name": f"{'d' * 40}{g}-{d}", **district} for d in range(size)],
        }
        for g, size in enumerate(GROUPS)
    ]
    full = edition.parse(data, "full")
    assert isinstance(full, CityEdition)
    return full


def measure(runs: int = 300) -> None:
    folder = resources.files("unit.calculator").joinpath("editions")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            print(f"{entry.name}: {len(entry.read_bytes())} bytes")
    full = largest_edition()
    text = render(full)
    print(f"22 cards, 40-letter names, every amount 7 digits: {len(text.encode())} bytes; MAX_UPLOAD {MAX_UPLOAD}")
    right = card_form(full, 10, "fr")
    wrong = right | {key: "-1" for key in (*CARD_AMOUNTS, *RENT_FIELDS, "skyscraper_cost")} | {"name": ""}
    for label, typed in (("a right card", right), ("a card with 14 wrong fields", wrong)):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            errors, result = checked(card_builder(full, 10), card_values(typed), "x.edition.yaml", "fr")
            if result is not None:
                render(result)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99) - 1]
        print(f"check of {label} in a 22-card edition ({len(errors)} messages): p50 {p50:.2f} ms, p99 {p99:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    measure(parser.parse_args().runs)


if __name__ == "__main__":
    main()
