"""Property tests over random lucky draw baccarat rounds (QLD Sch 16): random boxes, enter
wagers, shoes (forced prefixes with repeats included), decks, and random decisions (draw,
stand, timeout, insufficient) taken in a random order.

For every round: it completes, money is conserved (players' nets + house net = 0), each box's
total equals its ledger movement, a draw wager equals the enter wager (s6(3)), a hand has a
third card exactly when it drew (s17(4), s17(7)), the dealer draws exactly on 0-4 (s17(6)),
the enter wager's figure agrees with the point counts (s6(2), s11(1)), and the order in which
the boxes decide changes nothing: the cards keep seat order (s17(2), s17(4)).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import RANKS, SUITS, SeededRandomSource, card
from server.games.banked.base import Forced
from server.games.banked.lucky_draw_baccarat import LuckyDrawBaccarat

ALL_CARDS = [r + s for r in RANKS for s in SUITS]


def total(cards: list[str]) -> int:
    faces = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
    return sum(faces[c[0]] if c[0] in faces else int(c[0]) for c in cards) % 10


@st.composite
def rounds(draw):
    boxes = draw(st.sets(st.integers(1, 7), min_size=1, max_size=7))
    wagers = {b: {"enter": draw(st.integers(100, 1_000_000))} for b in sorted(boxes)}
    shoe = draw(st.lists(st.sampled_from(ALL_CARDS), max_size=6))
    verbs = draw(
        st.lists(
            st.sampled_from(["draw", "stand", "timeout", "insufficient"]),
            min_size=len(boxes),
            max_size=len(boxes),
        )
    )
    order = draw(st.permutations(sorted(boxes)))
    return (
        draw(st.sampled_from([6, 7, 8])),
        wagers,
        shoe,
        verbs,
        order,
        draw(st.integers(0, 2**32)),
    )


def play(decks, wagers, shoe, verbs, order, seed) -> LuckyDrawBaccarat:
    r = LuckyDrawBaccarat(
        {"decks": decks, "minimum": 100, "maximum": 1_000_000},
        wagers,
        SeededRandomSource(seed),
        forced=Forced(shoe=[card(c) for c in shoe]),
    )
    r.start()
    verb_of = dict(zip(wagers, verbs, strict=True))
    for box in order:
        assert box in {d.box for d in r.pending()}
        r.decide(box, verb_of[box])
    return r


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_random_rounds_conserve_money(case) -> None:
    decks, wagers, shoe, verbs, order, seed = case
    r = play(decks, wagers, shoe, verbs, order, seed)
    assert r.complete and r.pending() == []
    in_seat_order = play(decks, wagers, shoe, verbs, sorted(wagers), seed)
    assert in_seat_order.hands == r.hands and in_seat_order.dealer == r.dealer
    assert in_seat_order.result.boxes == r.result.boxes
    res = r.result
    assert res.state == "complete"
    extra = res.detail["scenario_extra"]
    dealer = extra["dealer_hand"]["cards"]
    assert len(dealer) == (3 if total(dealer[:2]) <= 4 else 2)
    d = total(dealer)
    for (b, ws), verb in zip(wagers.items(), verbs, strict=True):
        nets = res.boxes[b]
        hand = extra["hands"][str(b)]["cards"]
        drew = verb == "draw"
        assert len(hand) == (3 if drew else 2)
        assert set(nets) == ({"enter", "draw"} if drew else {"enter"})
        if drew:
            assert r.stakes[b]["draw"] == ws["enter"]
            assert -ws["enter"] <= nets["draw"] <= 30 * ws["enter"]
        p = total(hand)
        assert nets["enter"] == (ws["enter"] if p > d else 0 if p == d else -ws["enter"])
        assert r.party_net(f"box:{b}") == sum(nets.values())
    assert sum(res.box_totals().values()) + res.house == 0
