"""Hand ranking: categories, ties, kickers and ace-low straights per ranking.

Rules: ACT Hold'em/Omaha r 3.5, 14.2, 14.3; ACT 3 Card Manila r 3.5, 14.2, 14.3;
QLD Hold'em/Omaha Sch 11 s8; QLD Manila Sch 5 s9, s18.
"""

from __future__ import annotations

import pytest

from server.cards import cards
from server.hands import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    MANILA,
    MANILA_ACE_LOW,
    ONE_PAIR,
    ROYAL_FLUSH,
    STANDARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    Ranking,
    best_of,
    category,
    category_name,
    evaluate5,
    hand_name,
    ranks_of,
)


def ev(text: str, ranking: Ranking = STANDARD) -> int:
    return evaluate5(cards(text.split()), ranking)


# One hand per category, lowest category first (standard order, ACT r 14.3 / QLD s8(1)).
EXAMPLES = [
    ("Kh 9d 7c 4s 2h", HIGH_CARD, "high card", "high card, king"),
    ("Jh Jd 9c 4s 2h", ONE_PAIR, "one pair", "one pair, jacks"),
    ("Qh Qd 9c 9s Kh", TWO_PAIR, "two pair", "two pair, queens and nines"),
    ("7h 7d 7c Ks 2h", THREE_OF_A_KIND, "three of a kind", "three of a kind, sevens"),
    ("9h 8d 7c 6s 5h", STRAIGHT, "straight", "straight, nine high"),
    ("Ah Jh 9h 6h 3h", FLUSH, "flush", "flush, ace high"),
    ("Kh Kd Kc 7s 7h", FULL_HOUSE, "full house", "full house, kings over sevens"),
    ("Ah Ad Ac As 2h", FOUR_OF_A_KIND, "four of a kind", "four of a kind, aces"),
    ("9d 8d 7d 6d 5d", STRAIGHT_FLUSH, "straight flush", "straight flush, nine high"),
    ("As Ks Qs Js Ts", ROYAL_FLUSH, "royal flush", "royal flush"),
]


@pytest.mark.parametrize(("hand", "cat", "cat_name", "name"), EXAMPLES)
def test_r14_3_s8_every_category_is_recognised_and_named(
    hand: str, cat: int, cat_name: str, name: str
) -> None:
    """ACT r 14.3 / QLD s8(1): each category, its name and a readable hand name."""
    for ranking in (STANDARD, MANILA, MANILA_ACE_LOW):
        v = ev(hand, ranking)
        assert category(v) == cat
        assert category_name(v) == cat_name
        assert hand_name(v) == name


def test_r14_3_s8_1_standard_order_full_house_beats_flush() -> None:
    """ACT Hold'em/Omaha r 14.3, QLD s8(1): royal > SF > quads > full house > flush > ..."""
    values = [ev(h) for h, *_ in EXAMPLES]
    standard_order = sorted(values)
    assert [category(v) for v in standard_order] == list(range(10))
    assert ev("Kh Kd Kc 7s 7h") > ev("Ah Jh 9h 6h 3h")


@pytest.mark.parametrize("ranking", [MANILA, MANILA_ACE_LOW])
def test_manila_act_14_3_d_e_qld_s9_1_flush_beats_full_house(ranking: Ranking) -> None:
    """ACT 3 Card Manila r 14.3(d) above (e); QLD Manila s9(1): a flush beats a full house;
    every other category keeps its standard place."""
    by_rank = sorted(EXAMPLES, key=lambda e: ev(e[0], ranking))
    assert [cat for _, cat, *_ in by_rank] == [
        HIGH_CARD,
        ONE_PAIR,
        TWO_PAIR,
        THREE_OF_A_KIND,
        STRAIGHT,
        FULL_HOUSE,
        FLUSH,
        FOUR_OF_A_KIND,
        STRAIGHT_FLUSH,
        ROYAL_FLUSH,
    ]
    # The weakest flush on a 32-card deck still beats the strongest full house.
    assert ev("Jh 9h 8h 7h Qh", ranking) > ev("As Ad Ac Ks Kh", ranking)


