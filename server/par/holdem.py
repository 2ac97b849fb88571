"""Texas hold'em bonus (QLD Sch 12) for the PAR sheet: the turn and river strategy, and the
runner with its controls.

Theory of operation (the strategy)
----------------------------------
The flop wager is 2x the ante and closes the pre-flop decision; the turn and river wagers
(1x each, s18, s19) are optional and settled like the flop wager: won 1:1 when the player's
hand beats the dealer's, returned on a tie, lost otherwise (s23). None of them changes how
another is settled, so each is worth making exactly when, given what the player sees, the
player is more likely to win than to lose: ``E[sign(player - dealer)] > 0``. The exact
expectation needs every remaining board card and dealer hand (about a million showdowns a
turn decision), far too many for millions of rounds, so the strategy uses a cheap
estimate of it, :meth:`Board.ahead`: the hand's standing one board card later (the turn
card at the turn decision, the river at the river decision), on average over the cards the
player has not seen, against the dealer's possible two cards counted by their ranks (91
rank pairs weighted by the cards left; a dealer's flush left out). Bet where it is
positive. Pre-flop the published optimal rule folds only 2-3 to 2-7 offsuit (Wizard of Odds'
two-card values, the same under the Atlantic City ante rule that QLD has).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from server.hands import best_of
from server.hands.fast import tables
from server.hands.ranking import STANDARD
from server.par.engine import FastRandom, round_class, unit_stake
from server.par.model import Tally
from server.par.players import book
from server.par.sim import Runner

_POW = tuple(5**r for r in range(13))
_PLAIN = tables(STANDARD).plain


def preflop(hole: Sequence[int]) -> bool:
    """Make the flop wager (s17): every hand but 2-3 to 2-7 offsuit."""
    hi, lo = sorted((c >> 2 for c in hole), reverse=True)
    suited = hole[0] & 3 == hole[1] & 3
    return not (lo == 0 and 1 <= hi <= 5 and not suited)


@cache
def _dealer_ranks(counts: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """The dealer's possible hands by ranks on a board with these rank counts: values sorted,
    cumulative weights (see :class:`Board`)."""
    key = sum(_POW[r] * n for r, n in enumerate(counts))
    left = [4 - n for n in counts]
    pairs: dict[int, int] = {}
    for x in range(13):
        nx = left[x]
        if not nx:
            continue
        kx = key + _POW[x]
        if nx >= 2:
            v = _PLAIN[kx + _POW[x]]
            pairs[v] = pairs.get(v, 0) + nx * (nx - 1) // 2
        for y in range(x + 1, 13):
            ny = left[y]
            if ny:
                v = _PLAIN[kx + _POW[y]]
                pairs[v] = pairs.get(v, 0) + nx * ny
    values = sorted(pairs)
    cum = [0]
    for v in values:
        cum.append(cum[-1] + pairs[v])
    return values, cum


def _standing(counts: tuple[int, ...], value: int) -> float:
    values, cum = _dealer_ranks(counts)
    below = cum[bisect_left(values, value)]
    above = cum[-1] - cum[bisect_right(values, value)]
    return (below - above) / cum[-1]


class Board:
    """The dealer's possible hands on a board of three or four cards, by ranks: every pair of
    ranks the cards left allow, weighted by how many card pairs make it, valued by the
    evaluator's rank table (a flush the dealer might hold is left out: a feature, not a
    showdown), sorted, with the cumulative weights."""

    __slots__ = ("cards", "counts")

    def __init__(self, cards: Sequence[int]) -> None:
        self.cards = list(cards)
        counts = [0] * 13
        for c in cards:
            counts[c >> 2] += 1
        self.counts = tuple(counts)

    def standing(self, value: int) -> float:
        """``P(dealer below) - P(dealer above)`` for a player's hand of ``value``."""
        return _standing(self.counts, value)

    def ahead(self, hole: Sequence[int]) -> float:
        """The hand's standing after one more board card, on average over the cards the
        player has not seen (by rank: the dealer's hands by ranks depend on its rank alone,
        and the player's hand on its suit only where it may complete a flush)."""
        cards = [*hole, *self.cards]
        seen = [0] * 13
        suits = [0, 0, 0, 0]
        for c in cards:
            seen[c >> 2] += 1
            suits[c & 3] += 1
        flush = next((s for s in range(4) if suits[s] >= 4), None)
        counts = list(self.counts)
        total = 0.0
        n = 0
        if flush is None:  # no flush with one more card: the rank table values the hand
            pkey = sum(_POW[r] * k for r, k in enumerate(seen))
            for r in range(13):
                m = 4 - seen[r]
                if m:
                    counts[r] += 1
                    total += m * _standing(tuple(counts), _PLAIN[pkey + _POW[r]])
                    counts[r] -= 1
                    n += m
            return total / n
        held = {c for c in cards if c & 3 == flush}
        for r in range(13):
            m = 4 - seen[r]
            if not m:
                continue
            counts[r] += 1
            key = tuple(counts)
            counts[r] -= 1
            if flush is not None and r * 4 + flush not in held:
                total += _standing(key, best_of([*cards, r * 4 + flush]))
                m -= 1
            if m:
                other = next(r * 4 + t for t in range(4) if t != flush and r * 4 + t not in cards)
                total += m * _standing(key, best_of([*cards, other]))
            n += 4 - seen[r]
        return total / n


