"""A shown hand named with its ranks, valued as each game values it (server.hands.showdown)."""

from __future__ import annotations

from server.games.poker.rules import rules_for
from server.hands.showdown import shown_hand_name


def test_holdem_names_the_best_five_of_seven_with_ranks() -> None:
    assert shown_hand_name(["Kd", "9s"], ["Kh", "9c", "2d", "3s", "4h"]) == (
        "two pair, kings and nines"
    )
    assert shown_hand_name(["Kd", "Ks"], ["Kh", "7c", "7d", "3s", "4h"]) == (
        "full house, kings over sevens"
    )
    assert shown_hand_name(["Ad", "2s"], ["3h", "4c", "5d", "Ks", "Qh"]) == "straight, five high"


def test_omaha_uses_exactly_two_hole_cards() -> None:
    rules = rules_for("omaha-act")
    # four spades on the board and one in the hand: no flush in Omaha (ACT r 14.1)
    name = shown_hand_name(
        ["As", "Kd", "Qc", "2h"], ["3s", "7s", "9s", "Js", "4d"], rules.exact_use, rules.ranking
    )
    assert name == "high card, ace"


def test_too_few_cards_name_nothing() -> None:
    assert shown_hand_name(["As", "Kd"], []) == ""