def test_r14_3_a_royal_flush_is_the_highest_straight_flush() -> None:
    """ACT r 14.3(a): A-K-Q-J-10 suited is the royal flush, above a king-high straight flush;
    suits do not matter (r 3.5)."""
    royal = ev("Ah Kh Qh Jh Th")
    assert royal == ev("Ac Kc Qc Jc Tc")
    assert royal > ev("Kd Qd Jd Td 9d")
    assert category(ev("Kd Qd Jd Td 9d")) == STRAIGHT_FLUSH
    # A-K-Q-J-10 of mixed suits is only a straight.
    assert hand_name(ev("Ah Kd Qh Jh Th")) == "straight, ace high"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Kh 9d 7c 4s 2h", "Ks 9c 7d 4h 2c"),
        ("Qh Qd 9c 9s Kh", "Qs Qc 9h 9d Kd"),
        ("9h 8d 7c 6s 5h", "9s 8c 7d 6h 5c"),
        ("Ah Jh 9h 6h 3h", "As Js 9s 6s 3s"),
    ],
)
def test_r3_5_s8_2_suits_never_break_ties(a: str, b: str) -> None:
    """ACT r 3.5, QLD s8(2), s9(2): all suits rank equally, so equal ranks tie."""
    for ranking in (STANDARD, MANILA, MANILA_ACE_LOW):
        assert ev(a, ranking) == ev(b, ranking)


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        # high card: decided by the fifth card
        ("Kh 9d 7c 4s 3h", "Ks 9c 7d 4h 2c"),
        # one pair: by the third kicker
        ("Jh Jd 9c 5s 3h", "Js Jc 9h 5d 2c"),
        # one pair: the pair first, whatever the kickers
        ("Jh Jd 4c 3s 2h", "Th Td Ac Ks Qh"),
        # two pair: top pair, then bottom pair, then the kicker
        ("Qh Qd 9c 9s 3h", "Qs Qc 9h 9d 2c"),
        ("Qh Qd Tc Ts 2h", "Qs Qc 9h 9d Ac"),
        ("Kh Kd 2c 2s 3h", "Qs Qc Jh Jd Ac"),
        # three of a kind: trips, then both kickers
        ("7h 7d 7c Ks 3h", "7s 7h 7d Kc 2d"),
        # full house: takes its rank from the threesome (r 14.3(d)), then the pair
        ("3h 3d 3c 2s 2h", "2s 2d 2c As Ah"),
        ("Kh Kd Kc 8s 8h", "Ks Kd Kc 7s 7h"),
        # four of a kind: quads, then the kicker
        ("9h 9d 9c 9s 3h", "8s 8d 8c 8h Ah"),
        # flush: all five cards count
        ("Ah Jh 9h 6h 4h", "As Js 9s 6s 3s"),
        # straight: by the top card
        ("Th 9d 8c 7s 6h", "9h 8d 7c 6s 5h"),
    ],
)
def test_r14_2_s8_3_all_cards_count(better: str, worse: str) -> None:
    """ACT r 14.2 ("all cards count"), Rec. A-6/A-9, QLD s8(3), s9(3): kickers decide."""
    for ranking in (STANDARD, MANILA, MANILA_ACE_LOW):
        assert ev(better, ranking) > ev(worse, ranking)


def test_r14_1_only_the_best_five_of_seven_count() -> None:
    """ACT r 14.1 (Hold'em: best five of seven): a sixth and seventh card never play."""
    a = best_of(cards("Ah Kd Qc Js 9h 3d 2c".split()))
    b = best_of(cards("As Kh Qd Jc 9s 4h 3s".split()))
    assert a == b
    assert hand_name(a) == "high card, ace"


