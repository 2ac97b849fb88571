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

The exact sheet (:func:`exact_sheet`)
------------------------------------
Under this strategy a box's round is decided by its five cards in the order they come: the
streets it bets (1x to 3x, or the street it folds on) and the pay line of the final hand.
:meth:`Strategy.classes` counts the ordered deals (1,326 hole pairs x 50 x 49 x 48) of
every such class with the same suit-isomorphism caching: per four cards the pay lines of
the 48 last cards, per three cards and amount wagered the classes of the 49 x 48 cards to
come, per two cards the whole distribution. One engine round per class, on forced cards of
that class (a five-card hand the evaluator puts on that pay line) with the class's
decisions, gives every wager's net, so the sheet is exact and every payout the engine's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

from server.games.banked.base import Forced
from server.par.engine import FastRandom, labels_of, options_for, round_class, unit_stake
from server.par.model import Outcome, Sheet, Tally, WagerSheet
from server.par.players import book
from server.par.sim import Runner

Sig = tuple[tuple[int, ...], ...]
#: how a box's round went: the multiples bet on 3rd, 4th and 5th street (0: folded there,
#: the later streets None) and the final hand's pay line (None: losing or folded)
Path = tuple[int, int | None, int | None, str | None]


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
        self._lines4: dict[Sig, dict[str | None, int]] = {}
        self._dist3: dict[tuple[Sig, int], dict[tuple[int, int | None, str | None], int]] = {}
        #: one five-card hand per pay line (the engine's example of each)
        self.examples: dict[str | None, list[int]] = {}

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

    def lines4(self, four: Sequence[int]) -> dict[str | None, int]:
        """How many of the 48 last cards put ``four`` on each pay line (cached by class),
        with one five-card hand of each line kept as the engine's example."""
        sig = signature(four)
        got = self._lines4.get(sig)
        if got is None:
            got = {}
            seen = set(four)
            for c in range(52):
                if c not in seen:
                    five = [*four, c]
                    line = self.pay_line(self.evaluate5(five))
                    got[line] = got.get(line, 0) + 1
                    self.examples.setdefault(line, five)
            self._lines4[sig] = got
        return got

    def _after3(
        self, three: Sequence[int], w: int
    ) -> dict[tuple[int, int | None, str | None], int]:
        """4th street on: the counts of (4th, 5th, line) over the 49 x 48 cards to come."""
        key = (signature(three), w)
        got = self._dist3.get(key)
        if got is None:
            got = {}
            k4 = self.best4(three, w)[1]
            if k4 == 0:
                got[(0, None, None)] = 49 * 48
            else:
                seen = set(three)
                for c in range(52):
                    if c in seen:
                        continue
                    four = [*three, c]
                    k5 = self.best5(w + k4, self.mean4(four))[1]
                    k: tuple[int, int | None, str | None]
                    if k5 == 0:
                        k = (k4, 0, None)
                        got[k] = got.get(k, 0) + 48
                        continue
                    for line, n in self.lines4(four).items():
                        k = (k4, k5, line)
                        got[k] = got.get(k, 0) + n
            self._dist3[key] = got
        return got

    def classes(self) -> dict[Path, int]:
        """Every path's number of ordered deals (hole pair, then the three community cards
        in order) under the optimal strategy: 1,326 x 50 x 49 x 48 in all."""
        self.solve()
        by_two: dict[Sig, dict[Path, int]] = {}
        total: dict[Path, int] = {}
        for two in combinations(range(52), 2):
            sig = signature(two)
            dist = by_two.get(sig)
            if dist is None:
                dist = {}
                k3 = self.best3(two)[1]
                if k3 == 0:
                    dist[(0, None, None, None)] = 50 * 49 * 48
                else:
                    seen = set(two)
                    for c in range(52):
                        if c in seen:
                            continue
                        for (k4, k5, line), n in self._after3([*two, c], 1 + k3).items():
                            path: Path = (k3, k4, k5, line)
                            dist[path] = dist.get(path, 0) + n
                by_two[sig] = dist
            for path, n in dist.items():
                total[path] = total.get(path, 0) + n
        return total

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


