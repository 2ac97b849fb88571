"""Four Card Poker (seed 003): rules not covered by the shared vectors FCP-01..FCP-08."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import NOBODY
from server.games.banked.four_card_poker import PAY_TABLES, FourCardPoker
from server.scenario import describe, run_scenario

DEALER_LOW = "Qd Jh 8c 5s 4h 2c"  # best four Q-J-8-5: four odd cards


def play(
    boxes: dict, hands: dict, decisions: list, dealer: str = DEALER_LOW, options: dict | None = None
) -> dict:
    return run_scenario(
        {
            "game": "four-card-poker",
            "options": options or {},
            "boxes": boxes,
            "cards": {"boxes": {b: h.split() for b, h in hands.items()}, "dealer": dealer.split()},
            "decisions": decisions,
        }
    )


@pytest.mark.parametrize(
    ("hand", "key", "bonus", "aces_up"),
    [
        ("9s 9h 9d 9c 2h", "four_of_a_kind", 25, 50),
        ("Ts 9s 8s 7s 2h", "straight_flush", 20, 40),
        ("6s 6h 6d Ac 2d", "three_of_a_kind", 2, 8),
        ("Kc Tc 7c 3c 2s", "flush", 0, 5),
        ("9s Tc Jd Qh 3c", "straight", 0, 4),
        ("Ks Kh 3s 3d 7c", "two_pair", 0, 3),
        ("As Ad 9c 6d 3s", "pair_of_aces", 0, 1),
    ],
)
def test_r10_2_r10_5_every_line_of_table_a(hand, key, bonus, aces_up) -> None:
    """r 10.2-10.3 Ante Bonus 25/20/2 and r 10.5 Aces Up table A 50/40/8/5/4/3/1; each
    hand beats the dealer's four odd cards, so ante and play win 1:1 as well."""
    res = play({"1": {"ante": 1000, "aces_up": 1000}}, {"1": hand}, [[1, "play", 1000]])
    assert res["boxes"]["1"] == {
        "ante": 1000 + bonus * 1000,
        "play": 1000,
        "aces_up": aces_up * 1000,
        "net": 2000 + bonus * 1000 + aces_up * 1000,
    }
    assert PAY_TABLES["A"]["aces_up"][key] == (aces_up, 1)


def test_r9_2_1_3_aces_up_loses_below_a_pair_of_aces() -> None:
    """r 9.2.1.3: a pair of kings loses the Aces Up wager although the hand wins."""
    res = play({"1": {"ante": 1000, "aces_up": 500}}, {"1": "Ks Kh 9c 6d 3s"}, [[1, "play", 1000]])
    assert res["boxes"]["1"] == {"ante": 1000, "play": 1000, "aces_up": -500, "net": 1500}


def test_r10_5_other_approved_tables_selectable() -> None:
    """r 10.5 ("one of the prize schedules approved"): table B pays a flush 6:1."""
    res = play(
        {"1": {"aces_up": 1000}}, {"1": "Kc Tc 7c 3c 2s"}, [[1, "play"]], options={"pay_table": "B"}
    )
    assert res["boxes"]["1"]["aces_up"] == 6000
    assert describe("four-card-poker")["options"]["pay_table"]["default"] == "A"
    with pytest.raises(ScenarioError):
        play({"1": {"ante": 1000}}, {}, [], options={"pay_table": "Z"})


def test_r8_5_play_between_one_and_three_times_the_ante() -> None:
    """r 8.5 (A2 range): below 1x or above 3x is rejected; off-unit amounts too."""
    for amount, code in (
        (900, "play_out_of_range"),
        (3100, "play_out_of_range"),
        (1550, "bad_amount"),
        (None, "amount_required"),
    ):
        d = [1, "play"] if amount is None else [1, "play", amount]
        res = play({"1": {"ante": 1000}}, {}, [d])
        assert res["state"] == "rejected" and res["error"]["code"] == code, amount
    assert play({"1": {"ante": 550}}, {}, [[1, "play", 1100]])["state"] == "complete"


def test_a2_integer_multiple_mode() -> None:
    """A2 option ``integer_multiple``: only 1x, 2x or 3x the ante."""
    opts = {"play_wager_mode": "integer_multiple"}
    assert play({"1": {"ante": 1000}}, {}, [[1, "play", 1500]], options=opts)["state"] == "rejected"
    assert play({"1": {"ante": 1000}}, {}, [[1, "play", 2000]], options=opts)["state"] == "complete"


def test_r5_3_aces_up_only_box_places_no_play_wager() -> None:
    """r 5.3: a player with only an Aces Up wager may not place a Play wager."""
    res = play({"1": {"aces_up": 1000}}, {}, [[1, "play", 1000]])
    assert res["error"]["code"] == "unexpected_amount"


