"""``blind_posters`` against its plain definition on every seating of 1 to 10 seats.

``buck.blind_posters`` finds the seats after the buck/button with a bisect of the sorted
ring (it runs once per round of play); this checks it against the definition written out
(every seat above the designated one, then every seat below it) for every set of occupied
seats, every designated seat 0..11 (vacant ones are dead buttons), with and without a first
blind, for the six games and ACT's three blinds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from server.games.poker import GAME_IDS, RuleSet, blind_posters, rules_for


def plain_posters(
    rules: RuleSet, designated: int, seats: Sequence[int], first_blind: bool = True
) -> list[int]:
    ring = sorted(seats)
    after = [s for s in ring if s > designated] + [s for s in ring if s < designated]
    if rules.variant == "manila":
        return [designated]
    if rules.jurisdiction == "act":
        order = ([designated] if designated in ring else []) + after
        return order[: min(len(rules.blinds), len(ring))]
    if not first_blind:
        return after[:1]
    if len(ring) == 2 and designated in ring:
        return [designated, after[0]]
    return after[:2]


def test_every_seating() -> None:
    rng = random.Random(6)
    every = [rules_for(g, {}) for g in GAME_IDS]
    every.append(rules_for("holdem-act", {"blinds": [100, 200, 400]}))
    checked = 0
    for rules in every:
        for n in range(2, 11):
            for chosen in combinations(range(1, 11), n):
                seats = list(chosen)
                rng.shuffle(seats)  # any order in, sorted inside
                for designated in range(12):
                    for first_blind in (True, False):
                        assert blind_posters(rules, designated, seats, first_blind) == (
                            plain_posters(rules, designated, seats, first_blind)
                        ), (rules.game, designated, seats, first_blind)
                        checked += 1
    assert checked == 7 * 1013 * 24
