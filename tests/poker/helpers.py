"""Random tables and random legal play for the poker property tests."""

from __future__ import annotations

import random
from typing import Any

from server.cards import SeededRandomSource
from server.games.poker import GAME_IDS, PokerRound, RuleSet, rules_for
from server.games.poker.bots import random_action

__all__ = ["GAME_IDS", "play_round", "random_rules", "random_table"]


def random_rules(game: str, rng: random.Random) -> RuleSet:
    """A random legal configuration of ``game`` (structures, blinds, options)."""
    unit = rng.choice([100, 100, 50, 25])
    m = unit * rng.choice([1, 2, 5])
    opts: dict[str, Any] = {"chip_unit": unit}
    if game.startswith("manila"):
        opts["blinds"] = [m]
        opts["ace_low"] = rng.random() < 0.5
        opts["heads_up"] = rng.choice(["uncapped", "unrestricted"])
    elif game.endswith("-act"):
        opts["blinds"] = [m, 2 * m] if rng.random() < 0.7 else [m, 2 * m, 4 * m]
        opts["structure"] = rng.choice(["limit", "half-pot", "full-pot", "no-limit"])
        opts["heads_up"] = rng.choice(["uncapped", "unrestricted"])
    else:
        w = 2 * m
        opts["blinds"] = [rng.choice([m, w, m // 2 or unit]), w]
        opts["structure"] = rng.choice(["limit", "half-pot", "full-pot", "no-limit"])
        opts["maximum"] = w * rng.choice([1, 2, 3])
        opts["raise_cap"] = rng.choice([None, 1, 2, 3, 4])
        opts["short_allin_reopens"] = rng.random() < 0.3
        if rng.random() < 0.2:
            opts["commission"] = "none"
            opts["participation_fee"] = unit * rng.choice([1, 2])
        else:
            opts["commission_percent"] = rng.choice([10, 10, 5, 7])
    if rng.random() < 0.1:
        opts["commission"] = "none"
    return rules_for(game, opts)


def random_table(rules: RuleSet, rng: random.Random) -> tuple[dict[int, int], int]:
    """Random occupied seats and stakes (tiny ones force tap-outs) and a buck/button seat."""
    n = rng.randint(2, rules.max_seats)
    seats = sorted(rng.sample(range(1, rules.max_seats + 1), n))
    big = rules.blinds[-1]
    stacks = {}
    for s in seats:
        kind = rng.random()
        if kind < 0.2:
            stacks[s] = rng.randint(1, 3 * big)
        elif kind < 0.6:
            stacks[s] = rng.randint(3 * big, 40 * big)
        else:
            stacks[s] = rng.randint(40 * big, 400 * big)
        stacks[s] += rules.participation_fee
    if rules.dead_button and rng.random() < 0.2:
        designated = rng.randint(1, rules.max_seats)  # maybe a dead button
    else:
        designated = rng.choice(seats)
    return stacks, designated


def play_round(
    rules: RuleSet,
    rng: random.Random,
    check_illegal: bool = False,
    stacks: dict[int, int] | None = None,
    designated: int | None = None,
) -> PokerRound:
    """Play one round to its end with random legal actions."""
    if stacks is None or designated is None:
        stacks, designated = random_table(rules, rng)
    rnd = PokerRound(rules, stacks, designated, SeededRandomSource(rng.getrandbits(32)))
    rnd.start()
    steps = 0
    while not rnd.complete:
        steps += 1
        assert steps < 500, "round did not end"
        la = rnd.legal_actions()
        assert la is not None and la.seat == rnd.to_act
        if check_illegal and rng.random() < 0.2:
            _try_illegal(rnd, rng)
        verb, amount = random_action(la, rng)
        if rng.random() < 0.03:
            rnd.timeout(la.seat)
        else:
            rnd.act(la.seat, verb, amount)
    return rnd


def _snapshot(rnd: PokerRound) -> Any:
    return (
        rnd.view(None),
        dict(rnd.stacks),
        dict(rnd.contrib),
        rnd.to_act,
        sorted(rnd.folded),
        rnd.cb,
        rnd.raises,
    )


def _try_illegal(rnd: PokerRound, rng: random.Random) -> None:
    """An illegal command raises IllegalAction with a code and changes nothing."""
    from server.errors import IllegalAction

    la = rnd.legal_actions()
    assert la is not None
    other = next(s for s in rnd.seats if s != la.seat)
    reach = rnd.bet[la.seat] + rnd.stacks[la.seat]
    bad = [
        (other, "fold", None),
        (la.seat, "dance", None),
        (la.seat, "raise", reach + 1),
        (la.seat, "bet", None),
    ]
    if not la.check:
        bad.append((la.seat, "check", None))
    if la.raise_ is not None:
        bad.append((la.seat, "raise", la.raise_[0] - 1))
    seat, verb, amount = rng.choice(bad)
    before = _snapshot(rnd)
    try:
        rnd.act(seat, verb, amount)
    except IllegalAction as e:
        assert e.code and e.message
    else:
        raise AssertionError(f"{verb} {amount} by {seat} was accepted")
    assert _snapshot(rnd) == before