def test_r3_5_s8_6_standard_wheel_is_the_lowest_straight() -> None:
    """ACT r 3.5, QLD s8(6): the ace is low in A-2-3-4-5, the lowest straight (five high)."""
    wheel = ev("Ah 2d 3c 4s 5h")
    assert category(wheel) == STRAIGHT
    assert hand_name(wheel) == "straight, five high"
    assert ev("3h 3d 3c As Kh") < wheel < ev("2h 3d 4c 5s 6h")
    steel = ev("Ad 2d 3d 4d 5d")
    assert category(steel) == STRAIGHT_FLUSH
    assert hand_name(steel) == "straight flush, five high"
    assert ev("Ah Ad Ac As Kh") < steel < ev("2h 3h 4h 5h 6h")
    # No wrap-around: Q-K-A-2-3 is ace high, nothing more.
    assert category(ev("Qh Kd Ac 2s 3h")) == HIGH_CARD


@pytest.mark.parametrize("ranking", [MANILA, MANILA_ACE_LOW])
def test_s9_s18_no_five_high_wheel_in_manila(ranking: Ranking) -> None:
    """ACT 3 Card Manila r 3.5, QLD s9(5): only A-7-8-9-10 can be an ace-low straight."""
    assert category(ev("Ah 2d 3c 4s 5h", ranking)) == HIGH_CARD


def test_act_manila_3_5_qld_s18_ace_high_only_has_no_ace_low_straight() -> None:
    """ACT 3 Card Manila r 3.5, QLD s18 "high only": A-7-8-9-10 is just ace high."""
    v = ev("Ah 7d 8c 9s Th", MANILA)
    assert category(v) == HIGH_CARD
    assert hand_name(v) == "high card, ace"
    assert category(ev("Ah 7d 8c 9s Th", STANDARD)) == HIGH_CARD


def test_act_manila_3_5_14_3_b_f_qld_s9_5_ace_high_and_low() -> None:
    """ACT 3 Card Manila r 3.5, 14.3(b),(f); QLD s18, s9(5): with the ace high and low,
    A-7-8-9-10 is a straight, ten high, the lowest straight (below 7-8-9-10-J) and the
    lowest straight flush when suited."""
    low = ev("Ah 7d 8c 9s Th", MANILA_ACE_LOW)
    assert category(low) == STRAIGHT
    assert hand_name(low) == "straight, ten high"
    assert ev("Ah Ad Ac Ks Qh", MANILA_ACE_LOW) < low < ev("7h 8d 9c Ts Jh", MANILA_ACE_LOW)
    low_sf = ev("As 7s 8s 9s Ts", MANILA_ACE_LOW)
    assert category(low_sf) == STRAIGHT_FLUSH
    assert hand_name(low_sf) == "straight flush, ten high"
    assert ev("Ah Ad Ac As Kh", MANILA_ACE_LOW) < low_sf < ev("7h 8h 9h Th Jh", MANILA_ACE_LOW)
    # A-K-Q-J-10 is still the top straight with the ace high and low.
    assert ev("Ah Kd Qc Js Th", MANILA_ACE_LOW) > ev("Kh Qd Jc Ts 9h", MANILA_ACE_LOW)
    # Any straight, even the lowest, beats three of a kind.
    assert low > ev("Ah Ad Ac 8s 7h", MANILA_ACE_LOW)


def test_bad_ranking_is_rejected() -> None:
    with pytest.raises(ValueError):
        Ranking(False, "A6789")  # type: ignore[arg-type]


def test_s8_3_ranks_of_lists_the_ranks_by_significance() -> None:
    """QLD s8(3), s9(3): hands of one category compare by face values in this order."""
    assert ranks_of(ev("7h Kd Kc 7s Kh")) == (11, 11, 11, 5, 5)
    assert ranks_of(ev("Kh 9c Qd 9s Qh")) == (10, 10, 7, 7, 11)
    assert ranks_of(ev("Kh 9d 7c 4s 2h")) == (11, 7, 5, 2, 0)
    assert ranks_of(ev("Ah 2d 3c 4s 5h"))[0] == 3  # five high
