"""Three card poker (QLD Sch 13): hand ranking s9 and rules not pinned by the shared vectors."""

from __future__ import annotations

import itertools

import pytest

from server.cards import STANDARD_DECK, card
from server.errors import ScenarioError
from server.games.banked.scenario import run
from server.games.banked.three_card_poker import dealer_qualifies
from server.hands import three_card as h3


def v(*cs):
    return h3.evaluate3([card(c) for c in cs])


def scen(boxes, cards, dealer, decisions, options=None):
    return run(
        "three-card-poker",
        {
            "game": "three-card-poker",
            "options": options or {},
            "boxes": boxes,
            "cards": {"boxes": cards, "dealer": dealer},
            "decisions": decisions,
        },
    )


def test_s9_1_category_order_straight_beats_flush():
    order = [
        v("Kd", "9s", "4c"),
        v("2c", "2d", "3h"),
        v("2h", "5h", "9h"),
        v("2c", "3d", "4h"),
        v("2c", "2d", "2h"),
        v("Ah", "2h", "3h"),
    ]
    assert order == sorted(order)
    assert [h3.category(x) for x in order] == list(range(6))


def test_s9_5_a23_is_the_lowest_straight_qka_the_highest_no_wrap():
    assert v("Ah", "2s", "3d") < v("2h", "3s", "4d") < v("Qh", "Ks", "Ad")
    assert h3.category(v("Kh", "As", "2d")) == h3.HIGH_CARD
    assert h3.hand_name(v("Ah", "2s", "3d")) == "straight, three high"


def test_s9_3_ties_compare_face_values_and_s9_6_equal_is_a_stand_off():
    assert v("Jc", "Jd", "5s") == v("Jh", "Js", "5d")  # suits never break ties
    assert v("Tc", "Td", "Ac") < v("Jh", "Js", "2d")  # pair first, then odd card
    assert v("Kc", "9c", "2c") < v("Kh", "Th", "3h")  # flush card by card
    assert v("9d", "Th", "Jc") < v("Jh", "Qs", "Kd")  # s9 example 1


def test_every_three_card_hand_has_exactly_one_category():
    """All 22,100 hands: the category counts of the standard three-card distribution."""
    counts = [0] * 6
    for hand in itertools.combinations(STANDARD_DECK, 3):
        counts[h3.category(h3.evaluate3(hand))] += 1
    assert counts == [16440, 3744, 1096, 720, 52, 48]


@pytest.mark.parametrize(
    "cards, qualifies",
    [
        (["Qs", "7h", "3c"], True),
        (["Jd", "8c", "4s"], False),
        (["2c", "2d", "5h"], True),
        (["Ks", "2h", "3c"], True),
    ],
)
def test_s5_dealer_qualifies_with_queen_high_or_better(cards, qualifies):
    assert dealer_qualifies(v(*cards)) is qualifies


@pytest.mark.parametrize(
    "cards, ante_bonus, pair_plus",
    [
        (["9h", "9s", "2d"], 0, 1),  # pair
        (["Ah", "Qh", "5h"], 0, 4),  # flush
        (["9d", "Th", "Jc"], 1, 6),  # straight
        (["8c", "8d", "8h"], 4, 25),  # three of a kind
        (["7c", "6c", "5c"], 5, 40),  # straight flush
        (["Kh", "7d", "3c"], 0, -1),  # odd card hand: pair plus loses
    ],
)
def test_s24_s26_every_ante_bonus_and_pair_plus_line(cards, ante_bonus, pair_plus):
    """Dealer J-high does not qualify (s19): ante 1:1 + bonus, bet returned, pair plus."""
    res = scen(
        {"1": {"ante": 1000, "pair_plus": 1000}}, {"1": cards}, ["Jd", "8s", "4s"], [[1, "bet"]]
    )
    assert res["boxes"]["1"] == {
        "ante": 1000 + 1000 * ante_bonus,
        "bet": 0,
        "pair_plus": 1000 * pair_plus,
        "net": 2000 + 1000 * ante_bonus + 1000 * pair_plus - 1000,
    }


def test_a2_option_pair_plus_survives_fold():
    cards = {"1": ["8c", "8d", "8h"]}
    literal = scen(
        {"1": {"ante": 1000, "pair_plus": 1000}}, cards, ["Qs", "7h", "3c"], [[1, "fold"]]
    )
    survives = scen(
        {"1": {"ante": 1000, "pair_plus": 1000}},
        cards,
        ["Qs", "7h", "3c"],
        [[1, "fold"]],
        {"pair_plus_survives_fold": True},
    )
    assert literal["boxes"]["1"] == {"ante": -1000, "pair_plus": -1000, "net": -2000}
    assert survives["boxes"]["1"] == {"ante": -1000, "pair_plus": 25000, "net": 24000}


def test_a6_timeout_folds_losing_ante_and_pair_plus():
    res = scen(
        {"2": {"ante": 1000, "pair_plus": 500}},
        {"2": ["Ah", "Kh", "Qh"]},
        ["Qs", "7h", "3c"],
        [[2, "timeout"]],
    )
    assert res["boxes"]["2"] == {"ante": -1000, "pair_plus": -500, "net": -1500}


def test_s17_5_bet_equals_the_ante():
    res = scen({"1": {"ante": 1000}}, {}, ["Qs", "7h", "3c"], [[1, "bet", 2000]])
    assert res["state"] == "rejected" and res["error"]["code"] == "bad_amount"


def test_s14_b_pair_plus_needs_an_ante():
    with pytest.raises(ScenarioError):
        scen({"1": {"pair_plus": 1000}}, {}, ["Qs", "7h", "3c"], [])
