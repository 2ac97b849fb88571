"""Exact sheets of the shared-outcome games: roulette (Sch 7), sic-bo (Sch 8), wheel of
fortune (Sch 10).

Theory of operation: the outcome space is small (37 or 38 pockets, 216 ordered throws of
three dice, 50 to 54 wheel sections), so every outcome is played: one engine round per
distinct outcome, forced (``Forced.outcome``, the scenario mode), with every wager of the
game on a box of its own at the unit stake. Each wager's net in that round, with the
outcome's probability (pockets and sections equally likely, s2 of each schedule; dice fair),
is one row of its distribution. Nothing here knows a payout: the odds are the engine's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

from server.cards import FIRST
from server.games.banked.base import Forced
from server.games.banked.outcome import SharedOutcomeRound
from server.par.engine import labels_of, options_for, round_class, unit_stake
from server.par.model import Distribution, Sheet, from_distribution, merge

#: one forced outcome (scenario shape) and its probability
Weighted = tuple[Mapping[str, Any], Fraction]


def settle_every_wager(
    game: str, options: Mapping[str, Any], wagers: Sequence[str], outcomes: Sequence[Weighted]
) -> dict[str, Distribution]:
    """Play each outcome once with every wager on its own box; the wagers' distributions."""
    cls = round_class(game)
    stake = unit_stake(options)
    opts = {**options, "num_boxes": len(wagers)}
    boxes = {i + 1: {w: stake} for i, w in enumerate(wagers)}
    out: dict[str, Distribution] = {w: {} for w in wagers}
    for raw, p in outcomes:
        rnd = cls(opts, boxes, FIRST, forced=Forced(outcome=dict(raw)))
        assert isinstance(rnd, SharedOutcomeRound)
        rnd.start()
        labels = labels_of(rnd)
        for box, ws in rnd.nets.items():
            for w, net in ws.items():
                merge(out[w], labels[(box, w)], Fraction(net, stake), p)
    return out


def _sheet(
    game: str, options: dict[str, Any], dists: Mapping[str, Distribution], notes: list[str]
) -> Sheet:
    return Sheet(
        game=game,
        options=options,
        method="exact",
        rounds=None,
        strategy=None,
        wagers={w: from_distribution(d) for w, d in dists.items()},
        notes=notes,
    )


def roulette(raw: Mapping[str, Any] | None) -> Sheet:
    """Every position of the wheel in use (s8(1)), each pocket 1/37 or 1/38 (s2(1))."""
    from server.games.banked import roulette as engine

    options = options_for("roulette", raw)
    wheel = engine.WHEEL_ORDER[options["wheel_type"]]
    positions = engine.POSITIONS[options["wheel_type"]]
    order = (
        "straight",
        "split",
        "street",
        "corner",
        "first_five",
        "six_line",
        "column",
        "dozen",
        "red",
        "black",
        "odd",
        "even",
        "low",
        "high",
    )
    pocket = {p: i for i, p in enumerate(engine.POCKETS)}

    def place(w: str) -> tuple[int, list[int]]:
        family = engine.family(w) or ""
        return order.index(family), sorted(pocket[p] for p in positions[w])

    wagers = sorted(positions, key=place)
    p = Fraction(1, len(wheel))
    outcomes = [({"number": n if n == "00" else int(n)}, p) for n in wheel]
    notes = [f"{len(wheel)} pockets, each 1/{len(wheel)}; every wager at {unit_stake(options)}c"]
    return _sheet(
        "roulette", options, settle_every_wager("roulette", options, wagers, outcomes), notes
    )


def sic_bo_wagers() -> list[str]:
    """Every sic-bo wager id (s5), in the SCENARIOS.md spelling, checked by the engine."""
    from server.games.banked import sic_bo as engine

    ids = ["small", "big", "even", "odd", "any_triple"]
    ids += [f"triple_{n}" for n in range(1, 7)]
    ids += [f"double_{n}" for n in range(1, 7)]
    ids += [f"total_{t}" for t in range(4, 18)]
    ids += [f"combo_{a}_{b}" for a in range(1, 7) for b in range(a + 1, 7)]
    ids += [f"single_{n}" for n in range(1, 7)]
    ids += [f"four_{s}" for s in engine.FOUR_NUMBER_SETS]
    unknown = [w for w in ids if engine.family(w) is None]
    assert not unknown, unknown
    return ids


def sic_bo(raw: Mapping[str, Any] | None) -> Sheet:
    """Three fair dice: the 216 ordered throws, grouped by the faces shown (s4, s9)."""
    options = options_for("sic-bo", raw)
    throws = Counter(tuple(sorted(t)) for t in product(range(1, 7), repeat=3))
    outcomes = [({"dice": list(t)}, Fraction(n, 216)) for t, n in sorted(throws.items())]
    dists = settle_every_wager("sic-bo", options, sic_bo_wagers(), outcomes)
    notes = ["three fair dice: 216 equally likely throws (56 distinct)"]
    return _sheet("sic-bo", options, dists, notes)


def wheel_of_fortune(raw: Mapping[str, Any] | None) -> Sheet:
    """The wheel in use (option ``wheel_type``), each section equally likely (s2, s14, s20);
    the indicator never rests on a peg in an RNG spin."""
    from server.games.banked import wheel_of_fortune as engine

    options = options_for("wheel-of-fortune", raw)
    segments = engine.check_segments(options["wheel_type"], options["segments"])
    counts = Counter(segments)
    outcomes = [({"segment": s}, Fraction(n, len(segments))) for s, n in counts.items()]
    wagers = list(engine.SECTIONS[str(options["wheel_type"])])
    dists = settle_every_wager("wheel-of-fortune", options, wagers, outcomes)
    notes = [f"{len(segments)} sections: " + ", ".join(f"{s} {n}" for s, n in counts.items())]
    return _sheet("wheel-of-fortune", options, dists, notes)
