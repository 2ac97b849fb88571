"""Roulette (QLD Sch 7): the layout's positions, every s16(1) pay line, the zero rule s16(2),
wager validation (RL-10d/e), the outcome sources and the round API, beyond the shared vectors
RL-01..RL-09."""

from __future__ import annotations

from fractions import Fraction

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced, InvalidRound, WagerSettled
from server.games.banked.outcome import OutcomeDeclared
from server.games.banked.roulette import POSITIONS, WHEEL_ORDER, Roulette
from server.scenario import describe, run_scenario

SINGLE = {"wheel_type": "single_zero"}
DOUBLE = {"wheel_type": "double_zero"}


class Recording:
    """A RandomSource that records every ``randbelow`` call."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.calls: list[int] = []

    def randbelow(self, n: int) -> int:
        self.calls.append(n)
        return self.values.pop(0)


def spin(number: int | str, wagers: dict, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": "roulette",
            "options": options or SINGLE,
            "boxes": {"1": wagers},
            "outcome": {"number": number},
        }
    )["boxes"]["1"]


def test_s8_layout_position_counts() -> None:
    """s8(2) and the RA1 zero combinations: how many of each inside wager each wheel has."""

    def count(wheel: str, fam: str) -> int:
        return sum(1 for w in POSITIONS[wheel] if w.startswith(fam + "_"))

    assert count("single_zero", "straight") == 37
    assert count("double_zero", "straight") == 38
    assert count("single_zero", "split") == 57 + 3  # 0-1, 0-2, 0-3
    assert count("double_zero", "split") == 57 + 5  # 0-00, 0-1, 0-2, 00-2, 00-3
    assert count("single_zero", "street") == 12 + 2  # 0-1-2, 0-2-3
    assert count("double_zero", "street") == 12 + 3  # 0-1-2, 0-00-2, 00-2-3
    assert count("single_zero", "corner") == 22 + 1  # 0-1-2-3
    assert count("double_zero", "corner") == 22
    assert count("single_zero", "six_line") == count("double_zero", "six_line") == 11
    assert "first_five" in POSITIONS["double_zero"]
    assert "first_five" not in POSITIONS["single_zero"]


@pytest.mark.parametrize("wheel", ["single_zero", "double_zero"])
def test_s2_wheels_hold_every_pocket_once(wheel: str) -> None:
    """s2(1): 37 / 38 compartments, each number once."""
    order = WHEEL_ORDER[wheel]
    assert len(order) == len(set(order)) == (37 if wheel == "single_zero" else 38)


@pytest.mark.parametrize(
    ("wager", "number", "net"),
    [
        ("straight_17", 17, 35 * 1000),
        ("split_17_20", 20, 17 * 1000),
        ("street_16_17_18", 18, 11 * 1000),
        ("corner_13_14_16_17", 13, 8 * 1000),
        ("six_line_13_14_15_16_17_18", 15, 5 * 1000),
        ("column_2", 35, 2 * 1000),
        ("dozen_3", 25, 2 * 1000),
        ("low", 18, 1000),
        ("high", 19, 1000),
        ("even", 36, 1000),
        ("odd", 1, 1000),
        ("red", 1, 1000),
        ("black", 2, 1000),
    ],
)
def test_s16_1_every_pay_line(wager: str, number: int, net: int) -> None:
    """s16(1): every wager's payout odds on a single-zero wheel."""
    assert spin(number, {wager: 1000})[wager] == net


def test_s16_1_first_five_pays_6_to_1() -> None:
    """s16(1), s8(2): first five (00, 0, 1, 2, 3) pays 6 to 1 on a double-zero wheel."""
    for n in ("00", 0, 1, 2, 3):
        assert spin(n, {"first_five": 1000}, DOUBLE)["first_five"] == 6000
    assert spin(4, {"first_five": 1000}, DOUBLE)["first_five"] == -1000


@pytest.mark.parametrize(("zero", "options"), [(0, SINGLE), (0, DOUBLE), ("00", DOUBLE)])
def test_s16_2_only_wagers_covering_the_zero_win(zero, options) -> None:
    """s16(2): on 0 or 00 every wager loses except straight ups on it and combinations
    including it; even chances lose in full (no la partage, no en prison)."""
    positions = POSITIONS[options["wheel_type"]]
    wagers = dict.fromkeys(positions, 100)
    nets = run_scenario(
        {
            "game": "roulette",
            "options": options,
            "boxes": {"1": wagers},
            "outcome": {"number": zero},
        }
    )["boxes"]["1"]
    for w, covered in positions.items():
        assert (nets[w] > 0) == (str(zero) in covered), w
        if str(zero) not in covered:
            assert nets[w] == -100, w
    for w in ("red", "black", "odd", "even", "low", "high"):
        assert nets[w] == -100


