"""Sic-bo (Queensland Casino Gaming Rule 2010, Schedule 8; seed 004).

Game id ``sic-bo``. Digest: ``../shared/rules/sic-bo.md``.

Theory of operation: a :class:`~server.games.banked.outcome.SharedOutcomeRound`. The result is
the uppermost faces of three dice (s4), their total the sum (s5(2)); the wagers frozen at "no
more bets" (s8(3)) are settled strictly on their positions (s9) at the s12 odds. Without a
live or forced result, each die is one ``randbelow(6)``.

Wagers (s5; ids per SCENARIOS.md) and when they win:

* ``small`` / ``big``: total 4-10 / 11-17 and not a triple; 1 to 1 (s12(a)-(b));
* ``even`` / ``odd``: an even / odd total 4-17 and not a triple; 1 to 1 (s12(i), (k); SA6);
* ``triple_<n>``: all three dice show n; 180 to 1. ``any_triple``: any triple; 31 to 1;
* ``double_<n>``: at least two dice show n; 11 to 1. Whether a triple n wins it is the option
  ``double_includes_triple`` (SA1; default true, the digest's recommendation);
* ``total_<t>``, t = 4..17 (no wager on 3 or 18): the total is t, triples included; 62, 31,
  18, 12, 8, 7, 6 to 1 for 4/17, 5/16, 6/15, 7/14, 8/13, 9/12, 10/11;
* ``combo_<a>_<b>``, 1 <= a < b <= 6: both a and b appear; paid once; 6 to 1;
* ``single_<n>``: n appears on 1, 2 or 3 dice; 1, 2 or 12 to 1 (SA3: the text's 12, not 3);
* ``four_1234``, ``four_2345``, ``four_2356``, ``four_3456``: three *different* numbers of the
  four appear (SA2); paid once; 7 to 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from server.games.banked.base import InvalidRound, Odds, OptionSpec, WagerSpec
from server.games.banked.outcome import (
    SharedOutcomeRound,
    SharedOutcomeSpec,
    number_suffix,
    roll_dice,
)

FOUR_NUMBER_SETS = ("1234", "2345", "2356", "3456")  # s5, s12(j)

#: s12 payout odds. ``single_<k>_dice``: the individual die face value appearing on k dice.
S12: dict[str, Odds] = {
    "small": (1, 1),
    "big": (1, 1),
    "even": (1, 1),
    "odd": (1, 1),
    "triple": (180, 1),
    "double": (11, 1),
    "any_triple": (31, 1),
    **{
        f"total_{t}": o
        for ts, o in (
            ((4, 17), (62, 1)),
            ((5, 16), (31, 1)),
            ((6, 15), (18, 1)),
            ((7, 14), (12, 1)),
            ((8, 13), (8, 1)),
            ((9, 12), (7, 1)),
            ((10, 11), (6, 1)),
        )
        for t in ts
    },
    "combo": (6, 1),
    "single_1_die": (1, 1),
    "single_2_dice": (2, 1),
    "single_3_dice": (12, 1),
    "four": (7, 1),
}


def family(wager: str) -> str | None:
    """The wager's family (``total_10`` -> ``total``), or ``None`` if it is no s5 wager."""
    if wager in ("small", "big", "even", "odd", "any_triple"):
        return wager
    for fam in ("triple", "double", "single"):
        n = number_suffix(wager, fam)
        if n is not None:
            return fam if 1 <= n <= 6 else None
    t = number_suffix(wager, "total")
    if t is not None:
        return "total" if 4 <= t <= 17 else None
    if wager.startswith("combo_"):
        parts = wager.split("_")[1:]
        if (
            len(parts) == 2
            and all(p in "123456" and len(p) == 1 for p in parts)
            and parts[0] < parts[1]
        ):
            return "combo"
        return None
    if wager.startswith("four_") and wager[5:] in FOUR_NUMBER_SETS:
        return "four"
    return None


def settle_odds(
    wager: str,
    dice: tuple[int, int, int],
    pay_table: Mapping[str, Odds],
    double_includes_triple: bool = True,
) -> Odds | None:
    """The odds ``wager`` wins at on ``dice`` (s5, s12), or ``None`` when it loses."""
    counts = Counter(dice)
    total = sum(dice)
    triple = len(counts) == 1
    fam = family(wager)
    won = False
    if fam == "small":
        won = 4 <= total <= 10 and not triple
    elif fam == "big":
        won = 11 <= total <= 17 and not triple
    elif fam == "even":
        won = total % 2 == 0 and not triple
    elif fam == "odd":
        won = total % 2 == 1 and not triple
    elif fam == "any_triple":
        won = triple
    elif fam == "triple":
        won = counts[int(wager[7:])] == 3
    elif fam == "double":
        k = counts[int(wager[7:])]
        won = k == 2 or (k == 3 and double_includes_triple)
    elif fam == "total":
        return pay_table[wager] if total == int(wager[6:]) else None
    elif fam == "combo":
        a, b = (int(x) for x in wager[6:].split("_"))
        won = counts[a] > 0 and counts[b] > 0
    elif fam == "single":
        k = counts[int(wager[7:])]
        if not k:
            return None
        return pay_table["single_1_die" if k == 1 else f"single_{k}_dice"]
    elif fam == "four":
        won = len(counts) == 3 and all(str(d) in wager[5:] for d in counts)
    else:
        raise ValueError(f"not a sic-bo wager: {wager!r}")
    return pay_table[fam] if won else None


