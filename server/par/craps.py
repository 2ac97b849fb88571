"""The craps sheet (QLD Sch 4): every wager's decision cycle solved exactly.

Theory of operation
-------------------
A craps wager outlives a roll: a win bet waits for its point, a place bet for its number or
a 7. Its return is the absorbing probability of a Markov chain whose states are the engine's
own :class:`~server.games.banked.craps.Layout` (the puck and every standing wager) and whose
transitions are the engine's settlement of each of the 21 distinct throws of two fair dice
(1/36 for a pair, 2/36 otherwise; the faces matter for the hardways).

1. **Set-up.** The tracked wager is placed on box 1 through the engine, in a stated
   situation (``setup``): a line bet on a come-out roll, a come bet with the puck on, the
   odds on a point (the largest odds the engine allows), place/buy/lay/hardway bets with the
   puck on a point, one-roll wagers on a come-out roll.
2. **Transitions.** From a layout, each throw is forced on a fresh round over a copy of it
   (``Craps(..., layout=L, forced=rolls)``). If the engine settles the tracked wager on that
   throw (a win, a loss, a stand-off or a return), the chain is absorbed into the result
   "its label, its net per unit staked"; otherwise it moves to the layout the engine left.
   Layouts are compared by their JSON form, so every distinct state the engine can reach is
   a state of the chain (a handful per wager).
3. **Solve.** The absorption probabilities ``(I - Q) X = R`` by Gauss-Jordan elimination in
   exact fractions: one *decision* of the wager. A wager that stays up after a win (place,
   big 6, the line) has the same chain again afterwards, so the figures are per decision.

The buy and lay commission (s11(1), s12(1)) is charged by the engine when the wager is
placed; it is part of the wager's result here (per unit of the stake, not of stake plus
commission). Odds wagers are mixed over the points in proportion to how often each point is
established.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from server.cards import FIRST
from server.games.banked.base import Forced, WagerSettled
from server.games.banked.craps import HARD, HORN, POINTS, Craps, Layout
from server.par.engine import options_for
from server.par.model import Distribution, Sheet, from_distribution, merge

#: the stake a craps sheet wagers, cents: $60, a multiple of every unit the engine enforces
#: (place 4/5/9/10 $5, place 6/8 $6, horn four and horn high five $1 units)
STAKE = 6000

#: the 21 distinct throws and their probabilities
THROWS: tuple[tuple[tuple[int, int], Fraction], ...] = tuple(
    ((a, b), Fraction(1 if a == b else 2, 36)) for a in range(1, 7) for b in range(a, 7)
)

#: P(point n | a point is established): 3, 4, 5, 5, 4, 3 ways in 24
POINT_WEIGHT = {n: Fraction(6 - abs(7 - n), 24) for n in POINTS}


@dataclass
class Step:
    """One step of a set-up: a roll, or a wager on box 1 (``amount`` None: the largest odds
    the engine allows)."""

    roll: tuple[int, int] | None = None
    bet: str | None = None
    amount: int | None = None


def _apply(options: Mapping[str, Any], layout: Layout, step: Step) -> Layout:
    if step.roll is not None:
        rnd = Craps(
            options, {}, FIRST, forced=Forced(outcome={"rolls": [list(step.roll)]}), layout=layout
        )
        rnd.start()
        rnd.end_of_decisions()
        return rnd.layout
    assert step.bet is not None
    amount = step.amount
    if amount is None:
        amount = Craps(options, {}, FIRST, layout=layout).odds_maximum(1, step.bet)
    rnd = Craps(options, {1: {step.bet: amount}}, FIRST, layout=layout)
    return rnd.layout


def _throw(n: int) -> tuple[int, int]:
    """A throw of total ``n`` (easy where there is a choice)."""
    a = max(1, n - 6)
    if 2 * a == n and n not in (2, 12):
        a -= 1
    return a, n - a


def _key(layout: Layout) -> str:
    return json.dumps(layout.to_json(), sort_keys=True)


def _context(name: str, layout: Layout) -> str:
    """Where the tracked wager stands, for the result's label."""
    rec = next((w for w in layout.wagers if w.box == 1 and w.name == name), None)
    if name in ("win", "dont_win"):
        return "come-out" if layout.point is None else f"point {layout.point}"
    if rec is not None and name in ("come", "dont_come"):
        return "come roll" if rec.point is None else f"come point {rec.point}"
    return ""


