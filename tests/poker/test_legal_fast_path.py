"""The engine's no-limit fast path for legal actions against its general path.

``PokerRound._compute_legal`` answers a no-limit turn with no raise cap or heads-up exemption
in play (every no-limit opening bet) on a short path; every other turn takes the general one
(``_compute_legal_general``: all structures, caps, heads-up exemptions). This plays the same
random hands twice, once as the engine does and once with the fast path switched off on
that round, and requires the same events, the same legal actions at every turn and the same
full-raise increment (``_full_inc``, which tells a raise from a short all-in) after each.
No-limit tables of the four hold'em/Omaha games, with raise caps, heads-up options, tiny
stakes, some of whole blinds (tap-outs exactly at the minimum raise, short all-ins), and 2
to 10 seats.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.cards import SeededRandomSource
from server.games.poker import PokerRound, RuleSet, rules_for
from server.games.poker.bots import random_action
from tests.poker.helpers import random_table

GAMES = ["holdem-act", "omaha-act", "holdem-qld", "omaha-qld"]


def no_limit_rules(game: str, rng: random.Random) -> RuleSet:
    unit = rng.choice([100, 50, 25])
    m = unit * rng.choice([1, 2, 5])
    opts: dict[str, Any] = {"chip_unit": unit, "structure": "no-limit"}
    if game.endswith("-act"):
        opts["blinds"] = [m, 2 * m] if rng.random() < 0.7 else [m, 2 * m, 4 * m]
        opts["heads_up"] = rng.choice(["uncapped", "unrestricted"])
    else:
        opts["blinds"] = [rng.choice([m, 2 * m, m // 2 or unit]), 2 * m]
        opts["raise_cap"] = rng.choice([None, None, 1, 2, 3])
        opts["short_allin_reopens"] = rng.random() < 0.3
    if rng.random() < 0.3:
        opts["commission"] = "none"
    return rules_for(game, opts)


def play(
    rules: RuleSet, stacks: dict[int, int], designated: int, seed: int, fast: bool
) -> list[Any]:
    rnd = PokerRound(rules, stacks, designated, SeededRandomSource(seed))
    if not fast:  # every turn through the general path
        rnd._nl_free = False
        rnd._nolimit = False
    rng = random.Random(seed)
    seen: list[Any] = list(rnd.start())
    while not rnd.complete:
        la = rnd.legal_actions()
        assert la is not None
        seen.append((la, rnd._full_inc if la.bet or la.raise_ else None))
        if rng.random() < 0.1 and la.allin is not None:
            seen.extend(rnd.act(la.seat, "allin"))
            continue
        verb, amount = random_action(la, rng)
        seen.extend(rnd.act(la.seat, verb, amount))
    assert rnd.result is not None
    seen.append(rnd.result.to_scenario())
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_fast_path_equals_general_path(game: str) -> None:
    rng = random.Random(f"fast-path-{game}")
    fast_turns = 0
    for _ in range(400):
        rules = no_limit_rules(game, rng)
        stacks, designated = random_table(rules, rng)
        big = rules.blinds[-1]
        for s in stacks:  # stakes of whole blinds: a tap-out exactly at the minimum raise
            if rng.random() < 0.5:
                stacks[s] = big * rng.randint(1, 12)
        seed = rng.getrandbits(32)
        ours = play(rules, stacks, designated, seed, fast=True)
        assert ours == play(rules, stacks, designated, seed, fast=False)
        fast_turns += sum(1 for x in ours if isinstance(x, tuple) and x[0].allin is not None)
    assert fast_turns > 1000  # the fast path was taken often: a real check
