"""Sic-bo (QLD Sch 8): every s12 pay line, the triple exceptions of s5, SA1-SA3, the returns
over all 216 rolls, wager validation (SB-19e), the dice source and the round API, beyond the
shared vectors SB-01..SB-18."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from server.cards import SeededRandomSource
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import Forced, InvalidRound
from server.games.banked.outcome import OutcomeDeclared
from server.games.banked.sic_bo import SicBo, family
from server.scenario import describe, run_scenario

#: Every s5 wager id (SCENARIOS.md names).
ALL_WAGERS = [
    "small",
    "big",
    "even",
    "odd",
    "any_triple",
    *(f"{k}_{n}" for k in ("triple", "double", "single") for n in range(1, 7)),
    *(f"total_{t}" for t in range(4, 18)),
    *(f"combo_{a}_{b}" for a, b in itertools.combinations(range(1, 7), 2)),
    *(f"four_{s}" for s in ("1234", "2345", "2356", "3456")),
]


class Recording:
    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.calls: list[int] = []

    def randbelow(self, n: int) -> int:
        self.calls.append(n)
        return self.values.pop(0)


def roll(dice: list[int], wagers: dict, options: dict | None = None) -> dict:
    return run_scenario(
        {
            "game": "sic-bo",
            "options": options or {},
            "boxes": {"1": wagers},
            "outcome": {"dice": dice},
        }
    )["boxes"]["1"]


def test_s5_wager_catalogue() -> None:
    """s5: 56 permissible wagers (15 dice combinations, 14 totals, 4 four-number sets)."""
    assert len(ALL_WAGERS) == 56
    assert all(family(w) for w in ALL_WAGERS)


@pytest.mark.parametrize(
    ("total", "odds", "dice"),
    [
        (4, 62, [1, 1, 2]),
        (5, 31, [1, 1, 3]),
        (6, 18, [1, 2, 3]),
        (7, 12, [1, 2, 4]),
        (8, 8, [1, 3, 4]),
        (9, 7, [2, 3, 4]),
        (10, 6, [1, 3, 6]),
        (11, 6, [2, 4, 5]),
        (12, 7, [1, 5, 6]),
        (13, 8, [2, 5, 6]),
        (14, 12, [3, 5, 6]),
        (15, 18, [4, 5, 6]),
        (16, 31, [4, 6, 6]),
        (17, 62, [5, 6, 6]),
    ],
)
def test_s12_f_every_total(total: int, odds: int, dice: list[int]) -> None:
    """s12(f): the 3 dice totals 4..17 and their odds."""
    assert roll(dice, {f"total_{total}": 100})[f"total_{total}"] == odds * 100


def test_s12_f_total_includes_triples() -> None:
    """s5: a total wins "in any combination of the 3 dice", triples included."""
    assert roll([3, 3, 3], {"total_9": 100})["total_9"] == 700


@pytest.mark.parametrize(
    ("dice", "net"), [([1, 2, 3], 100), ([1, 1, 2], 200), ([1, 1, 1], 1200), ([2, 3, 4], -100)]
)
def test_s12_h_single_face_pays_by_dice_showing_it(dice, net) -> None:
    """s12(h), SA3: the face on 1, 2 or 3 dice pays 1, 2 or 12 to 1 (the text's 12, not 3)."""
    assert roll(dice, {"single_1": 100})["single_1"] == net


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations(range(1, 7), 2)))
def test_s12_g_every_dice_combination(a: int, b: int) -> None:
    """s12(g): both numbers appear: 6 to 1, paid once even with the third die doubling one."""
    w = f"combo_{a}_{b}"
    assert roll([a, b, b], {w: 100})[w] == 600
    other = next(x for x in range(1, 7) if x not in (a, b))
    assert roll([a, other, other], {w: 100})[w] == -100


@pytest.mark.parametrize("four", ["1234", "2345", "2356", "3456"])
def test_s12_j_four_number_combination(four: str) -> None:
    """s12(j), SA2: three different numbers of the four: 7 to 1, paid once; two of them
    (a pair) lose."""
    w = f"four_{four}"
    for three in itertools.combinations(four, 3):
        assert roll([int(x) for x in three], {w: 100})[w] == 700
    a, b = int(four[0]), int(four[1])
    assert roll([a, a, b], {w: 100})[w] == -100


@pytest.mark.parametrize("n", range(1, 7))
def test_s5_triples_lose_small_big_odd_even(n: int) -> None:
    """s5(2), SA6: no triple wins small, big, odd or even; the triple pays 180, any triple 31,
    the specific double 11 (SA1)."""
    nets = roll(
        [n, n, n],
        {
            "small": 100,
            "big": 100,
            "odd": 100,
            "even": 100,
            f"triple_{n}": 100,
            "any_triple": 100,
            f"double_{n}": 100,
        },
    )
    assert [nets[w] for w in ("small", "big", "odd", "even")] == [-100] * 4
    assert nets[f"triple_{n}"] == 18000
    assert nets["any_triple"] == 3100
    assert nets[f"double_{n}"] == 1100


