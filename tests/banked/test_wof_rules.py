"""Wheel of fortune (QLD Sch 10): the three wheels' pay lines and section counts (WA1), the
returns the digest quotes, WA4 rounding, "no spin" voids (s13(4), WF-23a), wager and
configuration refusals (WF-23d/e), the wheel source, beyond the shared vectors WF-01..WF-23b.

WF-23b (the peg rule, s12(2)) is a table concern: the live result already names the symbol that
last passed the indicator; a test below gives that symbol live."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced, InvalidRound
from server.games.banked.wheel_of_fortune import SECTIONS, WheelOfFortune, default_segments
from server.scenario import describe, run_scenario

#: s12(1), s18(1), s24(1) as "x to 1", typed from the schedule (6.5 for the 54-space c).
PAYS = {
    50: {"a": 1, "b": 5, "c": 5, "d": 11, "e": 22, "f": 22, "g": 44, "h": 44},
    52: {"a": 1, "b": 3, "c": 5, "d": 11, "e": 23, "f": 47, "g": 47},
    54: {"a": 1, "b": 3, "c": Fraction(13, 2), "d": 12, "e": 25, "f": 52, "g": 52},
}


class Recording:
    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.calls: list[int] = []

    def randbelow(self, n: int) -> int:
        self.calls.append(n)
        return self.values.pop(0)


def spin(wheel: int, segment: str, wagers: dict, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": "wheel-of-fortune",
            "options": {"wheel_type": wheel, **(options or {})},
            "boxes": {"1": wagers},
            "outcome": {"segment": segment},
        }
    )["boxes"]["1"]


@pytest.mark.parametrize(("wheel", "symbol"), [(w, s) for w, t in PAYS.items() for s in t])
def test_s12_s18_s24_every_pay_line(wheel: int, symbol: str) -> None:
    """s12(1), s18(1), s24(1): the symbol spun wins at its wheel's odds; the others lose."""
    wagers = dict.fromkeys(PAYS[wheel], 1000)
    nets = spin(wheel, symbol, wagers)
    for s in PAYS[wheel]:
        assert nets[s] == (int(1000 * PAYS[wheel][s]) if s == symbol else -1000), s


@pytest.mark.parametrize(
    ("wheel", "counts"),
    [
        (50, (24, 8, 8, 4, 2, 2, 1, 1)),
        (52, (24, 12, 8, 4, 2, 1, 1)),
        (54, (26, 13, 7, 4, 2, 1, 1)),
    ],
)
def test_s2_s14_s20_section_counts(wheel: int, counts: tuple[int, ...]) -> None:
    """s2(2), s14(2), s20(2) with WA1: the i-th count is symbol i's; the default arrangement
    holds exactly those counts."""
    assert tuple(SECTIONS[str(wheel)].values()) == counts
    segs = default_segments(wheel)
    assert len(segs) == wheel
    assert Counter(segs) == Counter(SECTIONS[str(wheel)])


@pytest.mark.parametrize(
    ("wheel", "returns"),
    [
        (
            50,
            {
                "a": Fraction(96, 100),
                "b": Fraction(96, 100),
                "c": Fraction(96, 100),
                "d": Fraction(96, 100),
                "e": Fraction(92, 100),
                "f": Fraction(92, 100),
                "g": Fraction(90, 100),
                "h": Fraction(90, 100),
            },
        ),
        (52, dict.fromkeys("abcdefg", Fraction(48, 52))),
        (
            54,
            {
                **dict.fromkeys("abdeg", Fraction(52, 54)),
                "c": Fraction(105, 108),
                "f": Fraction(53, 54),
                "g": Fraction(53, 54),
            },
        ),
    ],
)
def test_wa1_returns_quoted_by_the_digest(wheel: int, returns: dict) -> None:
    """WA1: under the ordinal mapping every symbol returns what the digest quotes (50-space
    a-d 96%, e-f 92%, g-h 90%; 52-space 92.3%; 54-space 96.3%, c 97.2%, f-g 98.1%), summed
    over every section of the engine's wheel."""
    back = Counter()
    for section in range(wheel):
        r = WheelOfFortune(
            {"wheel_type": wheel}, {1: dict.fromkeys(PAYS[wheel], 200)}, Recording([section])
        )
        r.start()
        for s, net in r.result.boxes[1].items():
            back[s] += net + 200
    assert {s: Fraction(b, 200 * wheel) for s, b in back.items()} == returns


def test_wa4_six_and_a_half_rounds_down_to_the_cent() -> None:
    """WA4, general.md §4: 6.5 to 1 on 101 cents is 656.5: 656 cents."""
    assert spin(54, "c", {"c": 101})["c"] == 656
    assert spin(54, "c", {"c": 100})["c"] == 650