def _line(rows: list[tuple[str, int, int, Fraction]], note: str | None = None) -> WagerSheet:
    """A wager's exact line from its placements: (result, stake, net, probability), the
    probabilities over the rounds it is placed in. RTP is the total returned over the total
    staked (a street wager is 1x to 3x the ante), as the simulated sheets count it."""
    placed = sum((p for _, _, _, p in rows), Fraction(0))
    stake = sum((s * p for _, s, _, p in rows), Fraction(0))
    net = sum((x * p for _, _, x, p in rows), Fraction(0))
    m = net / stake
    per_unit: dict[tuple[str, Fraction], Fraction] = {}
    for result, s, x, p in rows:
        key = (result, Fraction(x, s))
        per_unit[key] = per_unit.get(key, Fraction(0)) + p / placed
    mean = sum((q * u for (_, u), q in per_unit.items()), Fraction(0))
    square = sum((q * u * u for (_, u), q in per_unit.items()), Fraction(0))
    hit = sum((q for (_, u), q in per_unit.items() if u > 0), Fraction(0))
    ordered = sorted(per_unit.items(), key=lambda kv: (-kv[0][1], kv[0][0]))
    return WagerSheet(
        rtp=float(1 + m),
        house_edge=float(-m),
        ci95=0.0,
        hit_frequency=float(hit),
        stdev=max(float(square - mean * mean), 0.0) ** 0.5,
        outcomes=[Outcome(r, float(q), float(u)) for (r, u), q in ordered if q],
        exact_rtp=1 + m,
        note=note,
    )


def exact_sheet(raw: Mapping[str, Any] | None) -> Sheet:
    """Mississippi stud's exact sheet under the optimal strategy (module docstring)."""
    options = options_for("mississippi-stud", raw)
    stake = unit_stake(options)
    cls = round_class("mississippi-stud")
    plan = Strategy()
    counts = plan.classes()
    deals = sum(counts.values())
    assert deals == 1326 * 50 * 49 * 48
    streets = ("third_street", "fourth_street", "fifth_street")
    rows: dict[str, list[tuple[str, int, int, Fraction]]] = {
        w: [] for w in ("ante", *streets, "round")
    }
    for path, n in sorted(counts.items(), key=lambda kv: str(kv[0])):
        p = Fraction(n, deals)
        k3, k4, k5, line = path
        five = plan.examples[line] if k5 else plan.examples[None]
        rnd: Any = cls(
            options,
            {1: {"ante": stake}},
            FastRandom(0),
            forced=Forced(boxes={1: five[:2]}, board=five[2:]),
        )
        rnd.start()
        for k in (k3, k4, k5):
            if k is None or rnd.complete:
                break
            if k:
                rnd.decide(1, "bet", k * stake)
            else:
                rnd.decide(1, "fold")
        assert rnd.complete
        nets, stakes, labels = rnd.nets[1], rnd.stakes[1], labels_of(rnd)
        bets = "-".join(f"{k}x" if k else "fold" for k in (k3, k4, k5) if k is not None)
        for w, net in nets.items():
            rows[w].append((f"{labels[(1, w)]} ({bets})", stakes[w], net, p))
        rows["round"].append((f"{labels[(1, 'ante')]} ({bets})", stake, sum(nets.values()), p))
    value = plan.solve()
    wagers = {w: _line(rows[w]) for w in ("ante", *streets)}
    per_round = _line(rows["round"])
    per_round.basis = "ante (every wager of the box, per unit of the ante)"
    per_round.method = "exact"
    return Sheet(
        game="mississippi-stud",
        options=options,
        method="exact",
        rounds=None,
        strategy=MississippiStud.strategy,
        wagers=wagers,
        per_round=per_round,
        strategy_table=plan.table(),
        notes=[
            f"exact: every ordered deal of one box (1,326 hole pairs x 50 x 49 x 48 "
            f"community cards) under the strategy, {len(counts)} classes of streets bet "
            "and pay line, one engine round each",
            "3rd, 4th and 5th street: per unit of that wager (1x to 3x the ante), over "
            "the rounds it is placed in",
            f"the dynamic programme's own value of the strategy: {1 + value:.6%} of the "
            "ante returned (the same game, counted by the programme's floats)",
        ],
        extra={
            "exact_per_round": {
                "rtp": 1 + value,
                "house_edge": -value,
                "basis": "ante, optimal strategy, one box (the dynamic programme)",
            }
        },
    )
