"""Roulette (Queensland Casino Gaming Rule 2010, Schedule 7; seed 004).

Game id ``roulette``. Digest: ``../shared/rules/roulette.md``.

Theory of operation: a :class:`~server.games.banked.outcome.SharedOutcomeRound`. The wagers
frozen at "no more bets" (s9(4)) are settled strictly on their positions when the ball comes
to rest (s13): every losing wager collected, then every winner paid (s6(2)) at the s16(1)
odds. The wheel (option ``wheel_type``, s2(1)) has 37 pockets (``single_zero``: 0, 1-36) or
38 (``double_zero``: 0, 00, 1-36). Without a live or forced result, one
``randbelow(37 | 38)`` picks the pocket from the standard wheel order (digest §1, PROPOSED;
settlement uses the number alone).

Wager ids (SCENARIOS.md): the digest's id joined with every number covered, in the order
0, 00, 1..36: ``straight_17``, ``split_17_20``, ``street_16_17_18``, ``corner_13_14_16_17``,
``six_line_13_14_15_16_17_18``, ``first_five`` (double zero only, s8(2)), ``column_1``..``3``,
``dozen_1``..``3``, ``red``, ``black``, ``odd``, ``even``, ``low``, ``high``. The zero
combinations are the digest's PROPOSED sets (RA1; diagrams 7.5/7.6 are missing): single zero
splits 0-1, 0-2, 0-3, streets 0-1-2, 0-2-3, corner 0-1-2-3; double zero splits 0-00, 0-1,
0-2, 00-2, 00-3, streets 0-1-2, 0-00-2, 00-2-3, first five. On 0 or 00 every other wager
loses (s16(2)): the even chances do not cover the zeros, and there is no la partage or en
prison. A position that is not on the layout (``split_1_5``) is no wager (s8(1)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.games.banked.base import InvalidRound, Odds, OptionSpec, WagerSpec
from server.games.banked.outcome import SharedOutcomeRound, SharedOutcomeSpec, spin

#: Pocket labels in wager-id order: 0, 00, 1..36.
POCKETS: tuple[str, ...] = ("0", "00", *(str(n) for n in range(1, 37)))
_ORDER = {p: i for i, p in enumerate(POCKETS)}

#: s2(1), digest §1 (PROPOSED standard wheels, clockwise from 0).
WHEEL_ORDER: dict[str, tuple[str, ...]] = {
    "single_zero": tuple(
        "0 32 15 19 4 21 2 25 17 34 6 27 13 36 11 30 8 23 10 5 24 16 33 1 20 14 31 9 22 18 29 "
        "7 28 12 35 3 26".split()
    ),
    "double_zero": tuple(
        "0 28 9 26 30 11 7 20 32 17 5 22 34 15 3 24 36 13 1 00 27 10 25 29 12 8 19 31 18 6 21 "
        "33 16 4 23 35 14 2".split()
    ),
}

RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})

#: s16(1) payout odds by wager family.
S16: dict[str, Odds] = {
    "straight": (35, 1),
    "split": (17, 1),
    "street": (11, 1),
    "corner": (8, 1),
    "first_five": (6, 1),
    "six_line": (5, 1),
    "column": (2, 1),
    "dozen": (2, 1),
    "low": (1, 1),
    "high": (1, 1),
    "even": (1, 1),
    "odd": (1, 1),
    "red": (1, 1),
    "black": (1, 1),
}


def _key(*pockets: int | str) -> str:
    """The id suffix for a set of pockets: labels in the order 0, 00, 1..36."""
    labels = sorted({str(p) for p in pockets}, key=_ORDER.__getitem__)
    return "_".join(labels)


def _inside_positions() -> dict[str, dict[str, frozenset[str]]]:
    """wheel type -> wager id -> pockets covered, for the inside and first-five wagers."""
    plain: dict[str, frozenset[str]] = {}

    def add(family: str, *ns: int | str, into: dict[str, frozenset[str]] = plain) -> None:
        into[f"{family}_{_key(*ns)}"] = frozenset(str(n) for n in ns)

    for n in range(1, 37):
        add("straight", n)
        if n % 3:  # same row, next column
            add("split", n, n + 1)
        if n <= 33:  # same column, next row
            add("split", n, n + 3)
        if n % 3 and n <= 32:
            add("corner", n, n + 1, n + 3, n + 4)
    for r in range(1, 13):
        add("street", 3 * r - 2, 3 * r - 1, 3 * r)
    for r in range(1, 12):
        add("six_line", *range(3 * r - 2, 3 * r + 4))
    single = dict(plain)
    add("straight", 0, into=single)
    ns: tuple[int | str, ...]  # the pockets of one zero-row wager
    for ns in ((0, 1), (0, 2), (0, 3)):
        add("split", *ns, into=single)
    for ns in ((0, 1, 2), (0, 2, 3)):
        add("street", *ns, into=single)
    add("corner", 0, 1, 2, 3, into=single)
    double = dict(plain)
    add("straight", 0, into=double)
    add("straight", "00", into=double)
    for ns in ((0, "00"), (0, 1), (0, 2), ("00", 2), ("00", 3)):
        add("split", *ns, into=double)
    for ns in ((0, 1, 2), (0, "00", 2), ("00", 2, 3)):
        add("street", *ns, into=double)
    double["first_five"] = frozenset({"0", "00", "1", "2", "3"})
    return {"single_zero": single, "double_zero": double}


def _outside_positions() -> dict[str, frozenset[str]]:
    """The outside wagers (s8(2)); the same on both wheels, none covers 0 or 00 (s16(2))."""
    nums = range(1, 37)
    out = {
        "low": [n for n in nums if n <= 18],
        "high": [n for n in nums if n >= 19],
        "even": [n for n in nums if n % 2 == 0],
        "odd": [n for n in nums if n % 2],
        "red": [n for n in nums if n in RED],
        "black": [n for n in nums if n not in RED],
    }
    for k in (1, 2, 3):
        out[f"column_{k}"] = [n for n in nums if (n - 1) % 3 + 1 == k]
        out[f"dozen_{k}"] = [n for n in nums if 12 * (k - 1) < n <= 12 * k]
    return {w: frozenset(str(n) for n in ns) for w, ns in out.items()}


OUTSIDE = _outside_positions()
#: wheel type -> wager id -> pockets covered (every permissible wager, s8(1)).
POSITIONS: dict[str, dict[str, frozenset[str]]] = {
    wheel: {**inside, **OUTSIDE} for wheel, inside in _inside_positions().items()
}
_ALL_IDS = set(POSITIONS["single_zero"]) | set(POSITIONS["double_zero"])


def family(wager: str) -> str | None:
    """The s16 pay-table key of a wager id on either wheel, or ``None`` if it is no wager."""
    if wager not in _ALL_IDS:
        return None
    for fam in ("column", "dozen", "six_line", "first_five"):
        if wager.startswith(fam):
            return fam
    return wager.split("_", 1)[0]


def terminal_layout(options: Mapping[str, Any]) -> dict[str, Any]:
    """What a stadium terminal draws (Sch 19 ETG-10, -12): the wheel's zeros and reds, the
    s16 payouts the engine pays and the number of compartments."""
    wheel = options["wheel_type"]
    return {
        "kind": "roulette",
        "wheel_type": wheel,
        "zeros": ["0"] if wheel == "single_zero" else ["0", "00"],
        "red": sorted(RED),
        "payouts": {k: list(v) for k, v in S16.items()},
        "positions": len(POSITIONS[wheel]),
    }


SPEC = SharedOutcomeSpec(
    id="roulette",
    title="Roulette",
    rules="Queensland Casino Gaming Rule 2010, Schedule 7",
    wagers=(
        WagerSpec("straight_<n>", doc="s8(2): one number, 0, 00 or 1-36; 35 to 1"),
        WagerSpec("split_<a>_<b>", doc="s8(2): two adjacent numbers (RA1 zero splits); 17 to 1"),
        WagerSpec("street_<a>_<b>_<c>", doc="s8(2): a row of three (RA1 zero trios); 11 to 1"),
        WagerSpec(
            "corner_<a>_<b>_<c>_<d>", doc="s8(2): four numbers (0-1-2-3 on single zero); 8 to 1"
        ),
        WagerSpec("first_five", doc="s8(2): 00, 0, 1, 2, 3, double zero only; 6 to 1"),
        WagerSpec("six_line_<6 numbers>", doc="s8(2): two adjacent rows; 5 to 1"),
        WagerSpec("column_<k>", doc="s8(2): k = 1..3, ((n-1) mod 3)+1 = k; 2 to 1"),
        WagerSpec("dozen_<k>", doc="s8(2): 1-12, 13-24, 25-36; 2 to 1"),
        *(
            WagerSpec(w, doc="s8(2): loses on 0 and 00 (s16(2)); 1 to 1")
            for w in ("red", "black", "odd", "even", "low", "high")
        ),
    ),
    verbs=(),
    options=(
        OptionSpec(
            "wheel_type",
            "single_zero",
            str,
            choices=("single_zero", "double_zero"),
            doc="s2(1): 37 or 38 compartments",
        ),
        OptionSpec(
            "num_boxes",
            200,
            minimum=1,
            doc="player positions (terminals) betting on one spin (ETG s2(3))",
        ),
    ),
    pay_tables={"s16": {"payout": S16}},
    parse=family,
    # table facts (stadium): a no spin is re-spun, the wagers standing (s17; general.md)
    on_invalid="stand",
    terminal_layout=terminal_layout,
)


class Roulette(SharedOutcomeRound):
    """One spin of roulette (see the module docstring)."""

    spec = SPEC

    @property
    def positions(self) -> dict[str, frozenset[str]]:
        return POSITIONS[self.options["wheel_type"]]

    def _available(self, wager: str) -> str | None:
        if wager in self.positions:
            return None
        if wager == "first_five":
            return "first five is for double zero roulette only (s8(2))"
        return f"not a position on the {self.options['wheel_type'].replace('_', ' ')} layout"

    def _parse_outcome(self, raw: Mapping[str, Any]) -> str:
        if set(raw) != {"number"}:
            raise InvalidRound('roulette outcome must be {"number": 0..36 or "00"}')
        n = raw["number"]
        if n == "00" or (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 36):
            label = str(n)
            if label in WHEEL_ORDER[self.options["wheel_type"]]:
                return label
        raise InvalidRound(f"no pocket {n!r} on a {self.options['wheel_type']} wheel")

    def _random_outcome(self) -> str:
        wheel = WHEEL_ORDER[self.options["wheel_type"]]
        return wheel[spin(self.rng, len(wheel))]

    def _wire_outcome(self, outcome: str) -> dict[str, Any]:
        return {"number": outcome if outcome == "00" else int(outcome)}

    def _call(self, outcome: str) -> str:
        if outcome in ("0", "00"):
            return f"{outcome} green"
        return f"{outcome} {'red' if int(outcome) in RED else 'black'}"

    def _odds(self, wager: str, outcome: str) -> Odds | None:
        if outcome not in self.positions[wager]:
            return None
        fam = family(wager)
        assert fam is not None
        return self.pay_table()["payout"][fam]


ROUNDS = {SPEC.id: Roulette}
