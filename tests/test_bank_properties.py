"""Money is conserved (issue 22): random legal and illegal sequences of the bank's actions, on a City and a
classic game, through the game file's text at every step.

- the players' cash moves exactly by the history's payments (each player's, and the bank's net flow);
- a refused action changes nothing (the file's text is the same);
- the file reads back to the same game after every entry;
- undoing everything gives back the starting file byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers import bank_flow
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from unit.calculator import bank, position
from unit.errors import UserError

EXAMPLES = Path(__file__).resolve().parent.parent / "docs/examples"
GAMES = {
    "city": (EXAMPLES / "city-game.yaml", "city-example.yaml"),
    "classic": (EXAMPLES / "classic-game.yaml", "classic-fr"),
}


def start(kind: str) -> tuple[position.Game, str]:
    path, edition = GAMES[kind]
    game = position.load(str(path))
    return game, position.dumps(game, edition)


def reread(text: str, kind: str) -> position.Game:
    path, _ = GAMES[kind]
    return position.parse(yaml.safe_load(text), str(path), path.parent)


def squares(game: position.Game) -> list[str]:
    edition = game.edition
    if isinstance(edition, position.CityEdition):
        return list(edition.districts)
    return list(edition.squares)


@st.composite
def action(draw: st.DrawFn, game: position.Game) -> bank.Action:
    names = [p.name for p in game.players] + ["Zoé"]  # an unknown player now and then
    player = st.sampled_from(names)
    owned = list(game.owners())
    square = (
        st.one_of(st.sampled_from(owned), st.sampled_from(squares(game))) if owned else st.sampled_from(squares(game))
    )
    kind = game.kind
    step = 10_000 if kind == "city" else 10
    amount = st.integers(0, 3_000).map(lambda n: n * step)
    party = st.one_of(st.none(), player)
    choice = draw(st.integers(0, 13))
    if choice == 0:
        return bank.Pay(draw(party), draw(party), draw(amount), draw(st.one_of(st.none(), st.just("carte chance"))))
    if choice == 1:
        return bank.PayRent(
            draw(player), draw(square), draw(st.one_of(st.none(), st.integers(2, 12))), draw(st.booleans())
        )
    if choice == 2:
        return bank.Buy(draw(player), draw(square), draw(st.one_of(st.none(), amount)))
    if choice == 3:
        if kind == "city":
            return bank.Build(
                draw(square),
                residential=draw(st.integers(0, 3)),
                industrial=draw(st.integers(0, 3)),
                skyscraper=draw(st.booleans()),
                stadium=draw(st.booleans()),
                tower=draw(st.booleans()),
            )
        return bank.Build(draw(square), houses=draw(st.integers(0, 2)), hotel=draw(st.booleans()))
    if choice == 4:
        return bank.SellBack(draw(square), draw(st.one_of(st.none(), st.integers(1, 3))))
    if choice == 5:
        return bank.RemoveHazard(draw(square))
    if choice == 6:
        return bank.Salary(draw(player))
    if choice == 7:
        return bank.PayTax(draw(player), draw(st.one_of(st.none(), square)))
    if choice == 8:
        return bank.JailFine(draw(player))
    if choice == 9:
        return bank.Mortgage(draw(square))
    if choice == 10:
        return bank.Lift(draw(square))
    if choice == 11:
        return bank.Trade(draw(player), draw(player), tuple(draw(st.lists(square, max_size=2))), draw(amount))
    if choice == 12:
        return bank.Out(draw(player), draw(party))
    return bank.PayRent(draw(player), draw(square))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(GAMES)), data=st.data())
def test_money_is_conserved_and_undo_gives_the_file_back(kind: str, data: st.DataObject) -> None:
    game, first = start(kind)
    _, edition = GAMES[kind]
    cash0 = {p.name: p.cash for p in game.players}
    total0 = sum(cash0.values())
    text = first
    for _ in range(data.draw(st.integers(1, 14))):
        act = data.draw(action(game))
        try:
            after, entry = bank.apply(game, act)
        except UserError:  # Refused, an unknown name, a rent needing the dice...
            event(f"refused {type(act).__name__}")
            assert position.dumps(game, edition) == text  # nothing changed
            continue
        assert after.history[-1] == entry
        event(f"applied {type(act).__name__}")
        assert position.dumps_after(text, game, after, edition) == position.dumps(after, edition)  # what is written
        assert position.dumps_after(text, game, after, edition, written=True) == position.dumps(after, edition)
        # written key by key and player by player (each kept): the text YAML writes for the whole file
        assert position.dumps(after, edition) == position.as_yaml(position.dump(after, edition))
        text = position.dumps(after, edition)
        game = reread(text, kind)
        assert game.players == after.players and game.history == after.history
        # every player's cash is where the payments put it, and all of it moved by the bank's net flow
        moved = dict.fromkeys(cash0, 0)
        for e in game.history:
            for p in e.payments:
                if p.payer is not None:
                    moved[p.payer] -= p.amount
                if p.payee is not None:
                    moved[p.payee] += p.amount
        for p in game.players:
            assert p.cash == cash0[p.name] + moved[p.name] >= 0
        gone = [name for name in cash0 if name not in {p.name for p in game.players}]
        assert all(cash0[name] + moved[name] == 0 for name in gone)  # who left, left with nothing
        assert sum(p.cash for p in game.players) == total0 + bank_flow(game.history)
    back, _ = bank.undo(game, len(game.history)) if game.history else (game, ())
    assert position.dumps(back, edition) == first
    assert position.dumps_after(text, game, back, edition) == first  # the undo as the bank writes it
    assert position.dumps_after(text, game, back, edition, written=True) == first


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(GAMES)), data=st.data())
def test_the_rules_checks_never_read_the_cash(kind: str, data: st.DataObject) -> None:
    """What the bank checks before an entry that only moves money (unit.calculator.bank.apply checks nothing then)
    is the same whatever the players' cash, and whatever the history but the mortgages."""
    from dataclasses import replace

    from unit.calculator import rules

    game, _text = start(kind)
    for _ in range(data.draw(st.integers(0, 14))):
        try:
            game, _entry = bank.apply(game, data.draw(action(game)))
        except UserError:
            continue
    cash = data.draw(st.lists(st.integers(0, 10**9), min_size=len(game.players), max_size=len(game.players)))
    mortgages = tuple(e for e in game.history if e.what == "mortgage")  # what lifting one costs comes from them
    other = replace(game, players=tuple(replace(p, cash=c) for p, c in zip(game.players, cash, strict=True)))
    other = replace(other, history=mortgages)
    kind_rules = rules.of(game)
    for variant in (None, *kind_rules.variants):
        assert kind_rules.check(other, variant) == kind_rules.check(game, variant)