def solve(options: Mapping[str, Any], layout: Layout, name: str) -> Distribution:
    """The distribution of the first decision of wager ``name`` (box 1) from ``layout``."""
    index: dict[str, int] = {}
    states: list[Layout] = []
    moves: list[dict[int, Fraction]] = []
    ends: list[Distribution] = []

    def state(lay: Layout) -> int:
        k = _key(lay)
        if k not in index:
            index[k] = len(states)
            states.append(lay)
        return index[k]

    stake = next(w.stake for w in layout.wagers if w.box == 1 and w.name == name)
    state(layout)
    i = 0
    while i < len(states):
        lay = states[i]
        move: dict[int, Fraction] = {}
        end: Distribution = {}
        context = _context(name, lay)
        for dice, p in THROWS:
            rnd = Craps(
                options, {}, FIRST, forced=Forced(outcome={"rolls": [list(dice)]}), layout=lay
            )
            rnd.start()
            rnd.end_of_decisions()
            settled = [
                e
                for e in rnd.events
                if isinstance(e, WagerSettled) and e.box == 1 and e.wager == name
            ]
            if settled:
                net = sum(e.net for e in settled)
                how = "; ".join(f"{e.outcome}: {e.detail}" for e in settled)
                roll = f"{sum(dice)}" + (
                    " hard" if dice[0] == dice[1] and sum(dice) in HARD else ""
                )
                label = f"{context + ', ' if context else ''}{roll}: {how}"
                merge(end, label, Fraction(net, stake), p)
            else:
                j = state(rnd.layout)
                move[j] = move.get(j, Fraction(0)) + p
        moves.append(move)
        ends.append(end)
        i += 1
    return _absorb(moves, ends)


def _absorb(moves: list[dict[int, Fraction]], ends: list[Distribution]) -> Distribution:
    """Solve ``(I - Q) X = R`` for the first state's row of X (Gauss-Jordan, exact)."""
    n = len(moves)
    cols = sorted({k for e in ends for k in e}, key=lambda k: (k[0], k[1]))
    a = [
        [Fraction(int(i == j)) - moves[i].get(j, Fraction(0)) for j in range(n)]
        + [ends[i].get(c, Fraction(0)) for c in cols]
        for i in range(n)
    ]
    for c in range(n):
        pivot = next(r for r in range(c, n) if a[r][c] != 0)
        a[c], a[pivot] = a[pivot], a[c]
        inv = 1 / a[c][c]
        a[c] = [x * inv for x in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c], strict=True)]
    return {c: a[0][n + k] for k, c in enumerate(cols) if a[0][n + k]}


def _commission(options: Mapping[str, Any], layout: Layout, name: str) -> int:
    rec = next(w for w in layout.wagers if w.box == 1 and w.name == name)
    return rec.commission


def _track(options: Mapping[str, Any], steps: list[Step], name: str) -> Distribution:
    layout = Layout()
    for s in steps:
        layout = _apply(options, layout, s)
    dist = solve(options, layout, name)
    fee = _commission(options, layout, name)
    if not fee:
        return dist
    stake = next(w.stake for w in layout.wagers if w.box == 1 and w.name == name)
    out: Distribution = {}
    for (label, pays), p in dist.items():
        merge(out, f"{label} (commission {fee}c paid)", pays - Fraction(fee, stake), p)
    return out


def _mixed(parts: Mapping[int, Distribution]) -> Distribution:
    out: Distribution = {}
    for n, dist in parts.items():
        for (label, pays), p in dist.items():
            merge(out, label, pays, p * POINT_WEIGHT[n])
    return out


