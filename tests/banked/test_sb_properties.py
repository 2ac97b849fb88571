"""Sic-bo (QLD Sch 8) property tests: random wagers and random (forced or RNG) rolls. Every
wager id parses; money is conserved (players' nets plus the house's net is zero, nets agree
with the ledger); each figure matches an oracle written from s5 and s12, not from the
engine's tables."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.games.banked.base import Forced
from server.games.banked.sic_bo import SicBo, family

WAGERS = [
    "small",
    "big",
    "even",
    "odd",
    "any_triple",
    *(f"{k}_{n}" for k in ("triple", "double", "single") for n in range(1, 7)),
    *(f"total_{t}" for t in range(4, 18)),
    *(f"combo_{a}_{b}" for a, b in itertools.combinations(range(1, 7), 2)),
    *(f"four_{s}" for s in ("1234", "2345", "2356", "3456")),
]
TOTAL_ODDS = {
    4: 62,
    17: 62,
    5: 31,
    16: 31,
    6: 18,
    15: 18,
    7: 12,
    14: 12,
    8: 8,
    13: 8,
    9: 7,
    12: 7,
    10: 6,
    11: 6,
}


def oracle(wager: str, dice: list[int]) -> int | None:
    """s5/s12: the "x to 1" a wager wins at on ``dice``, or None when it loses."""
    total = sum(dice)
    triple = dice[0] == dice[1] == dice[2]
    kind, _, arg = wager.partition("_")
    if wager == "small":
        return 1 if total in range(4, 11) and not triple else None
    if wager == "big":
        return 1 if total in range(11, 18) and not triple else None
    if wager == "even":
        return 1 if total in (4, 6, 8, 10, 12, 14, 16) and not triple else None
    if wager == "odd":
        return 1 if total in (5, 7, 9, 11, 13, 15, 17) and not triple else None
    if wager == "any_triple":
        return 31 if triple else None
    if kind == "triple":
        return 180 if dice.count(int(arg)) == 3 else None
    if kind == "double":
        return 11 if dice.count(int(arg)) >= 2 else None
    if kind == "total":
        return TOTAL_ODDS[total] if total == int(arg) else None
    if kind == "combo":
        a, b = map(int, arg.split("_"))
        return 6 if a in dice and b in dice else None
    if kind == "single":
        return {0: None, 1: 1, 2: 2, 3: 12}[dice.count(int(arg))]
    assert kind == "four"
    return 7 if len(set(dice)) == 3 and all(str(d) in arg for d in dice) else None


@st.composite
def rolls(draw):
    boxes = draw(st.sets(st.integers(1, 200), min_size=1, max_size=6))
    wagers = {
        b: {
            w: draw(st.integers(100, 100_000))
            for w in draw(st.sets(st.sampled_from(WAGERS), min_size=1, max_size=12))
        }
        for b in boxes
    }
    dice = draw(st.one_of(st.none(), st.lists(st.integers(1, 6), min_size=3, max_size=3)))
    return wagers, dice, draw(st.integers(0, 2**32))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rolls())
def test_random_rolls_conserve_money_and_pay_s12(case) -> None:
    wagers, dice, seed = case
    forced = Forced(outcome={"dice": dice}) if dice is not None else None
    r = SicBo(None, wagers, SeededRandomSource(seed), forced)
    r.start()
    res = r.result
    assert res.state == "complete"
    rolled = res.detail["outcome"]["dice"]
    if dice is not None:
        assert rolled == sorted(dice)
    for box, ws in wagers.items():
        assert set(res.boxes[box]) == set(ws)
        for w, stake in ws.items():
            assert family(w) is not None, w  # every wager id parses
            odds = oracle(w, rolled)
            assert res.boxes[box][w] == (-stake if odds is None else stake * odds), (w, rolled)
        assert r.party_net(f"box:{box}") == sum(res.boxes[box].values())
    assert sum(res.box_totals().values()) + res.house == 0
