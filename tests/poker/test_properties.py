"""Hypothesis properties over random tables for all six games.

Each example draws a seed and plays a batch of rounds with random configurations, random
tables (2..max seats, tiny stakes that force tap-outs, dead buttons in QLD hold'em/Omaha)
and random legal actions: ``EXAMPLES x ROUNDS`` = 10,000 rounds per game.

Properties (p2p-common.md "What all four share"): no exception and every round ends; chips
are conserved (stacks + commission + fees = what came in: ACT r 5.5, QLD s18(4)); no stack
goes below zero; uncalled wagers are returned (ACT r 11.4, QLD s26(3)); each pot's eligible
seats are exactly the players still in who contributed to that layer (ACT r 12.1-12.2,
QLD s29(5)-(6), Sch 5 s27(3)-(4)); winners are eligible; commission never exceeds the
rulebook's cap; an illegal command changes nothing.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server import money
from server.games.poker import GAME_IDS, PokerRound
from tests.poker.helpers import play_round, random_rules

EXAMPLES = 200
ROUNDS = 50


def check_round(rnd: PokerRound) -> None:
    res = rnd.result
    assert rnd.complete and res is not None
    rules = rnd.rules
    start = sum(rnd.start_stacks.values())
    assert sum(res.stacks.values()) + res.commission + res.fees == start
    assert all(v >= 0 for v in res.stacks.values())
    assert res.commission >= 0
    live = [s for s in rnd.seats if s not in rnd.folded]
    contrib = {s: c - res.uncalled.get(s, 0) for s, c in rnd.contrib.items()}
    assert all(c >= 0 for c in contrib.values())
    # the uncalled wager is gone: the top contribution is matched (ACT r 11.4, QLD s26(3));
    # QLD Sch 11 fold-around: the whole second blind went back (digest A-1)
    top = sorted(contrib.values(), reverse=True)
    if not (rules.fold_around == "return-second-blind" and len(live) == 1):
        assert top[0] == top[1]
    # every chip put in is in a pot or was returned as uncalled
    assert sum(p["amount"] for p in res.pots) == sum(contrib.values()) + rnd.dead
    for pot in res.pots:
        assert pot["eligible"], pot
        assert set(pot["winners"]) <= set(pot["eligible"])
        assert not set(pot["eligible"]) & rnd.folded
    # layers, recomputed here: at each contribution level of a player still in, every
    # player's chips between the previous level and this one; eligible = players still in
    # who reached the level (dead money joins the main pot)
    expected = []
    prev = 0
    for level in sorted({contrib[s] for s in live}):
        amount = sum(max(0, min(c, level) - prev) for c in contrib.values())
        expected.append([amount, sorted(s for s in live if contrib[s] >= level)])
        prev = level
    # chips above the top level: only the first blind left behind by the Sch 11 fold-around
    # (the whole second blind went back, digest A-1), won by the second-blind player
    above = sum(max(0, c - prev) for c in contrib.values())
    if above:
        assert rules.fold_around == "return-second-blind" and len(live) == 1
        expected[-1][0] += above
    expected[0][0] += rnd.dead
    expected = [p for p in expected if p[0] > 0]
    assert [[p["amount"], p["eligible"]] for p in res.pots] == expected
    # nobody can be paid from a layer above his own contribution
    for i, pot in enumerate(res.pots[1:], start=1):
        assert set(pot["eligible"]) < set(res.pots[i - 1]["eligible"])
    # commission never exceeds the formula on everything in the pots
    if rules.commission_on:
        cap = money.commission(
            rules.commission_cap_base,
            rules.commission_percent,
            rules.commission_step,
            rules.commission_cap_base,
        )
        assert res.commission <= cap * max(1, len(res.pots))
        if rules.cumulative_cap:
            assert res.commission <= cap
    else:
        assert res.commission == 0
    if res.voided is None and len(live) > 1:
        assert len(res.board) == 5


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_rounds(game: str, seed: int) -> None:
    """10,000 random rounds per game: conservation, eligibility, no negative stacks."""
    rng = random.Random(seed)
    for i in range(ROUNDS):
        rules = random_rules(game, rng)
        rnd = play_round(rules, rng, check_illegal=i % 5 == 0)
        check_round(rnd)


@pytest.mark.parametrize("game", GAME_IDS)
def test_void_returns_every_wager(game: str) -> None:
    """A void round (ACT r 18.3-18.4, QLD s33A, Sch 5 s33 Rec.) returns every wager and fee."""
    rng = random.Random(7)
    for _ in range(200):
        rules = random_rules(game, rng)
        rnd = play_round(rules, rng)  # played to the end, then a fresh one voided
        rnd2 = PokerRound(
            rules,
            rnd.start_stacks,
            rnd.designated,
            __import__("server.cards", fromlist=["x"]).SeededRandomSource(1),
        )
        rnd2.start()
        for _ in range(rng.randint(0, 4)):
            if rnd2.complete:
                break
            la = rnd2.legal_actions()
            rnd2.act(la.seat, "call" if la.call is not None else "check")
        if not rnd2.complete:
            rnd2.void("system fault")
            assert rnd2.result.stacks == rnd.start_stacks
            assert rnd2.result.commission == 0 and rnd2.result.fees == 0
