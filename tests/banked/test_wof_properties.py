"""Wheel of fortune (QLD Sch 10) property tests: random wheels, wagers and (forced or RNG)
spins. Every wager id parses; money is conserved (players' nets plus the house's net is zero,
nets agree with the ledger); each figure matches s12(1) / s18(1) / s24(1) as typed from the
schedule, winnings rounded down to the cent (WA4)."""

from __future__ import annotations

from fractions import Fraction
from math import floor

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.games.banked.base import Forced
from server.games.banked.wheel_of_fortune import SPEC, WheelOfFortune

PAYS = {
    50: {"a": 1, "b": 5, "c": 5, "d": 11, "e": 22, "f": 22, "g": 44, "h": 44},
    52: {"a": 1, "b": 3, "c": 5, "d": 11, "e": 23, "f": 47, "g": 47},
    54: {"a": 1, "b": 3, "c": Fraction(13, 2), "d": 12, "e": 25, "f": 52, "g": 52},
}


@st.composite
def spins(draw):
    wheel = draw(st.sampled_from([50, 52, 54]))
    symbols = sorted(PAYS[wheel])
    boxes = draw(st.sets(st.integers(1, 200), min_size=1, max_size=8))
    wagers = {
        b: {
            s: draw(st.integers(100, 100_000))
            for s in draw(st.sets(st.sampled_from(symbols), min_size=1))
        }
        for b in boxes
    }
    segment = draw(st.one_of(st.none(), st.sampled_from(symbols)))
    return wheel, wagers, segment, draw(st.integers(0, 2**32))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spins())
def test_random_spins_conserve_money_and_pay_the_wheels_odds(case) -> None:
    wheel, wagers, segment, seed = case
    forced = Forced(outcome={"segment": segment}) if segment is not None else None
    r = WheelOfFortune({"wheel_type": wheel}, wagers, SeededRandomSource(seed), forced)
    r.start()
    res = r.result
    assert res.state == "complete"
    spun = res.detail["outcome"]["segment"]
    if segment is not None:
        assert spun == segment
    for box, ws in wagers.items():
        assert set(res.boxes[box]) == set(ws)
        for s, stake in ws.items():
            assert SPEC.wager(s) is not None  # every wager id parses
            want = floor(stake * PAYS[wheel][s]) if s == spun else -stake
            assert res.boxes[box][s] == want, (s, spun)
        assert r.party_net(f"box:{box}") == sum(res.boxes[box].values())
    assert sum(res.box_totals().values()) + res.house == 0
