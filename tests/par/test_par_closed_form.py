"""Every wager with an exact figure: the sheet's RTP equals a closed form computed here from
the pay table (roulette, sic-bo, the wheel of fortune, the dice of craps)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from server.games.banked import craps as craps_engine
from server.games.banked import roulette as roulette_engine
from server.games.banked import sic_bo as sic_bo_engine
from server.games.banked import wheel_of_fortune as wheel_engine
from server.par import craps, exact


def odds(pair: tuple[int, int]) -> Fraction:
    return Fraction(pair[0], pair[1])


@pytest.mark.parametrize("wheel", ["single_zero", "double_zero"])
def test_roulette(wheel: str) -> None:
    sheet = exact.roulette({"wheel_type": wheel})
    pockets = 37 if wheel == "single_zero" else 38
    positions = roulette_engine.POSITIONS[wheel]
    assert set(sheet.wagers) == set(positions)
    for w, covered in positions.items():
        family = roulette_engine.family(w)
        assert family is not None
        closed = Fraction(len(covered), pockets) * (1 + odds(roulette_engine.S16[family]))
        assert sheet.wagers[w].exact_rtp == closed, w
    assert sheet.wagers["red"].exact_rtp == Fraction(36, 37 if pockets == 37 else 38)


def _sic_bo_closed(wager: str) -> Fraction:
    """Count the 216 throws with the s5 definitions; pay by the s12 table."""
    table = sic_bo_engine.S12
    total = Fraction(0)
    for dice in product(range(1, 7), repeat=3):
        c = Counter(dice)
        s = sum(dice)
        triple = len(c) == 1
        kind, _, rest = wager.partition("_")
        win: Fraction | None = None
        if wager in ("small", "big", "even", "odd"):
            ok = {
                "small": 4 <= s <= 10,
                "big": 11 <= s <= 17,
                "even": s % 2 == 0,
                "odd": s % 2 == 1,
            }[wager]
            win = odds(table[wager]) if ok and not triple else None
        elif wager == "any_triple":
            win = odds(table["any_triple"]) if triple else None
        elif kind == "triple":
            win = odds(table["triple"]) if c[int(rest)] == 3 else None
        elif kind == "double":
            win = odds(table["double"]) if c[int(rest)] >= 2 else None
        elif kind == "total":
            win = odds(table[wager]) if s == int(rest) else None
        elif kind == "combo":
            a, b = (int(x) for x in rest.split("_"))
            win = odds(table["combo"]) if c[a] and c[b] else None
        elif kind == "single":
            k = c[int(rest)]
            key = {1: "single_1_die", 2: "single_2_dice", 3: "single_3_dice"}.get(k)
            win = odds(table[key]) if key else None
        elif kind == "four":
            win = odds(table["four"]) if len(c) == 3 and all(str(d) in rest for d in c) else None
        total += Fraction(1, 216) * (1 + win if win is not None else 0)
    return total


def test_sic_bo() -> None:
    sheet = exact.sic_bo(None)
    assert len(sheet.wagers) == 56
    for w, line in sheet.wagers.items():
        assert line.exact_rtp == _sic_bo_closed(w), w
    # the published small/big 2.78%
    assert sheet.wagers["small"].exact_rtp == Fraction(35, 36)


@pytest.mark.parametrize("wheel_type", [50, 52, 54])
def test_wheel_of_fortune(wheel_type: int) -> None:
    sheet = exact.wheel_of_fortune({"wheel_type": wheel_type})
    sections = wheel_engine.SECTIONS[str(wheel_type)]
    n = sum(sections.values())
    for symbol, count in sections.items():
        pays = odds(wheel_engine.PAYOUTS[str(wheel_type)][symbol])
        assert sheet.wagers[symbol].exact_rtp == Fraction(count, n) * (1 + pays), symbol


WAYS = {n: 6 - abs(7 - n) for n in range(2, 13)}


def _p(total: int) -> Fraction:
    return Fraction(WAYS[total], 36)


def _before_seven(n: int) -> Fraction:
    return Fraction(WAYS[n], WAYS[n] + 6)


@pytest.fixture(scope="module")
def craps_sheet() -> dict[str, Fraction]:
    sheet = craps.sheet(None)
    out = {}
    for w, line in sheet.wagers.items():
        assert line.exact_rtp is not None
        out[w] = line.exact_rtp
    return out


def test_craps_line_and_come(craps_sheet: dict[str, Fraction]) -> None:
    points = (4, 5, 6, 8, 9, 10)
    win = _p(7) + _p(11) + sum(_p(n) * _before_seven(n) for n in points)
    assert win == Fraction(244, 495)
    assert craps_sheet["win"] == craps_sheet["come"] == 2 * win
    dont = _p(3) + _p(12) + sum(_p(n) * (1 - _before_seven(n)) for n in points)
    push = _p(2)  # bar 2 (s4)
    lose = 1 - dont - push
    assert craps_sheet["dont_win"] == craps_sheet["dont_come"] == 1 + dont - lose
    for w in (
        "win_odds",
        "dont_win_odds",
        *(f"come_odds_{n}" for n in points),
        *(f"dont_come_odds_{n}" for n in points),
    ):
        assert craps_sheet[w] == 1, w  # true odds (s14-s17(5))


def test_craps_numbers(craps_sheet: dict[str, Fraction]) -> None:
    table = craps_engine.S10
    fee = Fraction(500, 10_000)  # the default commission (s11(1), s12(1))
    for n in (4, 5, 6, 8, 9, 10):
        p = _before_seven(n)
        assert craps_sheet[f"place_{n}"] == p * (1 + odds(table[f"place_{n}"]))
        assert craps_sheet[f"buy_{n}"] == p * (1 + odds(table[f"buy_{n}"])) - fee
        lay = odds(table[f"lay_{n}"])
        assert craps_sheet[f"lay_{n}"] == (1 - p) * (1 + lay) - fee * lay
    for n in (6, 8):
        assert craps_sheet[f"big{n}"] == _before_seven(n) * (1 + odds(table[f"big{n}"]))
    for n in (4, 6, 8, 10):
        hard = Fraction(1, 1 + (WAYS[n] - 1) + 6)  # the pair before the easy way or a 7
        assert craps_sheet[f"hard_{n}"] == hard * (1 + odds(table[f"hard_{n}"]))


def test_craps_one_roll(craps_sheet: dict[str, Fraction]) -> None:
    t = craps_engine.S10
    field = (
        _p(2) * (1 + odds(t["field_2"]))
        + _p(12) * (1 + odds(t["field_12"]))
        + sum(_p(n) for n in (3, 4, 9, 10, 11)) * (1 + odds(t["field"]))
    )
    assert craps_sheet["field"] == field
    assert craps_sheet["any7"] == _p(7) * (1 + odds(t["any7"]))
    assert craps_sheet["any_craps"] == (_p(2) + _p(3) + _p(12)) * (1 + odds(t["any_craps"]))
    for w, n in (("craps2", 2), ("craps3", 3), ("craps12", 12), ("eleven", 11)):
        assert craps_sheet[w] == _p(n) * (1 + odds(t[w])), w
    # horn: four equal units, the winning unit paid, the other three lost (s10(2))
    horn = sum(_p(n) * (odds(t[f"horn_{n}"]) - 3) for n in (2, 3, 11, 12)) / 4
    assert craps_sheet["horn"] == 1 + horn - (1 - sum(_p(n) for n in (2, 3, 11, 12)))
    for x in (2, 3, 11, 12):
        units = {n: 2 if n == x else 1 for n in (2, 3, 11, 12)}
        net = sum(
            _p(n) * (units[n] * odds(t[f"horn_{n}"]) - (5 - units[n])) for n in (2, 3, 11, 12)
        )
        miss = 1 - sum(_p(n) for n in (2, 3, 11, 12))
        assert craps_sheet[f"horn_high_{x}"] == 1 + (net - 5 * miss) / 5, x
