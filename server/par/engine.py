"""Driving the engines for PAR sheets: the round classes, options, a unit stake, a fast
seeded random source, and reading a settled round's nets.

Every figure a sheet shows is what an engine settled: this module only builds rounds the
way the scenario command does (``server.games.banked.scenario``) and reads their results.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from server.games.banked.base import BankedRound, GameSpec, WagerSettled
from server.games.banked.scenario import round_class

__all__ = ["FastRandom", "labels_of", "options_for", "round_class", "spec_of", "unit_stake"]

#: The unit stake a sheet wagers (cents): $10, large enough that the engines' rounding down
#: to the cent never bites at the published odds; a table minimum above it is used instead.
UNIT = 1000


def spec_of(game: str) -> GameSpec:
    return round_class(game).spec


def options_for(game: str, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The table options (defaults filled in); an unknown option or a bad value raises
    :class:`~server.games.banked.base.InvalidRound`."""
    return spec_of(game).validate_options(raw)


def unit_stake(options: Mapping[str, Any], multiple: int = 100) -> int:
    """The stake a sheet places: :data:`UNIT`, or the table minimum rounded up to
    ``multiple`` when the minimum is higher (kept under the maximum)."""
    stake = max(UNIT, -(-int(options["minimum"]) // multiple) * multiple)
    return min(stake, int(options["maximum"]))


class FastRandom:
    """A seeded source (the :class:`~server.cards.RandomSource` protocol) for simulations
    only, never for play (the server's sources are in ``server.cards``): ``randbelow(n)`` is
    ``floor(U * n)`` with ``U`` a Mersenne Twister double (53 random bits), ten times
    cheaper than the exact rejection sampling of ``random.Random.randrange``. Its bias is
    below ``n / 2**53`` (under 1e-13 for any deck or wheel), far below any interval a
    simulation can reach."""

    __slots__ = ("_random",)

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed).random

    def randbelow(self, n: int) -> int:
        return int(self._random() * n)


def labels_of(rnd: BankedRound) -> dict[tuple[int, str], str]:
    """(box, wager) -> the engine's words for how it settled (``win: 35 to 1``), from the
    round's :class:`WagerSettled` events (several for one wager joined with ``+``)."""
    out: dict[tuple[int, str], str] = {}
    for e in rnd.events:
        if isinstance(e, WagerSettled):
            words = f"{e.outcome}: {e.detail}" if e.detail else e.outcome
            key = (e.box, e.wager)
            out[key] = f"{out[key]} + {words}" if key in out else words
    return out