def test_wf23a_no_spin_voids_every_wager() -> None:
    """s13(3)-(4), WF-23a: after "no spin" every wager on the spin is void (stake back, no
    win); the indicator stopping later does not settle them."""
    r = WheelOfFortune({"wheel_type": 50}, {1: {"a": 2000, "g": 200}}, Recording([]))
    r.void("no spin: mechanical malfunction (s13(1))")
    assert r.result.state == "void"
    assert r.result.boxes[1] == {"a": 0, "g": 0}
    assert r.result.house == 0
    with pytest.raises(IllegalAction):
        r.start({"segment": "g"})


def test_wf23b_peg_live_result_names_the_symbol_that_last_passed() -> None:
    """s12(2), WF-23b: the table's result on a peg is the symbol that last passed (d)."""
    r = WheelOfFortune({"wheel_type": 50}, {1: {"d": 500, "a": 2000}}, Recording([]))
    r.start({"segment": "d"})
    assert r.result.boxes[1] == {"d": 5500, "a": -2000}


def test_wf23d_symbol_not_on_the_wheel_refused() -> None:
    """WF-23d: the 52-space wheel has 7 symbols; a wager on h is refused."""
    with pytest.raises(IllegalAction) as e:
        WheelOfFortune({"wheel_type": 52}, {1: {"h": 100}}, SeededRandomSource(1))
    assert e.value.code == "not_on_this_wheel"
    for bad in ("i", "A", "ab", ""):
        with pytest.raises(InvalidRound):
            WheelOfFortune(None, {1: {bad: 100}}, SeededRandomSource(1))


@pytest.mark.parametrize(
    "segments",
    [
        ["a"] * 23
        + ["b"] * 9
        + ["c"] * 8
        + ["d"] * 4
        + ["e"] * 2
        + ["f"] * 2
        + ["g", "h"],  # WF-23e
        ["a"] * 24 + ["b"] * 8 + ["c"] * 8 + ["d"] * 4 + ["e"] * 2 + ["f"] * 2 + ["g"],
        ["a"] * 24 + ["b"] * 8 + ["c"] * 8 + ["d"] * 4 + ["e"] * 2 + ["f"] * 2 + ["g", "z"],
    ],
)
def test_wf23e_segments_must_hold_the_section_counts(segments: list[str]) -> None:
    """WF-23e: a configured arrangement with the wrong counts is refused at start-up."""
    with pytest.raises(ScenarioError):
        run_scenario(
            {
                "game": "wheel-of-fortune",
                "options": {"segments": segments},
                "boxes": {"1": {"a": 100}},
                "seed": 1,
            }
        )


def test_rng_one_randbelow_per_spin_over_the_configured_arrangement() -> None:
    """One randbelow(N) per spin picks the section the indicator rests on."""
    segs = [
        "h",
        "g",
        *(["f"] * 2),
        *(["e"] * 2),
        *(["d"] * 4),
        *(["c"] * 8),
        *(["b"] * 8),
        *(["a"] * 24),
    ]
    for index, symbol in ((0, "h"), (1, "g"), (49, "a"), (20, "b")):
        rng = Recording([index])
        r = WheelOfFortune({"wheel_type": 50, "segments": segs}, {1: {"a": 100}}, rng)
        r.start()
        assert rng.calls == [50]
        assert r.result.detail["outcome"] == {"segment": symbol}


def test_s11_limits_and_no_decisions() -> None:
    """s11: each wager between the limits; the round takes no decisions."""
    with pytest.raises(IllegalAction):
        WheelOfFortune({"maximum": 1000}, {1: {"a": 1001}}, SeededRandomSource(1))
    res = run_scenario(
        {
            "game": "wheel-of-fortune",
            "boxes": {"1": {"a": 100}},
            "outcome": {"segment": "a"},
            "decisions": [[1, "bet"]],
        }
    )
    assert res["state"] == "rejected" and res["error"]["code"] == "round_complete"


@pytest.mark.parametrize("outcome", [{"segment": "h"}, {"segment": 3}, {"number": 1}])
def test_bad_outcome_invalid_scenario(outcome) -> None:
    with pytest.raises(ScenarioError):
        run_scenario(
            {
                "game": "wheel-of-fortune",
                "options": {"wheel_type": 54},
                "boxes": {"1": {"a": 100}},
                "outcome": outcome,
            }
        )


def test_describe() -> None:
    d = describe("wheel-of-fortune")
    assert d["options"]["wheel_type"]["choices"] == [50, 52, 54]
    assert d["pay_tables"]["s12_s18_s24"]["54"]["c"] == [13, 2]
    assert [w["name"] for w in d["wagers"]] == list("abcdefgh")


def test_forced_outcome_from_engine_api() -> None:
    r = WheelOfFortune(
        {"wheel_type": 52},
        {1: {"f": 300}, 2: {"g": 200}},
        Recording([]),
        Forced(outcome={"segment": "f"}),
    )
    r.start()
    assert r.result.boxes == {1: {"f": 14100}, 2: {"g": -200}}
    assert r.result.house == -13900
