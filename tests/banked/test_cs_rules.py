"""Caribbean stud (QLD Sch 3): rules not pinned by the shared vectors. Each test names its rule."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from server.cards import SeededRandomSource, card
from server.errors import ScenarioError
from server.games.banked.base import Forced, JackpotState
from server.games.banked.caribbean_stud import CaribbeanStud, dealer_qualifies
from server.games.banked.scenario import describe, run
from server.hands import evaluate5
from tests.shared import REPO

DEALER_AK = ["Ac", "Kd", "4h", "3s", "2c"]  # A-K-4-3-2: qualifies, beaten by any better hand


def scen(boxes, cards, dealer, decisions, options=None, jackpot=None):
    s = {
        "game": "caribbean-stud",
        "options": options or {},
        "boxes": boxes,
        "cards": {"boxes": cards, "dealer": dealer},
        "decisions": decisions,
        "seed": 7,
    }
    if jackpot is not None:
        s["jackpot"] = jackpot
    return run("caribbean-stud", s)


def hand(*cs):
    return evaluate5([card(c) for c in cs])


@pytest.mark.parametrize(
    "cards, qualifies",
    [
        (["Ac", "Kd", "4h", "3s", "2c"], True),  # ace and king (s4(a))
        (["Ac", "Qd", "Jh", "3s", "2c"], False),  # ace without king
        (["Kc", "Qd", "Jh", "9s", "2c"], False),  # king without ace
        (["2c", "2d", "7h", "5s", "3c"], True),  # any pair (s4(b))
        (["Ad", "2c", "3h", "4s", "5d"], True),  # wheel straight (A3)
    ],
)
def test_s4_dealer_qualification(cards, qualifies):
    assert dealer_qualifies(hand(*cards)) is qualifies


@pytest.mark.parametrize(
    "cards, odds",
    [
        (["Ah", "Kc", "5d", "3h", "2d"], 1),  # odd card hand
        (["7d", "7s", "Qh", "5c", "2h"], 1),  # one pair
        (["Jd", "Jc", "9h", "9s", "5c"], 2),  # two pairs
        (["6s", "6d", "6c", "Ad", "3h"], 3),  # three of a kind
        (["9h", "Ts", "Jc", "Qd", "Kh"], 4),  # straight
        (["Ks", "Js", "8s", "7s", "5s"], 5),  # flush
        (["Qs", "Qh", "Qd", "5c", "5h"], 7),  # full house
        (["5s", "5h", "5d", "5c", "2s"], 20),  # four of a kind
        (["9h", "8h", "7h", "6h", "5h"], 50),  # straight flush
        (["As", "Ks", "Qs", "Js", "Ts"], 250),  # royal flush
    ],
)
def test_s22_1_every_bet_pay_line(cards, odds):
    """s22(1) pay table, s21(2)(a) ante 1:1, no cap when max_payout is null."""
    res = scen({"1": {"ante": 1000}}, {"1": cards}, DEALER_AK, [[1, "bet"]], {"max_payout": None})
    assert res["boxes"]["1"] == {"ante": 1000, "bet": 2000 * odds, "net": 1000 + 2000 * odds}


def test_s22_2_cap_alternative_includes_the_stake():
    """A4 alternative (option bet_cap_includes_stake): the cap covers stake plus winnings."""
    res = scen(
        {"1": {"ante": 1000}},
        {"1": ["Qs", "Qh", "Qd", "5c", "5h"]},
        DEALER_AK,
        [[1, "bet"]],
        {"max_payout": 5000, "bet_cap_includes_stake": True},
    )
    assert res["boxes"]["1"]["bet"] == 3000


def test_s16_5_fold_loses_ante_and_jackpot_wager_even_with_a_royal():
    """s16(5) with s3: closing a folded hand collects ante and jackpot wager; no prize."""
    res = scen(
        {"1": {"ante": 1000, "jackpot": 100}},
        {"1": ["As", "Ks", "Qs", "Js", "Ts"]},
        DEALER_AK,
        [[1, "fold"]],
        jackpot={"pool": 5_000_000, "reserve": 0},
    )
    assert res["boxes"]["1"] == {"ante": -1000, "jackpot": -100, "net": -1100}
    assert res["jackpot"] == {"pool": 5_000_025, "reserve": 5}


def test_s21_7_stand_off_still_pays_the_jackpot_hand():
    """s21(5)-(7), A5: equal flushes stand off; the flush jackpot prize (s24: 100) is paid."""
    res = scen(
        {"2": {"ante": 1000, "jackpot": 100}},
        {"2": ["Kh", "Jh", "8h", "7h", "3h"]},
        ["Kd", "Jd", "8d", "7d", "3d"],
        [[2, "bet"]],
        jackpot={"pool": 2_000_000, "reserve": 0},
    )
    assert res["boxes"]["2"] == {"ante": 0, "bet": 0, "jackpot": 9900, "net": 9900}
    assert res["dealer"] == "qualifies"


def test_s5_2_dead_mans_hand_only_when_enabled():
    """s5(2): A-A-8-8-x is a jackpot hand (50) only where the control system includes it."""
    cards = {"1": ["As", "Ad", "8s", "8c", "Js"]}
    off = scen(
        {"1": {"ante": 1000, "jackpot": 100}},
        cards,
        DEALER_AK,
        [[1, "bet"]],
        jackpot={"pool": 2_000_000},
    )
    on = scen(
        {"1": {"ante": 1000, "jackpot": 100}},
        cards,
        DEALER_AK,
        [[1, "bet"]],
        {"dead_mans_hand_enabled": True},
        jackpot={"pool": 2_000_000},
    )
    assert off["boxes"]["1"]["jackpot"] == -100
    assert on["boxes"]["1"]["jackpot"] == 4900


def test_a9_timeout_folds_and_insufficient_folds():
    res = scen(
        {"1": {"ante": 1000}, "2": {"ante": 1000}},
        {"1": ["As", "Ks", "Qs", "Js", "Ts"], "2": ["Qc", "Qh", "Qd", "5c", "5h"]},
        DEALER_AK,
        [[1, "timeout"], [2, "insufficient"]],
    )
    assert res["boxes"]["1"] == {"ante": -1000, "net": -1000}
    assert res["boxes"]["2"] == {"ante": -1000, "net": -1000}


def test_s16_4_bet_must_be_exactly_twice_the_ante():
    res = scen({"1": {"ante": 1000}}, {}, DEALER_AK, [[1, "bet", 3000]])
    assert res["state"] == "rejected"
    assert res["error"]["at"] == 0 and res["error"]["code"] == "bad_amount"
    assert res["boxes"]["1"] == {"net": 0}


def test_decisions_after_the_round_and_twice_are_rejected_at_their_index():
    res = scen({"1": {"ante": 1000}, "2": {"ante": 1000}}, {}, DEALER_AK, [[1, "bet"], [1, "fold"]])
    assert res["state"] == "rejected"
    assert res["error"] == {
        "at": 1,
        "code": "not_awaiting_decision",
        "message": res["error"]["message"],
    }


def test_waiting_lists_the_pending_decisions():
    res = scen({"1": {"ante": 1000}, "3": {"ante": 500}}, {}, DEALER_AK, [[3, "fold"]])
    assert res["state"] == "waiting"
    assert res["pending"] == [
        {
            "box": 1,
            "street": "decision",
            "legal": [
                {"verb": "bet", "amounts": [2000], "min": 2000, "max": 2000},
                {"verb": "fold"},
            ],
        }
    ]


@pytest.mark.parametrize(
    "boxes, options, cards",
    [
        ({"1": {"ante": 1000, "jackpot": 500}}, {}, {}),  # s14(2) denomination
        ({"1": {"ante": 1000, "jackpot": 100}}, {"jackpot_wager": None}, {}),  # s13(2) none offered
        ({"1": {"jackpot": 100}}, {}, {}),  # s13(1): ante required
        ({"1": {"ante": 1000, "play": 5}}, {}, {}),  # unknown wager
        ({"1": {"ante": -5}}, {}, {}),  # negative amount
        ({"1": {"ante": 10.5}}, {}, {}),  # not integer cents
        ({"8": {"ante": 1000}}, {}, {}),  # box out of range
        ({"1": {"ante": 1000}}, {"colour": "red"}, {}),  # unknown option
        ({"1": {"ante": 1000}}, {}, {"1": ["As", "As", "Qs", "Js", "Ts"]}),  # card twice
        ({"1": {"ante": 1000}}, {}, {"1": ["Xs", "Ks", "Qs", "Js", "Ts"]}),  # no such card
        ({"1": {"ante": 1000}}, {}, {"1": ["Ac", "Ks", "Qs", "Js", "Ts"]}),  # dealer's Ac twice
        ({"1": {"ante": 1000}}, {}, {"2": ["2s"]}),  # box without a wager
    ],
)
def test_invalid_scenarios_raise(boxes, options, cards):
    with pytest.raises(ScenarioError):
        scen(boxes, cards, DEALER_AK, [], options)


def test_invalid_scenario_exits_2_with_nothing_on_stdout(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {"game": "caribbean-stud", "options": {"colour": 1}, "boxes": {"1": {"ante": 1000}}}
        )
    )
    proc = subprocess.run(
        [sys.executable, "-m", "server.scenario", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1


def test_s15_3_only_the_upcard_is_shown_and_hands_stay_private():
    """s15(3): one dealer card face up; s14(3): jackpot wager acknowledged to its box."""
    r = CaribbeanStud(
        {},
        {1: {"ante": 1000, "jackpot": 100}, 2: {"ante": 1000}},
        SeededRandomSource(3),
        forced=Forced.from_strings({1: ["As", "Ks", "Qs", "Js", "Ts"]}, DEALER_AK),
        jackpot=JackpotState(2_000_000),
    )
    r.start()
    spectator = r.view(None)["events"]
    dealt = [e for e in spectator if e["type"] == "cards_dealt"]
    assert dealt == [
        {
            "type": "cards_dealt",
            "to": "dealer",
            "box": None,
            "cards": ["2c"],
            "street": None,
            "visible_to": "everyone",
        }
    ]
    mine = r.view(1)["events"]
    assert any(e["type"] == "jackpot_wager_accepted" for e in mine)
    assert not any(e["type"] == "jackpot_wager_accepted" for e in r.view(2)["events"])
    assert [e["cards"] for e in mine if e["type"] == "cards_dealt" and e["to"] == "box"] == [
        ["As", "Ks", "Qs", "Js", "Ts"]
    ]
    r.decide(1, "bet")
    r.decide(2, "fold")
    shown = [e for e in r.view(None)["events"] if e["type"] == "hand_shown"]
    assert [e["box"] for e in shown] == [None, 1]  # a folded hand is never shown


def test_describe_lists_options_wagers_and_verbs():
    d = describe("caribbean-stud")
    assert d["options"]["max_payout"]["default"] == 5_000_000
    assert d["options"]["multi_winner_mode"]["default"] == "s24_shared"
    assert [w["name"] for w in d["wagers"]] == ["ante", "jackpot", "bet"]
    assert {"bet", "fold", "timeout", "insufficient"} <= set(d["verbs"])
    assert d["pay_tables"]["standard"]["bet"]["royal flush"] == [250, 1]
