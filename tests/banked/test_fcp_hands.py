"""Four-card hand ranking (Four Card Poker, seed 003, r 11) and best-four selection (r 9.5-9.6)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from server.cards import STANDARD_DECK, cards
from server.hands.four_card import (
    FLUSH,
    FOUR_ODD,
    FOUR_OF_A_KIND,
    ONE_PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    best_four,
    category,
    evaluate4,
    is_pair_of_aces_or_better,
)


def v(text: str) -> int:
    return evaluate4(cards(text.split()))


def test_r11_1_order_of_categories() -> None:
    """r 11.1: 4K > SF > 3K > flush > straight > two pair > one pair > four odd cards."""
    ladder = [
        "Kd 9s 7h 3c",  # four odd cards
        "2s 2h 9d 5c",  # one pair
        "3s 3h 2d 2c",  # two pair
        "Ac Kd Qh Js",  # straight (highest)
        "9h 7h 4h 2h",  # flush
        "2s 2h 2d 3c",  # three of a kind
        "Ks Qs Js Ts",  # straight flush
        "2s 2h 2d 2c",  # four of a kind
    ]
    values = [v(h) for h in ladder]
    assert values == sorted(values)
    assert [category(x) for x in values] == [
        FOUR_ODD,
        ONE_PAIR,
        TWO_PAIR,
        STRAIGHT,
        FLUSH,
        THREE_OF_A_KIND,
        STRAIGHT_FLUSH,
        FOUR_OF_A_KIND,
    ]


def test_r11_2_1_ace_high_and_low_straights() -> None:
    """r 11.2.1: A-K-Q-J beats 4-3-2-A, the lowest straight; no wrap-around (A 6)."""
    assert category(v("Ad 2h 3c 4d")) == STRAIGHT
    assert v("Ad 2h 3c 4d") < v("2h 3c 4d 5s") < v("Ac Kd Qh Js")
    assert category(v("Qh Ks Ad 2c")) == FOUR_ODD
    assert category(v("Ah 2h 3h 4h")) == STRAIGHT_FLUSH
    assert v("Ah 2h 3h 4h") < v("2s 3s 4s 5s")


def test_r11_2_2_pair_kickers_and_suits_equal() -> None:
    """r 11.2.2: equal pairs are decided by the other cards; r 3.3: suits are equal."""
    assert v("Qs Qh 9d 5c") > v("Qd Qc 9s 4c")
    assert v("Qs Qh 9d 5c") == v("Qd Qc 9s 5d")
    assert v("Ks Kh 2d 2c") > v("Qs Qh Jd Jc")
    assert v("7s 7h 7d Ac") > v("7s 7h 7d Kc") > v("6s 6h 6d Ac")


def test_r9_6_dealer_best_four_of_six() -> None:
    """r 9.6 (FCP-04): the dealer's six cards 9 9 5 4 3 2 make a 5-high straight."""
    value, four = best_four(cards("9h 9d 5c 4s 3h 2d".split()))
    assert category(value) == STRAIGHT
    assert sorted(four) == sorted(cards("5c 4s 3h 2d".split()))


def test_aces_up_threshold() -> None:
    """r 1 "Aces Up", r 10.5: a pair of aces or better qualifies; a pair of kings does not."""
    assert is_pair_of_aces_or_better(v("As Ah 9c 6d"))
    assert not is_pair_of_aces_or_better(v("Ks Kh Ac 6d"))
    assert is_pair_of_aces_or_better(v("3s 3h 2c 2d"))
    assert not is_pair_of_aces_or_better(v("As Kh 9c 6d"))


def test_category_counts_of_all_four_card_hands() -> None:
    """Every one of the C(52,4) = 270,725 four-card hands, counted per r 11.1 category."""
    counts = [0] * 8
    for combo in combinations(STANDARD_DECK, 4):
        counts[category(evaluate4(combo))] += 1
    assert counts[FOUR_OF_A_KIND] == 13
    assert counts[STRAIGHT_FLUSH] == 11 * 4
    assert counts[THREE_OF_A_KIND] == 13 * 4 * 48
    assert counts[FLUSH] == 4 * 715 - 44
    assert counts[STRAIGHT] == 11 * 256 - 44
    assert counts[TWO_PAIR] == 78 * 36
    assert counts[ONE_PAIR] == 13 * 6 * 66 * 16
    assert sum(counts) == 270_725


@given(st.lists(st.sampled_from(STANDARD_DECK), min_size=5, max_size=6, unique=True))
def test_best_four_is_the_maximum_subset(hand: list[int]) -> None:
    """r 9.5-9.6: the hand value is the best of every four-card subset."""
    value, four = best_four(hand)
    assert value == max(evaluate4(c) for c in combinations(hand, 4))
    assert evaluate4(four) == value
