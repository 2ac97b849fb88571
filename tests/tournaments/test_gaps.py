"""The smaller tournament gaps (issue 25, point 7), each with its test."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction
from server.games.poker import rules_for
from server.games.poker.engine import PokerRound
from server.tournaments.conditions import table_options
from tests.tournaments.helpers import poker_sng


@pytest.mark.parametrize("structure", ["limit", "no-limit"])
def test_refusals_at_a_tournament_table_quote_chips_not_dollars(structure: str) -> None:
    """ACT r 19: tournament chips are not money; the engine's refusals say so."""
    conditions = poker_sng("holdem-act", structure, 2)
    rules = rules_for("holdem-act", table_options(conditions, [10, 20]))
    rnd = PokerRound(rules, {1: 1000, 2: 1000}, 1, SeededRandomSource(1))
    rnd.start()
    seat = rnd.to_act
    assert seat is not None
    texts = []
    for verb, amount in (("raise", 25), ("raise", 5000), ("check", None), ("bet", 100)):
        with pytest.raises(IllegalAction) as refused:
            rnd.act(seat, verb, amount)
        texts.append(str(refused.value))
    assert all("$" not in t for t in texts), texts
    assert any(" chips" in t for t in texts), texts
    # a cash table's refusals keep dollars
    cash = PokerRound(rules_for("holdem-act", {}), {1: 10_000, 2: 10_000}, 1, SeededRandomSource(1))
    cash.start()
    assert cash.to_act is not None
    with pytest.raises(IllegalAction) as refused:
        cash.act(cash.to_act, "check")
    assert "$" in str(refused.value)