@pytest.mark.parametrize("verb", ["timeout", "insufficient"])
def test_r12_11_r12_13_ante_void_aces_up_played(verb) -> None:
    """r 12.13 (absent/slow) and r 12.11 (cannot fund Play >= Ante): the ante is void and
    returned, no Ante Bonus (A3), and Aces Up is played to completion."""
    res = play({"3": {"ante": 1000, "aces_up": 500}}, {"3": "7s 7d 7h 7c 2h"}, [[3, verb]])
    assert res["boxes"]["3"] == {"ante": 0, "aces_up": 25000, "net": 25000}
    only = play({"4": {"aces_up": 500}}, {"4": "As Ad 9c 6d 3s"}, [[4, verb]])
    assert only["boxes"]["4"] == {"aces_up": 500, "net": 500}


def test_a3_no_ante_bonus_on_a_fold() -> None:
    """r 8.4, A3: a folded four of a kind loses the ante and the Aces Up wager."""
    res = play({"1": {"ante": 1000, "aces_up": 1000}}, {"1": "9s 9h 9d 9c 2h"}, [[1, "fold"]])
    assert res["boxes"]["1"] == {"ante": -1000, "aces_up": -1000, "net": -2000}


def test_r7_only_the_dealers_sixth_card_is_face_up() -> None:
    """r 7.3.4 / r 7.4.2: the dealer's sixth card is the only one exposed before settlement;
    a box sees only its own cards."""
    rnd = FourCardPoker({}, {1: {"ante": 1000}, 2: {"aces_up": 500}}, SeededRandomSource(3))
    rnd.start()
    dealer = [e for e in rnd.events if getattr(e, "to", None) == "dealer"]
    assert [e.visible_to == NOBODY for e in dealer] == [True] * 5 + [False]
    mine = [e for e in rnd.view(2)["events"] if e["type"] == "cards_dealt" and e["to"] == "box"]
    assert [e["box"] for e in mine] == [2]
    assert rnd.view(None)["pending"][0]["legal"][0] == {
        "verb": "play",
        "min": 1000,
        "max": 3000,
        "unit": 100,
    }


def test_decision_errors_change_nothing() -> None:
    """Unknown verbs, a box without a wager, a second decision: IllegalAction, no change."""
    rnd = FourCardPoker({}, {1: {"ante": 1000}}, SeededRandomSource(3))
    rnd.start()
    for box, verb in ((1, "bet"), (5, "play")):
        with pytest.raises(IllegalAction):
            rnd.decide(box, verb, 1000)
    assert rnd.pending() and not rnd.complete


@settings(max_examples=400, deadline=None)
@given(
    boxes=st.dictionaries(
        st.integers(1, 7),
        st.tuples(
            st.one_of(st.none(), st.integers(1, 50).map(lambda n: n * 100)),
            st.one_of(st.none(), st.integers(1, 50).map(lambda n: n * 100)),
        ).filter(lambda t: t != (None, None)),
        min_size=1,
        max_size=7,
    ),
    picks=st.lists(
        st.tuples(st.sampled_from(["play", "fold", "timeout", "insufficient"]), st.integers(1, 3)),
        min_size=7,
        max_size=7,
    ),
    seed=st.integers(0, 2**32),
    table=st.sampled_from(sorted(PAY_TABLES)),
)
def test_property_money_conserved(boxes, picks, seed, table) -> None:
    """Random wagers, decisions and deals: every round completes and money is conserved."""
    wagers = {
        b: {k: v for k, v in (("ante", a), ("aces_up", u)) if v is not None}
        for b, (a, u) in boxes.items()
    }
    rnd = FourCardPoker({"pay_table": table}, wagers, SeededRandomSource(seed))
    rnd.start()
    for i, box in enumerate(sorted(wagers)):
        verb, mult = picks[i]
        amount = mult * wagers[box]["ante"] if verb == "play" and "ante" in wagers[box] else None
        rnd.decide(box, verb, amount)
    res = rnd.result
    assert res.state == "complete"
    players = sum(sum(ws.values()) for ws in res.boxes.values())
    assert players + res.house == 0
    for box, ws in res.boxes.items():
        assert rnd.party_net(f"box:{box}") == sum(ws.values())
        staked = sum(rnd.stakes[box].values())
        assert sum(ws.values()) >= -staked


def test_r13_2_void_round_returns_every_wager() -> None:
    """r 13.2 / r 12.10: a round voided after the deal returns every wager, play included."""
    rnd = FourCardPoker(
        {}, {1: {"ante": 1000, "aces_up": 500}, 2: {"ante": 500}}, SeededRandomSource(9)
    )
    rnd.start()
    rnd.decide(1, "play", 3000)
    rnd.void("shuffler failure during the round (r 13.2)")
    res = rnd.result
    assert res.state == "void" and res.house == 0
    assert res.boxes[1] == {"ante": 0, "aces_up": 0, "play": 0}
