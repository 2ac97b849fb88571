"""Wheel of fortune (Queensland Casino Gaming Rule 2010, Schedule 10; seed 004).

Game id ``wheel-of-fortune``. Digest: ``../shared/rules/wheel-of-fortune.md``.

Theory of operation: a :class:`~server.games.banked.outcome.SharedOutcomeRound`. The only
wager is on a symbol, by its letter (``{"b": 700}``); it wins if that symbol is spun and loses
otherwise (s6, s16, s22), at the odds of the wheel in use (option ``wheel_type``):

* ``50`` (Part 2): sections a 24, b 8, c 8, d 4, e 2, f 2, g 1, h 1 (s2(2)); pays a 1, b 5,
  c 5, d 11, e 22, f 22, g 44, h 44 to 1 (s12(1));
* ``52`` (Part 3): a 24, b 12, c 8, d 4, e 2, f 1, g 1 (s14(2)); 1, 3, 5, 11, 23, 47, 47 to 1
  (s18(1));
* ``54`` (Part 4): a 26, b 13, c 7, d 4, e 2, f 1, g 1 (s20(2)); 1, 3, 6.5, 12, 25, 52, 52 to 1
  (s24(1)); 6.5 to 1 on an odd number of cents rounds down to the cent (WA4).

The i-th symbol of the section counts is symbol i of the pay table (WA1, the digest's
PROPOSED mapping). The arrangement of the sections around the rim (diagrams 10.1/10.3/10.5 are
missing) is the option ``segments``, checked against the counts (WF-23e); by default the
symbols are spread evenly. Without a live or forced result one ``randbelow(50 | 52 | 54)``
picks the section the indicator rests on. On a peg the symbol that last passed the indicator
wins (s12(2)): a live result gives that symbol; an RNG never produces a peg.

"No spin" (s13(1)-(3)): every wager on the spin is void (s13(4)): the table calls ``void``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from server.games.banked.base import InvalidRound, Odds, OptionSpec, WagerSpec
from server.games.banked.outcome import SharedOutcomeRound, SharedOutcomeSpec, spin

SYMBOLS = "abcdefgh"

#: wheel type -> symbol -> number of sections (s2(2), s14(2), s20(2); WA1).
SECTIONS: dict[str, dict[str, int]] = {
    "50": dict(zip("abcdefgh", (24, 8, 8, 4, 2, 2, 1, 1), strict=True)),
    "52": dict(zip("abcdefg", (24, 12, 8, 4, 2, 1, 1), strict=True)),
    "54": dict(zip("abcdefg", (26, 13, 7, 4, 2, 1, 1), strict=True)),
}

#: wheel type -> symbol -> payout odds (s12(1), s18(1), s24(1)).
PAYOUTS: dict[str, dict[str, Odds]] = {
    "50": dict(
        zip(
            "abcdefgh",
            ((1, 1), (5, 1), (5, 1), (11, 1), (22, 1), (22, 1), (44, 1), (44, 1)),
            strict=True,
        )
    ),
    "52": dict(
        zip("abcdefg", ((1, 1), (3, 1), (5, 1), (11, 1), (23, 1), (47, 1), (47, 1)), strict=True)
    ),
    "54": dict(
        zip("abcdefg", ((1, 1), (3, 1), (13, 2), (12, 1), (25, 1), (52, 1), (52, 1)), strict=True)
    ),
}


def default_segments(wheel_type: int) -> tuple[str, ...]:
    """An even spread of the symbols around the rim: the j-th of a symbol's ``c`` sections
    sits at ``(j + 1/2) / c`` of the way round (ties in symbol order)."""
    counts = SECTIONS[str(wheel_type)]
    places = sorted(
        ((2 * j + 1) * 1_000_000 // (2 * c), sym) for sym, c in counts.items() for j in range(c)
    )
    return tuple(sym for _, sym in places)


def check_segments(wheel_type: int, segments: Any) -> tuple[str, ...]:
    """The configured arrangement, which must hold exactly the section counts (WF-23e)."""
    if segments is None:
        return default_segments(wheel_type)
    counts = SECTIONS[str(wheel_type)]
    if not isinstance(segments, list | tuple) or not all(
        isinstance(s, str) and s in counts for s in segments
    ):
        raise InvalidRound(f"segments must list the symbols {', '.join(counts)}")
    got = Counter(segments)
    if dict(got) != counts:
        want = "/".join(str(c) for c in counts.values())
        have = "/".join(str(got[s]) for s in counts)
        raise InvalidRound(
            f"segments for the {wheel_type}-space wheel must hold {want} "
            f"sections of {''.join(counts)}, not {have}"
        )
    return tuple(segments)


def terminal_layout(options: Mapping[str, Any]) -> dict[str, Any]:
    """What a stadium terminal draws (Sch 19 ETG-10, -12): each symbol, its sections on the
    wheel and the payout the engine pays."""
    wt = str(options["wheel_type"])
    return {
        "kind": "wheel-of-fortune",
        "positions": [
            {"id": s, "label": f"symbol {s}", "sections": c, "pays": list(PAYOUTS[wt][s])}
            for s, c in SECTIONS[wt].items()
        ],
    }


SPEC = SharedOutcomeSpec(
    id="wheel-of-fortune",
    title="Wheel of fortune",
    rules="Queensland Casino Gaming Rule 2010, Schedule 10",
    wagers=tuple(
        WagerSpec(s, doc=f"s6: symbol {s}" + (" (50-space wheel only)" if s == "h" else ""))
        for s in SYMBOLS
    ),
    verbs=(),
    options=(
        OptionSpec(
            "wheel_type", 50, choices=(50, 52, 54), doc="Parts 2-4: the 50-, 52- or 54-space wheel"
        ),
        OptionSpec(
            "segments",
            None,
            list,
            nullable=True,
            doc="the symbols clockwise around the rim (diagrams 10.1/10.3/10.5); "
            "null: an even spread",
        ),
        OptionSpec(
            "num_boxes",
            200,
            minimum=1,
            doc="player positions (terminals) betting on one spin (ETG s2(3))",
        ),
    ),
    pay_tables={"s12_s18_s24": PAYOUTS},
    parse=lambda w: w if w in frozenset(SYMBOLS) else None,
    # table facts (stadium): a no spin voids the spin, every wager returned (s13(4))
    on_invalid="void",
    terminal_layout=terminal_layout,
)


class WheelOfFortune(SharedOutcomeRound):
    """One spin of the wheel of fortune (see the module docstring)."""

    spec = SPEC

    def _options_checked(self) -> None:
        self.segments = check_segments(self.options["wheel_type"], self.options["segments"])

    @property
    def symbols(self) -> dict[str, int]:
        return SECTIONS[str(self.options["wheel_type"])]

    def _available(self, wager: str) -> str | None:
        if wager in self.symbols:
            return None
        return (
            f"the {self.options['wheel_type']}-space wheel has the symbols "
            f"{', '.join(self.symbols)} only"
        )

    def _parse_outcome(self, raw: Mapping[str, Any]) -> str:
        seg = raw.get("segment") if set(raw) == {"segment"} else None
        if not isinstance(seg, str) or seg not in self.symbols:
            raise InvalidRound(
                f'wheel of fortune outcome must be {{"segment": one of {", ".join(self.symbols)}}}'
            )
        return seg

    def _random_outcome(self) -> str:
        return self.segments[spin(self.rng, len(self.segments))]

    def _wire_outcome(self, outcome: str) -> dict[str, Any]:
        return {"segment": outcome}

    def _call(self, outcome: str) -> str:
        return f"symbol {outcome}"

    def _odds(self, wager: str, outcome: str) -> Odds | None:
        if wager != outcome:
            return None
        return self.pay_table()[str(self.options["wheel_type"])][wager]


ROUNDS = {SPEC.id: WheelOfFortune}
