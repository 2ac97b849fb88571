"""Mississippi stud (QLD Sch 18): rules not pinned by the shared vectors."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource, card
from server.games.banked.base import Forced
from server.games.banked.mississippi_stud import MississippiStud, pay_line
from server.games.banked.scenario import run
from server.hands import evaluate5


def scen(boxes, cards, board, decisions):
    return run(
        "mississippi-stud",
        {
            "game": "mississippi-stud",
            "boxes": boxes,
            "cards": {"boxes": cards, "board": board},
            "decisions": decisions,
        },
    )


@pytest.mark.parametrize(
    "cards, line",
    [
        (["As", "Ks", "Qs", "Js", "Ts"], "royal flush"),
        (["9h", "8h", "7h", "6h", "5h"], "straight flush"),
        (["5s", "5h", "5d", "5c", "2s"], "four of a kind"),
        (["Qs", "Qh", "Qd", "5c", "5h"], "full house"),
        (["Ks", "Js", "8s", "7s", "3s"], "flush"),
        (["Ad", "2s", "3h", "4c", "5d"], "straight"),
        (["6s", "6d", "6c", "Ad", "3h"], "three of a kind"),
        (["4s", "4h", "3s", "3h", "5d"], "two pair"),
        (["Jh", "Jd", "7c", "4c", "2s"], "jacks or better"),
        (["Ah", "Ad", "7c", "4c", "2s"], "jacks or better"),
        (["Th", "Td", "7c", "4c", "2s"], "pair of sixes to tens"),
        (["6h", "6c", "Jd", "7c", "2s"], "pair of sixes to tens"),
        (["5h", "5c", "Jd", "7c", "2s"], None),  # a pair of 5s or lower loses (A3)
        (["Ah", "Kc", "Jd", "7c", "2s"], None),  # no pair loses
    ],
)
def test_s17_every_pay_line(cards, line):
    assert pay_line(evaluate5([card(c) for c in cards])) == line


@pytest.mark.parametrize(
    "hole, board, odds",
    [
        (["Ah", "Kh"], ["Qh", "Jh", "Th"], 500),
        (["Tc", "Jc"], ["9c", "8c", "7c"], 100),
        (["Kc", "Kh"], ["Kd", "Ks", "4d"], 40),
        (["Jh", "Js"], ["Jc", "7d", "7s"], 10),
        (["Kc", "2c"], ["9c", "8c", "7c"], 6),
        (["Ad", "2s"], ["3h", "4c", "5d"], 4),
        (["5h", "5s"], ["5d", "Kc", "9h"], 3),
        (["2h", "2c"], ["Jc", "7d", "7s"], 2),
        (["Qd", "6h"], ["Qs", "Th", "3c"], 1),
    ],
)
def test_s18_1_the_odds_apply_to_the_ante_and_every_street_wager(hole, board, odds):
    """s18(1), A4: one multiplier for every wager on the box."""
    res = scen(
        {"1": {"ante": 1000}},
        {"1": hole},
        board,
        [[1, "bet", 1000], [1, "bet", 2000], [1, "bet", 3000]],
    )
    assert res["boxes"]["1"] == {
        "ante": 1000 * odds,
        "third_street": 1000 * odds,
        "fourth_street": 2000 * odds,
        "fifth_street": 3000 * odds,
        "net": 7000 * odds,
    }


def test_s12_3_street_wager_is_one_two_or_three_times_the_ante():
    res = scen({"1": {"ante": 1000}}, {}, [], [[1, "bet", 4000]])
    assert res["state"] == "rejected" and res["error"]["code"] == "bad_amount"
    res = scen({"1": {"ante": 1000}}, {}, [], [[1, "bet"]])
    assert res["error"]["code"] == "amount_required"


def test_s26_2_absent_player_is_folded_and_forfeits_all_wagers():
    res = scen(
        {"1": {"ante": 1000}},
        {"1": ["Ah", "Kh"]},
        ["Qh", "Jh", "Th"],
        [[1, "bet", 3000], [1, "timeout"]],
    )
    assert res["boxes"]["1"] == {"ante": -1000, "third_street": -3000, "net": -4000}


def test_community_cards_exposed_one_street_at_a_time():
    """s11(2)(b): the community cards are revealed one at a time after each street."""
    r = MississippiStud(
        {},
        {1: {"ante": 1000}, 2: {"ante": 1000}},
        SeededRandomSource(2),
        forced=Forced.from_strings({}, board=["Qc", "9s", "9d"]),
    )
    r.start()

    def seen():
        return [
            e["cards"]
            for e in r.view(2)["events"]
            if e["type"] == "cards_dealt" and e["to"] == "board"
        ]

    assert seen() == []
    r.decide(1, "bet", 1000)
    r.decide(2, "fold")
    assert seen() == [["Qc"]]
    assert [(d.box, d.street) for d in r.pending()] == [(1, "fourth")]
    r.decide(1, "bet", 3000)
    assert seen() == [["Qc"], ["9s"]]
    r.decide(1, "bet", 2000)
    assert seen() == [["Qc"], ["9s"], ["9d"]] and r.complete
