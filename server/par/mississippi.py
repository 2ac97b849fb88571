"""Mississippi stud (QLD Sch 18): the optimal strategy, and its player.

Theory of operation
-------------------
Every wager of a box is paid at one multiple of its stake, read from the engine's pay table
for the final five cards (s17; :func:`server.games.banked.mississippi_stud.pay_line`): ``m``
= the odds' win, ``0`` on the stand-off line, ``-1`` on a losing hand. So a box that has
wagered ``W`` units and adds ``k`` (1 to 3, s12-s14) ends with ``(W + k) * m``, and the
optimal play is a small dynamic programme over what the box has seen:

* 5th street (4 cards seen, 48 unseen): ``V5(W) = max(-W, (W + 1) mu, (W + 3) mu)`` with
  ``mu`` the mean multiple over the 48 last cards (linear in ``k``: 1x or 3x is best);
* 4th street (3 seen): ``V4(W) = max(-W, max_k mean over the 49 next cards of V5(W + k))``;
* 3rd street (2 seen): ``V3 = max(-1, max_k mean over the 50 next cards of V4(1 + k))``.

Hands are grouped by suit isomorphism (the sorted ranks held in each suit), so the
programme evaluates about 16,000 four-card classes (some 800,000 five-card hands) and takes
a second or two. The decisions are exact for one box (the other boxes' cards are unseen).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from server.par.engine import FastRandom, round_class, unit_stake
from server.par.model import Tally
from server.par.players import book
from server.par.sim import Runner

Sig = tuple[tuple[int, ...], ...]


def signature(cards: Iterable[int]) -> Sig:
    """The cards up to a relabelling of suits: the sorted rank tuples of the four suits."""
    suits: list[list[int]] = [[], [], [], []]
    for c in cards:
        suits[c & 3].append(c >> 2)
    return tuple(sorted(tuple(sorted(s)) for s in suits))


class Strategy:
    """The optimal Mississippi stud decisions (see the module docstring)."""

    def __init__(self) -> None:
        from server.games.banked import mississippi_stud as engine
        from server.hands import evaluate5

        self.evaluate5 = evaluate5
        self.pay_line = engine.pay_line
        self.pay_table = engine.PAY_TABLE
        self.line_multiple: dict[str | None, float] = {None: -1.0}
        for line, (win, per) in self.pay_table.items():
            self.line_multiple[line] = win / per
        self.mu4: dict[Sig, float] = {}
        self.v4: dict[tuple[Sig, int], tuple[float, int]] = {}
        self.v3: dict[Sig, tuple[float, int]] = {}
        self.value: float | None = None

    def multiple(self, five: Sequence[int]) -> float:
        return self.line_multiple[self.pay_line(self.evaluate5(five))]

    def mean4(self, four: Sequence[int]) -> float:
        sig = signature(four)
        mu = self.mu4.get(sig)
        if mu is None:
            seen = set(four)
            hand = list(four)
            total = 0.0
            for c in range(52):
                if c not in seen:
                    total += self.multiple([*hand, c])
            mu = self.mu4[sig] = total / 48
        return mu

    @staticmethod
    def best5(w: int, mu: float) -> tuple[float, int]:
        """(value, units to add; 0 = fold) at 5th street having wagered ``w``."""
        return max((-float(w), 0), ((w + 1) * mu, 1), ((w + 3) * mu, 3))

    def best4(self, three: Sequence[int], w: int) -> tuple[float, int]:
        key = (signature(three), w)
        got = self.v4.get(key)
        if got is None:
            seen = set(three)
            hand = list(three)
            sums = {1: 0.0, 2: 0.0, 3: 0.0}
            for c in range(52):
                if c in seen:
                    continue
                mu = self.mean4([*hand, c])
                for k in (1, 2, 3):
                    sums[k] += self.best5(w + k, mu)[0]
            got = max([(-float(w), 0)] + [(sums[k] / 49, k) for k in (1, 2, 3)])
            self.v4[key] = got
        return got

    def best3(self, two: Sequence[int]) -> tuple[float, int]:
        key = signature(two)
        got = self.v3.get(key)
        if got is None:
            seen = set(two)
            sums = {1: 0.0, 2: 0.0, 3: 0.0}
            for c in range(52):
                if c in seen:
                    continue
                for k in (1, 2, 3):
                    sums[k] += self.best4([*two, c], 1 + k)[0]
            got = max([(-1.0, 0)] + [(sums[k] / 50, k) for k in (1, 2, 3)])
            self.v3[key] = got
        return got

    def solve(self) -> float:
        """Every starting hand's decision; the game's value per ante (optimal play)."""
        if self.value is None:
            total = 0.0
            for two in combinations(range(52), 2):
                total += self.best3(two)[0]
            self.value = total / 1326
        return self.value

    def table(self) -> dict[str, Any]:
        """The 3rd street decisions by starting hand (the later streets are too many to
        print: 4th street by the three cards seen, 5th by the four, as the programme says)."""
        self.solve()
        names = "23456789TJQKA"
        rows: dict[str, str] = {}
        for two in combinations(range(52), 2):
            a, b = sorted(two, key=lambda c: -(c >> 2))
            suited = "s" if a & 3 == b & 3 and a >> 2 != b >> 2 else ""
            label = names[a >> 2] + names[b >> 2] + suited
            if label not in rows:
                k = self.best3(two)[1]
                rows[label] = "fold" if k == 0 else f"{k}x"
        return {
            "third street (two hole cards)": rows,
            "fourth and fifth street": "the exact EV of each multiple (module "
            "server.par.mississippi)",
        }


class MississippiStud(Runner):
    """Mississippi stud: an ante on every box (7 boxes), played by :class:`Strategy`."""

    game = "mississippi-stud"
    strategy = "optimal (exact dynamic programme over the cards seen, one box)"

    def __init__(self, options: Mapping[str, Any], boxes: int = 7) -> None:
        self.options = dict(options)
        self.boxes = boxes
        self.plan = Strategy()

    def prepare(self) -> None:
        self.plan.solve()

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"ante": stake} for b in range(1, self.boxes + 1)}
        plan = self.plan
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            board = rnd.cards[("board", None)]
            wagered = dict.fromkeys(boxes, 1)
            shown = 0
            while not rnd.complete:
                for d in rnd.pending():
                    hole = rnd.cards[("box", d.box)]
                    seen = [*hole, *board[:shown]]
                    w = wagered[d.box]
                    if shown == 0:
                        k = plan.best3(seen)[1]
                    elif shown == 1:
                        k = plan.best4(seen, w)[1]
                    else:
                        k = plan.best5(w, plan.mean4(seen))[1]
                    if k:
                        wagered[d.box] = w + k
                        rnd.decide(d.box, "bet", k * stake)
                    else:
                        rnd.decide(d.box, "fold")
                shown += 1
            book(rnd, tally, ("ante", "third_street", "fourth_street", "fifth_street"), "ante")