def terminal_layout(options: Mapping[str, Any]) -> dict[str, Any]:
    """What a stadium terminal draws (Sch 19 ETG-10, -12): every position with its label and
    the s12 payout the engine pays."""
    pays = S12
    items: list[dict[str, Any]] = [
        {"id": w, "label": w.replace("_", " "), "pays": list(pays[w])}
        for w in ("small", "big", "odd", "even", "any_triple")
    ]
    items += [
        {"id": f"total_{t}", "label": str(t), "pays": list(pays[f"total_{t}"])}
        for t in range(4, 18)
    ]
    items += [
        {"id": f"{k}_{n}", "label": f"{k} {n}", "pays": list(pays[k])}
        for k in ("double", "triple")
        for n in range(1, 7)
    ]
    items += [
        {"id": f"single_{n}", "label": f"single {n}", "pays": list(pays["single_1_die"])}
        for n in range(1, 7)
    ]
    items += [
        {"id": f"combo_{a}_{b}", "label": f"{a}-{b}", "pays": list(pays["combo"])}
        for a in range(1, 7)
        for b in range(a + 1, 7)
    ]
    items += [
        {"id": f"four_{s}", "label": f"four {s}", "pays": list(pays["four"])}
        for s in FOUR_NUMBER_SETS
    ]
    return {"kind": "sic-bo", "positions": items}


SPEC = SharedOutcomeSpec(
    id="sic-bo",
    title="Sic-bo",
    rules="Queensland Casino Gaming Rule 2010, Schedule 8",
    wagers=(
        WagerSpec("small", doc="s5: total 4-10, not a triple; 1 to 1"),
        WagerSpec("big", doc="s5: total 11-17, not a triple; 1 to 1"),
        WagerSpec("even", doc="s5: total 4-16 even, not a triple; 1 to 1"),
        WagerSpec("odd", doc="s5: total 5-17 odd, not a triple; 1 to 1"),
        WagerSpec("triple_<n>", doc="s5: n = 1..6, three n; 180 to 1"),
        WagerSpec("any_triple", doc="s5: any triple; 31 to 1"),
        WagerSpec("double_<n>", doc="s5: n = 1..6, at least two n (SA1); 11 to 1"),
        WagerSpec("total_<t>", doc="s5: t = 4..17; 62/31/18/12/8/7/6 to 1 (s12(f))"),
        WagerSpec("combo_<a>_<b>", doc="s5: 1 <= a < b <= 6, both appear; 6 to 1"),
        WagerSpec("single_<n>", doc="s5: n on 1/2/3 dice; 1/2/12 to 1"),
        WagerSpec(
            "four_<set>",
            doc="s5: set 1234, 2345, 2356 or 3456, three different "
            "numbers of it appear (SA2); 7 to 1",
        ),
    ),
    verbs=(),
    options=(
        OptionSpec(
            "double_includes_triple",
            True,
            bool,
            doc="SA1: a triple n also wins the specific double n",
        ),
        OptionSpec(
            "num_boxes",
            200,
            minimum=1,
            doc="player positions (terminals) betting on one roll (ETG s2(3))",
        ),
    ),
    pay_tables={"s12": {"payout": S12}},
    parse=family,
    # table facts (stadium): a no roll is re-rolled, the wagers standing (s17)
    on_invalid="stand",
    terminal_layout=terminal_layout,
)


class SicBo(SharedOutcomeRound):
    """One roll at sic-bo (see the module docstring)."""

    spec = SPEC

    def _available(self, wager: str) -> str | None:
        return None

    def _parse_outcome(self, raw: Mapping[str, Any]) -> tuple[int, int, int]:
        dice = raw.get("dice") if set(raw) == {"dice"} else None
        if (
            not isinstance(dice, list)
            or len(dice) != 3
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
        ):
            raise InvalidRound('sic-bo outcome must be {"dice": [three faces 1..6]}')
        a, b, c = sorted(dice)
        return a, b, c

    def _random_outcome(self) -> tuple[int, int, int]:
        a, b, c = sorted(roll_dice(self.rng, 3))
        return a, b, c

    def _wire_outcome(self, outcome: tuple[int, int, int]) -> dict[str, Any]:
        return {"dice": list(outcome)}

    def _call(self, outcome: tuple[int, int, int]) -> str:
        """s14(2)-(3): faces from the smallest, doubles and triples called as such."""
        counts = Counter(outcome)
        parts = []
        for face in sorted(counts):
            k = counts[face]
            parts.append({1: str(face), 2: f"double {face}", 3: f"triple {face}"}[k])
        return f"{', '.join(parts)}; total {sum(outcome)}"

    def _odds(self, wager: str, outcome: tuple[int, int, int]) -> Odds | None:
        return settle_odds(
            wager, outcome, self.pay_table()["payout"], self.options["double_includes_triple"]
        )


ROUNDS = {SPEC.id: SicBo}
