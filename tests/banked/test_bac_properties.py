"""Property tests over random baccarat rounds (QLD Sch 1): random shoes (forced prefixes with
repeated cards included), random wagers on every wager area, every option.

For every round: it completes at the deal, money is conserved (players' nets + the house's
net = 0, the nets from settlement, the house figure from the ledger), each box's total equals
its ledger movement, the hands obey the digest's tableau (an independent table), and the main
wagers agree with an independent computation of s11-s13 with the digest's rounding.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import RANKS, SUITS, SeededRandomSource, card
from server.games.banked.baccarat import Baccarat, banker_win
from server.games.banked.base import Forced

WAGERS = (
    "player",
    "banker",
    "tie",
    "player_pair",
    "banker_pair",
    "perfect_pairs_player",
    "perfect_pairs_banker",
    "dragon_bonus_player",
    "dragon_bonus_banker",
    "super_6",
)
ALL_CARDS = [r + s for r in RANKS for s in SUITS]
#: The digest's tableau (baccarat.md section 6): banker total -> "stood", third card 0..9.
TABLEAU = {
    0: "DDDDDDDDDDD",
    1: "DDDDDDDDDDD",
    2: "DDDDDDDDDDD",
    3: "DDDDDDDDDSD",
    4: "DSSDDDDDDSS",
    5: "DSSSSDDDDSS",
    6: "SSSSSSSDDSS",
    7: "SSSSSSSSSSS",
}
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def value(text: str) -> int:
    faces = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
    return faces[text[0]] if text[0] in faces else int(text[0])


def total(cards: list[str]) -> int:
    return sum(map(value, cards)) % 10


@st.composite
def rounds(draw):
    options = {
        "decks": draw(st.sampled_from([6, 8])),
        "banker_payout": draw(st.sampled_from(["commission", "no_commission"])),
        "banker_round_down_50c": draw(st.booleans()),
        "minimum": 100,
        "maximum": 1_000_000,
    }
    boxes = draw(st.sets(st.integers(1, 14), min_size=1, max_size=14))
    wagers = {}
    for b in sorted(boxes):
        names = draw(st.sets(st.sampled_from(WAGERS), min_size=1))
        wagers[b] = {
            n: draw(st.integers(100, 125_000 if n == "tie" else 1_000_000)) for n in sorted(names)
        }
    shoe = draw(st.lists(st.sampled_from(ALL_CARDS), max_size=6))
    return options, wagers, shoe, draw(st.integers(0, 2**32))


@SETTINGS
@given(rounds())
def test_random_rounds_conserve_money_and_follow_the_tableau(case) -> None:
    """s11-s13, s21-s24, s30, s34, s38, s41: every round completes, money is conserved."""
    options, wagers, shoe, seed = case
    r = Baccarat(
        options, wagers, SeededRandomSource(seed), forced=Forced(shoe=[card(c) for c in shoe])
    )
    r.start()
    res = r.result
    assert res.state == "complete" and r.pending() == []
    assert set(res.boxes) == set(wagers)
    for b, nets in res.boxes.items():
        assert set(nets) == set(wagers[b])
        for w, net in nets.items():
            assert -wagers[b][w] <= net <= 30 * wagers[b][w], (b, w)
        assert r.party_net(f"box:{b}") == sum(nets.values())
    assert sum(res.box_totals().values()) + res.house == 0

    hands = res.detail["scenario_extra"]["hands"]
    player, banker = hands["player"]["cards"], hands["banker"]["cards"]
    dealt = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    assert dealt[: len(shoe)] == shoe[: len(dealt)]  # s19: P1 B1 P2 B2, then P3, then B3
    p2, b2 = total(player[:2]), total(banker[:2])
    natural = p2 >= 8 or b2 >= 8
    assert len(player) == (3 if not natural and p2 <= 5 else 2)
    third = value(player[2]) if len(player) == 3 else None
    banker_draws = not natural and TABLEAU[b2][0 if third is None else third + 1] == "D"
    assert len(banker) == (3 if banker_draws else 2)

    p, b = total(player), total(banker)
    for box, ws in wagers.items():
        nets = res.boxes[box]
        if "player" in ws:
            assert nets["player"] == (ws["player"] if p > b else 0 if p == b else -ws["player"])
        if "tie" in ws:
            assert nets["tie"] == (8 * ws["tie"] if p == b else -ws["tie"])
        if "banker" in ws:
            stake = ws["banker"]
            if b > p:
                if options["banker_payout"] == "no_commission":
                    want = stake // 2 if b == 6 else stake
                else:
                    want = stake * 19 // 20
                    if options["banker_round_down_50c"]:
                        want = want // 50 * 50
            else:
                want = 0 if b == p else -stake
            assert nets["banker"] == want


@settings(max_examples=500, deadline=None)
@given(st.integers(1, 10**9), st.integers(0, 9))
def test_s12_s13_banker_payout_integer_cents(stake: int, points: int) -> None:
    """s12(2) 19:20 floored to the cent, never above 95%; s12(4) the largest multiple of 50c
    not above it (round down only); s13(2) 1:2 on a 6 floored to the cent, else 1:1."""
    com = {"banker_payout": "commission", "banker_round_down_50c": False}
    exact = banker_win(stake, com, points)
    assert isinstance(exact, int) and exact * 20 <= stake * 19 < (exact + 1) * 20
    rounded = banker_win(stake, {**com, "banker_round_down_50c": True}, points)
    assert rounded % 50 == 0 and rounded <= exact < rounded + 50
    nc = banker_win(
        stake, {"banker_payout": "no_commission", "banker_round_down_50c": True}, points
    )
    if points == 6:
        assert 2 * nc <= stake < 2 * nc + 2
    else:
        assert nc == stake
