"""The rules object of each kind of game, chosen once from the edition a game or a command reads.

``of(game_or_edition)`` is the one place that looks at an edition's ``game`` (``city`` or ``classic``); everything
after asks the :class:`~unit.calculator.rulebook.Rules` it returns, as python-chess picks a board class per variant.
"""

from __future__ import annotations

from unit.calculator.city import MonopolyCity
from unit.calculator.classic import ClassicMonopoly
from unit.calculator.edition import Edition
from unit.calculator.position import Game
from unit.calculator.rulebook import Rules

#: One rules object per kind of game, by the edition's ``game``.
KINDS: dict[str, Rules] = {rules.kind: rules for rules in (MonopolyCity(), ClassicMonopoly())}


def of(source: Game | Edition) -> Rules:
    """The rules of ``source``'s kind of game (a game, or an edition)."""
    edition = source.edition if isinstance(source, Game) else source
    return KINDS[edition.game]
