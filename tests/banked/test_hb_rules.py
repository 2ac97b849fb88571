"""Texas hold'em bonus poker (QLD Sch 12): rules not pinned by the shared vectors."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource, card
from server.games.banked.base import Forced
from server.games.banked.holdem_bonus import HoldemBonus, bonus_hand
from server.games.banked.scenario import run

BOARD = ["7h", "Qs", "2d", "9c", "3s"]


def scen(boxes, cards, dealer, board, decisions, options=None):
    return run(
        "holdem-bonus",
        {
            "game": "holdem-bonus",
            "options": options or {},
            "boxes": boxes,
            "cards": {"boxes": cards, "dealer": dealer, "board": board},
            "decisions": decisions,
        },
    )


@pytest.mark.parametrize(
    "hole, name, odds",
    [
        (["Ac", "Ad"], "two aces", 30),
        (["As", "Ks"], "ace-king suited", 25),
        (["Ah", "Qh"], "ace-queen or ace-jack suited", 20),
        (["Jd", "Ad"], "ace-queen or ace-jack suited", 20),
        (["Ac", "Kh"], "ace-king offsuit", 15),
        (["Kh", "Ks"], "two kings, queens or jacks", 10),
        (["Jh", "Jc"], "two kings, queens or jacks", 10),
        (["Ad", "Qs"], "ace-queen or ace-jack offsuit", 5),
        (["Tc", "Td"], "any other pair", 3),
        (["2c", "2d"], "any other pair", 3),
        (["Ah", "Th"], None, -1),
        (["Kh", "Qh"], None, -1),
    ],
)
def test_s26_every_bonus_line_on_the_hole_cards(hole, name, odds):
    """s6, s25(1)-(2), s26: judged on the two hole cards, win or lose."""
    assert bonus_hand([card(c) for c in hole]) == name
    res = scen(
        {"1": {"ante": 1000, "bonus": 1000}},
        {"1": hole},
        ["3c", "3d"],
        ["4h", "8s", "9d", "5c", "6s"],
        [[1, "bet"], [1, "check"], [1, "check"]],
    )
    assert res["boxes"]["1"]["bonus"] == 1000 * odds


def test_a1_option_ante_loses_when_winning_below_a_flush():
    cards = {"1": ["7c", "7d"]}
    push = scen(
        {"1": {"ante": 1000}}, cards, ["Kd", "4c"], BOARD, [[1, "bet"], [1, "check"], [1, "check"]]
    )
    lose = scen(
        {"1": {"ante": 1000}},
        cards,
        ["Kd", "4c"],
        BOARD,
        [[1, "bet"], [1, "check"], [1, "check"]],
        {"ante_when_win_below_flush": "lose"},
    )
    assert push["boxes"]["1"] == {"ante": 0, "flop": 2000, "net": 2000}
    assert lose["boxes"]["1"] == {"ante": -1000, "flop": 2000, "net": 1000}


def test_s18_no_fold_after_the_flop():
    res = scen({"1": {"ante": 1000}}, {}, [], BOARD, [[1, "bet"], [1, "fold"]])
    assert res["state"] == "rejected" and res["error"]["code"] == "illegal_verb"
    assert res["error"]["at"] == 1


def test_s17_4_flop_is_twice_and_s18_turn_once_the_ante():
    bad = scen({"1": {"ante": 1000}}, {}, [], BOARD, [[1, "bet", 1000]])
    assert bad["error"]["code"] == "bad_amount"
    bad = scen({"1": {"ante": 1000}}, {}, [], BOARD, [[1, "bet"], [1, "bet", 2000]])
    assert bad["error"] == {"at": 1, "code": "bad_amount", "message": bad["error"]["message"]}


def test_a5_timeout_folds_pre_flop_and_checks_after():
    res = scen(
        {"1": {"ante": 1000}, "2": {"ante": 1000}},
        {"1": ["Ac", "Ad"], "2": ["7c", "7d"]},
        ["Kd", "4c"],
        BOARD,
        [[1, "timeout"], [2, "bet"], [2, "timeout"], [2, "insufficient"]],
    )
    assert res["state"] == "complete"
    assert res["boxes"]["1"] == {"ante": -1000, "net": -1000}
    assert res["boxes"]["2"] == {"ante": 0, "flop": 2000, "net": 2000}


def test_s17_6_community_cards_are_exposed_street_by_street():
    """The board is hidden until every flop decision is in (s17(6)), then turn and river."""
    r = HoldemBonus(
        {},
        {1: {"ante": 1000}, 2: {"ante": 1000}},
        SeededRandomSource(5),
        forced=Forced.from_strings({}, board=BOARD),
    )
    r.start()

    def board_seen():
        return [
            e["cards"]
            for e in r.view(None)["events"]
            if e["type"] == "cards_dealt" and e["to"] == "board"
        ]

    assert board_seen() == []
    r.decide(1, "bet")
    assert board_seen() == []
    r.decide(2, "bet")
    assert board_seen() == [BOARD[:3]]
    r.decide(1, "check")
    r.decide(2, "bet")
    assert board_seen() == [BOARD[:3], BOARD[3:4]]
    assert [d.street for d in r.pending()] == ["river", "river"]
    r.decide(2, "check")
    r.decide(1, "check")
    assert board_seen() == [BOARD[:3], BOARD[3:4], BOARD[4:]] and r.complete


def test_everyone_folding_settles_without_exposing_the_board():
    res = scen({"1": {"ante": 1000, "bonus": 500}}, {}, [], BOARD, [[1, "fold"]])
    assert res["state"] == "complete"
    assert res["boxes"]["1"] == {"ante": -1000, "bonus": -500, "net": -1500}