def bet(hole: Sequence[int], board: Board) -> bool:
    """Make the turn (3-card board) or river (4-card board) wager (s18, s19): where the hand
    stands ahead of the dealer's possible hands one board card later, on average
    (:meth:`Board.ahead`; the module docstring)."""
    return board.ahead(hole) > 0


# --------------------------------------------------------------------------- the runner

#: the wagers the who-beat-whom controls follow
STREETS = ("flop", "turn", "river", "ante")


def hole_class(hole: Sequence[int]) -> int:
    """The 169 two-card classes: both ranks and whether suited (a pair is never)."""
    hi, lo = sorted((c >> 2 for c in hole), reverse=True)
    suited = hi != lo and hole[0] & 3 == hole[1] & 3
    return hi * 26 + lo * 2 + suited


def hole_classes() -> dict[int, float]:
    """Each class's exact probability: a pair 6, suited 4, offsuit 12 of 1,326 hands."""
    out: dict[int, float] = {}
    for hi in range(13):
        for lo in range(hi + 1):
            if hi == lo:
                out[hi * 26 + lo * 2] = 6 / 1326
            else:
                out[hi * 26 + lo * 2 + 1] = 4 / 1326
                out[hi * 26 + lo * 2] = 12 / 1326
    return out


class HoldemBonus(Runner):
    """Texas hold'em bonus (QLD Sch 12): ante and bonus on every box, the flop wager by
    :func:`preflop`, the turn and river wagers by :func:`bet`.

    Controls (:mod:`server.par.controls`): each box's two-card class and the dealer's (exact
    probabilities), the board's five-card class (exact: five cards of the deck); who beat
    whom, antisymmetric in a box and the dealer (their two cards have the same joint law in
    either order given the board; the wagers each would make by the same strategy); and the
    dealer against the other boxes' hands: a box's result against the dealer less its mean
    result against each other box's two cards as a dealer (given the board, the boxes' and
    the dealer's two cards are alike, so both terms have one mean)."""

    game = "holdem-bonus"
    strategy = (
        "flop wager on every hand but 2-3 to 2-7 offsuit (the published optimal rule); "
        "turn and river wagers where the hand stands ahead one board card later: P(win) - "
        "P(lose) against the dealer's possible two cards (by ranks, flushes left out), on "
        "average over the next board card, positive"
    )
    controls_doc = (
        "each box's two-card class, the dealer's and the board's (exact probabilities); who "
        "beat whom per wager (flop, turn, river, ante), antisymmetric in a box and the "
        "dealer; the dealer against the other boxes' hands as dealers (mean zero)"
    )

    def __init__(self, options: Mapping[str, Any], boxes: int = 7) -> None:
        self.options = dict(options)
        self.boxes = boxes
        self._means: list[float] = []
        self._index: dict[tuple[str, int], int] = {}

    def prepare(self) -> None:
        from server.par.controls import Index, five_card_classes

        index = Index()
        holes = hole_classes()
        common = max(holes, key=lambda k: holes[k])
        for k, p in holes.items():
            if k != common:
                self._index[("box", k)] = index.add(f"box two cards {k}", self.boxes * p)
                self._index[("dealer", k)] = index.add(f"dealer two cards {k}", p)
        boards = five_card_classes()
        top = max(boards, key=lambda k: boards[k])
        for k, q in boards.items():
            if k != top:
                self._index[("board", k)] = index.add(f"board class {k}", q)
        for k, name in enumerate(STREETS):
            self._index[("versus", k)] = index.add(f"beats the dealer: {name}", 0)
            self._index[("field", k)] = index.add(f"dealer v the field: {name}", 0)
        self._means = index.means

    def control_means(self) -> list[float]:
        return self._means

    def _plan(self, hole: Sequence[int], flop: Board, turn: Board) -> tuple[int, int]:
        """(turn wager, river wager) the strategy makes, 0 or 1 each, the flop wager made."""
        return int(bet(hole, flop)), int(bet(hole, turn))

    def _controls(
        self, rnd: Any, plans: Mapping[int, tuple[int, int]], flop: Board, turn: Board
    ) -> list[tuple[int, float]]:
        from server.hands import FLUSH, category, evaluate5
        from server.par.controls import value_class

        at = self._index
        board = rnd.cards[("board", None)]
        dealer = rnd.cards[("dealer", None)]
        out: list[tuple[int, float]] = []
        for name, k in (("dealer", hole_class(dealer)), ("board", value_class(evaluate5(board)))):
            i = at.get((name, k))
            if i is not None:
                out.append((i, 1.0))
        boxes = list(rnd.boxes)
        holes = {b: rnd.cards[("box", b)] for b in boxes}
        values = {b: best_of([*holes[b], *board]) for b in boxes}
        dv = best_of([*dealer, *board])
        dplan = self._plan(dealer, flop, turn) if preflop(dealer) else None

        def result(mine: int, theirs: int) -> tuple[int, float]:
            """(who won: 1, 0, -1; the ante's net: won only with a flush or better)."""
            s = (mine > theirs) - (mine < theirs)
            return s, 1.0 if s > 0 and category(mine) >= FLUSH else -1.0 if s < 0 else 0.0

        # per wager (flop, turn, river: its multiple times who won; the ante), a box
        # against the dealer less the dealer, as a box, against it; and a box against the
        # dealer less its mean against the other boxes' hands
        versus = [0.0] * 4
        field = [0.0] * 4
        others = len(boxes) - 1
        for b in boxes:
            i = at.get(("box", hole_class(holes[b])))
            if i is not None:
                out.append((i, 1.0))
            plan = plans.get(b)
            v = values[b]
            if plan is not None:
                units = (2, plan[0], plan[1])
                s, a = result(v, dv)
                versus[3] += a
                for k in range(3):
                    versus[k] += units[k] * s
                if others:
                    fs = fa = 0.0
                    for c in boxes:
                        if c != b:
                            x, y = result(v, values[c])
                            fs += x
                            fa += y
                    for k in range(3):
                        field[k] += units[k] * (s - fs / others)
                    field[3] += a - fa / others
            if dplan is not None:
                s, a = result(dv, v)
                versus[3] -= a
                for k, u in enumerate((2, dplan[0], dplan[1])):
                    versus[k] -= u * s
        for k in range(len(STREETS)):
            out.append((at[("versus", k)], versus[k]))
            out.append((at[("field", k)], field[k]))
        return out

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"ante": stake, "bonus": stake} for b in range(1, self.boxes + 1)}
        controlled = bool(self._means) and tally.controls is not None
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            board = rnd.cards[("board", None)]
            flop, turn = Board(board[:3]), Board(board[:4])
            plans: dict[int, tuple[int, int]] = {}
            while not rnd.complete:
                street = rnd.street
                for d in rnd.pending():
                    hole = rnd.cards[("box", d.box)]
                    if street == "flop":
                        play = preflop(hole)
                        if play:
                            plans[d.box] = self._plan(hole, flop, turn)
                        rnd.decide(d.box, "bet" if play else "fold")
                    else:
                        wager = plans[d.box][0 if street == "turn" else 1]
                        rnd.decide(d.box, "bet" if wager else "check")
            book(
                rnd,
                tally,
                ("ante", "flop", "turn", "river"),
                "ante",
                self._controls(rnd, plans, flop, turn) if controlled else None,
            )
