"""Property tests over random rounds of the B1 banked games (caribbean stud, hold'em bonus,
three card poker, Mississippi stud): random wagers within the limits, random legal decisions
(timeouts and insufficient funds included), random deals.

For every round: no exception, the round completes, and money is conserved: the players'
nets plus the house's net plus the change in the jackpot prize and reserve is zero. The nets
come from the settlement code, the house figure and the pools from the ledger and the jackpot
regime independently, so the identity is a real check. Also: a wager never loses more than
its stake, every box's total equals its ledger movement, and only boxes the round knows about
appear.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.games.banked.base import BankedRound, Forced, JackpotPaid, JackpotState
from server.games.banked.caribbean_stud import CaribbeanStud
from server.games.banked.holdem_bonus import HoldemBonus
from server.games.banked.mississippi_stud import MississippiStud
from server.games.banked.three_card_poker import ThreeCardPoker

#: Non-overlapping jackpot hands forced onto random boxes so the jackpot paths get exercised.
JACKPOT_HANDS = [
    ["As", "Ks", "Qs", "Js", "Ts"],
    ["9h", "8h", "7h", "6h", "5h"],
    ["Ad", "Kd", "Qd", "Jd", "Td"],
    ["7c", "6c", "5c", "4c", "3c"],
    ["2s", "2h", "2d", "2c", "9s"],
    ["3h", "3d", "3s", "4h", "4d"],
    ["Ah", "Ac", "8s", "8d", "Kh"],
]

SIDE = {
    CaribbeanStud: "jackpot",
    HoldemBonus: "bonus",
    ThreeCardPoker: "pair_plus",
    MississippiStud: None,
}


@st.composite
def rounds(draw, cls: type[BankedRound]):
    boxes = draw(st.sets(st.integers(1, 7), min_size=1, max_size=7))
    wagers = {}
    for b in sorted(boxes):
        ws = {"ante": draw(st.integers(100, 5000))}
        side = SIDE[cls]
        if side and draw(st.booleans()):
            ws[side] = 100 if side == "jackpot" else draw(st.integers(100, 5000))
        wagers[b] = ws
    options: dict = {}
    jackpot = None
    if cls is CaribbeanStud:
        options = {
            "multi_winner_mode": draw(
                st.sampled_from(["s24_shared", "sequential_shared", "independent"])
            ),
            "sharing_sign_displayed": draw(st.booleans()),
            "dead_mans_hand_enabled": draw(st.booleans()),
            "jackpot_kind": draw(st.sampled_from(["progressive", "set"])),
            "max_payout": draw(st.sampled_from([None, 1000, 5_000_000])),
        }
        jackpot = JackpotState(draw(st.integers(0, 20_000_000)), draw(st.integers(0, 5_000_000)))
    forced = None
    if cls is CaribbeanStud and draw(st.booleans()):
        hands = draw(st.permutations(JACKPOT_HANDS))
        chosen = {
            b: h for b, h in zip(sorted(boxes), hands, strict=False) if draw(st.integers(0, 4)) > 0
        }
        for b in chosen:
            wagers[b]["jackpot"] = 100
        forced = Forced.from_strings(chosen)
    seed = draw(st.integers(0, 2**32))
    return options, wagers, jackpot, seed, draw(st.randoms(use_true_random=False)), forced


def play(cls, options, wagers, jackpot, seed, rnd, forced=None):
    r = cls(options, wagers, SeededRandomSource(seed), jackpot=jackpot, forced=forced)
    r.start()
    steps = 0
    while not r.complete:
        pending = r.pending()
        assert pending, "an incomplete round must owe a decision"
        d = rnd.choice(pending)
        kind = rnd.random()
        if kind < 0.04:
            r.decide(d.box, "timeout")
        elif kind < 0.08:
            r.decide(d.box, "insufficient")
        else:
            c = rnd.choice(d.choices)
            r.decide(d.box, c.verb, rnd.choice(c.amounts) if c.amounts else None)
        steps += 1
        assert steps < 100
    return r


def check(r: BankedRound) -> None:
    res = r.result
    paid = [e for e in r.events if isinstance(e, JackpotPaid)]
    event(f"jackpot prizes paid: {min(len(paid), 2)}")
    assert res.state == "complete"
    assert set(res.boxes) == set(r.wagers)
    for b, nets in res.boxes.items():
        for w, net in nets.items():
            assert net >= -r.stakes[b][w], (b, w)
        assert r.party_net(f"box:{b}") == sum(nets.values())
    d_pool = d_res = 0
    if r.jackpot_before is not None and res.jackpot is not None:
        d_pool = res.jackpot.pool - r.jackpot_before.pool
        d_res = res.jackpot.reserve - r.jackpot_before.reserve
        assert res.jackpot.pool >= 0 and res.jackpot.reserve >= 0
    assert r.party_net("pool") == d_pool
    assert r.party_net("reserve") == d_res
    assert sum(res.box_totals().values()) + res.house + d_pool + d_res == 0


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(rounds(CaribbeanStud))
def test_caribbean_stud_rounds_conserve_money(case):
    check(play(CaribbeanStud, *case))


@SETTINGS
@given(rounds(HoldemBonus))
def test_holdem_bonus_rounds_conserve_money(case):
    check(play(HoldemBonus, *case))


@SETTINGS
@given(rounds(ThreeCardPoker))
def test_three_card_poker_rounds_conserve_money(case):
    check(play(ThreeCardPoker, *case))


@SETTINGS
@given(rounds(MississippiStud))
def test_mississippi_stud_rounds_conserve_money(case):
    check(play(MississippiStud, *case))


@SETTINGS
@given(rounds(CaribbeanStud), st.integers(0, 3))
def test_void_at_any_point_returns_everything(case, after):
    """Part 1 s4 "void"; jackpots.md §5.6: a void round returns every wager, reverses
    coin-in."""
    options, wagers, jackpot, seed, rnd, forced = case
    r = CaribbeanStud(options, wagers, SeededRandomSource(seed), jackpot=jackpot, forced=forced)
    r.start()
    for _ in range(after):
        if r.complete or not r.pending():
            break
        d = r.pending()[0]
        r.decide(d.box, "fold" if rnd.random() < 0.5 else "bet")
    if r.complete:
        return
    r.void("deck check failed")
    res = r.result
    assert res.state == "void"
    assert all(n == 0 for nets in res.boxes.values() for n in nets.values())
    assert res.house == 0 and res.jackpot == jackpot