@pytest.mark.parametrize("wheel", ["single_zero", "double_zero"])
def test_s16_every_wager_returns_36_per_pocket(wheel: str) -> None:
    """s16(1) with s8(2): over every pocket, each wager returns 36 units per unit staked per
    pocket it covers (35 to 1 on one number, ..., 1 to 1 on 18); first five is the exception
    (6 to 1 on five numbers: 35 units). Checked by spinning every pocket once."""
    positions = POSITIONS[wheel]
    totals = dict.fromkeys(positions, 0)
    for pocket in WHEEL_ORDER[wheel]:
        r = Roulette(
            {"wheel_type": wheel},
            {1: dict.fromkeys(positions, 100)},
            SeededRandomSource(0),
            Forced(outcome={"number": pocket if pocket == "00" else int(pocket)}),
        )
        r.start()
        for w, net in r.result.boxes[1].items():
            totals[w] += net + 100  # returned to credits
    pockets = len(WHEEL_ORDER[wheel])
    for w, back in totals.items():
        rtp = Fraction(back, 100 * pockets)
        want = Fraction(35 if w == "first_five" else 36, pockets)
        assert rtp == want, w


@pytest.mark.parametrize(
    ("wager", "options", "code"),
    [
        ("first_five", SINGLE, "not_on_this_wheel"),  # RL-10d
        ("straight_00", SINGLE, "not_on_this_wheel"),
        ("split_0_00", SINGLE, "not_on_this_wheel"),
        ("corner_0_1_2_3", DOUBLE, "not_on_this_wheel"),
        ("street_0_2_3", DOUBLE, "not_on_this_wheel"),
    ],
)
def test_s8_1_wager_not_on_this_wheel_is_refused(wager, options, code) -> None:
    """s8(1), RL-10d: a wager the table's wheel does not offer is refused, state unchanged."""
    with pytest.raises(IllegalAction) as e:
        Roulette(options, {1: {wager: 100}}, SeededRandomSource(1))
    assert e.value.code == code
    with pytest.raises(ScenarioError):
        run_scenario(
            {"game": "roulette", "options": options, "boxes": {"1": {wager: 100}}, "seed": 1}
        )


@pytest.mark.parametrize(
    "wager",
    [
        "split_1_5",
        "corner_3_4_6_7",
        "street_2_3_4",  # RL-10e
        "split_20_17",
        "straight_37",
        "straight_07",
        "column_4",
        "dozen_0",
        "six_line_1_2_3",
        "first_five_0",
        "la_partage",
        "",
    ],
)
def test_s8_1_no_such_position_is_no_wager(wager: str) -> None:
    """s8(1), RL-10e: ids that name no position (not adjacent, not a row, not canonical
    order) are not permissible wagers."""
    with pytest.raises(InvalidRound):
        Roulette(DOUBLE, {1: {wager: 100}}, SeededRandomSource(1))


@pytest.mark.parametrize(("amount", "code"), [(99, "below_minimum"), (50001, "above_maximum")])
def test_s15_2_wager_limits(amount: int, code: str) -> None:
    """s15(2): each wager between the displayed minimum and maximum."""
    with pytest.raises(IllegalAction) as e:
        Roulette(
            {"minimum": 100, "maximum": 50000},
            {1: {"red": 100, "black": amount}},
            SeededRandomSource(1),
        )
    assert e.value.code == code


def test_rng_one_unbiased_randbelow_per_spin() -> None:
    """Without a result, one randbelow(37 / 38) picks the pocket from the wheel order."""
    for wheel, n in (("single_zero", 37), ("double_zero", 38)):
        seen = set()
        for i in range(n):
            rng = Recording([i])
            r = Roulette({"wheel_type": wheel}, {1: {"red": 100}}, rng)
            r.start()
            assert rng.calls == [n]
            seen.add(str(r.result.detail["outcome"]["number"]))
        assert seen == set(WHEEL_ORDER[wheel])


def test_s6_outcome_announced_then_losers_collected_then_winners_paid() -> None:
    """s6(1)-(2): the number is announced, losing wagers collected, then winners paid."""
    r = Roulette(
        SINGLE,
        {1: {"red": 100, "straight_5": 100}, 2: {"black": 200}},
        SeededRandomSource(0),
        Forced(outcome={"number": 5}),
    )
    events = r.start()
    assert isinstance(events[1], OutcomeDeclared)
    assert events[1].call == "5 red" and events[1].source == "forced"
    settled = [e for e in events if isinstance(e, WagerSettled)]
    assert [e.outcome for e in settled] == ["lose", "win", "win"]
    assert r.result.boxes == {1: {"red": 100, "straight_5": 3500}, 2: {"black": -200}}
    assert r.result.house == -3400


