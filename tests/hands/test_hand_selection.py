"""Which cards may make a hand: Hold'em any five of seven, Omaha and Manila exact counts.

Rules: ACT Hold'em/Omaha r 14.1 and Terms "Hand"; QLD Hold'em/Omaha Sch 11 s2 "hand";
ACT 3 Card Manila r 14.1; QLD Manila Sch 5 s4.
"""

from __future__ import annotations

import pytest

from server.cards import card, cards
from server.hands import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    MANILA,
    MANILA_ACE_LOW,
    ONE_PAIR,
    STRAIGHT,
    THREE_OF_A_KIND,
    best_exact,
    best_five,
    best_of,
    category,
    evaluate5,
    hand_name,
)


def cs(text: str) -> list[int]:
    return cards(text.split())


def test_act_14_1_holdem_may_play_the_board() -> None:
    """ACT r 14.1, Terms "Hand": Hold'em uses the best five of the seven cards, the board
    alone included."""
    board = cs("Ts Jd Qh Kc Ac")
    assert hand_name(best_of(cs("2c 3d") + board)) == "straight, ace high"
    assert best_of(cs("2c 3d") + board) == best_of(cs("4h 5h") + board)


def test_best_of_accepts_five_and_six_cards() -> None:
    """Before the river a Hold'em hand has five or six cards (ACT r 14.1)."""
    assert hand_name(best_of(cs("Ah Ad Kc Ks 2h"))) == "two pair, aces and kings"
    assert hand_name(best_of(cs("Ah Ad Kc Ks 2h Ac"))) == "full house, aces over kings"


def test_omaha_act_14_1_board_straight_cannot_be_played() -> None:
    """ACT Omaha r 14.1, QLD s2 "hand": exactly 2 hole + 3 board; a board straight does not
    play."""
    hole, board = cs("Ah Ad Kc Ks"), cs("5s 6d 7c 8s 9h")
    assert category(best_of(hole[:2] + board)) == STRAIGHT  # what Hold'em would allow
    v = best_exact(hole, board, 2, 3)
    assert category(v) == ONE_PAIR
    assert hand_name(v) == "one pair, aces"


def test_omaha_act_14_1_one_suited_hole_card_never_makes_a_flush() -> None:
    """ACT Omaha r 14.1, QLD s2: four suited board cards plus one suited hole card is not a
    flush; two suited hole cards with three on the board are."""
    board = cs("2h 7h 9h Jh Kc")
    one = best_exact(cs("Ah Ks Qd 3c"), board, 2, 3)
    assert category(one) == ONE_PAIR  # kings: Ks with the board's Kc
    two = best_exact(cs("Ah 3h Qd 4c"), board, 2, 3)
    assert category(two) == FLUSH
    assert hand_name(two) == "flush, ace high"


def test_omaha_act_14_1_board_flush_cannot_be_played() -> None:
    """ACT Omaha r 14.1: five suited board cards and no suited hole card is no flush."""
    v = best_exact(cs("As Kd Qc 3c"), cs("2h 5h 7h 9h Jh"), 2, 3)
    assert category(v) == HIGH_CARD
    assert hand_name(v) == "high card, ace"


def test_om_act_05_equal_hands_tie() -> None:
    """OM-ACT-05 (ACT Omaha r 14.1, 3.5): Ah Kd / As Kc on Qh Js Tc 4d 7s both make the
    ace-high straight and tie."""
    board = cs("Qh Js Tc 4d 7s")
    s1 = best_exact(cs("Ah Kd 2c 2s"), board, 2, 3)
    s2 = best_exact(cs("As Kc 3d 3h"), board, 2, 3)
    assert s1 == s2
    assert hand_name(s1) == "straight, ace high"


def test_act_manila_14_1_exactly_two_of_three_hole_cards() -> None:
    """ACT 3 Card Manila r 14.1: two of the three hole cards and three communal cards. Three
    suited hole cards cannot all play."""
    hole, board = cs("Ac Kc Qc"), cs("Jc Tc 7d 8s 9h")
    assert hand_name(best_of(hole[:2] + board[:2] + [hole[2]])) == "royal flush"  # any 5
    v = best_exact(hole, board, 2, 3, MANILA)
    assert hand_name(v) == "straight, king high"


def test_act_manila_14_1_trips_in_the_hole_play_only_as_a_pair() -> None:
    """ACT 3 Card Manila r 14.1: three of a kind in the hole contributes only a pair."""
    v = best_exact(cs("9c 9d 9h"), cs("Ac Kd 7s 8h Js"), 2, 3, MANILA)
    assert category(v) == ONE_PAIR
    assert hand_name(v) == "one pair, nines"


