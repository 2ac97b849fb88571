"""Bots that pick a legal action at random (demo, benchmarks, property tests, load tests).

A bot only reads :class:`~server.games.poker.legal.LegalActions`, exactly what a player is
shown; it never sees other players' cards. Its randomness is its own (a ``random.Random``),
never the engine's card source.
"""

from __future__ import annotations

import random

from server.games.poker.legal import LegalActions


def random_action(
    la: LegalActions, rng: random.Random, fold_weight: float = 0.15, unit: int = 1
) -> tuple[str, int | None]:
    """A random legal ``(verb, amount)``; folds with about ``fold_weight`` when facing a
    wager. Free amounts are rounded down to ``unit`` (the chip) where the bounds allow."""
    verbs = []
    if la.check:
        verbs.append("check")
    if la.call is not None:
        verbs.append("call")
    if la.bet is not None:
        verbs.append("bet")
    if la.raise_ is not None:
        verbs.append("raise")
    if la.allin is not None and rng.random() < 0.3:
        verbs.append("allin")
    if not la.check and (not verbs or rng.random() < fold_weight):
        return "fold", None
    if la.check and rng.random() < 0.02:
        return "fold", None  # folding when a check is free is legal
    verb = rng.choice(verbs)
    if verb in ("bet", "raise"):
        bounds = la.bet if verb == "bet" else la.raise_
        assert bounds is not None
        if la.sizes:
            return verb, rng.choice(la.sizes)
        lo, hi = bounds
        pick = rng.random()
        if pick < 0.5 or hi == lo:
            return verb, lo
        if pick < 0.6:
            return verb, hi
        amount = rng.randint(lo, min(hi, lo * 4))
        rounded = amount // unit * unit
        return verb, rounded if rounded >= lo else amount
    return verb, None