def test_live_result_overrides_and_no_spin_keeps_wagers_standing() -> None:
    """RA2 (PROPOSED): after a "no spin" the wagers stand; the round settles on the valid
    re-spin's number, given live to start()."""
    r = Roulette(SINGLE, {1: {"straight_17": 1000, "black": 1000}}, Recording([]))
    events = r.start({"number": 17})
    assert events[1].source == "live"
    assert r.result.boxes[1] == {"straight_17": 35000, "black": 1000}


def test_malformed_live_result_changes_nothing() -> None:
    r = Roulette(SINGLE, {1: {"red": 100}}, Recording([3]))
    with pytest.raises(InvalidRound):
        r.start({"number": "00"})
    assert not r.complete
    r.start({"number": 1})
    assert r.result.boxes[1] == {"red": 100}


def test_no_decisions_after_the_spin() -> None:
    """Shared-outcome rounds open no street: any decision is refused with a stable code."""
    res = run_scenario(
        {
            "game": "roulette",
            "boxes": {"1": {"red": 100}},
            "outcome": {"number": 1},
            "decisions": [[1, "timeout"]],
        }
    )
    assert res["state"] == "rejected"
    assert res["error"]["code"] == "round_complete"
    assert res["boxes"]["1"]["red"] == 100


def test_void_returns_every_wager() -> None:
    """Part 1 s4 "void": a round voided before the spin returns every wager; it cannot then
    be spun."""
    r = Roulette(SINGLE, {1: {"red": 100}, 2: {"straight_0": 500}}, SeededRandomSource(1))
    r.void("supervisor: Part 2 s10")
    assert r.result.state == "void"
    assert r.result.boxes == {1: {"red": 0}, 2: {"straight_0": 0}}
    with pytest.raises(IllegalAction):
        r.start()


def test_max_payout_caps_a_winning_wager() -> None:
    """max_payout (operator option, default none): caps one wager's winnings."""
    assert spin(17, {"straight_17": 1000}, {**SINGLE, "max_payout": 20000}) == {
        "straight_17": 20000,
        "net": 20000,
    }


def test_scenario_reports_outcome_and_rejects_bad_files() -> None:
    """SCENARIOS.md: a seeded spin reports its number; cards, a jackpot or a bad outcome make
    the file invalid."""
    res = run_scenario({"game": "roulette", "boxes": {"1": {"red": 100}}, "seed": 5})
    assert res["state"] == "complete"
    assert res["outcome"]["number"] in range(37)
    base = {"game": "roulette", "boxes": {"1": {"red": 100}}}
    for extra in (
        {"cards": {"dealer": ["As"]}},
        {"jackpot": {"pool": 1}},
        {"outcome": {"number": 3, "x": 1}},
        {"outcome": {"number": "17"}},
        {"outcome": {"number": True}},
        {"options": {"wheel_type": "triple_zero"}},
        {"options": {"jackpot_wager": 100}},
        {"boxes": {"1": {"red": 1.5}}},
        {"boxes": {"201": {"red": 100}}},
    ):
        with pytest.raises(ScenarioError):
            run_scenario({**base, **extra})


def test_describe_lists_options_and_wager_families() -> None:
    d = describe("roulette")
    assert d["options"]["wheel_type"]["choices"] == ["single_zero", "double_zero"]
    assert "first_five" in {w["name"] for w in d["wagers"]}
    assert d["pay_tables"]["s16"]["payout"]["straight"] == [35, 1]


def test_etg_s7_view_shows_the_result_and_each_settlement() -> None:
    """ETG s7(1)-(3): the winning number and every wager's settlement reach the terminals."""
    r = Roulette(SINGLE, {1: {"red": 100}, 2: {"black": 100}}, Recording([]))
    r.start({"number": 30})
    wire = r.view(None)["events"]
    assert wire[1] == {
        "type": "outcome_declared",
        "outcome": {"number": 30},
        "call": "30 red",
        "source": "live",
        "visible_to": "everyone",
    }
    settled = [(e["box"], e["wager"], e["net"]) for e in wire if e["type"] == "wager_settled"]
    assert settled == [(2, "black", -100), (1, "red", 100)]
    assert r.view(1)["pending"] == [] and r.view(1)["complete"]