def test_sa1_option_double_excludes_triple() -> None:
    """SA1: with double_includes_triple false, a triple n loses the double n."""
    opts = {"double_includes_triple": False}
    assert roll([4, 4, 4], {"double_4": 100}, opts)["double_4"] == -100
    assert roll([4, 4, 5], {"double_4": 100}, opts)["double_4"] == 1100


def _returns(options: dict | None = None) -> dict[str, Fraction]:
    """Each wager's return to player over the 216 equally likely rolls."""
    back = dict.fromkeys(ALL_WAGERS, 0)
    for dice in itertools.product(range(1, 7), repeat=3):
        r = SicBo(
            options,
            {1: dict.fromkeys(ALL_WAGERS, 100)},
            SeededRandomSource(0),
            Forced(outcome={"dice": list(dice)}),
        )
        r.start()
        for w, net in r.result.boxes[1].items():
            back[w] += net + 100
    return {w: Fraction(b, 100 * 216) for w, b in back.items()}


def test_s12_returns_over_all_216_rolls() -> None:
    """s12 with s5: the exact returns. The specific double (SA1), any triple and the
    four-number combinations all return 8/9 (the digest's 11.1% edge); small, big, odd, even
    and the dice combinations 35/36."""
    rtp = _returns()
    for w in ("small", "big", "odd", "even", *(w for w in ALL_WAGERS if w.startswith("combo"))):
        assert rtp[w] == Fraction(35, 36), w
    for w in ("any_triple", *(w for w in ALL_WAGERS if w.startswith(("double", "four")))):
        assert rtp[w] == Fraction(8, 9), w
    for n in range(1, 7):
        assert rtp[f"triple_{n}"] == Fraction(181, 216)
        assert rtp[f"single_{n}"] == Fraction(75 * 2 + 15 * 3 + 13, 216)
    assert rtp["total_4"] == Fraction(3 * 63, 216)
    assert rtp["total_10"] == Fraction(27 * 7, 216)


@pytest.mark.parametrize(
    "wager",
    [
        "total_3",
        "total_18",
        "combo_2_2",
        "combo_3_2",
        "four_1256",
        "double_7",
        "single_0",
        "triple_01",
        "any",
    ],
)
def test_sb19e_impermissible_wagers_refused(wager: str) -> None:
    """SB-19e, s5: totals 3 and 18, a combination of one number, unlisted four-number sets."""
    with pytest.raises(InvalidRound):
        SicBo(None, {1: {wager: 100}}, SeededRandomSource(1))
    with pytest.raises(ScenarioError):
        run_scenario({"game": "sic-bo", "boxes": {"1": {wager: 100}}, "seed": 1})


def test_limits_apply_per_wager() -> None:
    """general.md C-4, ETG s5(3): each wager within the table limits."""
    with pytest.raises(IllegalAction) as e:
        SicBo({"minimum": 500}, {1: {"big": 400}}, SeededRandomSource(1))
    assert e.value.code == "below_minimum"


def test_rng_one_randbelow_6_per_die_and_call() -> None:
    """Without a result, one randbelow(6) per die; s14: faces called from the smallest, then
    the total ("double 3, 4; total 10")."""
    rng = Recording([3, 2, 2])
    r = SicBo(None, {1: {"double_3": 100}}, rng)
    events = r.start()
    assert rng.calls == [6, 6, 6]
    declared = next(e for e in events if isinstance(e, OutcomeDeclared))
    assert declared.outcome == {"dice": [3, 3, 4]}
    assert declared.call == "double 3, 4; total 10"
    assert r.result.boxes[1] == {"double_3": 1100}


def test_s15_4_live_result_is_the_corrected_one() -> None:
    """s15(4), SB-19c: the table enters the corrected result; the wagers settle on it only."""
    r = SicBo(None, {1: {"total_10": 100, "total_11": 100}}, Recording([]))
    r.start({"dice": [5, 3, 2]})
    assert r.result.boxes[1] == {"total_10": 600, "total_11": -100}


@pytest.mark.parametrize(
    "outcome",
    [
        {"dice": [1, 2]},
        {"dice": [0, 1, 2]},
        {"dice": [1, 2, 7]},
        {"dice": [1, 2, True]},
        {"dice": "123"},
        {"number": 3},
    ],
)
def test_malformed_outcome_is_an_invalid_scenario(outcome) -> None:
    with pytest.raises(ScenarioError):
        run_scenario({"game": "sic-bo", "boxes": {"1": {"big": 100}}, "outcome": outcome})


def test_scenario_seeded_roll_and_describe() -> None:
    res = run_scenario(
        {"game": "sic-bo", "boxes": {"1": {"big": 100}, "150": {"small": 100}}, "seed": 3}
    )
    assert res["state"] == "complete"
    assert res["outcome"]["dice"] == sorted(res["outcome"]["dice"])
    assert res["boxes"]["1"]["net"] + res["boxes"]["150"]["net"] + res["house"] == 0
    d = describe("sic-bo")
    assert d["options"]["double_includes_triple"]["default"] is True
    assert d["pay_tables"]["s12"]["payout"]["single_3_dice"] == [12, 1]