def _other_point(n: int | None) -> int:
    """The come out point a wager on ``n`` is tracked under: 6, or 8 for a wager on 6."""
    return 8 if n == 6 else 6


#: what situation each family is tracked from (the sheet's notes say it)
SITUATIONS = {
    "line": "win / dont_win: placed before a come-out roll",
    "come": "come / dont_come: placed with the puck on 6",
    "odds": "win_odds / dont_win_odds: the largest odds the engine allows on a $60 line bet, "
    "mixed over the points as often as each is established (3:4:5:5:4:3)",
    "come_odds": "come_odds_n / dont_come_odds_n: the largest odds on a $60 come bet at n, "
    "the come out point on 6 (8 for n = 6), no on marker: a come-out roll that decides "
    "the come bet returns its come odds (s16(6), digest 3.1)",
    "numbers": "place, buy, lay, big 6/8, hardways: placed with the come out point on 6 "
    "(8 for a wager on 6); off on come-out rolls where s7(1) says so (it only delays them)",
    "one_roll": "one-roll wagers: any roll",
}


def stake_for(options: Mapping[str, Any]) -> int:
    """:data:`STAKE`, or the smallest multiple of it at or above the table minimum."""
    return -(-int(options["minimum"]) // STAKE) * STAKE


def wager_distributions(options: Mapping[str, Any]) -> dict[str, Distribution]:
    """Every craps wager's distribution (one decision per unit staked)."""
    out: dict[str, Distribution] = {}
    stake = stake_for(options)

    def Bet(name: str) -> Step:
        return Step(bet=name, amount=stake)

    out["win"] = _track(options, [Bet("win")], "win")
    out["dont_win"] = _track(options, [Bet("dont_win")], "dont_win")
    for name in ("come", "dont_come"):
        out[name] = _track(options, [Step(roll=_throw(6)), Bet(name)], name)
    for side in ("win", "dont_win"):
        parts = {
            n: _track(
                options,
                [Bet(side), Step(roll=_throw(n)), Step(bet=f"{side}_odds", amount=None)],
                f"{side}_odds",
            )
            for n in POINTS
        }
        out[f"{side}_odds"] = _mixed(parts)
    for side in ("come", "dont_come"):
        for n in POINTS:
            p = _other_point(n)
            steps = [
                Step(roll=_throw(p)),
                Bet(side),
                Step(roll=_throw(n)),
                Step(bet=f"{side}_odds_{n}", amount=None),
            ]
            out[f"{side}_odds_{n}"] = _track(options, steps, f"{side}_odds_{n}")
    for fam in ("place", "buy", "lay"):
        for n in POINTS:
            name = f"{fam}_{n}"
            out[name] = _track(options, [Step(roll=_throw(_other_point(n))), Bet(name)], name)
    for name, n in (("big6", 6), ("big8", 8)):
        out[name] = _track(options, [Step(roll=_throw(_other_point(n))), Bet(name)], name)
    for n in HARD:
        name = f"hard_{n}"
        out[name] = _track(options, [Step(roll=_throw(_other_point(n))), Bet(name)], name)
    for name in (
        "field",
        "any7",
        "any_craps",
        "craps2",
        "craps3",
        "craps12",
        "eleven",
        "horn",
        *(f"horn_high_{x}" for x in HORN),
    ):
        out[name] = _track(options, [Bet(name)], name)
    return out


def sheet(raw: Mapping[str, Any] | None) -> Sheet:
    options = options_for("craps", raw)
    dists = wager_distributions(options)
    notes = [f"every wager ${stake_for(options) // 100}; figures per decision of the wager"]
    notes += list(SITUATIONS.values())
    return Sheet(
        game="craps",
        options=options,
        method="exact",
        rounds=None,
        strategy=None,
        wagers={w: from_distribution(d) for w, d in dists.items()},
        notes=notes,
    )
