"""Roulette (QLD Sch 7) property tests: random wagers on random layouts and random (forced or
RNG) spins. Every wager id parses; money is conserved (the players' nets plus the house's net
is zero, the nets agree with the ledger); each wager's figure matches the s16(1) pay table
applied to the numbers its id names, checked by an oracle written from the text, not from the
engine's tables."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.games.banked.base import Forced
from server.games.banked.roulette import POSITIONS, Roulette, family

#: s16(1), typed from the schedule.
ODDS = {
    "straight": 35,
    "split": 17,
    "street": 11,
    "corner": 8,
    "first_five": 6,
    "six_line": 5,
    "column": 2,
    "dozen": 2,
    "low": 1,
    "high": 1,
    "even": 1,
    "odd": 1,
    "red": 1,
    "black": 1,
}
RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}


def covered(wager: str) -> set[str]:
    """The numbers a wager covers, read from its id (s8(2))."""
    nums = range(1, 37)
    outside = {
        "low": [n for n in nums if n <= 18],
        "high": [n for n in nums if n > 18],
        "even": [n for n in nums if n % 2 == 0],
        "odd": [n for n in nums if n % 2 == 1],
        "red": [n for n in nums if n in RED],
        "black": [n for n in nums if n not in RED],
        "first_five": ["00", 0, 1, 2, 3],
    }
    if wager in outside:
        return {str(n) for n in outside[wager]}
    kind, _, tail = wager.rpartition("_")
    if kind in ("column", "dozen"):
        k = int(tail)
        if kind == "column":
            return {str(n) for n in nums if n % 3 == k % 3}
        return {str(n) for n in nums if 12 * k - 11 <= n <= 12 * k}
    return set(wager.split("_")[2 if wager.startswith("six_line") else 1 :])


@st.composite
def spins(draw):
    wheel = draw(st.sampled_from(["single_zero", "double_zero"]))
    ids = sorted(POSITIONS[wheel])
    boxes = draw(st.sets(st.integers(1, 200), min_size=1, max_size=6))
    wagers = {
        b: {
            w: draw(st.integers(100, 100_000))
            for w in draw(st.sets(st.sampled_from(ids), min_size=1, max_size=12))
        }
        for b in boxes
    }
    pockets = ["0", *(["00"] if wheel == "double_zero" else []), *map(str, range(1, 37))]
    number = draw(st.one_of(st.none(), st.sampled_from(pockets)))
    return wheel, wagers, number, draw(st.integers(0, 2**32))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spins())
def test_random_spins_conserve_money_and_pay_s16(case) -> None:
    wheel, wagers, number, seed = case
    forced = None
    if number is not None:
        forced = Forced(outcome={"number": number if number == "00" else int(number)})
    r = Roulette({"wheel_type": wheel}, wagers, SeededRandomSource(seed), forced)
    r.start()
    res = r.result
    assert res.state == "complete"
    spun = str(res.detail["outcome"]["number"])
    if number is not None:
        assert spun == number
    for box, ws in wagers.items():
        assert set(res.boxes[box]) == set(ws)
        for w, stake in ws.items():
            fam = family(w)
            assert fam is not None, w  # every wager id parses
            want = stake * ODDS[fam] if spun in covered(w) else -stake
            assert res.boxes[box][w] == want, (w, spun)
        assert r.party_net(f"box:{box}") == sum(res.boxes[box].values())
    assert sum(res.box_totals().values()) + res.house == 0
