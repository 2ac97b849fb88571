"""Craps (QLD Sch 4): every pay line of s10-s12 and s14-s17, the come-out and point cycle,
on/off markers (s7), wager changes (s6, s13), the CR-19 validation rows, "no roll" (s23) and
the cocked die (s25(3)), the dice source and the layout carried between rounds, beyond the
shared vectors CR-01..CR-19n."""

from __future__ import annotations

from typing import Any

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced, InvalidRound
from server.games.banked.craps import Craps, Layout, NoRoll, Standing, parse
from server.games.banked.outcome import OutcomeDeclared
from server.scenario import describe, run_scenario

OPTS = {"minimum": 100, "maximum": 1_000_000}
#: a come-out roll per point, and an easy (non-pair) way to throw each total
EASY = {2: [1, 1], 3: [1, 2], 4: [1, 3], 5: [1, 4], 6: [1, 5], 7: [3, 4], 8: [2, 6]}
EASY |= {9: [3, 6], 10: [4, 6], 11: [5, 6], 12: [6, 6]}


class Recording:
    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.calls: list[int] = []

    def randbelow(self, n: int) -> int:
        self.calls.append(n)
        return self.values.pop(0)


def run(
    boxes: dict[str, Any],
    rolls: list[Any],
    decisions: list[Any] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return run_scenario(
        {
            "game": "craps",
            "options": {**OPTS, **(options or {})},
            "boxes": boxes,
            "outcome": {"rolls": rolls},
            "decisions": decisions or [],
        }
    )


def box1(*args: Any, **kw: Any) -> dict[str, int]:
    result = run(*args, **kw)
    assert result["error"] is None, result["error"]
    return dict(result["boxes"]["1"])


def after_point(point: int, bets: dict[str, int], then: list[list[int]], **kw: Any) -> dict:
    """A win bet sets ``point``; ``bets`` go down before roll 1; ``then`` is thrown."""
    return box1(
        {"1": {"win": 1000}},
        [EASY[point], *then],
        [[1, "bet", bets, {"before_roll": 1}]],
        **kw,
    )


def rejected(result: dict[str, Any], code: str, at: int = 0) -> None:
    assert result["state"] == "rejected"
    assert result["error"]["at"] == at
    assert result["error"]["code"] == code


# ------------------------------------------------------------------ line bets (s4, s10)


@pytest.mark.parametrize(
    ("total", "win", "dont"),
    [(7, 1000, -1000), (11, 1000, -1000), (2, -1000, 0), (3, -1000, 1000), (12, -1000, 1000)],
)
def test_s4_line_bets_on_the_come_out(total: int, win: int, dont: int) -> None:
    """s4 win / don't win bet (a)-(c): 7 and 11, craps 2/3/12, bar 2 (A7); s10 1 to 1."""
    got = box1({"1": {"win": 1000, "dont_win": 1000}}, [EASY[total]])
    assert (got["win"], got["dont_win"]) == (win, dont)


@pytest.mark.parametrize("point", [4, 5, 6, 8, 9, 10])
def test_s4_point_made_and_seven_out(point: int) -> None:
    """s4 (a)(ii)/(b)(ii): the point before 7 wins the win bet, 7 before it the don't win bet;
    other totals (including 2, 3, 11, 12) have no action while the point is on."""
    others = [EASY[t] for t in (2, 3, 11, 12) if t != point]
    made = box1({"1": {"win": 1000, "dont_win": 1000}}, [EASY[point], *others, EASY[point]])
    assert (made["win"], made["dont_win"]) == (1000, -1000)
    out = box1({"1": {"win": 1000, "dont_win": 1000}}, [EASY[point], *others, EASY[7]])
    assert (out["win"], out["dont_win"]) == (-1000, 1000)


def test_s2_the_puck_and_a_new_come_out() -> None:
    """s2 come out roll: after the win bet is decided the next roll is a come-out roll; a line
    bet that won stays on the line (digest §5.1) and plays it."""
    r = run({"1": {"win": 1000}}, [[2, 2], [1, 3], [3, 4]])
    assert r["puck"] is None and r["boxes"]["1"]["win"] == 2000  # won on 4, then on come-out 7
    r = run({"1": {"win": 1000}}, [[2, 2], [1, 3], [2, 4]])
    assert r["puck"] == 6 and r["boxes"]["1"]["win"] == 1000


# ------------------------------------------------------------------ come bets (s4)


@pytest.mark.parametrize(
    ("total", "come", "dont"),
    [(7, 1000, -1000), (11, 1000, -1000), (2, -1000, 0), (3, -1000, 1000), (12, -1000, 1000)],
)
def test_s4_come_bets_on_their_first_roll(total: int, come: int, dont: int) -> None:
    """s4 come / don't come bet (a)(i), (b)(i), (c): decided on the next roll; bar 2."""
    got = box1(
        {"1": {"win": 1000}},
        [EASY[6], EASY[total]],
        [[1, "bet", {"come": 1000, "dont_come": 1000}, {"before_roll": 1}]],
    )
    assert (got["come"], got["dont_come"]) == (come, dont)


@pytest.mark.parametrize("point", [4, 5, 8, 9, 10])
def test_s4_come_point_then_decided(point: int) -> None:
    """s2 come point; s4 (a)(ii)/(b)(ii): the come point before 7 wins the come bet."""
    got = box1(
        {"1": {"win": 1000}},
        [EASY[6], EASY[point], EASY[point]],
        [[1, "bet", {"come": 1000, "dont_come": 1000}, {"before_roll": 1}]],
    )
    assert (got["come"], got["dont_come"]) == (1000, -1000)


# ------------------------------------------------------------------ odds (s14-s17)


@pytest.mark.parametrize(
    ("point", "odds", "win"), [(4, 1000, 2000), (5, 1000, 1500), (6, 1000, 1200)]
)
def test_s14_5_win_odds(point: int, odds: int, win: int) -> None:
    """s14(5): 2 to 1 on 4 and 10, 3 to 2 on 5 and 9, 6 to 5 on 6 and 8."""
    for p in (point, 14 - point):
        got = after_point(p, {"win_odds": odds}, [EASY[p]])
        assert (got["win"], got["win_odds"]) == (1000, win)
        assert after_point(p, {"win_odds": odds}, [EASY[7]])["win_odds"] == -odds


@pytest.mark.parametrize(("point", "lay"), [(4, 2000), (5, 1500), (6, 1200)])
def test_s15_5_dont_win_odds(point: int, lay: int) -> None:
    """s15(5): 1 to 2, 2 to 3, 5 to 6: the lay that wins the $10 line bet wins $10."""
    for p in (point, 14 - point):
        got = box1(
            {"1": {"dont_win": 1000}},
            [EASY[p], EASY[7]],
            [[1, "bet", {"dont_win_odds": lay}, {"before_roll": 1}]],
        )
        assert (got["dont_win"], got["dont_win_odds"]) == (1000, 1000)


@pytest.mark.parametrize("n", [4, 5, 6, 8, 9, 10])
def test_s16_s17_come_and_dont_come_odds(n: int) -> None:
    """s16(5) come odds at true odds; s17(5) don't come odds at the lay odds."""
    take = {4: 2000, 10: 2000, 5: 1500, 9: 1500, 6: 1200, 8: 1200}[n]
    lay = {4: 2000, 10: 2000, 5: 1500, 9: 1500, 6: 1200, 8: 1200}[n]
    point = 6 if n != 6 else 8
    won = box1(
        {"1": {"win": 1000}},
        [EASY[point], EASY[n], EASY[n]],
        [
            [1, "bet", {"come": 1000}, {"before_roll": 1}],
            [1, "bet", {f"come_odds_{n}": 1000}, {"before_roll": 2}],
        ],
    )
    assert (won["come"], won[f"come_odds_{n}"]) == (1000, take)
    laid = box1(
        {"1": {"win": 1000}},
        [EASY[point], EASY[n], EASY[7]],
        [
            [1, "bet", {"dont_come": 1000}, {"before_roll": 1}],
            [1, "bet", {f"dont_come_odds_{n}": lay}, {"before_roll": 2}],
        ],
    )
    assert (laid["dont_come"], laid[f"dont_come_odds_{n}"]) == (1000, 1000)


def test_s16_6_come_odds_on_when_marked() -> None:
    """s16(6): come odds called "on" work on the come-out roll with their come bet."""
    got = box1(
        {"1": {"win": 1000}},
        [[4, 5], [2, 3], [3, 6], [1, 4]],
        [
            [1, "bet", {"come": 1000}, {"before_roll": 1}],
            [1, "bet", {"come_odds_5": 1000}, {"before_roll": 2}],
            [1, "on", "come_odds_5", {"before_roll": 3}],
        ],
    )
    assert (got["come"], got["come_odds_5"]) == (1000, 1500)


def test_s16_6_come_odds_off_stand_when_the_come_bet_is_not_decided() -> None:
    """s16(6): off on a come-out roll that does not decide the come bet: no action."""
    r = run(
        {"1": {"win": 1000}},
        [[4, 5], [2, 3], [3, 6], [2, 2]],
        [
            [1, "bet", {"come": 1000}, {"before_roll": 1}],
            [1, "bet", {"come_odds_5": 1000}, {"before_roll": 2}],
        ],
    )
    assert r["boxes"]["1"]["come_odds_5"] == 0
    assert {"box": 1, "wager": "come_odds_5", "stake": 1000, "point": None} in r["layout"]
    assert {"box": 1, "wager": "come", "stake": 1000, "point": 5} in r["layout"]


@pytest.mark.parametrize(
    ("point", "line", "multiple", "ok", "bad"),
    [
        (5, 1000, 1, 1000, 1200),  # CR-19g
        (5, 500, 1, 600, 800),  # CR-19h: rounded up to the $2 unit
        (6, 1000, 2, 2000, 2500),  # CR-19i
        (6, 700, 2, 1000, 1500),  # CR-19o: 2x = $14 is a ceiling, down to the $5 unit
        (6, 700, 1, 1000, 1500),  # (3)(a): $7 rounded up to $10
        (4, 500, 1, 500, 600),
    ],
)
def test_s14_2_3_win_odds_maximum(point: int, line: int, multiple: int, ok: int, bad: int) -> None:
    """s14(2)-(3): at most the win bet, more to make a payable unit (a), at most 2x if the
    casino agrees (b); digest §3.2 units."""
    opts = {"odds_multiple": multiple}
    good = run(
        {"1": {"win": line}},
        [EASY[point], EASY[point]],
        [[1, "bet", {"win_odds": ok}, {"before_roll": 1}]],
        opts,
    )
    assert good["error"] is None
    rejected(
        run(
            {"1": {"win": line}},
            [EASY[point], EASY[point]],
            [[1, "bet", {"win_odds": bad}, {"before_roll": 1}]],
            opts,
        ),
        "odds_above_maximum",
    )


@pytest.mark.parametrize(
    ("point", "ok", "bad"), [(4, 2000, 2200), (5, 1500, 1800), (6, 1200, 1800)]
)
def test_s15_2_dont_win_odds_maximum(point: int, ok: int, bad: int) -> None:
    """s15(2)-(3)(a): the lay that wins the $10 line bet (CR-19j), rounded up to a payable
    unit ($2, $3, $6)."""
    for stake, err in ((ok, None), (bad, "odds_above_maximum")):
        r = run(
            {"1": {"dont_win": 1000}},
            [EASY[point], EASY[7]],
            [[1, "bet", {"dont_win_odds": stake}, {"before_roll": 1}]],
        )
        if err is None:
            assert r["error"] is None
        else:
            rejected(r, err)


def test_s14_1_odds_need_a_point() -> None:
    """s14(1)-s17(1): odds only once the point (come point) is set."""
    rejected(
        run({"1": {"win": 1000}}, [[3, 4]], [[1, "bet", {"win_odds": 1000}, {"before_roll": 0}]]),
        "no_point",
    )
    rejected(
        run(
            {"1": {"win": 1000}},
            [[3, 3], [2, 2]],
            [[1, "bet", {"come_odds_4": 1000}, {"before_roll": 1}]],
        ),
        "no_point",
    )


def test_s14_4_odds_rounded_up_to_a_dollar() -> None:
    """s14(4): winnings of a (3)(a) wager with part of a dollar may be rounded up (option)."""
    plain = after_point(6, {"win_odds": 1000}, [EASY[6]], options={"odds_multiple": 2})
    assert plain["win_odds"] == 1200
    got = box1(
        {"1": {"win": 500}},
        [EASY[5], EASY[5]],
        [[1, "bet", {"win_odds": 600}, {"before_roll": 1}]],
        options={"odds_round_up_to_dollar": True},
    )
    assert got["win_odds"] == 900  # whole dollars already
    opts = {"odds_multiple": 2, "odds_payable_unit_roundup": False}
    bet = [[1, "bet", {"win_odds": 1400}, {"before_roll": 1}]]
    got = box1({"1": {"win": 700}}, [EASY[6], EASY[6]], bet, options=opts)
    assert got["win_odds"] == 1680
    opts["odds_round_up_to_dollar"] = True
    got = box1({"1": {"win": 700}}, [EASY[6], EASY[6]], bet, options=opts)
    assert got["win_odds"] == 1700


# ------------------------------------------------------------------ place, buy, lay (s10-s13)


@pytest.mark.parametrize(
    ("n", "stake", "win"),
    [(4, 500, 900), (10, 500, 900), (5, 500, 700), (9, 500, 700), (6, 600, 700), (8, 600, 700)],
)
def test_s10_place_bets(n: int, stake: int, win: int) -> None:
    """s10(1): place 4/10 9 to 5, 5/9 7 to 5, 6/8 7 to 6; the stake stays up (§5.1)."""
    point = 6 if n != 6 else 8
    got = after_point(point, {f"place_{n}": stake}, [EASY[n], EASY[n], EASY[7]])
    assert got[f"place_{n}"] == 2 * win - stake


@pytest.mark.parametrize(
    ("n", "stake", "win", "commission"),
    [
        (4, 2000, 4000, 100),
        (10, 2000, 4000, 100),
        (5, 2000, 3000, 100),
        (9, 2000, 3000, 100),
        (6, 3000, 3600, 150),
        (8, 3000, 3600, 150),
    ],
)
def test_s11_buy_bets(n: int, stake: int, win: int, commission: int) -> None:
    """s11: true odds, commission 5% of the amount wagered, paid up front and kept; the bet
    comes down after a win (§5.1)."""
    point = 6 if n != 6 else 8
    r = run(
        {"1": {"win": 1000}},
        [EASY[point], EASY[n], EASY[n]],
        [[1, "bet", {f"buy_{n}": stake}, {"before_roll": 1}]],
    )
    got = r["boxes"]["1"]
    assert (got[f"buy_{n}"], got["commission"]) == (win, -commission)
    assert got["net"] == got["win"] + win - commission


@pytest.mark.parametrize(
    ("n", "stake", "win"),
    [(4, 4000, 2000), (10, 4000, 2000), (5, 3000, 2000), (9, 3000, 2000), (6, 2400, 2000)],
)
def test_s12_lay_bets(n: int, stake: int, win: int) -> None:
    """s12: 7 before n at 1:2, 2:3, 5:6; commission 5% of the win; n first loses."""
    got = box1({"1": {f"lay_{n}": stake}}, [EASY[n], EASY[7]])
    assert (got[f"lay_{n}"], got["commission"]) == (-stake, -100)
    got = box1({"1": {f"lay_{n}": stake}}, [EASY[7]])
    assert got[f"lay_{n}"] == win


def test_s12_lay_8_and_commission_rounded_down() -> None:
    """s12(1): "not more than 5%": a commission of part of a cent is rounded down."""
    got = box1({"1": {"lay_8": 2400, "buy_4": 1010}}, [EASY[7]])
    assert got["lay_8"] == 2000
    assert got["commission"] == -(100 + 50)  # 5% of 1010 = 50.5 -> 50


def test_s11_commission_rate_option() -> None:
    """s11(1): the operator may charge less than 5% (basis points); more is refused."""
    got = box1({"1": {"lay_4": 4000}}, [EASY[7]], options={"buy_lay_commission_bp": 250})
    assert got["commission"] == -50
    with pytest.raises(ScenarioError):
        run({"1": {"lay_4": 4000}}, [EASY[7]], options={"buy_lay_commission_bp": 600})


def test_s13_1_commission_returned_when_removed() -> None:
    """CR-19f, s13(1): buy 4 $20 removed before a deciding roll: $21 back."""
    r = run(
        {"1": {"win": 1000}, "2": {}},
        [[3, 3], [4, 5]],
        [
            [2, "bet", {"buy_4": 2000}, {"before_roll": 1}],
            [2, "remove", "buy_4", {"before_roll": 1}],
        ],
    )
    assert r["boxes"]["2"] == {"buy_4": 0, "commission": 0, "net": 0}


def test_buy_lay_stays_up_option_charges_no_second_commission() -> None:
    """A4 / s13(2): with buy_lay_stays_up the bet stays after a win, no new commission."""
    got = box1(
        {"1": {"win": 1000}},
        [EASY[6], EASY[4], EASY[4]],
        [[1, "bet", {"buy_4": 2000}, {"before_roll": 1}]],
        options={"buy_lay_stays_up": True},
    )
    assert (got["buy_4"], got["commission"]) == (8000, -100)


def test_a5_place_units() -> None:
    """CR-19l, A5: place 6/8 in $6 units, 4/5/9/10 in $5 units; off: any amount, rounded
    down to the cent."""
    for bets, code in (({"place_6": 1000}, "place_unit"), ({"place_5": 1200}, "place_unit")):
        rejected(
            run({"1": {"win": 1000}}, [[4, 4], [3, 3]], [[1, "bet", bets, {"before_roll": 1}]]),
            code,
        )
    got = after_point(8, {"place_6": 1200, "place_5": 1000}, [EASY[6], EASY[5]])
    assert (got["place_6"], got["place_5"]) == (1400, 1400)
    got = after_point(
        8, {"place_6": 1000}, [EASY[6]], options={"place_amount_units_enforced": False}
    )
    assert got["place_6"] == 1166


# ------------------------------------------------------------------ big 6/8, hardways


def test_s4_big_6_and_8() -> None:
    """s4 big 6 / big 8: 6 (8) before 7, 1 to 1; they work on the come-out (s7(3))."""
    got = box1({"1": {"big6": 1000, "big8": 1000}}, [[3, 3], [2, 6]])
    assert (got["big6"], got["big8"]) == (1000, 1000)
    got = box1({"1": {"big6": 1000, "big8": 1000}}, [[3, 4]])
    assert (got["big6"], got["big8"]) == (-1000, -1000)


@pytest.mark.parametrize(("n", "win"), [(4, 3750), (6, 4750), (8, 4750), (10, 3750)])
def test_s10_hardways(n: int, win: int) -> None:
    """s4 n the hardway, s10: 7.5 to 1 (4, 10), 9.5 to 1 (6, 8); easy n or 7 loses."""
    pair = [n // 2, n // 2]
    assert after_point(5, {f"hard_{n}": 500}, [pair])[f"hard_{n}"] == win
    assert after_point(5, {f"hard_{n}": 500}, [EASY[n]])[f"hard_{n}"] == -500
    assert after_point(5, {f"hard_{n}": 500}, [EASY[7]])[f"hard_{n}"] == -500
    assert after_point(5, {f"hard_{n}": 500}, [EASY[9]])[f"hard_{n}"] == 0


# ------------------------------------------------------------------ one-roll bets, horn


@pytest.mark.parametrize("total", range(2, 13))
def test_s10_field_and_one_roll_bets(total: int) -> None:
    """s4 1 roll wagers, s10(1): field 1 to 1, 2 to 1 on 2 and 12; any 7 4; any craps 7.5;
    craps 2 33; craps 3 16; craps 12 33; 11 in 1 roll 16."""
    stakes = {"field": 1000, "any7": 1000, "any_craps": 1000, "craps2": 1000}
    stakes |= {"craps3": 1000, "craps12": 1000, "eleven": 1000}
    got = box1({"1": stakes}, [EASY[total]])
    field = {2: 2000, 12: 2000, 3: 1000, 4: 1000, 9: 1000, 10: 1000, 11: 1000}
    assert got["field"] == field.get(total, -1000)
    assert got["any7"] == (4000 if total == 7 else -1000)
    assert got["any_craps"] == (7500 if total in (2, 3, 12) else -1000)
    assert got["craps2"] == (33000 if total == 2 else -1000)
    assert got["craps3"] == (16000 if total == 3 else -1000)
    assert got["craps12"] == (33000 if total == 12 else -1000)
    assert got["eleven"] == (16000 if total == 11 else -1000)


@pytest.mark.parametrize("extra", [2, 3, 11, 12])
@pytest.mark.parametrize("total", [2, 3, 7, 11, 12])
def test_s10_2_horn_high(extra: int, total: int) -> None:
    """s4 horn high: five units, the fifth on ``extra``; s10(2) paid as separate wagers."""
    odds = {2: 33, 3: 16, 11: 16, 12: 33}
    got = box1({"1": {"horn": 400, f"horn_high_{extra}": 500}}, [EASY[total]])
    if total == 7:
        assert (got["horn"], got[f"horn_high_{extra}"]) == (-400, -500)
        return
    units = 2 if total == extra else 1
    assert got["horn"] == odds[total] * 100 - 300
    assert got[f"horn_high_{extra}"] == units * odds[total] * 100 - (5 - units) * 100


def test_a8_horn_winning_units_stay() -> None:
    """s10(2), A8: after a win only the winning unit stays; it rides the next roll alone."""
    got = box1({"1": {"horn": 400}}, [[1, 1], [1, 1], [2, 2]])
    assert got["horn"] == 3000 + 3300 - 100


def test_cr19k_horn_units() -> None:
    """CR-19k: a horn splits into 4 equal units, a horn high into 5 (whole dollars)."""
    for bets in ({"horn": 500}, {"horn_high_2": 800}):
        rejected(
            run({"1": {"win": 1000}}, [[4, 4], [3, 3]], [[1, "bet", bets, {"before_roll": 1}]]),
            "horn_units",
        )


# ------------------------------------------------------------------ on/off markers (s7)


def test_s7_1_place_buy_hard_off_on_the_come_out() -> None:
    """s7(1): place, buy and hardway wagers have no action on a come-out roll (A2)."""
    got = box1({"1": {"place_6": 600, "buy_4": 2000, "hard_6": 500}}, [[3, 3], [1, 5]])
    assert (got["place_6"], got["buy_4"], got["hard_6"]) == (700, 0, -500)


def test_s7_2_one_marker_turns_on_similar_wagers() -> None:
    """s7(2), A3: an on marker on place 6 turns on place 8 and buy 4, not hard 8."""
    got = box1(
        {"1": {"place_6": 600, "place_8": 600, "buy_4": 2000, "hard_8": 500}},
        [[4, 4]],
        [[1, "on", "place_6", {"before_roll": 0}]],
    )
    assert (got["place_8"], got["hard_8"]) == (700, 0)


def test_s7_2_unless_otherwise_specified() -> None:
    """s7(2): "unless otherwise specified": a wager marked off stays off."""
    got = box1(
        {"1": {"place_6": 600, "place_8": 600}},
        [[4, 4], [3, 3]],
        [[1, "on", "place_6", {"before_roll": 0}], [1, "off", "place_8", {"before_roll": 0}]],
    )
    assert (got["place_8"], got["place_6"]) == (0, 700)


def test_s7_3_markers_only_for_inactive_wagers() -> None:
    """s7(3): other wagers are always on; a marker on them is refused."""
    rejected(
        run({"1": {"lay_4": 4000}}, [[3, 4]], [[1, "off", "lay_4", {"before_roll": 0}]]),
        "always_on",
    )


# ------------------------------------------------------------------ changes (s4, s6, CR-19)


def test_cr19a_win_bet_only_before_a_come_out() -> None:
    rejected(
        run(
            {"1": {"win": 1000}}, [[3, 3], [3, 4]], [[1, "bet", {"win": 1000}, {"before_roll": 1}]]
        ),
        "not_before_come_out",
    )


def test_cr19b_come_bet_only_with_a_point() -> None:
    """CR-19b, A1 default; option come_bets_when_puck_off reads s4 literally."""
    rejected(
        run({"1": {"win": 1000}}, [[3, 4]], [[1, "bet", {"come": 1000}, {"before_roll": 0}]]),
        "no_point",
    )
    got = box1({"1": {"come": 1000}}, [[3, 4]], options={"come_bets_when_puck_off": True})
    assert got["come"] == 1000


def test_cr19c_d_contract_bets() -> None:
    """s6(2): no removal or reduction of a win bet or come bet after its point is set."""
    for verb, arg in (("reduce", {"win": 500}), ("remove", "win")):
        rejected(
            run({"1": {"win": 1000}}, [[3, 3], [3, 4]], [[1, verb, arg, {"before_roll": 1}]]),
            "contract_bet",
        )
    decisions = [
        [1, "bet", {"come": 1000}, {"before_roll": 1}],
        [1, "bet", {"come_odds_9": 1000}, {"before_roll": 2}],
        [1, "remove", "come_odds_9", {"before_roll": 2}],
    ]
    r = run({"1": {"win": 1000}}, [[3, 3], [4, 5], [4, 5]], decisions)
    assert r["error"] is None and r["boxes"]["1"]["come_odds_9"] == 0
    assert r["boxes"]["1"]["come"] == 1000
    r = run(
        {"1": {"win": 1000}},
        [[3, 3], [4, 5], [4, 5]],
        [*decisions[:1], [1, "remove", "come", {"before_roll": 2}]],
    )
    rejected(r, "contract_bet", at=1)


def test_cr19e_dont_bets_reduced_not_increased() -> None:
    """s6(3): a don't win bet may be reduced with the point on, not increased again."""
    r = run(
        {"1": {"dont_win": 1000}},
        [[3, 3], [3, 4]],
        [[1, "reduce", {"dont_win": 500}, {"before_roll": 1}]],
    )
    assert r["error"] is None and r["boxes"]["1"]["dont_win"] == 500
    r = run(
        {"1": {"dont_win": 1000}},
        [[3, 3], [2, 2], [3, 4]],
        [
            [1, "reduce", {"dont_win": 500}, {"before_roll": 1}],
            [1, "bet", {"dont_win": 500}, {"before_roll": 2}],
        ],
    )
    rejected(r, "no_increase", at=1)


def test_timeout_and_insufficient_place_nothing() -> None:
    """A player who does not decide in time, or cannot fund a wager, places nothing; the
    wagers already standing play on."""
    got = box1(
        {"1": {"win": 1000}},
        [[3, 3], [3, 3]],
        [[1, "timeout", None, {"before_roll": 1}], [1, "insufficient", None, {"before_roll": 1}]],
    )
    assert got == {"win": 1000, "net": 1000}


def test_s6_1_one_roll_bet_removed() -> None:
    """s6(1): any other wager may be removed before a roll decides it."""
    got = box1({"1": {"field": 1000}}, [[3, 4]], [[1, "remove", "field", {"before_roll": 0}]])
    assert got["field"] == 0


def test_s8_1_table_limits_on_every_wager() -> None:
    """s8(1): every craps wager, odds included, within the sign's minimum and maximum."""
    with pytest.raises(ScenarioError):
        run({"1": {"field": 50}}, [[3, 4]])
    r = run(
        {"1": {"win": 900}},
        [[3, 3], [3, 4]],
        [[1, "bet", {"field": 1000}, {"before_roll": 1}]],
        {"maximum": 900},
    )
    rejected(r, "above_maximum")


def test_s8_2_full_odds_on_a_maximum_line_bet() -> None:
    """s8(2): the maximum on a line bet never stops full odds: odds are held to
    ``odds_maximum`` (default: what a maximum line bet may take), not to ``maximum``."""
    opts = {"maximum": 1000}
    r = run(
        {"1": {"dont_win": 1000}},
        [[2, 2], [3, 4]],
        [[1, "bet", {"dont_win_odds": 2000}, {"before_roll": 1}]],
        opts,
    )
    assert r["error"] is None and r["boxes"]["1"]["dont_win_odds"] == 1000
    r = run(
        {"1": {"win": 1000}},
        [[2, 2], [2, 2]],
        [[1, "bet", {"field": 2000}, {"before_roll": 1}]],
        opts,
    )
    rejected(r, "above_maximum")
    with pytest.raises(ScenarioError, match="s8"):
        run({"1": {"field": 100}}, [[3, 4]], options={**opts, "odds_maximum": 1500})
    ok = run({"1": {"field": 100}}, [[3, 4]], options={**opts, "odds_maximum": 2000})
    assert ok["error"] is None


# ------------------------------------------------------------------ rolls (s23, s25)


def test_cr19m_no_roll() -> None:
    """CR-19m, s23(1)(a): an invalid roll settles nothing; the puck and every wager stand."""
    r = run(
        {"1": {"win": 1000, "field": 500}},
        [[4, 4], {"invalid": "off_table"}],
        [[1, "bet", {"place_6": 600}, {"before_roll": 1}]],
    )
    assert r["puck"] == 8
    assert r["boxes"]["1"] == {"win": 0, "field": -500, "place_6": 0, "net": -500}
    rnd = Craps(
        OPTS,
        {"1": {"win": 1000}},
        SeededRandomSource(1),
        Forced(outcome={"rolls": [[4, 4], {"invalid": "die_on_die"}, [4, 4]]}),
    )
    rnd.start()
    events = rnd.end_of_decisions()
    no_roll = [e for e in events if isinstance(e, NoRoll)]
    assert [(e.roll, e.rule) for e in no_roll] == [(1, "s23(1)(b)")]
    assert rnd.result.boxes[1]["win"] == 1000


def test_s25_3_cocked_die_reads_the_opposite_face() -> None:
    """s25(3): a die resting on chips counts the face opposite the one resting on them."""
    r = run({"1": {"any7": 100}}, [[3, {"resting_on_object": 3}]])
    assert r["outcome"]["rolls"] == [[3, 4]] and r["boxes"]["1"]["any7"] == 400


def test_bad_outcomes_are_invalid_scenarios() -> None:
    for outcome in ({"rolls": []}, {"rolls": [[0, 3]]}, {"rolls": [[1, 2, 3]]}, {"dice": [1, 2]}):
        with pytest.raises(ScenarioError):
            run_scenario({"game": "craps", "boxes": {"1": {"field": 100}}, "outcome": outcome})
    with pytest.raises(ScenarioError):
        run({"1": {"field": 100}}, [{"invalid": "bad luck"}])
    with pytest.raises(ScenarioError):
        run({"1": {"place_7": 100}}, [[3, 4]])


def test_before_roll_out_of_order_or_range() -> None:
    r = run({"1": {"win": 1000}}, [[3, 3]], [[1, "bet", {"field": 100}, {"before_roll": 1}]])
    rejected(r, "bad_before_roll")
    r = run(
        {"1": {"win": 1000}},
        [[3, 3], [2, 2]],
        [
            [1, "bet", {"field": 100}, {"before_roll": 1}],
            [1, "bet", {"field": 100}, {"before_roll": 0}],
        ],
    )
    rejected(r, "bad_before_roll", at=1)


def test_rng_one_randbelow_6_per_die() -> None:
    """Without a forced outcome each die is one unbiased randbelow(6) (ETG RNG)."""
    rng = Recording([2, 3])
    rnd = Craps(OPTS, {"1": {"any7": 100}}, rng)
    rnd.start()
    events = rnd.end_of_decisions()
    assert rng.calls == [6, 6]
    declared = [e for e in events if isinstance(e, OutcomeDeclared)]
    assert declared[0].outcome == {"roll": 0, "dice": [3, 4]} and declared[0].source == "rng"
    assert rnd.result.boxes[1]["any7"] == 400


def test_live_roll_and_layout_carried_to_the_next_round() -> None:
    """A table's round is one roll: the layout after it carries the point and the wagers."""
    first = Craps(OPTS, {"1": {"win": 1000}, "2": {"place_8": 600}}, SeededRandomSource(0))
    first.start()
    first.roll({"dice": [2, 4]})
    first.end_of_decisions()
    assert first.layout.point == 6
    second = Craps(OPTS, {"2": {"hard_8": 500}}, SeededRandomSource(0), layout=first.layout)
    second.start()
    second.roll({"dice": [4, 4]})
    second.end_of_decisions()
    assert second.result.boxes == {1: {"win": 0}, 2: {"hard_8": 4750, "place_8": 700}}
    assert first.layout.wagers[0] == Standing(1, "win", 1000)  # the caller's copy unchanged
    third = Craps(OPTS, {}, SeededRandomSource(0), layout=second.layout)
    third.start()
    third.decide(2, "remove", "place_8")
    third.decide(2, "on", "hard_8")
    events = third.roll({"dice": [3, 5]})
    third.end_of_decisions()
    assert third.result.boxes == {1: {"win": 0}, 2: {"hard_8": -500, "place_8": 0}}
    assert any(e.to_wire()["type"] == "wager_settled" for e in events)
    with pytest.raises(IllegalAction):
        Craps(OPTS, {"1": {"win": 1000}}, SeededRandomSource(0), layout=Layout(point=6))


def test_wager_ids_and_describe() -> None:
    assert parse("come_odds_6") == ("come_odds", 6)
    assert parse("dont_come_odds_10") == ("dont_come_odds", 10)
    assert parse("horn_high_11") == ("horn_high", 11)
    assert parse("hard_5") is None and parse("place_7") is None and parse("place_06") is None
    d = describe("craps")
    assert d["verbs"][:5] == ["bet", "reduce", "remove", "on", "off"]
    assert d["options"]["odds_multiple"]["choices"] == [1, 2]
    with pytest.raises(InvalidRound):
        Craps(
            OPTS,
            {"1": {"win": 100}},
            SeededRandomSource(0),
            jackpot=None,
            forced=Forced(outcome={"rolls": "x"}),
        )
