"""A Monopoly City edition written back to its file, beside the loader that reads it (:mod:`.edition`).

The phone's Editions pages (``monopoly-city serve``) enter a City edition card
by card; each change is the loaded edition rewritten here (:func:`render`), in
the layout of ``monopoly-city edition template city``: one district a line,
amounts as the cards print them, French style (``"2,5M"``, ``"500k"``). The
loader reads the text back to the same edition (tests/test_web_editions.py
proves it on any card); comments of a hand-written file do not survive.
"""

from __future__ import annotations

import json
from typing import Any

from unit.calculator import edition, money
from unit.calculator.edition import HAZARDS, CityEdition


def empty(title: str) -> CityEdition:
    """A new City edition: no district yet, the prison worth 4 blocks (the rules), the starting cash."""
    data = {"game": "city", "name": title, "hazards": {"prison": 4}, "groups": []}
    made = edition.parse(data, "new")
    assert isinstance(made, CityEdition)  # game: city
    return made


def document(ed: CityEdition) -> dict[str, Any]:
    """The edition as the loader reads it: plain values, amounts as whole numbers."""
    return {
        "game": "city",
        "name": ed.name,
        "starting_cash": ed.starting_cash,
        "go_salary": ed.go_salary,
        "industry_tax": ed.industry_tax,
        "hazards": dict(ed.hazards),
        "groups": [
            {
                "name": group.name,
                "skyscraper_cost": group.skyscraper_cost,
                "districts": [
                    {
                        "name": d.name,
                        "price": d.price,
                        "residential_cost": d.residential_cost,
                        "industrial_cost": d.industrial_cost,
                        "rents": None if d.rents is None else list(d.rents),
                    }
                    for d in (ed.districts[n] for n in group.districts)
                ],
            }
            for group in ed.groups.values()
        ],
    }


def amount_text(value: int | None) -> str:
    """An amount as the cards print it (``"2,5M"``, ``"500k"``), or a plain number; ``null`` for none."""
    if value is None:
        return "null"
    if value % 1000 == 0 and value >= 1000:
        return json.dumps(money.city(value, "fr").removeprefix("M "), ensure_ascii=False)
    return str(value)


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar: JSON's quoting, and every invisible character escaped."""
    out = json.dumps(text, ensure_ascii=False)
    return "".join(
        c if c.isprintable() else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in out
    )


def render(ed: CityEdition) -> str:
    """The edition file: the template's layout, one district a line, read back by the loader to ``ed``."""
    q = quoted
    hazards = ", ".join(f"{h}: {'null' if ed.hazards[h] is None else ed.hazards[h]}" for h in HAZARDS)
    lines = [
        "# Monopoly City: an edition entered card by card on the phone (monopoly-city serve, Editions).",
        "# The command line reads it as it is: monopoly-city board THIS-FILE",
        "game: city",
        f"name: {q(ed.name)}",
        f"starting_cash: {amount_text(ed.starting_cash)}",
        f"go_salary: {amount_text(ed.go_salary)}",
        f"industry_tax: {amount_text(ed.industry_tax)}",
        f"hazards: {{{hazards}}}",
        "groups:" if ed.groups else "groups: []",
    ]
    for group in ed.groups.values():
        lines += [
            f"  - name: {q(group.name)}",
            f"    skyscraper_cost: {amount_text(group.skyscraper_cost)}",
            "    districts:",
        ]
        for d in (ed.districts[n] for n in group.districts):
            rents = "null" if d.rents is None else "[" + ", ".join(amount_text(r) for r in d.rents) + "]"
            lines.append(
                f"      - {{name: {q(d.name)}, price: {amount_text(d.price)}, "
                f"residential_cost: {amount_text(d.residential_cost)}, "
                f"industrial_cost: {amount_text(d.industrial_cost)}, rents: {rents}}}"
            )
    return "\n".join(lines) + "\n"