def test_ma_act_01_flush_beats_full_house() -> None:
    """MA-ACT-01 (ACT 3 Card Manila r 14.1, 14.3(d)-(e)): S1 Ah Jh 7s makes a heart flush,
    S2 Ks 9s 8d a full house, on Kh Kd 9h 8h Tc; S1 wins."""
    board = cs("Kh Kd 9h 8h Tc")
    s1 = best_exact(cs("Ah Jh 7s"), board, 2, 3, MANILA)
    s2 = best_exact(cs("Ks 9s 8d"), board, 2, 3, MANILA)
    assert (category(s1), category(s2)) == (FLUSH, FULL_HOUSE)
    assert s1 > s2


def test_ma_act_ace_high_and_low_vector() -> None:
    """ACT 3 Card Manila r 3.5, 14.3(b),(f) vector: on 8s 9h Ts Kc Qd with the ace high and
    low, S3's 7-8-9-10-J beats S1's A-7-8-9-10, which beats S2's three nines."""
    board = cs("8s 9h Ts Kc Qd")
    s1 = best_exact(cs("Ac 7d Kd"), board, 2, 3, MANILA_ACE_LOW)
    s2 = best_exact(cs("9c 9d Qs"), board, 2, 3, MANILA_ACE_LOW)
    s3 = best_exact(cs("Jh 7h 7c"), board, 2, 3, MANILA_ACE_LOW)
    assert hand_name(s1) == "straight, ten high"
    assert category(s2) == THREE_OF_A_KIND
    assert hand_name(s3) == "straight, jack high"
    assert s3 > s1 > s2
    # With the ace high only, S1 has no straight (a pair of kings at best).
    assert hand_name(best_exact(cs("Ac 7d Kd"), board, 2, 3, MANILA)) == "one pair, kings"


def test_qld_manila_s4_both_hole_cards_must_play() -> None:
    """QLD Manila s4: both hole cards and three communal cards. On Kd Kh Ks Qs Js, Ah 8c
    (kings with A-8) beats Ad 7c (kings with A-7); in Hold'em both would play K-K-K-A-Q."""
    board = cs("Kd Kh Ks Qs Js")
    a8 = best_exact(cs("Ah 8c"), board, 2, 3, MANILA)
    a7 = best_exact(cs("Ad 7c"), board, 2, 3, MANILA)
    assert a8 > a7
    assert best_of(cs("Ah 8c") + board) == best_of(cs("Ad 7c") + board)
    assert best_five(cs("Ah 8c"), board, 2, 3, MANILA) == cs("Kd Kh Ks Ah 8c")


@pytest.mark.parametrize("n_board", [3, 4, 5])
def test_best_exact_on_a_partial_board(n_board: int) -> None:
    """Hands can be evaluated before the last communal card (3 to 5 board cards)."""
    board = cs("Ah Kh 7d 8s Qc")[:n_board]
    v = best_exact(cs("Ad Ac 9h"), board, 2, 3, MANILA)
    assert hand_name(v) == "three of a kind, aces"


def test_best_five_shows_the_cards_that_play() -> None:
    """The five cards shown at showdown make the announced hand (ACT r 9.2)."""
    seven = cs("Ah 2d 3c 4s 5d Kc Kd")
    five = best_five(seven)
    assert five == cs("5d 4s 3c 2d Ah")  # the wheel, ace shown last
    assert evaluate5(five) == best_of(seven)
    fh = best_five(cs("7h 7d Kc Ks Kh 2c 3d"))
    assert fh == cs("Kc Kh Ks 7d 7h")
    assert hand_name(evaluate5(fh)) == "full house, kings over sevens"
    omaha = best_five(cs("Ah 3h Qd 4c"), cs("2h 7h 9h Jh Kc"), 2, 3)
    assert sorted(omaha) == sorted(cs("Ah 3h Jh 9h 7h"))
    assert omaha[0] == card("Ah")
    manila = best_five(cs("Ah 7h Kd 9c Td 8s"), MANILA_ACE_LOW)
    assert hand_name(evaluate5(manila, MANILA_ACE_LOW)) == "straight, ten high"
    assert manila[-1] == card("Ah")


def test_wrong_card_counts_are_rejected() -> None:
    """An evaluator asked for an impossible hand raises instead of guessing."""
    with pytest.raises(ValueError):
        evaluate5(cs("Ah Kh Qh Jh"))
    with pytest.raises(ValueError):
        best_of(cs("Ah Kh Qh Jh"))
    with pytest.raises(ValueError):
        best_of(cs("Ah Kh Qh Jh Th 9h 8h 7h"))
    with pytest.raises(ValueError):
        best_exact(cs("Ah Kh"), cs("Qh Jh Th"), 2, 2)
    with pytest.raises(ValueError):
        best_exact(cs("Ah"), cs("Qh Jh Th 9h"), 2, 3)
    with pytest.raises(ValueError):
        best_five(cs("Ah Kh"), cs("Qh Jh"), 2, 3)
